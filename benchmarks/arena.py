"""The arena's games per second: Connect Four on 2 workers, beside PettingZoo's own loop.

Two random players (each move drawn from the legal ones), ``GAMES`` games of one
pairing with frames rendered (``render_mode="rgb_array"``: every game the arena keeps
can be watched). Bare: PettingZoo's loop (``agent_iter`` / ``last`` / ``step``,
``render()`` every position) playing the games one after another in this process,
keeping nothing. Arena: ``Arena.play(games=GAMES, workers=2, engine="processes")``
into a fresh run library: worker processes started (once a seating), each game
recorded (frames encoded), written to its file and added to its run, its step table
written. Wall time, as a user waits for it; the machine is shared, so the load is
given.

    .venv/bin/python -m benchmarks.arena            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

import numpy as np
import pettingzoo

from agent_widget.arena import Arena
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Arena games"
GAMES = 100


def connect_four() -> Any:
    return pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")


def random_move(observation: Any) -> int:
    return int(np.random.default_rng().choice(np.flatnonzero(observation["action_mask"])))


def bare(games: int) -> tuple[float, int]:
    """Seconds for ``games`` games by PettingZoo's own loop, and the env steps taken."""
    env = connect_four()
    steps = 0
    start = time.perf_counter()
    for seed in range(games):
        env.reset(seed=seed)
        env.render()
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else random_move(observation))
            env.render()
            steps += 1
    return time.perf_counter() - start, steps


def arena(games: int) -> tuple[float, int]:
    """Seconds for ``games`` games of one pairing by the arena on 2 worker processes,
    and the env steps its episodes hold."""
    with tempfile.TemporaryDirectory() as folder:
        played = Arena(connect_four, {"a": random_move, "b": random_move}, folder)
        start = time.perf_counter()
        played.play(games=games, workers=2, engine="processes", progress=False)
        seconds = time.perf_counter() - start
        (run,) = played.library.runs()
        assert len(run.episodes) == games, "every game kept"
        return seconds, sum(e.steps for e in run.episodes)


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    bare_seconds, bare_steps = bare(GAMES)
    arena_seconds, arena_steps = arena(GAMES)
    rows = "\n".join(
        [
            "| side | games | env steps | seconds | games a second |",
            "|---|---:|---:|---:|---:|",
            f"| PettingZoo's loop, 1 process, nothing kept | {GAMES} | {bare_steps:,} "
            f"| {bare_seconds:.1f} | {GAMES / bare_seconds:.1f} |",
            f"| `Arena.play`, 2 worker processes, every game kept | {GAMES} "
            f"| {arena_steps:,} | {arena_seconds:.1f} | {GAMES / arena_seconds:.1f} |",
        ]
    )
    body = "\n\n".join(
        [
            f"`{command('benchmarks.arena', argv)}` ({today()}, code {code_version()}, "
            f"{machine(load_start)}).",
            f"{GAMES} Connect Four games of two random players, frames rendered on both "
            "sides (benchmarks/arena.py says what each side does; a step is one env.step, "
            "leaving steps included).",
            rows,
            f"The arena plays at {arena_seconds / bare_seconds:.1f}x the bare loop's time "
            "for the same number of games, on twice the processes.",
        ]
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
