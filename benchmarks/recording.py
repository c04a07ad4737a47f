"""record(): its overhead over the bare ``env.step`` + ``env.render`` loop it replaces,
beside the alternatives a user has (a loop appending the frames to a list, gymnasium's
``RecordVideo``), and the memory it holds while recording long Pong episodes, against
the code before recording encoded as it went.

Overhead, pooled mode (benchmarks.recording_cpu measures one long-lived process and the
total CPU of every process): every side runs the same seeded env with the same policy
(Pong: the same pre-drawn random actions; CartPole: a balancing rule, as random actions
end it in ~20 steps) and stops at the same step; each repetition runs every side once,
in a shuffled order (no side always follows the same one), and each side's time is
divided by the bare loop's of the same repetition (paired ratios: drift in machine load
hits both alike); the table gives the medians. Each env runs in several fresh processes
in turn (``--processes``), their samples pooled: processes differ more than repetitions
within one do (two runs of 41 repetitions in one process put Pong's record() at 1.098x
and at 1.116x the bare loop, same code, same day), and the verdicts give that spread.
record()'s time covers the whole call, the encoding of frames and observations and
building the Rollout included; record(path=) also writes the file and reads it back;
RecordVideo's covers writing its MP4 (moviepy, ffmpeg). Where there is a second core,
frames and image observations are encoded by the encoder process, started (and waited
for) before the first repetition, as it is from a process's second recording on; its CPU
time is not in record()'s, and is measured apart (from /proc). Its work shares the
machine with the stepping thread all the same: a last side runs the bare loop while
another process deflates without pause, which says how spare the second core is. The
bars (issue #37): record() at most 1.10x the bare loop, record(path=) at most 1.15x,
both faster than appending the frames to a list.

Memory: each recording runs in a fresh process, which reports its peak resident
memory above what it held before recording (the env made and reset). Pong ends after
~1,000 random steps, so a long episode is Pong restarted in place whenever a game
ends (one episode of real frames). The old code runs from a git worktree of
``--baseline`` where it can finish; beyond that it is extrapolated from its growth
per step. The bar: 100,000 steps with under 300 MB of growth.

    .venv/bin/python -m benchmarks.recording            # prints and updates RESULTS.md
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import RecordVideo

from agent_widget.format._codec import CHUNK_SIZE, encode_part
from agent_widget.format._zlib_runs import runs_of
from agent_widget.recording._encoder._process import encoder_process
from agent_widget.recording._policies import PolicyFunction
from agent_widget.recording._record import record
from benchmarks.results import (
    ROOT,
    arguments,
    code_version,
    command,
    machine,
    shuffled_orders,
    today,
    write_section,
)

TITLE = "Recording"
SEED = 0
PONG_STEPS = 1_000
MAX_STEPS = 1_000
LENGTHS = (1_000, 10_000, 100_000)
BASELINE = "2bdf3c8"  # the last commit whose recorder held frames and observations raw
BASELINE_MAX_STEPS = 10_000  # 100,000 raw Pong steps need ~23 GB: extrapolated
MEMORY_BAR_MB = 300

# One recording in a fresh process: peak resident memory above the start, and time.
CHILD = """
import json, sys, time
import gymnasium as gym, ale_py, numpy as np
from agent_widget import record

class Endless(gym.Wrapper):  # Pong restarted in place when a game ends: one long episode
    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated:
            obs, _ = self.env.reset()
        return obs, reward, False, truncated, info

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

steps, path = int(sys.argv[1]), sys.argv[2] or None  # path: record(path=...) to disk
gym.register_envs(ale_py)
env = Endless(gym.make("ALE/Pong-v5", render_mode="rgb_array", max_episode_steps=None))
actions = np.random.default_rng(0).integers(env.action_space.n, size=steps).tolist()
env.reset(seed=0)
env.render()
start = status("VmRSS")
began = time.perf_counter()
kwargs = {"path": path} if path else {}
rollout = record(env, lambda obs, a=iter(actions): next(a), seed=0, max_steps=steps, **kwargs)
seconds = time.perf_counter() - began
print(json.dumps({"steps": rollout.num_steps, "growth": status("VmHWM") - start,
                  "seconds": seconds}))
"""


def playback(env: gym.Env) -> Callable[[], PolicyFunction]:
    """Pre-drawn random actions of ``env``, played back from the first for each run."""
    actions = np.random.default_rng(SEED).integers(env.action_space.n, size=PONG_STEPS).tolist()

    def policy() -> PolicyFunction:
        remaining = iter(actions)
        return lambda obs: next(remaining)

    return policy


def pong() -> tuple[gym.Env, Callable[[], PolicyFunction]]:
    """Pong with pre-drawn random actions (a fresh playback for each run)."""
    import ale_py

    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    return env, playback(env)


def pong_stacked() -> tuple[gym.Env, Callable[[], PolicyFunction]]:
    """Pong as a DQN sees it (gymnasium's Atari preprocessing, 4 stacked 84x84 frames:
    28 KB observations that are not the frames), rendered too."""
    import ale_py
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

    gym.register_envs(ale_py)
    base = gym.make("ALE/Pong-v5", render_mode="rgb_array", frameskip=1)
    env = FrameStackObservation(AtariPreprocessing(base), 4)
    return env, playback(env)


def cartpole() -> tuple[gym.Env, Callable[[], PolicyFunction]]:
    """CartPole balanced for its full 500 steps (random actions drop the pole in ~20)."""
    env = gym.make("CartPole-v1", render_mode="rgb_array")
    return env, lambda: lambda obs: int(3 * obs[2] + obs[3] > 0)


ENVS = {
    "ALE/Pong-v5": pong,
    "ALE/Pong-v5, 4 stacked 84x84 obs": pong_stacked,
    "CartPole-v1": cartpole,
}


def bare_loop(env: gym.Env, policy: PolicyFunction, max_steps: int, keep: bool = False) -> int:
    """What record() replaces: act, step, render, stop at the episode's end. Returns the steps.

    ``keep=True`` also holds on to the frames, as any recorder must: it separates the
    cost of keeping frames in memory from record()'s own bookkeeping.
    """
    frames = []
    obs, _ = env.reset(seed=SEED)
    frames.append(env.render())
    for t in range(max_steps):
        obs, _, terminated, truncated, _ = env.step(policy(obs))
        frame = env.render()
        if keep:
            frames.append(frame)
        if terminated or truncated:
            return t + 1
    return max_steps


def video_loop(video: RecordVideo, policy: PolicyFunction, max_steps: int) -> int:
    """gymnasium's RecordVideo around the same env: it renders each step itself and
    writes the episode's MP4 when it ends. Returns the steps."""
    obs, _ = video.reset(seed=SEED)
    steps = max_steps
    for t in range(max_steps):
        obs, _, terminated, truncated, _ = video.step(policy(obs))
        if terminated or truncated:
            steps = t + 1
            break
    video.stop_recording()
    return steps


def pong_frames() -> list[np.ndarray]:
    """The frames of the Pong episode the overhead is measured on."""
    env, policy = pong()
    frames: list[np.ndarray] = []
    act = policy()
    env.reset(seed=SEED)
    frames.append(env.render())
    for _ in range(MAX_STEPS):
        _, _, terminated, truncated, _ = env.step(act(None))
        frames.append(env.render())
        if terminated or truncated:
            break
    env.close()
    return frames


def encoding_costs(frames: list[np.ndarray], reps: int) -> dict[str, float]:
    """Seconds (medians of ``reps``) to encode the episode's frames as record() does, a
    chunk at a time (``encode_part``), and of the part of it that finds the bytes that
    changed (``runs_of`` on each frame and the one before it in its chunk); the rest is
    mostly deflating."""
    chunks = [np.stack(frames[k : k + CHUNK_SIZE]) for k in range(0, len(frames), CHUNK_SIZE)]
    wholes, finds = [], []
    for _ in range(reps):
        start = time.perf_counter()
        for k, chunk in enumerate(chunks):
            encode_part(chunk, k * CHUNK_SIZE)
        middle = time.perf_counter()
        for chunk in chunks:
            for previous, frame in itertools.pairwise(chunk.reshape(len(chunk), -1)):
                runs_of(previous, frame)
        wholes.append(middle - start)
        finds.append(time.perf_counter() - middle)
    whole, find = statistics.median(wholes), statistics.median(finds)
    return {"whole": whole, "find": find, "rest": whole - find}


SIDES = ("bare", "keep", "record", "disk", "video", "busy")
BARS = {"record": 1.10, "disk": 1.15}

# What the encoder process's work costs the stepping thread where the second core is
# not spare: another process deflating without pause beside the bare loop.
NEIGHBOUR = """
import os, zlib
data = os.urandom(1 << 16) * 4
print(flush=True)
while True:
    zlib.compress(data, 6)
"""


@contextlib.contextmanager
def busy_neighbour() -> Iterator[None]:
    """Another process keeps the machine's other core deflating while the block runs."""
    with subprocess.Popen([sys.executable, "-c", NEIGHBOUR], stdout=subprocess.PIPE) as child:
        assert child.stdout is not None
        child.stdout.readline()  # deflating from here on
        try:
            yield
        finally:
            child.kill()


def give_back_freed_memory() -> None:
    """Have the C allocator give the memory freed so far back to the system, so that
    every side starts from the same state, as in a fresh process. Otherwise what a side
    pays depends on the side before it: the list of frames (96 MB for Pong) reused
    the memory its previous run freed when the allocator had kept it, and cost 1.006x
    the bare loop, or took it anew from the system, page by page, and cost 1.166x
    (medians of 41 and of 21 repetitions on the same code, the same day)."""
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench(
    name: str,
    setup: Callable[[], tuple[gym.Env, Callable[[], PolicyFunction]]],
    reps: int,
    folder: Path,
) -> dict:
    env, policy = setup()
    disk = folder / "episode.rollout"
    video = RecordVideo(
        env,
        str(Path(tempfile.mkdtemp(dir=folder)) / "videos"),
        episode_trigger=lambda _: True,
        disable_logger=True,
    )
    if (process := encoder_process()) is not None:
        process.wait_ready()
    encoder = None if process is None else process.process.pid
    runs = {
        "bare": lambda: bare_loop(env, policy(), MAX_STEPS),
        "keep": lambda: bare_loop(env, policy(), MAX_STEPS, keep=True),
        "record": lambda: record(env, policy(), seed=SEED, max_steps=MAX_STEPS).num_steps,
        "disk": lambda: record(env, policy(), seed=SEED, max_steps=MAX_STEPS, path=disk).num_steps,
        "video": lambda: video_loop(video, policy(), MAX_STEPS),
        "busy": lambda: bare_loop(env, policy(), MAX_STEPS),
    }
    times: dict[str, list[float]] = {kind: [] for kind in SIDES}
    encoding: list[float] = []  # the encoder process's CPU seconds in each record()
    steps = set()
    runs["record"]()  # the first recording starts what later ones reuse (a ring)
    for order in shuffled_orders(SIDES, reps):
        for kind in order:
            with busy_neighbour() if kind == "busy" else contextlib.nullcontext():
                give_back_freed_memory()
                used = cpu_seconds(encoder) if encoder and kind == "record" else 0.0
                start = time.perf_counter()
                steps.add(runs[kind]())
                times[kind].append(time.perf_counter() - start)
                if encoder and kind == "record":
                    encoding.append(cpu_seconds(encoder) - used)
    env.close()
    if len(steps) != 1:
        raise RuntimeError(f"{name}: runs took different numbers of steps: {sorted(steps)}")
    return {"steps": steps.pop(), "times": times, "encoding": encoding}


def pooled(name: str, samples: list[dict]) -> dict:
    """One env's row from the samples of every process: medians of the pooled times and
    paired ratios, and the range of record()'s median ratio from process to process."""
    steps = {sample["steps"] for sample in samples}
    if len(steps) != 1:
        raise RuntimeError(f"{name}: processes took different numbers of steps: {sorted(steps)}")

    def paired(sample: dict, kind: str) -> list[float]:
        times = sample["times"]
        return [mine / bare for mine, bare in zip(times[kind], times["bare"], strict=True)]

    ms = {
        kind: statistics.median(t for sample in samples for t in sample["times"][kind]) * 1e3
        for kind in SIDES
    }
    ratios = {
        f"{kind} ratio": statistics.median(r for sample in samples for r in paired(sample, kind))
        for kind in SIDES[1:]
    }
    each = [statistics.median(paired(sample, "record")) for sample in samples]
    encoding = [seconds for sample in samples for seconds in sample["encoding"]]
    encoder_ms = statistics.median(encoding) * 1e3 if encoding else 0.0
    return {
        "env": name,
        "steps": steps.pop(),
        **ms,
        **ratios,
        "encoder ms": encoder_ms,
        "record ratios": (min(each), max(each)),
    }


def child_json(args: list[str], cwd: Path | str, env: dict[str, str] | None = None) -> dict:
    """What a fresh Python process run with ``args`` prints as its last line (JSON)."""
    out = subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def bench_in_child(name: str, reps: int) -> dict:
    """:func:`bench` of env ``name`` in a fresh process (its own encoder process and
    memory layout): processes differ more than repetitions within one do."""
    return child_json(["-m", "benchmarks.recording", "--child", name, "--reps", str(reps)], ROOT)


def record_in_child(steps: int, code: Path, path: str = "") -> dict:
    """One recording of ``steps`` Pong steps by the package at ``code``, in a fresh process
    (to the file ``path`` as it is recorded, if given)."""
    return child_json(
        ["-c", CHILD, str(steps), path],
        tempfile.gettempdir(),  # not ROOT: the package comes from PYTHONPATH alone
        {**os.environ, "PYTHONPATH": str(code)},
    )


def baseline_worktree(revision: str, folder: Path) -> Path:
    """The package as it was at ``revision``, checked out beside (its built front end
    borrowed from this checkout: recording does not use it)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), revision],
        check=True,
        capture_output=True,
    )
    (folder / "agent_widget" / "static").symlink_to(ROOT / "agent_widget" / "static")
    return folder


def memory(baseline: str) -> list[dict]:
    """Peak memory growth while recording each length, new code and old."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        old = baseline_worktree(baseline, Path(scratch) / "old")
        try:
            for steps in LENGTHS:
                row = {"steps": steps, "new": record_in_child(steps, ROOT), "old": None}
                row["disk"] = record_in_child(steps, ROOT, f"{scratch}/{steps}.rollout")
                row["file"] = os.path.getsize(f"{scratch}/{steps}.rollout")
                if steps <= BASELINE_MAX_STEPS:
                    row["old"] = record_in_child(steps, old)
                rows.append(row)
                print(row, flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                check=False,
                capture_output=True,
            )
    return rows


def memory_table(rows: list[dict], baseline: str) -> str:
    measured = [row for row in rows if row["old"] is not None]
    per_step = max(row["old"]["growth"] / row["steps"] for row in measured)
    lines = [
        f"| steps | peak growth, before ({baseline}) | peak growth, now | ratio "
        "| now, with path= | its file | record() time, before | now | now, with path= |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        new, old = row["new"], row["old"]
        if old is None:
            estimate = per_step * row["steps"]
            before = f"~{estimate / 1e9:,.1f} GB (extrapolated)"
            ratio, old_time = f"~{estimate / new['growth']:,.0f}x", "—"
        else:
            before = f"{old['growth'] / 1e6:,.0f} MB"
            ratio = f"{old['growth'] / new['growth']:,.0f}x"
            old_time = f"{old['seconds']:.1f} s"
        disk = row["disk"]
        lines.append(
            f"| {row['steps']:,} | {before} | {new['growth'] / 1e6:,.1f} MB | {ratio} "
            f"| {disk['growth'] / 1e6:,.1f} MB | {row['file'] / 1e6:,.1f} MB "
            f"| {old_time} | {new['seconds']:.1f} s | {disk['seconds']:.1f} s |"
        )
    return "\n".join(lines)


def table(rows: list[dict], reps: int) -> str:
    lines = [
        f"| env | steps | bare step+render (ms, median of {reps}) "
        "| keeping frames in a list | record() | record(path=) | gymnasium's RecordVideo "
        "| bare, the other core deflating | encoder process CPU a record() |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = [f"{row[kind]:.0f} ms, {row[f'{kind} ratio']:.3f}x" for kind in SIDES[1:]]
        lines.append(
            f"| {row['env']} | {row['steps']:,} | {row['bare']:.0f} | {' | '.join(cells)} "
            f"| {row['encoder ms']:.0f} ms |"
        )
    return "\n".join(lines)


def verdicts(rows: list[dict]) -> str:
    """Each env's record() and record(path=) against the bars."""
    said = []
    for row in rows:
        for kind, bar in BARS.items():
            ratio = row[f"{kind} ratio"]
            meets = ratio <= bar and ratio < row["keep ratio"]
            said.append(
                f"{row['env']} {'record(path=)' if kind == 'disk' else 'record()'} "
                f"{ratio:.3f}x (bar {bar:.2f}x and under the list's {row['keep ratio']:.3f}x): "
                f"{'meets' if meets else 'MISSES'} it"
            )
    spread = ", ".join(
        "{} {:.3f}-{:.3f}x".format(row["env"], *row["record ratios"]) for row in rows
    )
    return "; ".join(said) + f". record() from one process to the next: {spread}."


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions per side a process")
    parser.add_argument("--processes", type=int, default=3, help="fresh processes per env")
    parser.add_argument("--baseline", default=BASELINE, help="the old code's git revision")
    parser.add_argument("--child", choices=ENVS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:  # one process's samples, for the parent to pool
        with tempfile.TemporaryDirectory() as scratch:
            print(json.dumps(bench(args.child, ENVS[args.child], args.reps, Path(scratch))))
        return
    load_start = os.getloadavg()[0]
    grows = memory(args.baseline)
    samples: dict[str, list[dict]] = {name: [] for name in ENVS}
    for _ in range(args.processes):  # the envs interleaved, so drift in load hits each
        for name in ENVS:
            samples[name].append(bench_in_child(name, args.reps))
    rows = [pooled(name, samples[name]) for name in ENVS]
    reps = args.reps * args.processes
    result = table(rows, reps)
    costs = encoding_costs(pong_frames(), reps)
    frames = rows[0]["steps"] + 1
    print(result)
    longest = grows[-1]["new"]["growth"] / 1e6
    longest_disk = grows[-1]["disk"]["growth"] / 1e6
    memory_verdict = "meets" if max(longest, longest_disk) < MEMORY_BAR_MB else "MISSES"
    body = (
        f"`{command('benchmarks.recording', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}).\n\n"
        "Peak memory while recording one Pong episode (random actions, the game restarted "
        "in place when it ends, frames and observations kept), each length in a fresh "
        "process: its peak resident memory above what it held before recording. Before: "
        f"the code at {args.baseline}, which held every frame and observation raw until "
        f"the episode ended; beyond {BASELINE_MAX_STEPS:,} steps its growth per step is "
        "extrapolated.\n\n"
        f"{memory_table(grows, args.baseline)}\n\n"
        "With `path=`, each chunk goes to the file as it fills and its frames and "
        "observations and infos are let go: what stays is the per-step values (actions, "
        "rewards, flags as Python lists) and the chunk index: "
        f"{grows[-1]['disk']['growth'] / grows[-1]['steps']:,.0f} B a step at "
        f"{grows[-1]['steps']:,} steps.\n\n"
        f"Bar (100,000 Pong steps recorded with under {MEMORY_BAR_MB} MB of growth): "
        f"{longest:,.1f} MB in memory, {longest_disk:,.1f} MB with path=, "
        f"{memory_verdict} it.\n\n"
        f"Overhead, pooled mode ({reps} repetitions of every side: {args.processes} fresh "
        "processes an "
        f"env, the envs in turn, each running {args.reps} in a shuffled order; each time "
        "divided by the bare loop's of its repetition, the medians of those paired ratios "
        "pooled; "
        "before each, the C allocator gives the memory freed so far back to the system, so "
        "that every side starts as in a fresh process, whatever ran before it). "
        f"Same seeded env and policy on all sides (Pong: the same pre-drawn random actions, "
        f"up to {MAX_STEPS:,} steps; CartPole: a balancing rule, {rows[-1]['steps']:,} "
        "steps); record() time includes encoding the frames and observations and building "
        "the Rollout; record(path=) also writes the file (flushed to the OS at every chunk, "
        "fsynced at the end) and reads it back; RecordVideo writes an MP4.\n\n"
        f"{result}\n\n"
        f"Bars: {verdicts(rows)} Encoding this Pong episode's {frames:,} frames alone, "
        f"out of the loop (a chunk at a time), takes {costs['whole'] * 1e3:.0f} ms "
        f"(median of {reps}): {costs['find'] * 1e6 / frames:.0f} µs a frame finding "
        f"the bytes that changed, {costs['rest'] * 1e6 / frames:.0f} µs the rest, mostly "
        "deflating. On this 2-core machine that work is the encoder process's; the "
        "stepping thread copies each frame into shared memory, compares an observation "
        "with its frame (Atari's are the screen), and keeps the step's values. How spare "
        "that core is: the bare loop beside a process deflating without pause on the other "
        f"core takes {rows[0]['busy ratio']:.3f}x its time alone (Pong), while the encoder "
        f"process works {rows[0]['encoder ms']:.0f} ms of CPU during a record() of "
        f"{rows[0]['record']:.0f} ms."
    )
    if not args.no_write:
        write_section(TITLE, body)


if __name__ == "__main__":
    main()
