"""Files of a library opened only when they are regular files.

A library may be a stranger's folder: opening a FIFO there waits for a writer forever,
and opening a device (a link to ``/dev/zero``, a tape drive) may do something of its
own. So ``run.json`` and the step tables are checked before they are opened, and what
is not a regular file is named and left alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a link",
}


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, at most ``limit + 1`` of them; a ValueError naming ``path``
    if it is not a regular file (then it was never opened), an OSError if unreadable.

    Checked before opening: opening a FIFO waits for a writer, forever, and opening a
    device (a link to ``/dev/zero``, a tape drive) may do something of its own.
    ``O_NONBLOCK`` keeps the open from waiting should a FIFO take the file's place
    between the check and the open, which ``fstat`` then catches.
    """
    _check_regular(os.stat(path).st_mode, path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    with open(os.open(path, flags), "rb") as file:
        info = os.fstat(file.fileno())
        _check_regular(info.st_mode, path)
        # Read what is there, not the limit: read(n) allocates n bytes up front.
        return file.read(min(info.st_size, limit) + 1)


def _check_regular(mode: int, path: Path) -> None:
    if (why := unopened(mode, path)) is not None:
        raise ValueError(why)


def unopened(mode: int, path: object) -> str | None:
    """Why the entry ``path`` of ``mode`` (``st_mode``) is left unopened; None for a
    regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    return f"{path}: {kind}, not a regular file (left unopened)"
