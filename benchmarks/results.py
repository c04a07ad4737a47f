"""benchmarks/RESULTS.md, where each benchmark keeps its own ``## <title>`` section."""

from __future__ import annotations

import argparse
import os
import random
import shlex
import subprocess
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
ROOT = RESULTS.parent.parent


def arguments(description: str) -> argparse.ArgumentParser:
    """A benchmark's command line, with the ``--no-write`` flag they all share."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--no-write", action="store_true", help="print only")
    return parser


def command(module: str, argv: list[str] | None = None) -> str:
    """The command line that reproduces this run: the module and the arguments it was
    given (``argv``, or the process's own), so a section never names defaults it did not use."""
    given = sys.argv[1:] if argv is None else argv
    return " ".join([".venv/bin/python -m", module, *map(shlex.quote, given)])


def machine(load_start: float) -> str:
    """The machine and how busy it was from ``load_start`` (the 1-minute load average when
    the run began) to now: the machine is shared, so every figure is read against it."""
    return (
        f"the shared {os.cpu_count()}-core machine, load average {load_start:.1f} at the "
        f"start, {os.getloadavg()[0]:.1f} at the end"
    )


def today() -> str:
    """The date stamped on a section, so readers know how old a measurement is."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def code_version() -> str:
    """The commit measured, marked when agent_widget/ or js/ differ from it."""
    git = ["git", "-C", str(ROOT)]
    try:
        commit = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            [*git, "status", "--porcelain", "agent_widget", "js"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" + uncommitted changes" if changed else "")


def shuffled_orders(sides: Sequence[str], reps: int) -> Iterator[list[str]]:
    """Each repetition's order of the sides, shuffled (seeded, so a run can be repeated).

    A rotated order keeps each side's predecessor fixed: in benchmarks.recording the
    bare loop always came after the busy neighbour and record() after the list of
    frames, and record() cost CartPole 1.09x and 1.09x the bare loop rotated, 1.08x
    and 1.05x shuffled (12 repetitions each, alternating, one process)."""
    rng = random.Random(0)
    for _ in range(reps):
        yield rng.sample(list(sides), len(sides))


def write_section(title: str, body: str) -> None:
    """Replace the ``## {title}`` section of RESULTS.md (creating file or section if missing)."""
    heading = f"## {title}"
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    section = f"{heading}\n\n{body}\n"
    start = text.find(f"\n{heading}\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[: start + 1] + section + ("" if end == -1 else text[end:])
    RESULTS.write_text(text)


def publish(title: str, body: str, write: bool) -> None:
    """Print a benchmark's section and, when ``write``, put it in RESULTS.md."""
    print(body)
    if write:
        write_section(title, body)
