"""The zlib-runs codec's run finder (``runs_of``): CPU a frame, against the one at
``--baseline``, on real frames.

The codec's own cost in a recording is finding the bytes that changed from one frame to
the next, not deflating them. Both finders run in this process on the same frame pairs
(Pong's consecutive frames from seeded random play, CartPole's from a balancing rule, a
Connect Four-sized frame, and Pong frames that change nothing or everything),
interleaved round by round; each figure is the median over rounds of CPU time
(``time.process_time``) a frame, as the machine is shared. Both must write the same
bytes: a difference stops the benchmark.

    .venv/bin/python -m benchmarks.run_finder              # prints and updates RESULTS.md
"""

from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import time
import types
from collections.abc import Callable

import gymnasium as gym
import numpy as np

from agent_widget.format._zlib_runs import runs_of
from agent_widget.recording._policies import PolicyFunction
from benchmarks.recording import ENVS, SEED
from benchmarks.recording_cpu import NAMES, episode_frames
from benchmarks.results import ROOT, arguments, code_version, command, machine, today, write_section

TITLE = "Run finder"
BASELINE = "b9ef00d"  # the byte-wise finder
Finder = Callable[[np.ndarray, np.ndarray], bytes]
Pairs = list[tuple[np.ndarray, np.ndarray]]


def finder_at(revision: str) -> Finder:
    """``runs_of`` as it was at ``revision``."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:agent_widget/format/_zlib_runs.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("baseline_zlib_runs")
    exec(compile(source, "baseline_zlib_runs.py", "exec"), module.__dict__)
    return module.runs_of


def consecutive(frames: np.ndarray) -> Pairs:
    rows = frames.reshape(len(frames), -1)
    return list(itertools.pairwise(rows))


def started(name: str) -> tuple[gym.Env, PolicyFunction]:
    """The benchmark env ``name`` and a fresh policy for it."""
    env, policy = ENVS[name]()
    return env, policy()


def cases() -> dict[str, Pairs]:
    """Each case's frame pairs (previous, next) as rows of bytes."""
    pong, cartpole = (episode_frames(*started(NAMES[name])) for name in ("pong", "cartpole"))
    still = pong[100].reshape(-1)
    rng = np.random.default_rng(SEED)
    board = rng.integers(0, 256, 774 * 891 * 3, dtype=np.uint8)
    moved = board.copy()
    moved[1_000_000:1_020_000] //= 2  # a piece dropping: rows of a column
    return {
        f"ALE/Pong-v5, {len(pong) - 1} consecutive frames": consecutive(pong),
        f"CartPole-v1, {len(cartpole) - 1} consecutive frames": consecutive(cartpole),
        "Connect Four-sized (774x891), a column changed": [(board, moved)],
        "Pong, nothing changed": [(still, still.copy())],
        "Pong, everything changed": [(still, ~still)],
    }


def per_frame(finder: Finder, pairs: Pairs, reps: int) -> float:
    """CPU seconds a frame pair, over ``reps`` passes."""
    start = time.process_time()
    for _ in range(reps):
        for previous, row in pairs:
            finder(previous, row)
    return (time.process_time() - start) / (reps * len(pairs))


def compare(old: Finder, pairs: Pairs, rounds: int) -> tuple[float, float]:
    """Median CPU a frame of ``old`` and of today's finder, interleaved round by round."""
    for previous, row in pairs:
        if old(previous, row) != runs_of(previous, row):
            raise RuntimeError("the finders write different bytes")
    reps = max(1, 200_000_000 // (len(pairs) * pairs[0][0].size))  # ~0.2 GB compared a round
    olds, news = [], []
    for _ in range(rounds):
        olds.append(per_frame(old, pairs, reps))
        news.append(per_frame(runs_of, pairs, reps))
    return statistics.median(olds), statistics.median(news)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--baseline", default=BASELINE, help="the old finder's git revision")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    old = finder_at(args.baseline)
    lines = [
        f"| frames | before ({args.baseline}), CPU a frame | now | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, pairs in cases().items():
        before, now = compare(old, pairs, args.rounds)
        lines.append(
            f"| {name} | {before * 1e6:.1f} µs | {now * 1e6:.1f} µs | {now / before:.2f}x |"
        )
        print(lines[-1], flush=True)
    body = (
        f"`{command('benchmarks.run_finder', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}).\n\n"
        f"`runs_of` CPU a frame (medians of {args.rounds} interleaved rounds, "
        "`time.process_time`), the byte-wise finder against the word-wise one; both "
        "write the same bytes (checked on every pair).\n\n" + "\n".join(lines)
    )
    if not args.no_write:
        write_section(TITLE, body)


if __name__ == "__main__":
    main()
