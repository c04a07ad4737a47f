"""Where an observation's values sit in the picture: image axes and the map on the frame.

An image observation is HxW, CxHxW (torch's layout, stacked Atari frames 4x84x84)
or HxWxC (gymnasium's); the channel axis is the shorter of the first and the last
unless given. A saliency map keeps the spatial axes and is placed on the rendered
frame. By default it is stretched over the whole frame: Atari preprocessing
(gymnasium's ``AtariPreprocessing``, SB3's ``AtariWrapper``) shrinks the whole screen
to 84x84, so stretching the map back over the 210x160 frame puts each value over the
pixels it came from. An observation cropped from the frame (Pong's rows 34:194, the
score and borders cut) says so once with ``crop``: the map is stretched over that box
only; any other mapping is a function ``to_frame(map, frame_shape) -> map``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image


def channel_axis(shape: tuple[int, ...], axis: int | None = None) -> int | None:
    """The channel axis of an image observation's shape; ``None`` for HxW.

    Raises ValueError for shapes that are not an image (vectors included).
    """
    if len(shape) == 2:
        return None
    if len(shape) != 3:
        raise ValueError(f"an observation of shape {shape} is not an image (HxW, CxHxW or HxWxC)")
    if axis is None:
        return 0 if shape[0] <= shape[2] else 2
    if axis not in (0, 2, -1):
        raise ValueError(f"channel_axis must be 0 (CxHxW) or -1 (HxWxC), got {axis}")
    return axis % 3


Crop = tuple[slice, slice]
"""The rows and columns of the rendered frame an observation shows, e.g.
``(slice(34, 194), slice(None))``."""

ToFrame = Callable[[np.ndarray, tuple[int, int]], np.ndarray]
"""Maps an observation's 2-D map onto a frame of shape (height, width)."""


def spatial_map(
    attribution: np.ndarray, axis: int | None, stacked: int | None = None
) -> np.ndarray:
    """A 2-D map of an image attribution: magnitudes summed over the channels (stacked
    frames included), or those of stacked frame ``stacked`` alone (-1: the newest)."""
    magnitude = np.abs(attribution)
    if axis is None:
        return magnitude
    if stacked is None:
        return magnitude.sum(axis=axis)
    count = magnitude.shape[axis]
    if not -count <= stacked < count:
        raise ValueError(f"stacked={stacked}: the observation stacks {count} frames")
    return np.take(magnitude, stacked, axis=axis)


def on_frame(
    values: np.ndarray,
    frame_size: tuple[int, int] | None,
    crop: Crop | None = None,
    to_frame: ToFrame | None = None,
) -> np.ndarray:
    """A 2-D map of the observation placed on the frame (see the module docstring);
    the map itself where there is no frame. Outside a crop the map is 0."""
    if frame_size is None:
        return values
    if to_frame is not None:
        placed = np.asarray(to_frame(values, frame_size), dtype=np.float64)
        if placed.shape != frame_size:
            raise ValueError(
                f"to_frame returned a map of shape {placed.shape}; the frame is {frame_size}"
            )
        return placed
    if crop is None:
        return resized(values, frame_size)
    full = np.zeros(frame_size)
    full[crop] = resized(values, cropped(full, crop).shape)
    return full


def cropped(frame: np.ndarray, crop: Crop) -> np.ndarray:
    """The box ``crop`` of a frame (or of a map the frame's size); ValueError if it is empty."""
    box = frame[crop]
    if box.ndim < 2 or box.size == 0:
        raise ValueError(f"crop={crop!r} selects nothing of a frame of shape {frame.shape[:2]}")
    return box


def resized(values: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The 2-D map stretched (bilinear) to ``size`` (height, width)."""
    if values.shape == size:
        return values
    height, width = size
    image = Image.fromarray(values.astype(np.float32))  # mode "F"
    return np.asarray(image.resize((width, height), Image.Resampling.BILINEAR), np.float64)
