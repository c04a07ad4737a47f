"""The Agent tab's table: each run under the logdir and its episodes, one row each.

A run is the folder holding episode files, named by its path under the logdir as
TensorBoard names runs ("." for the logdir itself): ``record(path=)``'s folder,
``RecordRollout(directory=)``'s, a ``RunLibrary`` run's ``<env>/<algorithm>/<run>``.
A row says what the episode's metadata and rewards say: env, algorithm, seed,
training step (a checkpoint's), return and length. Reading one opens the file's zip
directory and its small members (``load`` is lazy), so rows are kept per file
version (size and modification time) and a reload reads only what changed.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path, PurePosixPath
from typing import Any

from agent_widget.episodes import load
from agent_widget.tensorboard._logdir import episode_files, episode_path

Row = dict[str, Any]
# TensorBoard's event files: events.out.tfevents.<time>.<host>...
EVENTS = "events.out.tfevents."
# Rows kept: enough for every episode of a large logdir, bounded all the same.
MAX_ROWS = 50_000


def version(path: Path) -> str:
    """A file's version, for ETags and the row cache: its size and modification time."""
    status = path.stat()
    return f"{status.st_size}-{status.st_mtime_ns}"


class Listing:
    """The rows of the episodes under ``logdir``, read again only where a file changed."""

    def __init__(self, logdir: Path) -> None:
        self._logdir = logdir
        self._rows: dict[tuple[str, str], Row] = {}
        self._lock = threading.Lock()

    def runs(self) -> list[dict[str, Any]]:
        """``[{"run": name, "scalars": name or None, "episodes": [row, ...]}, ...]``, runs
        sorted by name; ``scalars`` is the run of the scalars beside them
        (:func:`scalars_run`)."""
        runs: dict[str, list[Row]] = {}
        for relative in episode_files(self._logdir):
            row = self._row(relative)
            if row is not None:
                runs.setdefault(row["run"], []).append(row)
        return [
            {
                "run": name,
                "scalars": _linked(rows) or scalars_run(self._logdir, name),
                "episodes": rows,
            }
            for name, rows in sorted(runs.items())
        ]

    def _row(self, relative: str) -> Row | None:
        """The row of one file, None when it may not be opened (a link out of the logdir)."""
        try:
            path = episode_path(self._logdir, relative)
            key = (relative, version(path))
        except (ValueError, OSError):
            return None
        with self._lock:
            row = self._rows.get(key)
        if row is None:
            row = _read_row(path, relative, key[1], self._logdir)
            with self._lock:
                if len(self._rows) >= MAX_ROWS:
                    self._rows.clear()
                self._rows[key] = row
        return row


def _read_row(path: Path, relative: str, file_version: str, logdir: Path) -> Row:
    """A row from the file's metadata and rewards; one that cannot be read says why."""
    folder = PurePosixPath(relative).parent.as_posix()
    row: Row = {
        "run": folder,
        "path": relative,
        "file": PurePosixPath(relative).name,
        "version": file_version,
        "growing": relative.endswith(".part"),
    }
    try:
        rollout = load(path)
        meta = rollout.metadata
        total = float(rollout.rewards.sum()) if rollout.num_steps else 0.0
        row.update(
            env_id=_text(meta.get("env_id")),
            algorithm=_text(meta.get("algorithm")),
            seed=_integer(meta.get("seed")),
            training_step=_integer(meta.get("training_step")),
            # NaN and infinities are no JSON: the table shows nothing for them.
            **{"return": total if math.isfinite(total) else None},
            length=rollout.num_steps,
            scalars=named_scalars(logdir, meta.get("scalars_dir")),
        )
    except Exception as error:  # any file that cannot be read: its row says why
        row["error"] = f"{type(error).__name__}: {error}"[:500]
    return row


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:200]


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def scalars_run(logdir: Path, run: str) -> str | None:
    """The TensorBoard run whose scalars go with the episodes of ``run``: the nearest
    folder at or above it, within the logdir, that holds event files (a CleanRL run's
    own folder; the logdir itself for a script that logs there), None for none.

    Examples:
        >>> scalars_run(Path("/nowhere"), "ppo/seed0") is None
        True
    """
    parts = PurePosixPath(run).parts if run != "." else ()
    for depth in range(len(parts), -1, -1):
        name = PurePosixPath(*parts[:depth]).as_posix() if depth else "."
        if _holds_events(logdir / name):
            return name
    return None


def named_scalars(logdir: Path, folder: Any) -> str | None:
    """The run of the folder an episode's metadata names as its training's scalars
    (``scalars_dir``: ``RecordCheckpoints`` keeps SB3's ``logger.dir`` there, a sibling
    of the checkpoints' run under ``tensorboard_log=``): its name under the logdir when
    it lies there, links followed, and holds event files; else None. A folder elsewhere
    is never looked at: the metadata is the file's say.

    Examples:
        >>> named_scalars(Path("/runs"), "/etc") is None
        True
    """
    if not isinstance(folder, str) or not os.path.isabs(folder):
        return None
    lexical = Path(os.path.normpath(folder))
    if not lexical.is_relative_to(logdir):
        return None
    try:
        relative = lexical.resolve().relative_to(logdir.resolve())
    except (ValueError, OSError):
        return None  # a link out of the logdir
    name = relative.as_posix()
    return name if _holds_events(logdir / name) else None


def _linked(rows: list[Row]) -> str | None:
    """The scalars run the run's episodes name (the first that names one)."""
    return next((row["scalars"] for row in rows if row.get("scalars")), None)


def _holds_events(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.startswith(EVENTS) and entry.is_file() for entry in entries)
    except OSError:
        return False
