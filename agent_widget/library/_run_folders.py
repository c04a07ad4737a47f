"""The run folders of a library folder, found without tripping over any one entry.

A library folder is shared: other programs, other users and half-copied backups
leave entries in it that cannot be read (a folder without read permission, a
symlink loop, a link to nothing). Each is reported with its path and why, and the
walk goes on, so one bad entry never hides the other runs. Nothing is opened here:
folders are listed (``os.scandir``) and their entries' types looked up. Names
starting with ``.`` (writers' staging folders) and entries other than folders are
skipped, as they are not runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_widget.library._run_file import RunError

_DEPTH = 3  # <root>/<env>/<algorithm>/<run>


def run_folders(root: Path) -> tuple[list[Path], list[RunError]]:
    """The ``root/<env>/<algorithm>/<run>`` folders, sorted, and the entries on the way
    that could not be read (a missing ``root`` is an empty library)."""
    folders, errors = [root], list[RunError]()
    for _ in range(_DEPTH):
        folders = [found for folder in folders for found in _subfolders(folder, errors)]
    return folders, errors


def _subfolders(folder: Path, errors: list[RunError]) -> list[Path]:
    """The visible folders in ``folder``, sorted; what cannot be read goes to ``errors``."""
    try:
        with os.scandir(folder) as listing:
            entries = [entry for entry in listing if not entry.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):  # removed meanwhile: nothing to list
        return []
    except OSError as error:
        errors.append(RunError(folder, f"{folder}: cannot list ({error.strerror})"))
        return []
    found = []
    for entry in entries:
        path = Path(entry.path)
        try:
            if entry.is_dir():  # follows links: a symlink loop raises ELOOP here
                found.append(path)
            elif entry.is_symlink() and not os.path.exists(path):
                errors.append(RunError(path, f"{path}: a link to nothing"))
        except OSError as error:
            errors.append(RunError(path, f"{path}: cannot read ({error.strerror})"))
    return sorted(found)
