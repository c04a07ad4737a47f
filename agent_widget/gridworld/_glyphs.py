"""The small pictures a value map is made of: arrows, letters, tiles, the agent's ring.

A glyph is a cell-sized RGB image and a boolean mask of the pixels it covers. Masks
are binary (no anti-aliasing), so a pixel of the map is exactly the glyph's colour
or exactly what lies under it: tests can check colours by pixel, and four arrows
drawn as one glyph rotated are exactly alike.

Arrows and letters are black with a one-pixel white halo, so they read on every
colour of the scale; terminal tiles are greys, outside the colour scale, because
they have no value.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from agent_widget.gridworld._layout import CLIFF, EMPTY, GOAL, HOLE

INK = (0, 0, 0)
HALO = (255, 255, 255)
AGENT = (230, 30, 30)
GRID = (40, 40, 40)
NO_VALUE = (128, 128, 128)  # a cell whose value is not finite
TILE_COLOURS = {
    HOLE: (105, 105, 105),
    CLIFF: (140, 105, 90),
    GOAL: (235, 235, 235),
    EMPTY: (205, 205, 205),
}


class Glyph:
    """A cell-sized picture: ``rgb`` (size, size, 3) uint8 and ``mask`` (size, size) bool."""

    def __init__(self, rgb: np.ndarray, mask: np.ndarray) -> None:
        self.rgb, self.mask = rgb, mask
        # The covered pixels and their colours, so that painting is one indexed write.
        self._rows, self._cols = np.nonzero(mask)
        self._colours = rgb[mask]
        self._flat: tuple[int, np.ndarray] = (0, self._cols)  # (image width, pixel offsets)

    def paint(self, image: np.ndarray, top: int, left: int) -> None:
        """Draw onto ``image`` (C-contiguous) with the glyph's top-left corner at (top, left)."""
        width = image.shape[1]
        if self._flat[0] != width:
            self._flat = (width, self._rows * width + self._cols)
        image.reshape(-1, 3)[self._flat[1] + (top * width + left)] = self._colours


def _inked(shape: np.ndarray) -> Glyph:
    """Black ``shape`` (bool mask) with a white halo one pixel wide around it."""
    halo = ImageFilter.MaxFilter(3)
    grown = np.asarray(Image.fromarray(shape.astype(np.uint8) * 255).filter(halo)) > 127
    rgb = np.where(shape[..., None], np.array(INK, np.uint8), np.array(HALO, np.uint8))
    return Glyph(rgb, grown)


def _canvas(size: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("L", (size, size), 0)
    return image, ImageDraw.Draw(image)


@lru_cache(maxsize=64)
def arrow(size: int, d_row: int, d_col: int, centred: bool = True) -> Glyph:
    """An arrow towards the cell's (d_row, d_col) side: across the centre, or from it.

    A single greedy action is drawn across the centre; tied actions are drawn from
    it, so that together they make a star. Drawn pointing right and rotated, so all
    four directions are exactly alike.
    """
    image, draw = _canvas(size)
    centre = (size - 1) / 2
    tail = centre - (0.3 * size if centred else 0)
    tip = centre + 0.36 * size
    head = 0.16 * size
    shaft = max(1.0, 0.05 * size)
    wing = max(2.0, 0.13 * size)
    draw.rectangle((tail, centre - shaft, tip - head, centre + shaft), fill=255)
    draw.polygon(
        [(tip - head, centre - wing), (tip, centre), (tip - head, centre + wing)], fill=255
    )
    right = np.asarray(image) > 127
    turns = {(0, 1): 0, (-1, 0): 1, (0, -1): 2, (1, 0): 3}[(d_row, d_col)]
    return _inked(np.ascontiguousarray(np.rot90(right, turns)))


@lru_cache(maxsize=256)
def arrows(size: int, moves: tuple[tuple[int, int], ...]) -> Glyph:
    """One arrow across the centre for a single move; for a tie, one from it per move."""
    if len(moves) == 1:
        return arrow(size, *moves[0], centred=True)
    spokes = [arrow(size, *move, centred=False) for move in moves]
    mask = np.logical_or.reduce([spoke.mask for spoke in spokes])
    shape = np.logical_or.reduce([spoke.rgb[..., 0] == INK[0] for spoke in spokes]) & mask
    return _inked(shape)


@lru_cache(maxsize=64)
def letter(size: int, text: str, corner: bool) -> Glyph:
    """``text`` in the cell's top-left corner (small) or centred (large)."""
    image, draw = _canvas(size)
    height = max(8, round(size * (0.3 if corner else 0.45)))
    font = ImageFont.load_default(size=height)
    if corner:
        draw.text((max(2, size // 14), 1), text, fill=255, font=font)
    else:
        draw.text((size / 2, size / 2), text, fill=255, font=font, anchor="mm")
    return _inked(np.asarray(image) > 127)


@lru_cache(maxsize=16)
def tile(size: int, kind: str, lettered: bool = True) -> Glyph:
    """A cell with no value: a hole or cliff (a dark pit), the goal (a ``G`` when
    ``lettered``; else its plain tile, for a view that writes the letter as text), or
    no state."""
    rgb = np.empty((size, size, 3), np.uint8)
    rgb[:] = TILE_COLOURS[kind]
    if kind in (HOLE, CLIFF):
        image, draw = _canvas(size)
        inset = 0.2 * size
        draw.ellipse((inset, inset, size - 1 - inset, size - 1 - inset), fill=255)
        rgb[np.asarray(image) > 127] = INK
    elif kind == GOAL and lettered:
        mark = letter(size, "G", corner=False)
        np.copyto(rgb, mark.rgb, where=mark.mask[..., None])
    return Glyph(rgb, np.ones((size, size), bool))


@lru_cache(maxsize=8)
def ring(size: int) -> Glyph:
    """The agent: a red ring inside the cell's border."""
    image, draw = _canvas(size)
    inset = max(2, round(0.06 * size))
    width = max(2, size // 12)
    draw.ellipse((inset, inset, size - 1 - inset, size - 1 - inset), outline=255, width=width)
    mask = np.asarray(image) > 127
    rgb = np.empty((size, size, 3), np.uint8)
    rgb[:] = AGENT
    return Glyph(rgb, mask)
