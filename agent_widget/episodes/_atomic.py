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

# File systems take names of at most 255 bytes (ext4, APFS, NTFS's 255 UTF-16 units).
MAX_NAME_BYTES = 255


def checked_name(name: str) -> str:
    """``name`` if a file system takes it, else a ValueError saying why, before any write."""
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > MAX_NAME_BYTES:
        raise ValueError(
            f"the name {name[:40]!r}... is {size} bytes in UTF-8; file systems take at most "
            f"{MAX_NAME_BYTES}: choose a shorter one"
        )
    return name


def temporary_name(path: Path, extension: str = "") -> Path:
    """A hidden, unique name beside ``path`` (same folder, so the rename is atomic),
    ending in ``extension``. It starts with as much of ``path``'s name as fits, so a
    long name still has one."""
    suffix = f".{secrets.token_hex(4)}.tmp{extension}"
    room = MAX_NAME_BYTES - 1 - len(suffix.encode("utf-8", "surrogateescape"))
    stem = path.name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return path.with_name(f".{stem}{suffix}")


@contextmanager
def atomic_path(path: Path, suffix: str = "") -> Iterator[Path]:
    """A temporary name beside ``path`` to write to, renamed over ``path`` (fsynced
    first) once the block succeeds, removed otherwise.

    For writers that open files by name, such as a video encoder (``suffix`` keeps
    the extension it picks its format by). The file is created at once, so a folder
    that cannot be written fails before any work is done.
    """
    checked_name(path.name)
    tmp = temporary_name(path, suffix)
    try:
        with open(tmp, "xb"):
            pass
        yield tmp
        with open(tmp, "rb+") as file:
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


@contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a file to write that replaces ``path`` only once the block succeeds.

    Example:
        >>> with atomic_write("run.json") as file:  # doctest: +SKIP
        ...     file.write(b"{}")
    """
    with atomic_path(Path(path)) as tmp, open(tmp, "wb") as file:
        yield file


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
