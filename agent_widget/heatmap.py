"""2-D maps as PNG images: a heatmap card, or an overlay drawn over the frame.

The colormap is viridis (perceptually uniform, readable by colour-blind users and
in greyscale), built from 17 anchors sampled from matplotlib's table so that
matplotlib is not needed at run time. Its 256 RGB entries travel with each heatmap,
so the front end draws the colour bar from the very table that coloured the map.
"""

from __future__ import annotations

import io
from typing import NamedTuple

import numpy as np
from PIL import Image

COLORMAP = "viridis"
_ANCHORS = np.array(
    [
        (68, 1, 84), (72, 24, 106), (71, 45, 123), (66, 64, 134), (59, 82, 139),
        (51, 99, 141), (44, 114, 142), (38, 130, 142), (33, 145, 140), (31, 160, 136),
        (40, 174, 128), (63, 188, 115), (94, 201, 98), (132, 212, 75), (173, 220, 48),
        (216, 226, 25), (253, 231, 37),
    ],
    dtype=np.float64,
)  # fmt: skip
_POSITIONS = np.linspace(0.0, 1.0, len(_ANCHORS))
LUT: np.ndarray = (
    np.stack(
        [np.interp(np.linspace(0.0, 1.0, 256), _POSITIONS, _ANCHORS[:, c]) for c in range(3)],
        axis=1,
    )
    .round()
    .astype(np.uint8)
)
"""(256, 3) uint8: the colormap, lowest value first."""

# Speed over size: these PNGs are made per step while the user scrubs.
_PNG_LEVEL = 1


class Heatmap(NamedTuple):
    png: bytes
    width: int
    height: int
    min: float
    max: float


def png_bytes(pixels: np.ndarray) -> bytes:
    """PNG of an HxW (grey), HxWx3 (RGB) or HxWx4 (RGBA) uint8 array."""
    buffer = io.BytesIO()
    image = Image.fromarray(np.ascontiguousarray(pixels))
    image.save(buffer, format="PNG", compress_level=_PNG_LEVEL)
    return buffer.getvalue()


def heatmap(values: np.ndarray, size: tuple[int, int] | None = None) -> Heatmap:
    """The map coloured with :data:`LUT` from its own min (first colour) to max (last).

    With ``size`` (height, width), the map is resized to it and becomes an overlay:
    RGBA whose alpha follows the value, so low values let the frame show through.
    Non-finite values are transparent. Raises ValueError when no value is finite.

    Example:
        >>> card = heatmap(np.array([[0.0, 1.0]]))
        >>> card.width, card.height, card.min, card.max
        (2, 1, 0.0, 1.0)
    """
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.any():
        raise ValueError(f"the {values.shape[0]}x{values.shape[1]} map has no finite values")
    low, high = float(values[finite].min()), float(values[finite].max())
    if size is not None:
        values = _resized(values, size)
        finite = np.isfinite(values)
    span = high - low
    # A constant map carries no contrast: it takes the lowest colour (and is clear as an overlay).
    levels = np.zeros(values.shape) if span == 0 else (values - low) / span
    levels = np.clip(np.where(finite, levels, 0.0), 0.0, 1.0)
    index = (levels * 255).round().astype(np.uint8)
    rgb = LUT[index]
    if size is None and finite.all():
        pixels = rgb
    else:
        alpha = np.where(finite, 255, 0) if size is None else np.where(finite, index, 0)
        pixels = np.concatenate([rgb, alpha.astype(np.uint8)[..., None]], axis=2)
    height, width = values.shape
    return Heatmap(png_bytes(pixels), width, height, low, high)


def resized_image(pixels: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An HxWx3/HxWx4 uint8 image resized to ``size`` (height, width), for overlays."""
    if pixels.shape[:2] == size:
        return pixels
    image = Image.fromarray(np.ascontiguousarray(pixels))
    return np.asarray(image.resize((size[1], size[0]), _resample(pixels.shape[:2], size)))


def _resized(values: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    if values.shape == size:
        return values
    image = Image.fromarray(values.astype(np.float32))  # mode "F"
    resized = image.resize((size[1], size[0]), _resample(values.shape, size))
    return np.asarray(resized, dtype=np.float64)


def _resample(source: tuple[int, ...], target: tuple[int, int]) -> Image.Resampling:
    """Blocks for a grid that divides the frame exactly (a gridworld's cells), else smooth."""
    exact = target[0] % source[0] == 0 and target[1] % source[1] == 0
    return Image.Resampling.NEAREST if exact else Image.Resampling.BILINEAR
