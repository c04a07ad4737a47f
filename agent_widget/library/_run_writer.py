"""Writing runs so that concurrent writers never corrupt the library, without locks.

- A new run is assembled in a hidden staging folder next to it (episodes, then
  ``run.json``) and renamed into place: readers see the whole run or nothing.
- Adding episodes to an existing run claims each episode number by hard-linking a
  finished file to ``episode-NNN.rollout``, which fails if another writer took
  that number first (then the next number is tried). Episode files never change
  once linked.
- ``run.json`` is then rebuilt from the episode files present and replaced
  atomically. Each episode's summary is a function of its file alone, so every
  writer computes the same ``run.json`` from the same files; a writer repeats the
  rebuild until the files present after its write are the ones it summarized, so
  the last writer leaves a ``run.json`` listing every episode.

Every file is written to a temporary name, fsynced and renamed (``os.replace``);
there is no shared index file. A crashed writer leaves at most a hidden staging
folder or temporary file (names starting with ``.``), which readers ignore.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from agent_widget.episodes import Rollout, load, save
from agent_widget.format import atomic_write, fsync_directory, named, temporary_name
from agent_widget.library._run_file import (
    RUN_FILE,
    EpisodeSummary,
    Run,
    check_same_run,
    episode_file,
    episode_files,
    episode_number,
    read_run,
    run_json,
    summarize,
    summarize_all,
)


def write_run(folder: Path, run: Run, rollouts: Sequence[Rollout]) -> list[str]:
    """Create the run ``run`` in ``folder`` with ``rollouts``, or add them if it exists;
    the episodes' file names.

    Adding to an existing run raises ValueError when its env or algorithm differs from
    ``run``'s, or its params do while ``run.params`` is not empty.
    """
    files = [episode_file(i) for i in range(len(rollouts))]
    summaries = {s.file: s for s in summarize_all(rollouts, files)}
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = temporary_name(folder)  # errors name the files asked for, never this one's
    with named(folder, staging):
        staging.mkdir()
    try:
        for file, rollout in zip(files, rollouts, strict=True):
            with named(folder, staging / file):
                save(rollout, staging / file)
        if not folder.exists():
            with named(folder / RUN_FILE, staging / RUN_FILE):
                write_atomic(staging / RUN_FILE, run_json(run, [summaries[f] for f in files]))
            try:
                os.rename(staging, folder)
                fsync_directory(folder.parent)
                return files
            except OSError:
                if not folder.exists():
                    raise
                # Another writer created the run meanwhile: add to it instead.
        check_same_run(read_run(folder, run.id).header(), run, str(folder))
        claimed = {}
        for file in files:
            name = _claim(staging / file, folder)
            claimed[name] = dataclasses.replace(summaries[file], file=name)
        publish(folder, claimed)
        return list(claimed)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def publish(folder: Path, known: dict[str, EpisodeSummary]) -> None:
    """Rewrite ``folder``'s run.json to list every episode file present (see the module doc)."""
    while True:
        current = read_run(folder, folder.name)
        summaries = {e.file: e for e in current.episodes} | known
        files = episode_files(folder)
        episodes = [summaries.get(f) or summarize(load(folder / f), f) for f in files]
        write_atomic(folder / RUN_FILE, run_json(current, episodes))
        if episode_files(folder) == files:
            return


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    with atomic_write(path) as file:
        file.write(data)


def _claim(source: Path, folder: Path) -> str:
    """Hard-link ``source`` to the first free episode number of ``folder``; its file name."""
    files = episode_files(folder)
    number = episode_number(files[-1]) + 1 if files else 0
    while True:
        name = episode_file(number)
        try:
            os.link(source, folder / name)
        except FileExistsError:
            number += 1
            continue
        fsync_directory(folder)
        return name
