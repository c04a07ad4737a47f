"""Atomic file writes: a crash mid-write never leaves a half-written file in place.

Every file this package writes (rollouts, run metadata, training snapshots) goes
through :func:`atomic_write`: the data goes to a temporary file in the same folder,
is fsynced, then renamed over the target, and the folder is fsynced so the rename
itself survives a power cut.

A writer killed mid-way (kill -9, a power cut) leaves its temporary file behind.
Temporary names carry the writer's machine and process, so :func:`remove_stale` can
remove exactly those whose writer is gone: on this machine, with no live process of
that id (a reused id keeps a file, never the other way round). Other machines' files
on a shared folder are left to them. Every successful write ends with that clean-up
of its folder (a directory listing: ~7 ms for 10,000 files), so what killed writers
left never accumulates where anything is saved again.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

# File systems take names of at most 255 bytes (ext4, APFS, NTFS's 255 UTF-16 units).
MAX_NAME_BYTES = 255
# This machine, in 4 hex digits: with the process id, who wrote a temporary file.
_HOST = hashlib.blake2s(socket.gethostname().encode(), digest_size=2).hexdigest()
_TEMPORARY = re.compile(r"\..*\.([0-9a-f]{4})-(\d+)-[0-9a-f]{8}\.tmp(\.\w+)?", re.S)


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
    suffix = f".{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.tmp{extension}"
    room = MAX_NAME_BYTES - 1 - len(suffix.encode("utf-8", "surrogateescape"))
    stem = path.name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return path.with_name(f".{stem}{suffix}")


@contextmanager
def named(path: str | os.PathLike[str], temporary: Path | None = None) -> Iterator[None]:
    """Name ``path`` in an OSError raised in the block that names no file, or names
    ``temporary`` (a hidden file of ours beside it, which the user never asked for): a
    full disk says ``[Errno 28] No space left on device`` with no file, a read-only
    folder names the temporary file, and the user must know which write failed. The
    error keeps its type and errno."""
    try:
        yield
    except OSError as error:
        ours = error.filename is None or (
            temporary is not None and error.filename == os.fspath(temporary)
        )
        if not ours or error.errno is None:
            raise
        raise type(error)(error.errno, error.strerror, os.fspath(path)) from error


@contextmanager
def atomic_path(path: Path, suffix: str = "") -> Iterator[Path]:
    """A temporary name beside ``path`` to write to, renamed over ``path`` (fsynced
    first) once the block succeeds, removed otherwise; then what killed writers left
    in that folder is removed.

    For writers that open files by name, such as a video encoder (``suffix`` keeps
    the extension it picks its format by). The file is created at once, so a folder
    that cannot be written fails before any work is done.
    """
    checked_name(path.name)
    tmp = temporary_name(path, suffix)
    try:
        with named(path, tmp):
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
    remove_stale(path.parent)


@contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a file to write that replaces ``path`` only once the block succeeds.

    Examples:
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


def remove_stale(folder: Path) -> list[Path]:
    """Remove the temporary files and folders in ``folder`` that writers on this machine
    left when they were killed; the paths removed. Never one a live process may own."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or match[1] != _HOST or _alive(int(match[2])):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, OSError):
        return True  # someone else's, or we cannot tell: keep it
    return True
