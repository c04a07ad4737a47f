"""Where an observation's values sit in the picture: image axes and the map on the frame.

An image observation is HxW, CxHxW (torch's layout, stacked Atari frames 4x84x84)
or HxWxC (gymnasium's); the channel axis is the shorter of the first and the last
unless given. A saliency map keeps the spatial axes and is resized to the rendered
frame: Atari preprocessing shrinks the whole screen to 84x84, so stretching the map
back over the 210x160 frame puts each value over the pixels it came from.
"""

from __future__ import annotations

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


def spatial_map(attribution: np.ndarray, axis: int | None) -> np.ndarray:
    """A 2-D map of an image attribution: magnitudes summed over the channels."""
    magnitude = np.abs(attribution)
    return magnitude if axis is None else magnitude.sum(axis=axis)


def resized(values: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The 2-D map stretched (bilinear) to ``size`` (height, width)."""
    if values.shape == size:
        return values
    height, width = size
    image = Image.fromarray(values.astype(np.float32))  # mode "F"
    return np.asarray(image.resize((width, height), Image.Resampling.BILINEAR), np.float64)
