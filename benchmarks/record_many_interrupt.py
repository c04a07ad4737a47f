"""Ctrl-C in record_many: how soon it returns, and what it keeps.

Each trial starts a script recording 60 CartPole seeds (500 steps each, with frames)
on 2 worker processes (``--engine ray``: 2 Ray actors) into a folder, in its own
process group as a kernel is; once two episodes are in the folder, a SIGINT goes to
the whole group (a terminal's Ctrl-C, Jupyter's Kernel → Interrupt). Measured: the
wall time from the signal to the script's exit, and whether the episodes on the
exception's ``.recorded`` are exactly the whole files in the folder.

    .venv/bin/python -m benchmarks.record_many_interrupt     # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Ctrl-C in record_many"
WORKERS = {"processes": "2 worker processes", "ray": "2 Ray actors (a local Ray)"}
BAR = 15.0  # seconds from the signal to the exit, in every trial
SCRIPT = """
import sys
from agent_widget import record_many
from benchmarks.record_many import balance, cartpole

if __name__ == "__main__":
    try:
        record_many(cartpole, balance, range(60), engine=sys.argv[2], workers=2,
                    directory=sys.argv[1], max_steps=500, progress=False)
    except KeyboardInterrupt as error:
        print(sorted(error.recorded.paths), flush=True)
"""


def trial(folder: Path, engine: str) -> tuple[float, bool]:
    """Seconds from the SIGINT to the exit; whether what was kept is what is whole."""
    started = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(folder), engine],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    while len(list(folder.glob("seed-*.rollout"))) < 2:
        if started.poll() is not None:
            raise RuntimeError(f"the script ended before two episodes: {started.returncode}")
        time.sleep(0.01)
    signalled = time.perf_counter()
    os.killpg(started.pid, signal.SIGINT)
    out, _ = started.communicate()
    seconds = time.perf_counter() - signalled
    whole = sorted(int(p.name[5:-8]) for p in folder.glob("seed-*.rollout"))
    return seconds, out.strip() == str(whole)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--engine", choices=("processes", "ray"), default="processes")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    seconds, kept = [], 0
    for i in range(args.trials):
        with tempfile.TemporaryDirectory() as scratch:
            took, right = trial(Path(scratch), args.engine)
        seconds.append(took)
        kept += right
        print(f"trial {i}: {took:.2f} s, kept {'right' if right else 'WRONG'}", flush=True)
    within = sum(s <= BAR for s in seconds)
    verdict = "meets" if within == args.trials == kept else "MISSES"
    body = (
        f"`{command('benchmarks.record_many_interrupt', argv)}` ({today()}, code "
        f"{code_version()}, {machine(load_start)}).\n\n"
        f"{args.trials} trials: 60 CartPole seeds on {WORKERS[args.engine]} into a folder, a "
        "SIGINT to the process group once two episodes are there.\n\n"
        "| from the signal to the exit | median | at most | episodes kept = whole files |\n"
        "|---|---:|---:|---:|\n"
        f"| record_many | {statistics.median(seconds):.2f} s | {max(seconds):.2f} s | "
        f"{kept} of {args.trials} |\n\n"
        f"Bar (every trial back within {BAR:.0f} s, keeping every finished episode): "
        f"{within} of {args.trials} within it, {verdict} it. Before this, a Ctrl-C waited "
        "for every seed (170 s for 60)."
    )
    title = TITLE if args.engine == "processes" else f"{TITLE} on Ray"
    publish(title, body, not args.no_write)


if __name__ == "__main__":
    main()
