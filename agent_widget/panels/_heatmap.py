"""2-D maps as 8-bit levels that the page colours: heatmap cards and frame overlays.

A map travels at its own size as one byte per cell, zlib-compressed, with the
colour table; the page maps the levels through the table and scales the result to
the frame itself. Against the RGBA PNG of the map resized to the frame that this
replaced, the data is 4x smaller before compression (the benchmark's noisy 210x160
saliency map: 28 KB rather than an 86 KB PNG), the kernel neither resizes nor
PNG-encodes (under 1 ms rather than 8.5 ms) and the page decodes no image
(``createImageBitmap`` took ~20 ms of a seek; colouring takes ~3 ms).

Levels: ``0`` is "no value" (a non-finite cell, drawn transparent); ``1 .. 255``
span the finite values from min to max, ``level = 1 + round(254 * (v - min) /
(max - min))``, and level ``L`` takes colour ``round((L - 1) * 255 / 254)`` of the
table, so min and max get its first and last colours. A constant map is level 1.

The colormap is viridis (perceptually uniform, readable by colour-blind users and
in greyscale), built from 17 anchors sampled from matplotlib's table so that
matplotlib is not needed at run time. Its 256 RGB entries travel with each map, so
the page colours the map and draws the colour bar from the very same table.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np

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

NO_VALUE = 0
"""The level of a non-finite cell; finite values take levels 1 to 255."""

# Speed over size: a map is made per step while the user scrubs.
_ZLIB_LEVEL = 1


class Heatmap(NamedTuple):
    levels: np.ndarray
    """(height, width) uint8, see the module docstring."""
    min: float
    max: float

    @property
    def payload(self) -> bytes:
        """The levels, row-major, as a zlib stream (RFC 1950)."""
        return zlib.compress(self.levels.tobytes(), _ZLIB_LEVEL)


def heatmap(values: np.ndarray) -> Heatmap:
    """The map as levels from its own finite min (level 1) to max (level 255).

    Raises ValueError when no value is finite.

    Examples:
        >>> drawn = heatmap(np.array([[0.0, 0.5, 1.0, np.nan]]))
        >>> drawn.levels.tolist(), drawn.min, drawn.max
        ([[1, 128, 255, 0]], 0.0, 1.0)
    """
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    every = bool(finite.all())
    if not every and not finite.any():
        raise ValueError(f"the {values.shape[0]}x{values.shape[1]} map has no finite values")
    cells = values if every else values[finite]
    low, high = float(cells.min()), float(cells.max())
    span = high - low
    # A constant map carries no contrast: it takes the lowest level (clear as an overlay).
    scaled = np.zeros(values.shape) if span == 0 else (values - low) * (254 / span)
    if not every:
        scaled[~finite] = -1.0  # becomes level 0
    # Within [-1, 254]: adding 1.5 and truncating rounds to the nearest level (half up).
    return Heatmap((scaled + 1.5).astype(np.uint8), low, high)
