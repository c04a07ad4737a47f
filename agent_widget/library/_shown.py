"""An episode as the library's widgets show it: a checkpoint's evaluation episode,
recorded without frames (:mod:`agent_widget.checkpoints` renders them later, by
replay, to keep training fast), gets its frames when it is opened from the
leaderboard or a list of moments, as the CheckpointViewer shows it; and the action
names the widget was given, which win over those the episode keeps."""

from __future__ import annotations

import warnings

from agent_widget.episodes import ActionNames, Rollout, named
from agent_widget.recording import render_frames


def shown(rollout: Rollout, action_names: ActionNames | None = None) -> Rollout:
    """``rollout`` named by ``action_names`` (None: its own), with frames rendered by
    replay if it is a checkpoint's evaluation episode without them; without, with a
    warning saying why, if they cannot be."""
    rollout = named(rollout, action_names)
    if rollout.frames is not None or "training_step" not in rollout.metadata:
        return rollout
    try:
        return render_frames(rollout)
    except Exception as error:  # the env's own code: shown without frames, never lost
        warnings.warn(
            f"the frames of this checkpoint episode could not be rendered by replay "
            f"({error!r:.300}): shown without frames",
            stacklevel=3,
        )
        return rollout
