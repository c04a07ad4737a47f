"""Rollout.branch(): the time to branch a 1,000-step Pong episode late (t = 900), by
replaying from the seed and by restoring an env state saved while recording, against
what a user does without it (recording the episode again with the action forced at
t); and what the saved states cost in memory, against the episode's file size.

Every side branches the same episode (random actions, seed 0) at the same step and
takes one step past it (``max_steps=1``), so the time is the replay's; repetitions
rotate the order of the sides, medians reported.

    .venv/bin/python -m benchmarks.branch            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

from agent_widget import Rollout, record
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Branching"
STEPS, T, SEED = 1_000, 900, 0
EVERY = (100, 250, 500)
BAR_SECONDS, BAR_SHARE = 1.0, 0.10


def pong() -> gym.Env:
    import ale_py

    gym.register_envs(ale_py)
    return gym.make("ALE/Pong-v5", render_mode="rgb_array")


def playback(moves: list[int]) -> Callable[[object], int]:
    remaining = iter(moves)
    return lambda obs: next(remaining)


def forced(moves: list[int], t: int, action: int) -> Callable[[object], int]:
    """The recorded actions with ``action`` at ``t``: a branch made by hand."""
    return playback([*moves[:t], action])


def state_bytes(rollout: Rollout) -> int:
    """Bytes the saved states hold (ALE's, deflated)."""
    return sum(len(state.data) for state in rollout.states.values())


def state_sizes(rollout: Rollout) -> tuple[float, float]:
    """The mean bytes of one saved state, serialized and as held (deflated)."""
    states = list(rollout.states.values())
    raw = statistics.mean(len(zlib.decompress(state.data)) for state in states)
    return raw, statistics.mean(len(state.data) for state in states)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per side")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    moves = np.random.default_rng(SEED).integers(6, size=STEPS).tolist()
    episodes = {None: record(pong(), playback(moves), seed=SEED, max_steps=STEPS)}
    for every in EVERY:
        episodes[every] = record(
            pong(), playback(moves), seed=SEED, max_steps=STEPS, states_every=every
        )
    env = pong()
    action = (int(episodes[None].actions[T]) + 1) % 6
    sides: dict[str, Callable[[], object]] = {
        "record again, the action forced at t": lambda: record(
            env, forced(moves, T, action), seed=SEED, max_steps=T + 1
        ),
        "branch, replayed from the seed": lambda: episodes[None].branch(
            T, action, env=env, policy=lambda obs: 0, max_steps=1
        ),
    }
    for every in EVERY:
        sides[f"branch, from a state saved every {every} steps"] = lambda every=every: episodes[
            every
        ].branch(T, action, env=env, policy=lambda obs: 0, max_steps=1)
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(args.reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            start = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - start)
    ms = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    with tempfile.TemporaryDirectory() as scratch:
        file_bytes = episodes[None].save(Path(scratch) / "pong.rollout").stat().st_size
    baseline = ms["branch, replayed from the seed"]
    rows = [
        f"| how | time to branch at t = {T} (ms, median) | vs the replay from the seed "
        "| saved states in memory | per step | share of the file |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        every = next((e for e in EVERY if name.endswith(f"every {e} steps")), None)
        held = state_bytes(episodes[every]) if every else 0
        memory = (
            f"{held / 1e3:,.1f} KB | {held / STEPS:,.0f} B | {held / file_bytes:.1%}"
            if every
            else "— | — | —"
        )
        rows.append(f"| {name} | {ms[name]:,.0f} | {ms[name] / baseline:.2f}x | {memory} |")
    best = min(EVERY, key=lambda e: ms[f"branch, from a state saved every {e} steps"])
    under_share = [e for e in EVERY if state_bytes(episodes[e]) / file_bytes < BAR_SHARE]
    fastest_within = min(
        (ms[f"branch, from a state saved every {e} steps"], e) for e in under_share or EVERY
    )
    raw, packed = state_sizes(episodes[EVERY[0]])
    position = file_bytes / (STEPS + 1)
    verdict = "meets" if fastest_within[0] / 1e3 < BAR_SECONDS and under_share else "MISSES"
    body = (
        f"`{command('benchmarks.branch', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, "
        f"{args.reps} repetitions per side in rotated order, medians).\n\n"
        f"A {STEPS:,}-step ALE/Pong-v5 episode (random actions, seed {SEED}; its .rollout "
        f"file: {file_bytes / 1e3:,.0f} KB), branched at t = {T} with one step past it. "
        "Each branch replays the recorded actions, checking every observation and the "
        "frame at t; from a saved state it starts at the last one strictly before t (a "
        "step at least checks what a restored state shows). Recording the episode again "
        "is what a user does without branch(): every step rendered and "
        "encoded, nothing checked. States are ALE's, random generator included (sticky "
        "actions draw from it), held in memory and never saved to the file.\n\n"
        + "\n".join(rows)
        + f"\n\nBar (branch at t = {T} in under {BAR_SECONDS:.0f} s, saved states under "
        f"{BAR_SHARE:.0%} of the file): every {fastest_within[1]} steps, "
        f"{fastest_within[0]:,.0f} ms and "
        f"{state_bytes(episodes[fastest_within[1]]) / file_bytes:.1%} of the file, {verdict} "
        f"it. The fastest here is every {best} steps. An ALE state is {raw / 1e3:.1f} KB "
        f"({packed / 1e3:.1f} KB deflated, as held) whatever the episode, while a Pong "
        f"position stores in {position:.0f} B: a state costs as much as "
        f"{packed / position:.0f} positions of the file, so states are few or costly."
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
