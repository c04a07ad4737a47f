"""``ValueMap``: a grid world's state values and greedy policy drawn as one image.

Each cell shows V(s) = max_a Q(s, a) as a colour of the viridis scale (the colour
bar on the right gives the values of its ends), and arrows to every action whose
Q is the largest: one arrow for a clear choice, several for a tie (an all-zero row
shows all of them). Tiles where an episode ends (holes, the goal, the cliff) have
no learned value, so they are drawn as grey tiles and left out of the scale. A red
ring marks the agent's cell when a state is given.

``image()`` gives an HxWx3 uint8 array on white (a frame, a video). Called with a
step, a ``ValueMap`` is an EpisodeViewer panel as it is: it draws the table for that
step, rings ``step.obs``, and leaves what lies around the grid and the colour bar
transparent (HxWx4), so the card shows the page's own background in a light or a dark
theme; the bar's labels are haloed like the arrows, readable on either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from agent_widget.gridworld._glyphs import (
    GRID,
    HALO,
    INK,
    NO_VALUE,
    Glyph,
    arrows,
    letter,
    ring,
    tile,
)
from agent_widget.gridworld._layout import EMPTY, ENDS, GOAL, Cells, Layout, layout_of
from agent_widget.panels import LUT, Step

Values = np.ndarray | Callable[[Step], Any]
MIN_CELL = 12  # pixels: smaller cells leave no room for an arrow and a letter
_GAP, _BAR, _LABELS = 6, 12, 58  # colour bar: gap after the grid, bar width, label width
_FONT_SIZE = 11


class ValueMap:
    """Draws a Q-table (or a value table) over a grid world, as an HxWx3 uint8 image.

    Args:
        env: the grid world: FrozenLake (any map), CliffWalking, Taxi, or any env with
            discrete observations and actions given ``cells``.
        values: what a call with a step draws: a Q-table ``(num_states, num_actions)``,
            a value table ``(num_states,)`` (no arrows), or a function of the step
            returning one (e.g. ``lambda step: snapshots[step.t]``). A table is read at
            each draw, so a live ``agent.q_table`` shows the latest values; pass a
            copy to freeze it.
        cells: for other envs, where each state lies (see
            :func:`~agent_widget.gridworld.layout_of`).
        actions: the direction of each action, when the env's action names do not say.
        value_range: ``(low, high)`` ends of the colour scale; by default each map uses
            the lowest and highest value it shows. Fix it to compare maps over training.
        cell_size: pixels per cell side (at least 12).

    Examples:
        >>> env = gym.make("FrozenLake-v1", map_name="4x4")
        >>> q_table = np.zeros((16, 4))
        >>> q_table[14, 2] = 1.0  # RIGHT, next to the goal
        >>> image = ValueMap(env).image(q_table, state=0)
        >>> image.shape, image.dtype
        ((161, 237, 3), dtype('uint8'))

        As a panel: ``viewer.add_panel("values", ValueMap(env, agent.q_table))``.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any] | Layout,
        values: Values | None = None,
        *,
        cells: Cells | None = None,
        actions: Sequence[str | None] | None = None,
        value_range: tuple[float, float] | None = None,
        cell_size: int = 40,
    ) -> None:
        self.layout = env if isinstance(env, Layout) else layout_of(env, cells, actions)
        if int(cell_size) < MIN_CELL:
            raise ValueError(f"cell_size must be at least {MIN_CELL} pixels, got {cell_size}")
        if value_range is not None and not float(value_range[0]) <= float(value_range[1]):
            raise ValueError(f"value_range must be (low, high) with low <= high: {value_range}")
        self.values = values
        self.value_range = value_range
        self.cell_size = int(cell_size)
        # By set of greedy actions and corner letter: how far in they go, and the glyphs.
        self._glyphs: dict[tuple[int, str | None], tuple[int, list[Glyph]]] = {}

    @property
    def size(self) -> tuple[int, int]:
        """(height, width) in pixels of every image this map draws."""
        rows, cols = self.layout.shape
        grid_width = cols * self.cell_size + 1
        return rows * self.cell_size + 1, grid_width + _GAP + _BAR + _LABELS

    def __call__(self, step: Step) -> np.ndarray:
        """The map of ``values`` at ``step``, the agent ringed at ``step.obs``: a panel
        (HxWx4, transparent around the grid and the colour bar)."""
        if self.values is None:
            raise ValueError("this ValueMap has no values to draw: pass ValueMap(env, q_table)")
        values = self.values(step) if callable(self.values) else self.values
        obs = step.obs
        state = None if obs is None or np.ndim(obs) != 0 else int(obs)
        return self.image(values, state, transparent=True)

    def image(
        self, values: Any, state: int | None = None, *, transparent: bool = False
    ) -> np.ndarray:
        """Draw ``values`` (a Q-table or a value table) with the agent at ``state`` (or none).

        Args:
            values: a Q-table ``(num_states, num_actions)`` or a value table ``(num_states,)``.
            state: the state whose cell is ringed, if any.
            transparent: an RGBA image whose pixels around the grid and the colour bar
                are transparent, instead of RGB on white.

        Raises ValueError when the table does not fit the env (naming both shapes) or
        ``state`` is not one of its states.
        """
        grid, low, high = self._grid(values, state, letters=True)
        height, width = self.size
        rows, cols = grid.shape[:2]
        image = np.full((height, width, 3), 255, np.uint8)
        image[:rows, :cols] = grid
        left = cols + _GAP
        labels = _colour_bar(image, left, low, high)
        if not transparent:
            return image
        opaque = np.zeros((height, width), bool)
        opaque[:rows, :cols] = True
        opaque[:, left : left + _BAR] = True
        opaque[:, left + _BAR + 3 : left + _LABELS + _BAR] |= labels
        return np.dstack([image, np.where(opaque, 255, 0).astype(np.uint8)])

    def grid(self, values: Any, state: int | None = None) -> tuple[np.ndarray, tuple[float, float]]:
        """The grid of ``values`` alone, the agent ringed at ``state`` (or none), without
        text or colour bar, and its scale's ends.

        For a view that writes the cells' letters (:attr:`labels`) and the colour bar
        itself, as text at the screen's pixel ratio: the TrainingViewer's front end. The
        image, ``(rows * cell_size + 1, cols * cell_size + 1, 3)``, is smaller than
        :meth:`image`'s, so a live update compresses and sends less.
        """
        grid, low, high = self._grid(values, state, letters=False)
        return grid, (low, high)

    @property
    def labels(self) -> list[tuple[int, int, str, bool]]:
        """The letters :meth:`image` writes in cells, ``(row, col, text, corner)``: the
        layout's marks (the start "S", Taxi's stands) in the cell's corner, "G" centred
        on a goal tile. :meth:`grid` leaves them out."""
        states = self.layout.states(None)
        tiles = self.layout.tiles
        valued = (states >= 0) & ~np.isin(tiles, list(ENDS))
        goals = [(int(r), int(c), "G", False) for r, c in np.argwhere(tiles == GOAL)]
        marks = [(r, c, text, True) for (r, c), text in self.layout.marks.items() if valued[r, c]]
        return sorted(marks + goals)

    def _grid(
        self, values: Any, state: int | None, *, letters: bool
    ) -> tuple[np.ndarray, float, float]:
        """The grid of ``values`` (its letters written in pixels or not), the agent ringed
        at ``state``, and the ends of its colour scale."""
        q = self._checked(values)
        if state is not None:
            state = self.layout.checked_state(state)
        v = q.max(axis=1) if q.ndim == 2 else q
        states = self.layout.states(state)
        valued = (states >= 0) & ~np.isin(self.layout.tiles, list(ENDS))
        cell_values = np.where(valued, v[np.maximum(states, 0)], np.nan)
        low, high = self._range(cell_values)

        size = self.cell_size
        rows, cols = self.layout.shape
        image = np.empty((rows * size + 1, cols * size + 1, 3), np.uint8)
        colours = _colours(cell_values, low, high)
        cells = image[: rows * size, : cols * size].reshape(rows, size, cols, size, 3)
        cells[...] = colours[:, None, :, None]
        image[::size] = GRID
        image[:, ::size] = GRID
        self._tiles_and_marks(image, valued, letters)
        if q.ndim == 2:
            self._arrows(image, q, states, valued)
        if state is not None:
            ring(size - 1).paint(image, *self._corner(self.layout.cell(state)))
        return image, low, high

    def _checked(self, values: Any) -> np.ndarray:
        q = np.asarray(values, dtype=np.float64)
        n, actions = self.layout.num_states, len(self.layout.moves)
        if q.shape not in ((n,), (n, actions)):
            raise ValueError(
                f"values of shape {q.shape} do not fit the env: expected a Q-table "
                f"({n}, {actions}) or a value table ({n},)"
            )
        return q

    def _range(self, cell_values: np.ndarray) -> tuple[float, float]:
        if self.value_range is not None:
            return float(self.value_range[0]), float(self.value_range[1])
        finite = cell_values[np.isfinite(cell_values)]
        return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)

    def _corner(self, cell: tuple[int, int]) -> tuple[int, int]:
        """Top-left pixel inside the grid lines of ``cell``."""
        return cell[0] * self.cell_size + 1, cell[1] * self.cell_size + 1

    def _tiles_and_marks(self, image: np.ndarray, valued: np.ndarray, letters: bool) -> None:
        inner = self.cell_size - 1
        tiles = self.layout.tiles
        for r, c in np.argwhere(~valued):
            kind = tiles[r, c] if tiles[r, c] in ENDS else EMPTY
            tile(inner, kind, lettered=letters).paint(image, *self._corner((r, c)))
        for (r, c), text in self.layout.marks.items():
            if letters and valued[r, c]:
                letter(inner, text, corner=True).paint(image, *self._corner((r, c)))
        walls = self.layout.walls
        if walls is not None:
            half = max(1, self.cell_size // 16)
            for r, c in np.argwhere(walls):
                x, top = (c + 1) * self.cell_size, r * self.cell_size
                image[top : top + self.cell_size + 1, x - half : x + half + 1] = GRID

    def _arrows(
        self, image: np.ndarray, q: np.ndarray, states: np.ndarray, valued: np.ndarray
    ) -> None:
        """An arrow per greedy action (several for a tie); letters for actions that stay put.

        In a cell with a letter in its corner (the start "S"), the policy is drawn smaller,
        towards the opposite corner, clear of the letter."""
        cells = np.argwhere(valued)
        rows = q[states[valued]]  # in the order of cells (row-major)
        best = (rows == rows.max(axis=1, keepdims=True)) & np.isfinite(rows).all(axis=1)[:, None]
        codes = best @ (1 << np.arange(q.shape[1]))  # the set of greedy actions, as bits
        marks = self.layout.marks
        for (r, c), code in zip(cells.tolist(), codes.tolist(), strict=True):
            top, left = self._corner((r, c))
            offset, glyphs = self._policy_glyphs(code, marks.get((r, c)))
            for glyph in glyphs:
                glyph.paint(image, top + offset, left + offset)

    def _policy_glyphs(self, code: int, mark: str | None) -> tuple[int, list[Glyph]]:
        """The glyphs of a set of greedy actions (bit a set for action a), and how far
        from the cell's corner they go: the largest that miss ``mark``'s letter. Drawn once."""
        key = (code, mark)
        found = self._glyphs.get(key)
        if found is None:
            inner = self.cell_size - 1
            letter_mask = None if mark is None else letter(inner, mark, corner=True).mask
            size = inner
            glyphs = self._policy_glyphs_of(code, size)
            while (
                letter_mask is not None
                and size > MIN_CELL // 2
                and _overlap(glyphs, letter_mask, inner - size)
            ):
                size -= 1
                glyphs = self._policy_glyphs_of(code, size)
            found = self._glyphs[key] = (inner - size, glyphs)
        return found

    def _policy_glyphs_of(self, code: int, size: int) -> list[Glyph]:
        moves, labels = self.layout.moves, self.layout.action_labels
        best = [a for a in range(len(moves)) if code >> a & 1]
        directions = tuple(sorted({move for a in best if (move := moves[a]) is not None}))
        still = "".join(labels[a] for a in best if moves[a] is None)
        glyphs = [arrows(size, directions)] if directions else []
        return glyphs + ([letter(size, still, corner=False)] if still else [])


def _overlap(glyphs: list[Glyph], mask: np.ndarray, offset: int) -> bool:
    """Whether any of ``glyphs``, drawn ``offset`` pixels into the cell, covers ``mask``."""
    under = mask[offset:, offset:]
    return any(bool((glyph.mask & under).any()) for glyph in glyphs)


def _colours(cell_values: np.ndarray, low: float, high: float) -> np.ndarray:
    """(rows, cols, 3) uint8: the viridis colour of each value (as heatmap cards do)."""
    finite = np.isfinite(cell_values)
    span = high - low
    levels = np.zeros_like(cell_values) if span == 0 else (cell_values - low) / span
    index = (np.clip(np.where(finite, levels, 0.0), 0.0, 1.0) * 255).round().astype(np.uint8)
    return np.where(finite[..., None], LUT[index], np.array(NO_VALUE, np.uint8))


def _colour_bar(image: np.ndarray, left: int, low: float, high: float) -> np.ndarray:
    """The scale from ``high`` (top) to ``low`` (bottom), its ends labelled in black with a
    white halo; returns the mask of the labels' pixels (halo included) in their region."""
    height = image.shape[0]
    index = np.linspace(255, 0, height - 2).round().astype(np.intp)
    image[1:-1, left + 1 : left + _BAR - 1] = LUT[index][:, None]
    image[[0, -1], left : left + _BAR] = GRID
    image[:, [left, left + _BAR - 1]] = GRID
    region = image[:, left + _BAR + 3 : left + _LABELS + _BAR]
    ink, halo = _labels(height, f"{high:.3g}", f"{low:.3g}")
    region[halo] = HALO
    region[ink] = INK
    return halo


@lru_cache(maxsize=256)
def _labels(height: int, top: str, bottom: str) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the colour bar's two labels and of their halo (the labels grown by a pixel;
    cached: during training the ends rarely change)."""
    text = Image.new("L", (_LABELS - 3, height), 0)
    draw = ImageDraw.Draw(text)
    font = ImageFont.load_default(size=_FONT_SIZE)
    draw.text((0, 0), top, fill=255, font=font, anchor="lt")
    draw.text((0, height - 1), bottom, fill=255, font=font, anchor="lb")
    ink = np.asarray(text) > 127
    grown = np.asarray(Image.fromarray(ink.astype(np.uint8) * 255).filter(ImageFilter.MaxFilter(3)))
    return ink, grown > 127
