"""Atomic file writes: a crash mid-write never leaves a half-written file in place.

Every file this package writes (rollouts, run metadata, training snapshots) goes
through :func:`atomic_write`: the data goes to a temporary file in the same folder,
is fsynced, then renamed over the target, and the folder is fsynced so the rename
itself survives a power cut.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


def temporary_name(path: Path) -> Path:
    """A hidden, unique name beside ``path`` (same folder, so the rename is atomic)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")


@contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a file to write that replaces ``path`` only once the block succeeds.

    Example:
        >>> with atomic_write("run.json") as file:  # doctest: +SKIP
        ...     file.write(b"{}")
    """
    path = Path(path)
    tmp = temporary_name(path)
    try:
        with open(tmp, "xb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def fsync_directory(folder: Path) -> None:
    """Make a rename or link in ``folder`` durable; not possible (nor needed) on Windows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
