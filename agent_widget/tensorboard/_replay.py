"""Frames for a checkpoint's episode, stored without them, made by replay in TensorBoard.

``RecordCheckpoints`` keeps an evaluation episode's seed, actions and observations, not
its frames (rendering would slow training); the tab renders them when the episode is
opened, as ``Checkpoints`` does (:func:`agent_widget.recording.render_frames`). On a
shared server the file is a stranger's, so the env is made only as its ``env_spec``
describes it, by an id of gymnasium's registry (never a ``module:Env`` id, which would
import a module the file names), with gymnasium's own wrappers, and with no argument
naming a file (a MuJoCo ``xml_file``: only files under the logdir are read). An episode
that cannot be replayed shows without frames, and the tab says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agent_widget.episodes import Rollout
from agent_widget.recording import render_frames


def with_frames(rollout: Rollout) -> tuple[Rollout, str | None]:
    """``rollout`` with frames rendered by replay when it is a checkpoint's episode
    without them; else as it is. Second: why it has none, when replay was refused or failed."""
    if rollout.frames is not None or "training_step" not in rollout.metadata:
        return rollout, None
    refused = _refused(rollout.metadata.get("env_spec"))
    if refused is not None:
        return rollout, f"no frames: this episode's env is not made here ({refused})"
    try:
        return render_frames(rollout), None
    except Exception as error:  # the env's own code, or a replay that strayed
        return rollout, f"no frames: the replay failed ({type(error).__name__}: {error})"[:500]


def _refused(spec: Any) -> str | None:
    """Why the env ``spec`` describes is not made, None when it may be."""
    if not isinstance(spec, Mapping):
        return "its file keeps no env_spec"
    env_id = spec.get("id")
    if not isinstance(env_id, str) or ":" in env_id or env_id not in gym.registry:
        return f"{str(env_id)[:100]!r} is no id of gymnasium's registry"
    kwargs = spec.get("kwargs")
    for name, value in kwargs.items() if isinstance(kwargs, Mapping) else ():
        if isinstance(value, str) and ("/" in value or "\\" in value):
            return f"its argument {str(name)[:50]!r} names a file"
    return None
