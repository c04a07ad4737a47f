"""Reading a rollout file whole, as a viewer and a user might: how the fuzz tests and
the hostile-files benchmark read every file they make."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agent_widget import EpisodeViewer, load


def read_everything(path: Path) -> None:
    """Open the file and read every part of it, as a viewer and a user might."""
    rollout = load(path)
    if rollout.frames is not None:
        for k in range(rollout.frames.num_chunks):
            rollout.frames.chunk(k)
        for _ in rollout.frames:
            pass
    list(rollout.infos or [])
    if rollout.observations is not None:
        np.asarray(rollout.observations)
    for values in (rollout.actions, rollout.rewards, rollout.extras.get("q")):
        np.asarray(values)
    EpisodeViewer(rollout).to_html(progress=False)
