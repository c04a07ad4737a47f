"""Episodes in ``.rollout`` files: :func:`save` and :func:`load`.

The file format (:mod:`agent_widget.format`) speaks in columns; a ``Rollout`` is built
from them here, so the format knows nothing of the episode layer.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_widget.episodes._rollout import Rollout
from agent_widget.format import read_columns, write_columns


def save(rollout: Rollout, path: str | os.PathLike[str]) -> Path:
    """Write ``rollout`` to ``path`` atomically: a crash mid-save leaves the previous file
    untouched (docs/contributing/file-format.md describes the format).

    Examples:
        >>> save(rollout, "pong.rollout")  # doctest: +SKIP
        >>> load("pong.rollout").frames[1234]  # doctest: +SKIP
    """
    return write_columns(rollout.columns, path)


def load(path: str | os.PathLike[str], *, storage_options: dict[str, Any] | None = None) -> Rollout:
    """Open a ``.rollout`` file lazily: O(1) in episode length for frames, infos, observations.

    Raises RolloutFileError (a ValueError) naming the file and the problem when it is
    not a readable ``.rollout`` file. A file whose end was cut off still opens (with
    a warning) with every chunk it holds whole.

    ``path`` may be a URL of any fsspec filesystem (``s3://bucket/pong.rollout``, with
    its package installed, e.g. s3fs): opening reads the zip directory and the small
    members, and each chunk a view needs is one ranged request for its bytes.
    ``storage_options`` go to the filesystem (credentials, ``client_kwargs``).

    Examples:
        >>> again = load("pong.rollout")  # doctest: +SKIP
        >>> again.frames[1234].shape  # doctest: +SKIP
        (210, 160, 3)
        >>> far = load("s3://runs/pong.rollout", storage_options={"anon": True})  # doctest: +SKIP
    """
    return Rollout(**read_columns(path, storage_options=storage_options)._asdict())
