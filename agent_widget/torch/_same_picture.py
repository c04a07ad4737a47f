"""Whether an image observation is a picture of the rendered frame, so that a saliency
map of it belongs over the frame.

A map stretched over the frame is right only where each of the observation's pixels
shows the part of the frame under it: Atari preprocessing (the whole screen shrunk to
84x84, grey, stacked), a box of the frame the user names (``crop``), the frame itself.
MiniGrid's 7x7 view is none of these: it is egocentric (turned with the agent, the
cells ahead of it) and holds object indices, not colours, so its map stretched over
the grid lands on the wrong cells; it is drawn on its own grid instead.

The test: the frame (its crop) shrunk to the observation's height and width (a box
filter), then the correlation across pixels of the two: a 3-channel observation
against the frame's colours, and each of its planes (a stacked grey frame) against
the frame's grey; the best of them counts. Correlation ignores the observation's
scale and offset (uint8 or divided by 255, any grey weights). Measured on real envs
(3 positions each): Atari-preprocessed Pong 0.995 to 0.998 and MiniGrid's
``RGBImgObsWrapper`` 0.998 to 0.999; MiniGrid's 7x7 view -0.34 to 0.07, its
egocentric pixels (``RGBImgPartialObsWrapper``) -0.30 to 0.11, its fully
observable grid of indices (``FullyObsWrapper``) at most 0.64. Above 0.9 it is a
picture. Decided once an episode, from up to four positions spread over it (their
median), so a map never jumps between the frame and its own grid from step to step.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from PIL import Image

from agent_widget.panels import EpisodeData, Step
from agent_widget.torch._model import positions
from agent_widget.torch._spatial import Crop, channel_axis, cropped

THRESHOLD = 0.9
SAMPLES = 4
_GREY = np.array([0.299, 0.587, 0.114])  # ITU-R 601, as Pillow's "L" and ALE's grayscale


def likeness(observation: Any, frame: np.ndarray, crop: Crop | None = None) -> float:
    """How much ``observation`` looks like ``frame`` (its box ``crop``): a correlation in
    [-1, 1] (see the module docstring); 0 for what is no image or has no contrast."""
    obs = np.asarray(observation)
    if obs.dtype.kind not in "biuf" or obs.ndim not in (2, 3) or min(obs.shape) == 0:
        return 0.0
    axis = channel_axis(obs.shape)
    planes = obs[None] if axis is None else np.moveaxis(obs, axis, 0)  # (C, H, W)
    height, width = planes.shape[1:]
    box = np.ascontiguousarray((frame if crop is None else cropped(frame, crop))[..., :3])
    shrunk = Image.fromarray(box).resize((width, height), Image.Resampling.BOX)
    colours = np.asarray(shrunk, np.float64)
    grey = colours @ _GREY
    scores = [_correlation(plane, grey) for plane in planes]
    if len(planes) == 3:
        scores.append(_correlation(planes, np.moveaxis(colours, 2, 0)))
    return max(scores)


class FramePictures:
    """Whether the observations of the last episode asked about are pictures of its frames."""

    def __init__(self, crop: Crop | None = None) -> None:
        self.crop = crop
        self._episode: weakref.ref[Any] | None = None
        self._answer = False

    def __call__(self, episode: EpisodeData) -> bool:
        if self._episode is None or self._episode() is not episode:
            self._answer = self._pictures(episode)
            self._episode = weakref.ref(episode)
        return self._answer

    def _pictures(self, episode: EpisodeData) -> bool:
        frames = episode.frames
        if frames is None:
            return False
        count = min(len(frames), positions(episode))
        spread = np.unique(np.linspace(0, count - 1, min(SAMPLES, count)).round().astype(int))
        scores = []
        for t in spread:
            step = Step(episode, int(t), ())
            frame = step.frame
            if frame is not None and step.obs is not None:
                scores.append(likeness(step.obs, frame, self.crop))
        return bool(scores) and float(np.median(scores)) > THRESHOLD


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    a = a.astype(np.float64) - a.mean()
    b = b - b.mean()
    scale = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / scale) if scale > 0 else 0.0
