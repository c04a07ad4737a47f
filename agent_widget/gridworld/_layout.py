"""``Layout``: where a discrete env's states lie on a grid, what each cell is, where actions go.

Read from the env's own map, never from its renderer (which needs pygame):
FrozenLake's ``desc`` (any map: 4x4, 8x8, custom), CliffWalking's cliff, Taxi's
``desc`` (its walls and the four stands R, G, Y, B), or, for any other discrete env,
a ``cells`` mapping from state to ``(row, col)``.

Taxi has 500 states on 25 cells: its grid shows the 25 states that share the
passenger's place and the destination with the state given (the agent's), or, with
no state, the passenger waiting at R bound for G.

Action directions come from the env's action names (``LEFT``/``WEST``, ``UP``/
``NORTH``, ...); actions that move nowhere (Taxi's PICKUP, DROPOFF) are shown by
their first letter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.toy_text.cliffwalking import CliffWalkingEnv
from gymnasium.envs.toy_text.taxi import TaxiEnv

from agent_widget.episodes import action_names

FLOOR, START, HOLE, GOAL, CLIFF, EMPTY = "F", "S", "H", "G", "C", " "
ENDS = frozenset((HOLE, GOAL, CLIFF))
"""Tiles where an episode ends: nothing is learned there, so they show no value or arrow."""

DIRECTIONS: dict[str, tuple[int, int]] = {
    "UP": (-1, 0),
    "NORTH": (-1, 0),
    "DOWN": (1, 0),
    "SOUTH": (1, 0),
    "LEFT": (0, -1),
    "WEST": (0, -1),
    "RIGHT": (0, 1),
    "EAST": (0, 1),
}
Cells = np.ndarray | Sequence[tuple[int, int]] | Callable[[int], tuple[int, int]]
Moves = tuple[tuple[int, int] | None, ...]
_TAXI_DEFAULT = (0, 1)  # passenger waiting at R, bound for G


@dataclass(frozen=True)
class Layout:
    """A grid of cells, the states on it and the directions of the actions.

    Attributes:
        tiles: (rows, cols) array of tile letters: ``F`` floor, ``S`` start, ``H``
            hole, ``G`` goal, ``C`` cliff, ``" "`` no state.
        num_states: how many states the env has.
        moves: per action, its ``(d_row, d_col)``, or None for actions that move nowhere.
        action_labels: per action, the letter shown for it when it moves nowhere.
        marks: letters written in cells, ``{(row, col): letter}`` (start, Taxi's stands).
        walls: (rows, cols - 1) bool, a wall between cell (r, c) and (r, c + 1).
    """

    tiles: np.ndarray
    num_states: int
    moves: Moves
    action_labels: tuple[str, ...]
    locate: Callable[[int], tuple[int, int]] = field(repr=False)
    shown: Callable[[int | None], np.ndarray] = field(repr=False)
    marks: dict[tuple[int, int], str] = field(default_factory=dict)
    walls: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, cols) of the grid."""
        return int(self.tiles.shape[0]), int(self.tiles.shape[1])

    def states(self, state: int | None = None) -> np.ndarray:
        """(rows, cols) int: the state each cell shows (-1 for none), given the agent's state."""
        return self.shown(state)

    def cell(self, state: int) -> tuple[int, int]:
        """Where ``state`` lies."""
        return self.locate(self.checked_state(state))

    def checked_state(self, state: int) -> int:
        """``state`` as an int; ValueError when the env has no such state."""
        if not 0 <= int(state) < self.num_states:
            raise ValueError(f"state {state} is out of range: the env has {self.num_states}")
        return int(state)


def layout_of(
    env: gym.Env[Any, Any],
    cells: Cells | None = None,
    actions: Sequence[str | None] | None = None,
) -> Layout:
    """The layout of ``env``: its own map for FrozenLake, CliffWalking and Taxi, else ``cells``.

    Args:
        env: a gymnasium env with discrete observations and actions.
        cells: where each state lies, for other envs: an array ``(num_states, 2)`` of
            ``(row, col)``, or a function ``state -> (row, col)``. Each cell holds at
            most one state.
        actions: per action, a direction (``"UP"``, ``"DOWN"``, ``"LEFT"``,
            ``"RIGHT"``, or the compass names) or any other name for actions that
            move nowhere; defaults to the env's action names.

    Examples:
        >>> layout = layout_of(gym.make("FrozenLake-v1", map_name="4x4"))
        >>> layout.shape, layout.cell(5), str(layout.tiles[1, 1]), layout.moves[0]
        ((4, 4), (1, 1), 'H', (0, -1))
    """
    observations, action_space = env.observation_space, env.action_space
    if not isinstance(observations, gym.spaces.Discrete):
        raise ValueError(f"a grid needs discrete observations, got {observations}")
    if not isinstance(action_space, gym.spaces.Discrete):
        raise ValueError(f"a grid needs discrete actions, got {action_space}")
    n, num_actions = int(observations.n), int(action_space.n)
    names = list(actions) if actions is not None else action_names(env)
    if names is not None and len(names) != num_actions:
        raise ValueError(f"actions: {len(names)} names for {num_actions} actions")
    moves, labels = _moves(names, num_actions)
    unwrapped = env.unwrapped
    if cells is not None:
        return _from_cells(cells, n, moves, labels)
    if isinstance(unwrapped, TaxiEnv):
        return _taxi(unwrapped, moves, labels)
    if isinstance(unwrapped, CliffWalkingEnv):
        return _cliff_walking(unwrapped, moves, labels)
    desc = getattr(unwrapped, "desc", None)
    if desc is not None and np.ndim(desc) == 2 and np.size(desc) == n:
        return _from_desc(np.asarray(desc), moves, labels)
    raise ValueError(
        f"no grid is known for {type(unwrapped).__name__}: pass cells=, the (row, col) of "
        "each state (an array of shape (num_states, 2) or a function state -> (row, col))"
    )


def _moves(names: Sequence[str | None] | None, count: int) -> tuple[Moves, tuple[str, ...]]:
    if names is None:
        return (None,) * count, tuple(str(a) for a in range(count))
    moves = tuple(DIRECTIONS.get(str(name).upper()) for name in names)
    labels = tuple(str(name)[:1].upper() if name else str(a) for a, name in enumerate(names))
    return moves, labels


def _row_major(shape: tuple[int, int]) -> tuple[Callable[[int], tuple[int, int]], np.ndarray]:
    """States numbered row by row (FrozenLake, CliffWalking): locate, and the grid of states."""
    rows, cols = shape
    grid = np.arange(rows * cols).reshape(shape)
    return (lambda state: divmod(int(state), cols)), grid


def _from_desc(desc: np.ndarray, moves: Moves, labels: tuple[str, ...]) -> Layout:
    """FrozenLake, or any env whose ``desc`` is a grid of S/F/H/G letters, one state a cell."""
    letters = np.char.decode(desc, "ascii") if desc.dtype.kind == "S" else desc.astype(str)
    tiles = np.where(np.isin(letters, [START, HOLE, GOAL]), letters, FLOOR)
    locate, grid = _row_major(tiles.shape)
    marks = {(int(r), int(c)): START for r, c in np.argwhere(tiles == START)}
    return Layout(tiles, grid.size, moves, labels, locate, lambda _: grid, marks)


def _cliff_walking(env: CliffWalkingEnv, moves: Moves, labels: tuple[str, ...]) -> Layout:
    shape = tuple(env.shape)
    tiles = np.where(np.asarray(env._cliff, bool), CLIFF, FLOOR).astype("<U1")
    start = np.unravel_index(env.start_state_index, shape)
    tiles[start] = START
    tiles[shape[0] - 1, shape[1] - 1] = GOAL  # the episode ends there (documented)
    locate, grid = _row_major((shape[0], shape[1]))
    marks = {(int(start[0]), int(start[1])): START}
    return Layout(tiles, grid.size, moves, labels, locate, lambda _: grid, marks)


def _taxi(env: TaxiEnv, moves: Moves, labels: tuple[str, ...]) -> Layout:
    """Taxi's 5x5 streets: the taxi's position part of the state; walls from its map."""
    desc = np.char.decode(np.asarray(env.desc), "ascii")
    rows, cols = desc.shape[0] - 2, (desc.shape[1] - 1) // 2
    walls = desc[1:-1, 2:-1:2] == "|"  # the character between columns c and c + 1
    marks = {(int(r), int(c)): "RGYB"[i] for i, (r, c) in enumerate(env.locs)}
    row, col = np.mgrid[:rows, :cols]

    def shown(state: int | None) -> np.ndarray:
        passenger, destination = _TAXI_DEFAULT if state is None else env.decode(state)[2:]
        return np.asarray(((row * cols + col) * 5 + passenger) * 4 + destination)

    def locate(state: int) -> tuple[int, int]:
        taxi_row, taxi_col, _, _ = env.decode(int(state))
        return int(taxi_row), int(taxi_col)

    tiles = np.full((rows, cols), FLOOR)
    return Layout(tiles, 500, moves, labels, locate, shown, marks, walls)


def _from_cells(cells: Cells, n: int, moves: Moves, labels: tuple[str, ...]) -> Layout:
    locations = np.asarray([cells(s) for s in range(n)] if callable(cells) else cells)
    if locations.shape != (n, 2) or locations.dtype.kind not in "iu":
        raise ValueError(
            f"cells: expected {n} integer (row, col) pairs, one per state, "
            f"got an array of shape {locations.shape} and dtype {locations.dtype}"
        )
    if (locations < 0).any():
        state = int(np.flatnonzero((locations < 0).any(axis=1))[0])
        raise ValueError(f"cells: state {state} lies at {tuple(locations[state])}, off the grid")
    shape = (int(locations[:, 0].max()) + 1, int(locations[:, 1].max()) + 1)
    grid = np.full(shape, -1)
    for state, (r, c) in enumerate(locations):
        if grid[r, c] != -1:
            raise ValueError(
                f"cells: states {grid[r, c]} and {state} both lie at ({r}, {c}); "
                "each cell can show one state"
            )
        grid[r, c] = state
    tiles = np.where(grid >= 0, FLOOR, EMPTY)

    def locate(state: int) -> tuple[int, int]:
        return int(locations[state, 0]), int(locations[state, 1])

    return Layout(tiles, n, moves, labels, locate, lambda _: grid)
