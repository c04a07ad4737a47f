"""record(): what each part of its work costs the thread that steps the env, found by
taking that part away in alternate episodes of one process.

benchmarks/recording.py measures record() whole against a bare step-and-render loop;
this says where its overhead goes, to choose what to work on next. Each repetition
runs the bare loop, the recording with the part and the recording without it (in a
shuffled order), on 1,000-step Pong with the same pre-drawn actions; each recording's
time is divided by the bare loop's of its repetition, and the table gives the medians
and the median of the paired differences. In one process, the differences are not
blurred by those between processes (where code and data land in memory): two runs of
separate processes a commit apart showed one change as 2.6% and as 0.3%.

A part taken away is either a choice a user has (``states_every=0``), or code replaced
for the measurement alone by what skips it: the comparison of each observation with
its frame answered "the same" (Pong's observation is its screen, so the recording is
the same), Ctrl-C not held around a step, the journal records made on the stepping
thread instead of by the encoder process (``path=``).

    .venv/bin/python -m benchmarks.recording_parts      # prints and updates RESULTS.md
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent_widget.recording import _chunk_writer, _episode_buffer, _recorded_observations
from agent_widget.recording._encoder._process import encoder_process
from agent_widget.recording._record import record
from benchmarks.recording import MAX_STEPS, SEED, bare_loop, give_back_freed_memory, pong
from benchmarks.results import (
    arguments,
    code_version,
    command,
    machine,
    publish,
    shuffled_orders,
    today,
)

TITLE = "Recording, part by part"


@contextlib.contextmanager
def replaced(owner: Any, name: str, value: Any) -> Iterator[None]:
    """``owner.name`` is ``value`` while the block runs."""
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


def records_made_here() -> contextlib.AbstractContextManager[None]:
    """Episodes that make their journal records themselves, as with no encoder process."""
    made = _chunk_writer.ChunkWriter.__init__

    def making_them(self: _chunk_writer.ChunkWriter, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self._lends = False

    return replaced(_chunk_writer.ChunkWriter, "__init__", making_them)


# part: (what it is, whether it records to a file, how to take it away)
PARTS: dict[str, tuple[str, bool, Callable[[], Any]]] = {
    "compare": (
        "comparing each observation with its frame",
        False,
        lambda: replaced(_recorded_observations, "_same_bytes", lambda a, b: True),
    ),
    "interrupts": (
        "holding Ctrl-C around each step",
        False,
        lambda: replaced(_episode_buffer, "interrupts_held", contextlib.nullcontext),
    ),
    "states": ("saving env states for branching", False, contextlib.nullcontext),
    "records": (
        "the journal records made by the encoder process, not here (path=)",
        True,
        records_made_here,
    ),
}


def measure(part: str, reps: int, folder: Path) -> dict[str, float]:
    """Paired ratios to the bare loop of record() with ``part`` and without it."""
    _, to_file, without = PARTS[part]
    env, policy = pong()
    path = {"path": folder / "episode.rollout"} if to_file else {}
    states_every = {"states_every": 0} if part == "states" else {}

    def recording(taken_away: bool) -> None:
        with without() if taken_away else contextlib.nullcontext():
            options = {**path, **(states_every if taken_away else {})}
            record(env, policy(), seed=SEED, max_steps=MAX_STEPS, **options)

    sides: dict[str, Callable[[], Any]] = {
        "bare": lambda: bare_loop(env, policy(), MAX_STEPS),
        "with": lambda: recording(False),
        "without": lambda: recording(True),
    }
    recording(False)  # the ring and the encoder process's imports, before any timing
    times: dict[str, list[float]] = {side: [] for side in sides}
    for order in shuffled_orders(list(sides), reps):
        for side in order:
            give_back_freed_memory()
            start = time.perf_counter()
            sides[side]()
            times[side].append(time.perf_counter() - start)
    env.close()
    ratios = {
        side: [t / bare for t, bare in zip(times[side], times["bare"], strict=True)]
        for side in ("with", "without")
    }
    return {
        "with": statistics.median(ratios["with"]),
        "without": statistics.median(ratios["without"]),
        "cost": statistics.median(a - b for a, b in zip(*ratios.values(), strict=True)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=31, help="repetitions per part")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    process = encoder_process()
    if process is None or not process.wait_ready():
        raise SystemExit("these parts are measured with an encoder process (a second core)")
    with tempfile.TemporaryDirectory() as scratch:
        rows = {part: measure(part, args.reps, Path(scratch)) for part in PARTS}
    table = [
        "| part | record() with it | without it | its cost (median of the paired differences) |",
        "|---|---:|---:|---:|",
        *(
            f"| {PARTS[part][0]} | {row['with']:.3f}x | {row['without']:.3f}x | "
            f"{row['cost']:+.3f}x |"
            for part, row in rows.items()
        ),
    ]
    body = (
        f"`{command('benchmarks.recording_parts', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}).\n\n"
        f"ALE/Pong-v5, {MAX_STEPS:,} steps at most, the same pre-drawn random actions; "
        f"{args.reps} repetitions of the bare step-and-render loop, record() with the part "
        "and record() without it, in a shuffled order, in one process (each starting with "
        "the freed memory given back); each recording's time divided by the bare loop's "
        "of its repetition, medians. A negative cost: the part saves that much.\n\n"
        + "\n".join(table)
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
