"""The episode files under TensorBoard's logdir, and the only paths the plugin opens.

TensorBoard may serve a shared machine's logdir to anyone who reaches its port, so
a path from a request is a name to look up, never a place to go: it must be relative,
have no ``..`` or empty part, name a ``.rollout`` or ``.rollout.part`` file, and lie
under the logdir once every symlink is followed (a link out of it is refused, as is
a file that only a link inside it reaches from outside). The walk that finds the
episodes follows no symlinked folder and stops after ``MAX_ENTRIES`` entries, so a
huge or looping tree cannot stall TensorBoard.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

SUFFIXES = (".rollout", ".rollout.part")
# Entries the walk looks at before it stops (a logdir of a million event files, say).
MAX_ENTRIES = 200_000
MAX_PATH = 1024


class BadPath(ValueError):
    """A path from a request that names no episode file the plugin may open."""


def is_episode(name: str) -> bool:
    """Whether a file named ``name`` holds an episode (or a growing one)."""
    return name.endswith(SUFFIXES) and not name.startswith(".")


def episode_files(logdir: Path, limit: int | None = None) -> list[str]:
    """The episode files under ``logdir`` as relative POSIX paths, sorted; at most
    ``limit`` of them (``is_active`` needs one). A ``.rollout.part`` whose
    ``.rollout`` is there too (a recorder renaming it this moment) is left out."""
    found: list[str] = []
    seen = 0
    for folder, folders, files in os.walk(logdir, followlinks=False):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        seen += len(folders) + len(files)
        names = set(files)
        for name in sorted(files):
            done = name.endswith(".part") and name[: -len(".part")] in names
            if is_episode(name) and not done:
                found.append(Path(folder, name).relative_to(logdir).as_posix())
                if limit is not None and len(found) >= limit:
                    return found
        if seen > MAX_ENTRIES:
            break
    return sorted(found)


def episode_path(logdir: Path, relative: str | None) -> Path:
    """The file ``relative`` names under ``logdir``, else :class:`BadPath` saying why.

    Examples:
        >>> episode_path(Path("/runs"), "../etc/passwd.rollout")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        agent_widget.tensorboard._logdir.BadPath: 'path' may not hold '..' or empty parts: ...
    """
    if not relative:
        raise BadPath("'path' is missing: name an episode file under the logdir")
    if len(relative) > MAX_PATH or "\0" in relative or "\\" in relative:
        raise BadPath(f"'path' is not a file name: {relative[:100]!r}")
    parts = PurePosixPath(relative).parts
    if relative.startswith("/") or PurePosixPath(relative).is_absolute():
        raise BadPath(f"'path' must be relative to the logdir: {relative!r}")
    if any(part in ("..", ".", "") for part in relative.split("/")) or not parts:
        raise BadPath(f"'path' may not hold '..' or empty parts: {relative!r}")
    if not is_episode(parts[-1]):
        raise BadPath(f"'path' must name a .rollout or .rollout.part file: {relative!r}")
    root = logdir.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root):
        raise BadPath(f"'path' leads out of the logdir (through a link): {relative!r}")
    if not path.is_file():
        raise FileNotFoundError(f"no episode file {relative!r} under the logdir")
    return path


def logdir_of(flag: str) -> Path | None:
    """The local folder TensorBoard serves, None for none (a ``--logdir_spec``, a URL)."""
    if not flag or "://" in flag:
        return None
    path = Path(os.path.expanduser(flag))
    return path if path.is_dir() else None
