"""record() in one long-lived process, as a notebook kernel runs it: its wall time and the
total CPU of every process it involves (the encoder process and resource trackers
included), against the bare step-and-render loop, optionally with every core kept busy.

benchmarks.recording's pooled mode runs each env in fresh processes and counts the
stepping process's time; a kernel records many times in one process, and on a machine
with no spare core the encoder process's CPU is the user's cost too. Here one process
warms up (a recording and a bare loop), then runs ``--pairs`` repetitions of the bare
loop, record() and record(path=) with the same seeded env and actions, in a shuffled
order; each side's wall time and CPU are divided by the bare loop's of the same
repetition, and the table gives the medians of those paired ratios.

CPU is read around each side: this process's user and system time (all its threads,
``time.process_time``), that of every live process below it (from /proc's schedstat:
``getrusage`` children would miss an encoder that has not exited), and that of children
reaped meanwhile (in 10 ms ticks). ``--busy N``
starts N busy loops (``timeout``-bounded shell loops, not counted) before the warm-up,
so the encoder process gets no spare core.

    .venv/bin/python -m benchmarks.recording_cpu             # quiet: updates RESULTS.md
    .venv/bin/python -m benchmarks.recording_cpu --busy 2    # every core busy
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

from agent_widget.format._codec import CHUNK_SIZE, encode_part
from agent_widget.recording._policies import PolicyFunction
from agent_widget.recording._record import record
from benchmarks.recording import ENVS, MAX_STEPS, SEED, bare_loop
from benchmarks.results import (
    arguments,
    code_version,
    command,
    machine,
    shuffled_orders,
    today,
    write_section,
)

TITLE = "Recording in one long-lived process: wall time and total CPU"
SIDES = ("bare", "record", "disk")
BUSY_SECONDS = 3600  # the busy loops' bound, should this process die without ending them
QUIET_LOAD = 0.5  # the 1-minute load average under which the machine counts as quiet
NAMES = {"pong": "ALE/Pong-v5", "cartpole": "CartPole-v1"}


def descendants(root: int) -> dict[int, int]:
    """Every live process below ``root``, each with its parent's pid."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    below, frontier = {}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid:
                below[child] = parent
                frontier.append(child)
    return below


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid``'s threads have run so far, in nanoseconds' resolution
    (/proc's stat counts 10 ms ticks: 10 µs a frame over a Pong episode)."""
    tasks = Path(f"/proc/{pid}/task")
    return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks.iterdir()) / 1e9


def total_cpu(skip: set[int]) -> tuple[float, float]:
    """CPU seconds so far of this process and everything it started (reaped children
    included), leaving out the processes ``skip`` and those below them; and of those
    other processes alone (the encoder, trackers)."""
    others = 0.0
    for pid, parent in descendants(os.getpid()).items():
        if pid in skip or parent in skip:
            skip.add(pid)
            continue
        try:
            others += cpu_seconds(pid)
        except OSError:  # ended meanwhile: counted once reaped
            continue
    times = os.times()
    reaped = times.children_user + times.children_system
    return time.process_time() + reaped + others, others


def busy_loops(count: int) -> list[subprocess.Popen]:
    """``count`` processes spinning a core each, ended at the latest by ``timeout``."""
    loop = ["timeout", str(BUSY_SECONDS), "sh", "-c", "while :; do :; done"]
    return [subprocess.Popen(loop) for _ in range(count)]


def measure(run: Callable[[], int], skip: set[int]) -> dict[str, float]:
    """One side's wall time, total CPU and the other processes' CPU, in seconds."""
    cpu, others = total_cpu(skip)
    start = time.perf_counter()
    steps = run()
    wall = time.perf_counter() - start
    cpu_end, others_end = total_cpu(skip)
    return {"steps": steps, "wall": wall, "cpu": cpu_end - cpu, "others": others_end - others}


def episode_frames(env: gym.Env, policy: PolicyFunction) -> np.ndarray:
    """The frames of the episode the sides record."""
    obs, _ = env.reset(seed=SEED)
    frames = [env.render()]
    for _ in range(MAX_STEPS):
        obs, _, terminated, truncated, _ = env.step(policy(obs))
        frames.append(env.render())
        if terminated or truncated:
            break
    return np.stack(frames)


def inline_encoding(frames: np.ndarray, reps: int) -> float:
    """CPU seconds a frame to encode ``frames`` as record() does, a chunk at a time, on
    the stepping thread (median of ``reps``): what the encoder process saves it."""
    chunks = [frames[k : k + CHUNK_SIZE] for k in range(0, len(frames), CHUNK_SIZE)]
    costs = []
    for _ in range(reps):
        start = time.process_time()
        for k, chunk in enumerate(chunks):
            encode_part(chunk, k * CHUNK_SIZE)
        costs.append((time.process_time() - start) / len(frames))
    return statistics.median(costs)


def bench(name: str, pairs: int, skip: set[int], folder: Path) -> dict:
    """The env's samples: each side's measurements in every repetition."""
    env, policy = ENVS[NAMES[name]]()
    disk = folder / "episode.rollout"
    runs = {
        "bare": lambda: bare_loop(env, policy(), MAX_STEPS),
        "record": lambda: record(env, policy(), seed=SEED, max_steps=MAX_STEPS).num_steps,
        "disk": lambda: record(env, policy(), seed=SEED, max_steps=MAX_STEPS, path=disk).num_steps,
    }
    runs["record"]()  # warm-up: starts the encoder process and what later recordings reuse
    runs["bare"]()
    samples: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
    for order in shuffled_orders(SIDES, pairs):
        for side in order:
            samples[side].append(measure(runs[side], skip))
    inline = inline_encoding(episode_frames(env, policy()), pairs)
    env.close()
    steps = {sample["steps"] for side in SIDES for sample in samples[side]}
    if len(steps) != 1:
        raise RuntimeError(f"{name}: runs took different numbers of steps: {sorted(steps)}")
    return {"env": NAMES[name], "steps": steps.pop(), "samples": samples, "inline": inline}


def row(result: dict) -> str:
    """One env's line: the bare loop's medians, then each side's paired ratios."""
    samples, frames = result["samples"], result["steps"] + 1

    def median(side: str, key: str) -> float:
        return statistics.median(sample[key] for sample in samples[side])

    def paired(side: str, key: str) -> float:
        mine, bare = samples[side], samples["bare"]
        return statistics.median(m[key] / b[key] for m, b in zip(mine, bare, strict=True))

    cells = [f"{median('bare', 'wall') * 1e3:.0f} ms", f"{median('bare', 'cpu') * 1e3:.0f} ms"]
    for side in SIDES[1:]:
        cells += [
            f"{paired(side, 'wall'):.3f}x",
            f"{paired(side, 'cpu'):.3f}x",
            f"{median(side, 'others') * 1e6 / frames:.0f} µs",
        ]
    cells.append(f"{result['inline'] * 1e6:.0f} µs")
    return f"| {result['env']} | {result['steps']:,} | " + " | ".join(cells) + " |"


def table(results: list[dict], pairs: int) -> str:
    return "\n".join(
        [
            f"| env | steps | bare loop wall (median of {pairs}) | bare loop CPU "
            "| record() wall | record() CPU | its other processes' CPU a frame "
            "| record(path=) wall | record(path=) CPU | its other processes' CPU a frame "
            "| encoding the frames inline, CPU a frame |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            *map(row, results),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7, help="repetitions of every side")
    parser.add_argument("--busy", type=int, default=0, help="busy loops running beside")
    parser.add_argument("--envs", nargs="+", choices=NAMES, default=list(NAMES))
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    loops = busy_loops(args.busy)
    skip = {loop.pid for loop in loops}
    try:
        with tempfile.TemporaryDirectory() as scratch:
            results = [bench(name, args.pairs, skip, Path(scratch)) for name in args.envs]
    finally:
        for loop in loops:
            loop.terminate()  # timeout passes it on to its loop (a SIGKILL would not)
            loop.wait()
    result = table(results, args.pairs)
    print(result)
    beside = f"{args.busy} busy loops beside it" if args.busy else "no busy loops beside it"
    if load_start >= QUIET_LOAD:
        beside += (
            f"; not a quiet machine (load under {QUIET_LOAD} at the start): the quiet "
            "figure is still to be taken"
        )
    body = (
        f"`{command('benchmarks.recording_cpu', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, {beside}).\n\n"
        "One long-lived process: a warm-up recording and bare loop, then "
        f"{args.pairs} repetitions of the bare step-and-render loop, record() and "
        "record(path=) in a shuffled order, same seeded env and actions. Wall and CPU are "
        "medians of each side's ratio to the bare loop of its repetition; CPU is the total "
        "of every process involved (this one's threads, the encoder process, resource "
        "trackers, children reaped), from /proc. The other processes' CPU is the encoder "
        "process's and trackers' alone, per frame recorded. Encoding inline: the episode's "
        "frames encoded a chunk at a time (`encode_part`) in this process, CPU a frame "
        f"(median of {args.pairs}), the work the encoder process takes off the stepping "
        "thread.\n\n"
        f"{result}"
    )
    if not args.no_write:
        write_section(TITLE + (f", {args.busy} busy loops" if args.busy else ""), body)


if __name__ == "__main__":
    main()
