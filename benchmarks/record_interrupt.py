"""Ctrl-C at any moment of record(path=), under load: every interrupt kept whole.

The trials of tests/recording/test_interrupts.py (harness/interrupted_recordings.py),
by the hundred, with busy processes beside them: 25 trials a recording process, each
cut by a SIGINT to the process group up to a second into a MountainCar recording; a
trial passes when its KeyboardInterrupt carried the steps its file holds, whole. A
process fails at its first trial that does not (the rest of its trials are not run).
Each busy process spins a core, under ``timeout`` so that none outlives the run.

    .venv/bin/python -m benchmarks.record_interrupt     # prints and updates RESULTS.md
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.interrupted_recordings import check_kept, interrupted_recordings

TITLE = "Ctrl-C in record()"
PER_PROCESS = 25  # as the test's


@contextlib.contextmanager
def busy(count: int, seconds: float) -> Iterator[None]:
    """``count`` processes spinning a core each while the block runs, at most ``seconds``."""
    spin = ["timeout", f"{seconds:.0f}", sys.executable, "-c", "while True: pass"]
    loops = [subprocess.Popen(spin) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.terminate()  # timeout passes it on to the loop
            loop.wait()


def process_failure(first: int, count: int) -> str | None:
    """Why the recording process of trials ``first`` to ``first + count - 1`` failed, or
    None when every trial kept its steps whole."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            check_kept(Path(scratch), interrupted_recordings(Path(scratch), first, count))
        except AssertionError as error:
            return str(error).splitlines()[0][:300]
    return None


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside it")
    args = parser.parse_args(argv)
    random.seed(0)  # the moments of the interrupts
    load_start = os.getloadavg()[0]
    failures = []
    with busy(args.busy, seconds=60 + 5 * args.trials):
        for first in range(0, args.trials, PER_PROCESS):
            count = min(PER_PROCESS, args.trials - first)
            failure = process_failure(first, count)
            if failure is not None:
                failures.append(f"trials {first}-{first + count - 1}: {failure}")
            print(f"trials {first}-{first + count - 1}: {failure or 'kept'}", flush=True)
    processes = -(-args.trials // PER_PROCESS)
    verdict = "meets" if not failures else "MISSES"
    listed = "".join(f"\n- {failure}" for failure in failures)
    body = (
        f"`{command('benchmarks.record_interrupt', argv)}` ({today()}, code "
        f"{code_version()}, {machine(load_start)}, {args.busy} busy processes beside it).\n\n"
        f"{args.trials} trials in {processes} recording processes of {PER_PROCESS}: a SIGINT "
        "to the process group up to 1 s into a MountainCar recording with path=, as in "
        "tests/recording/test_interrupts.py.\n\n"
        f"Bar (every process's trials each end in a KeyboardInterrupt carrying the steps "
        f"its file holds whole): {len(failures)} of {processes} processes failed, "
        f"{verdict} it.{listed}\n\n"
        "Before (the test's recorder at 8761df8, where the env's first render, and so "
        "pygame's import, came inside the first trial): 2 of 20 processes failed, the same "
        "run beside two busy processes: a SIGINT in that import left pygame broken, and "
        "every later trial of the process failed at once."
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
