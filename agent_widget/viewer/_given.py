"""What the viewer was given, checked and read: the episode (a rollout, or frames
alone) as a rollout, the frames it shows, the action names (by agent), the extras the
timeline draws, and the range of positions an export asks for.

An argument refused is named in the error, with what it should be.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agent_widget.episodes import ActionNames, Rollout, given_names
from agent_widget.format import ArrayFrames, Frames, ImageFrames

# A vector extra's lines on the timeline: more than HalfCheetah's 6 action dimensions,
# few enough to tell apart.
MAX_LINES = 8


def as_rollout(episode: Any, encoding: str) -> Rollout:
    """What the viewer was given (a rollout, or frames alone) as a rollout."""
    if isinstance(episode, Rollout):
        return episode
    if isinstance(episode, np.ndarray):
        shape = episode.shape
        if episode.ndim not in (3, 4) or (episode.ndim == 4 and shape[-1] not in (1, 3, 4)):
            raise ValueError(
                f"frames: expected an array (N, H, W, 3), (N, H, W, 4) or (N, H, W), "
                f"got shape {shape}"
            )
        if episode.ndim == 3 and shape[-1] in (3, 4) and shape[0] > 4:
            raise ValueError(
                f"frames: shape {shape} looks like a single frame; pass [frame] for one, "
                "or an array (N, H, W, 3)"
            )
    elif not isinstance(episode, (list, tuple)):
        raise TypeError(
            "EpisodeViewer takes a Rollout, an array of frames or a list of frames, "
            f"got {type(episode).__name__}"
        )
    return Rollout.from_arrays(frames=ArrayFrames(episode, encoding=encoding))


def frames_to_show(rollout: Rollout, encoding: str) -> Frames | None:
    """The frames to show: the rollout's, else its observations when they are images."""
    frames = rollout.frames
    if isinstance(frames, ArrayFrames) and frames.encoding != encoding:
        return ArrayFrames(list(frames), allow_resize=frames.allow_resize, encoding=encoding)
    if frames is not None:
        return frames
    observations = rollout.observations
    shape = tuple(getattr(observations, "shape", ()))
    image_stack = len(shape) == 3 or (len(shape) == 4 and shape[-1] in (1, 3, 4))
    if observations is None or not image_stack:
        return None
    try:
        return ImageFrames(observations, encoding=encoding)
    except ValueError:  # not pixel values (e.g. a float grid outside [0, 1])
        return None


def checked_names(
    names: ActionNames | None, agents: Sequence[str]
) -> list[str] | dict[str, list[str]]:
    """The names as a list, or a dict of lists by agent, each agent one of ``agents``
    (a misspelt one would otherwise name nothing, silently)."""
    names = given_names(names)
    if names is None:
        return []
    strangers = [agent for agent in names if agent not in agents] if isinstance(names, dict) else []
    if strangers:
        raise ValueError(
            f"action_names names agent(s) {strangers} this episode does not have "
            f"(its agents: {list(agents)})"
        )
    return names


def timeline_extra(rollout: Rollout, name: str) -> Any:
    """An extra the timeline can draw: per-step numbers, one line each, or up to
    ``MAX_LINES`` of them per step (shape (T, k), k lines)."""
    if name not in rollout.extras:
        known = ", ".join(sorted(rollout.extras)) or "none"
        raise ValueError(f"extras: the rollout has no extra {name!r} (it has: {known})")
    values = rollout.extras[name]
    lines = len(values.shape) == 1 or (len(values.shape) == 2 and values.shape[1] <= MAX_LINES)
    if not lines or values.dtype.kind not in "biuf":
        raise ValueError(
            f"extras: {name!r} is {values.dtype} of shape {values.shape}; the timeline draws "
            f"per-step numbers: shape (T,) as a line, or (T, k) as k lines (k <= {MAX_LINES})"
        )
    return values


def positions(start: int, stop: int | None, length: int) -> tuple[int, int]:
    """``start`` and ``stop`` of a range to export, checked against ``length`` positions."""
    stop = length if stop is None else stop
    for name, value in (("start", start), ("stop", stop)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be a position (an int), got {value!r}")
    if not 0 <= start < stop <= length:
        raise ValueError(
            f"start={start}, stop={stop}: the episode has {length} positions; "
            f"take 0 <= start < stop <= {length}"
        )
    return int(start), int(stop)
