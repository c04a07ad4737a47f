"""Rollout.branch(): the time to branch a 1,000-step Pong episode recorded with defaults
late (t = 900), against a plain replay of its 900 actions from reset; from the seed
(a loaded file holds no states); what the states saved by default cost in memory,
against the episode's file; and what saving them costs record().

Every branch takes one step past t (``max_steps=1``), so its time is the replay's and
the bookkeeping's. The sides run in turn, in a seeded shuffled order each repetition; each
branch is read against the plain replay of the same repetition (paired), and the
medians of those ratios are the verdicts.

    .venv/bin/python -m benchmarks.branch            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

from agent_widget import Rollout, load, record
from agent_widget.recording._env_states import SavedStates
from benchmarks.results import (
    arguments,
    code_version,
    command,
    machine,
    publish,
    shuffled_orders,
    today,
)

TITLE = "Branching"
STEPS, T, SEED = 1_000, 900, 0
BAR_STATES, BAR_SEED, BAR_SHARE, BAR_RECORD = 0.30, 1.05, 0.10, 0.03


def pong() -> gym.Env:
    import ale_py

    gym.register_envs(ale_py)
    return gym.make("ALE/Pong-v5", render_mode="rgb_array")


def playback(moves: list[int]) -> Callable[[object], int]:
    remaining = iter(moves)
    return lambda obs: next(remaining)


def state_bytes(rollout: Rollout) -> int:
    """Bytes the saved states hold (each a delta against the one before, the first whole)."""
    return sum(state.nbytes for state in rollout.states.values())


def timed(side: Callable[[], object]) -> float:
    start = time.perf_counter()
    side()
    return time.perf_counter() - start


def branching(moves: list[int], reps: int, scratch: Path) -> tuple[dict[str, list[float]], Rollout]:
    """Each side's times, repetition by repetition, and the episode recorded with defaults."""
    episode = record(pong(), playback(moves), seed=SEED, max_steps=STEPS)
    loaded = load(episode.save(scratch / "pong.rollout"))  # no states: from the seed
    env = pong()
    action = (int(episode.actions[T]) + 1) % 6

    def replay() -> None:
        env.reset(seed=SEED)
        for move in moves[:T]:
            env.step(move)

    sides: dict[str, Callable[[], object]] = {
        "plain replay: reset, 900 steps": replay,
        "branch, states saved by default": lambda: episode.branch(
            T, action, env=env, policy=lambda obs: 0, max_steps=1
        ),
        "branch from the seed (a loaded file)": lambda: loaded.branch(
            T, action, env=env, policy=lambda obs: 0, max_steps=1
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for order in shuffled_orders(list(sides), reps):
        for name in order:
            times[name].append(timed(sides[name]))
    return times, episode


def recording(moves: list[int], reps: int) -> dict[str, list[float]]:
    """record()'s time with states by default and with none, beside a bare loop."""

    def bare() -> None:
        env = pong()
        env.reset(seed=SEED)
        env.render()
        for move in moves:
            env.step(move)
            env.render()

    sides: dict[str, Callable[[], object]] = {
        "bare step + render loop": bare,
        "record(), states by default": lambda: record(
            pong(), playback(moves), seed=SEED, max_steps=STEPS
        ),
        "record(states_every=0)": lambda: record(
            pong(), playback(moves), seed=SEED, max_steps=STEPS, states_every=0
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for order in shuffled_orders(list(sides), reps):
        for name in order:
            times[name].append(timed(sides[name]))
    return times


def states_share(moves: list[int], reps: int) -> float:
    """The share of record()'s time spent saving and thinning states (median of
    ``reps``): timed inside, so the machine's noise, as large as the cost, cancels."""
    spent = [0.0]
    save, fit = SavedStates.save, SavedStates.fit

    def timed_method(method: Callable[..., None]) -> Callable[..., None]:
        def run(*args: object) -> None:
            start = time.perf_counter()
            method(*args)
            spent[0] += time.perf_counter() - start

        return run

    shares = []
    SavedStates.save, SavedStates.fit = timed_method(save), timed_method(fit)  # type: ignore[method-assign]
    try:
        for _ in range(reps):
            spent[0] = 0.0
            total = timed(lambda: record(pong(), playback(moves), seed=SEED, max_steps=STEPS))
            shares.append(spent[0] / total)
    finally:
        SavedStates.save, SavedStates.fit = save, fit  # type: ignore[method-assign]
    return statistics.median(shares)


def paired(times: dict[str, list[float]], name: str, base: str) -> float:
    """The median of ``name``'s time over ``base``'s, repetition by repetition."""
    return statistics.median(a / b for a, b in zip(times[name], times[base], strict=True))


def table(times: dict[str, list[float]], base: str, what: str) -> list[str]:
    rows = [f"| {what} | ms (median) | vs {base}, paired (median) |", "|---|---:|---:|"]
    for name, values in times.items():
        ratio = "—" if name == base else f"{paired(times, name, base):.3f}x"
        rows.append(f"| {name} | {statistics.median(values) * 1e3:,.1f} | {ratio} |")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="repetitions per side")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    moves = np.random.default_rng(SEED).integers(6, size=STEPS).tolist()
    with tempfile.TemporaryDirectory() as scratch:
        times, episode = branching(moves, args.reps, Path(scratch))
        file_bytes = (Path(scratch) / "pong.rollout").stat().st_size
    records = recording(moves, max(3, args.reps // 2))
    base = "plain replay: reset, 900 steps"
    from_states = paired(times, "branch, states saved by default", base)
    from_seed = paired(times, "branch from the seed (a loaded file)", base)
    held = state_bytes(episode)
    positions = sorted(episode.states)
    every = positions[1] - positions[0] if len(positions) > 1 else None
    record_cost = paired(records, "record(), states by default", "record(states_every=0)")
    share = states_share(moves, 5)
    verdicts = [
        f"from the states, {from_states:.3f}x (target at most {BAR_STATES}x)",
        f"from the seed, {from_seed:.3f}x (at most {BAR_SEED}x)",
        f"the states {held / file_bytes:.1%} of the file (at most {BAR_SHARE:.0%})",
        f"saving states {share:.1%} of record()'s time (at most {BAR_RECORD:.0%})",
    ]
    met = (
        from_states <= BAR_STATES
        and from_seed <= BAR_SEED
        and held <= BAR_SHARE * file_bytes
        and share <= BAR_RECORD
    )
    body = (
        f"`{command('benchmarks.branch', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, {args.reps} repetitions per side in a seeded shuffled order; "
        f"ratios paired by repetition, medians).\n\n"
        f"A {episode.num_steps:,}-step ALE/Pong-v5 episode (random actions, seed {SEED}, "
        f"at most {STEPS:,} steps: the game ended) recorded with defaults: its .rollout "
        f"file {file_bytes / 1e3:,.1f} KB; "
        f"{len(positions)} states saved, every {every} positions, holding "
        f"{held / 1e3:,.1f} KB in memory ({held / file_bytes:.1%} of the file; the first "
        f"whole, {episode.states[positions[0]].nbytes / 1e3:.1f} KB, the others deltas of "
        f"~{statistics.median(episode.states[p].nbytes for p in positions[1:]):.0f} B). "
        f"Branched at t = {T} with one step past it, against a plain replay (the same "
        "env reset with the seed, the 900 actions stepped, nothing checked or kept). "
        "From a state a branch restores the last one before t and replays the steps "
        "after it; from the seed it replays all 900, checking every reward and end, "
        "and the screen at t.\n\n"
        + "\n".join(table(times, base, f"branch at t = {T}"))
        + f"\n\nrecord() of the same episode ({max(3, args.reps // 2)} repetitions per side, "
        "shuffled; states by default cost a clone of ALE's state every 64 steps and its "
        "delta):\n\n"
        + "\n".join(table(records, "bare step + render loop", "recording the episode"))
        + f"\n\nWith states by default, record() took {record_cost:.3f}x its time without "
        "(paired median: the machine's noise here is as large as the difference); timed "
        f"inside record() (median of 5), saving and thinning the states took {share:.1%} "
        "of it." + f"\n\nBars: {'; '.join(verdicts)}: {'meets them' if met else 'MISSES one'}."
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
