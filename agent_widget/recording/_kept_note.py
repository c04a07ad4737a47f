"""The note an exception that cut a recording short carries: where its steps are."""

from __future__ import annotations

import os
from pathlib import Path

from agent_widget.episodes import Rollout
from agent_widget.format import part_of


def kept_note(rollout: Rollout, path: str | os.PathLike[str] | None) -> str:
    """Where the steps recorded before an exception are: the exception's ``rollout``,
    and with ``path`` the file (``<path>.part`` when a file was at ``path``: it is kept)."""
    note = (
        f"agent-widget: the {rollout.num_steps} steps recorded before this are in this "
        "exception's .rollout (e.g. sys.last_exc.rollout in a notebook)"
    )
    if path is None:
        return note
    part = part_of(path)
    if not part.exists():
        return f"{note}, and in {path}"
    kept = f"; the file that was at {path} is kept" if Path(path).exists() else ""
    return f"{note}, and in {part}{kept}"
