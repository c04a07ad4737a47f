"""A multi-agent episode's per-agent columns as they are recorded (or appended live to
a viewer): one row a step, one column per agent (the env's ``possible_agents``), what
an absent agent did filled in so each column is one numpy array
(``Rollout.agent_rewards`` and the rest say with what)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from agent_widget.format import AgentColumns


class _ActionKind(NamedTuple):
    """How actions are stored: their shape, dtype (int64 or float64) and what fills
    the place of an action not taken (-1 or NaN)."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fill: Any

    @classmethod
    def of(cls, spaces: Sequence[Any]) -> _ActionKind:
        """The kind that holds the actions of every one of ``spaces`` (of one shape)."""
        integer = {np.dtype(space.dtype).kind for space in spaces} <= set("iub")
        return cls.stored(np.dtype(np.int64 if integer else np.float64), spaces[0].shape or ())

    @classmethod
    def stored(cls, dtype: np.dtype[Any], shape: Sequence[int]) -> _ActionKind:
        """The kind of actions stored as ``dtype`` (int64 or float64), each of ``shape``."""
        return cls(tuple(shape), dtype, -1 if dtype.kind in "iub" else np.nan)

    def none(self) -> np.ndarray:
        return np.full(self.shape, self.fill, self.dtype)

    def place(self, row: np.ndarray, index: Any, agent: str, action: Any) -> None:
        """``row[index] = action``, or a ValueError naming the agent."""
        try:
            row[index] = action
        except (TypeError, ValueError):
            raise ValueError(
                f"agent {agent!r}'s action {action!r:.40} is not a number of shape "
                f"{self.shape} (its action space's)"
            ) from None


class AgentRows:
    """Per-agent values, a step at a time: of an env's agents as it is recorded
    (:meth:`for_spaces`), or of steps appended to a recorded episode (:meth:`like`).

    Agents whose actions share one shape have them in one array (``"actions"``,
    ``(T, n_agents, ...)``); agents whose shapes differ (MPE's speaker and listener, a
    Discrete agent beside a Box one) each have a column of their own, ``"actions/<j>"``,
    ``(T, ...)`` in their own dtype, and the step's one-agent action is empty
    (:meth:`step_action`).

    Args:
        names: the agents, in column order.
        kinds: how the actions are stored: ``{"actions": kind}``, or a kind for each
            ``"actions/<j>"``.
        turns: whether one agent acts a step (AEC), so which one is kept.
        mask_width: the action masks' width, where it is fixed (:meth:`columns`).
    """

    def __init__(
        self,
        names: Sequence[str],
        kinds: dict[str, _ActionKind],
        turns: bool,
        mask_width: int | None = None,
    ) -> None:
        self.names = list(names)
        self._index = {name: i for i, name in enumerate(self.names)}
        self._kinds = kinds
        self.shared = "actions" in kinds
        self._turns = turns
        self._mask_width = mask_width
        keys = ["rewards", *self._kinds, "acted", "present", "terminated", "truncated"]
        self._rows: dict[str, list[np.ndarray]] = {key: [] for key in keys}
        self._acting: list[int] | None = [] if turns else None
        self._masks: list[dict[int, np.ndarray]] = []

    @classmethod
    def for_spaces(
        cls, names: Sequence[str], action_space: Callable[[str], Any], turns: bool
    ) -> AgentRows:
        """The rows of an env's agents, their actions stored as ``action_space(agent)``
        (PettingZoo's ``env.action_space``) says."""
        spaces = [action_space(name) for name in names]
        if len({tuple(space.shape or ()) for space in spaces}) == 1:
            return cls(names, {"actions": _ActionKind.of(spaces)}, turns)
        kinds = {f"actions/{j}": _ActionKind.of([space]) for j, space in enumerate(spaces)}
        return cls(names, kinds, turns)

    @classmethod
    def like(cls, columns: AgentColumns) -> AgentRows:
        """Rows that continue an episode's ``columns``: their actions stored as its are,
        whose turn each step was kept if it keeps it, masks as wide as its."""
        arrays = columns.arrays
        if "actions" in arrays:
            shared = np.asarray(arrays["actions"])
            kinds = {"actions": _ActionKind.stored(shared.dtype, shared.shape[2:])}
        else:
            own = {
                f"actions/{j}": np.asarray(arrays[f"actions/{j}"])
                for j in range(len(columns.names))
            }
            kinds = {key: _ActionKind.stored(a.dtype, a.shape[1:]) for key, a in own.items()}
        mask = arrays.get("action_mask")
        width = 0 if mask is None else int(np.shape(mask)[2])
        return cls(columns.names, kinds, "acting" in arrays, mask_width=width)

    def column(self, agent: str) -> int:
        """The column of ``agent``; ValueError for one the env did not declare."""
        column = self._index.get(agent)
        if column is None:
            raise ValueError(
                f"the env reports agent {agent!r}, not among its possible_agents {self.names}"
            )
        return column

    def step_action(self, actions: Mapping[str, Any]) -> Any:
        """The step's one-agent action (``Rollout.actions``): the acting agent's (AEC;
        ``fill`` for a leaving agent's step), every agent's as one row (Parallel, ``fill``
        where none), or an empty one where the agents' actions differ in shape, as
        their own columns hold them."""
        if not self.shared:
            return np.zeros(0)
        if self._turns:
            return next(iter(actions.values())) if actions else self._kinds["actions"].none()
        return self._shared_actions(actions)

    def _shared_actions(self, actions: Mapping[str, Any]) -> np.ndarray:
        """``(n_agents, ...)``: the agents' actions of one step, ``fill`` where none."""
        kind = self._kinds["actions"]
        row = np.full((len(self.names), *kind.shape), kind.fill, kind.dtype)
        for agent, action in actions.items():
            kind.place(row, self.column(agent), agent, action)
        return row

    def _action_cells(self, actions: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """A step's actions as the rows of the columns that hold them."""
        if self.shared:
            return {"actions": self._shared_actions(actions)}
        cells = {key: kind.none() for key, kind in self._kinds.items()}
        for agent, action in actions.items():
            key = f"actions/{self.column(agent)}"
            self._kinds[key].place(cells[key], (), agent, action)
        return cells

    def row(
        self,
        *,
        present: Sequence[str],
        actions: Mapping[str, Any],
        rewards: Mapping[str, Any],
        terminated: Mapping[str, Any],
        truncated: Mapping[str, Any],
        masks: Mapping[str, np.ndarray],
        acting: str | None = None,
        t: int,
    ) -> dict[str, Any]:
        """Step ``t``'s row, for :meth:`append`: who was present as it began, the actions
        taken, and the rewards and flags after it (of the agents the env reports them
        for). Made apart from appending it, so a value that does not fit (an action of
        another shape, an undeclared agent) changes nothing: a ValueError naming the step."""
        try:
            return self._row(present, actions, rewards, terminated, truncated, masks, acting)
        except (TypeError, ValueError) as error:
            raise ValueError(f"step {t}: {error}; the {t} steps before it are kept") from None

    def _row(
        self,
        present: Sequence[str],
        actions: Mapping[str, Any],
        rewards: Mapping[str, Any],
        terminated: Mapping[str, Any],
        truncated: Mapping[str, Any],
        masks: Mapping[str, np.ndarray],
        acting: str | None,
    ) -> dict[str, Any]:
        n = len(self.names)
        rewards_row = np.full(n, np.nan)
        for agent, reward in rewards.items():
            rewards_row[self.column(agent)] = float(reward)
        return {
            "rewards": rewards_row,
            **self._action_cells(actions),
            "acted": self._flags(actions, n),
            "present": self._flags(present, n),
            "terminated": self._flags([a for a, v in terminated.items() if v], n),
            "truncated": self._flags([a for a, v in truncated.items() if v], n),
            "masks": {self.column(agent): mask for agent, mask in masks.items()},
            "acting": -1 if acting is None else self.column(acting),
        }

    def append(self, row: dict[str, Any]) -> None:
        for key, rows in self._rows.items():
            rows.append(row[key])
        self._masks.append(row["masks"])
        if self._acting is not None:
            self._acting.append(row["acting"])

    def _flags(self, agents: Any, n: int) -> np.ndarray:
        flags = np.zeros(n, bool)
        flags[[self.column(agent) for agent in agents]] = True
        return flags

    def columns(self, steps: slice = slice(None), *, mask_width: int | None = None) -> AgentColumns:
        """The columns of the steps so far (of ``steps`` of them: a chunk written to a
        file as it is recorded). The action masks' width is the widest mask seen, or
        ``mask_width`` (a file's chunks all have the first one's columns), or the
        episode's these rows continue (:meth:`like`)."""
        n = len(self.names)
        columns = (n,) if self.shared else ()  # one array of every agent's, or agent j's
        shapes = {key: (*columns, *kind.shape) for key, kind in self._kinds.items()}
        dtypes = {key: kind.dtype for key, kind in self._kinds.items()}
        dtypes["rewards"] = np.dtype(np.float64)
        arrays = {
            key: np.array(rows[steps], dtypes.get(key, np.dtype(bool))).reshape(
                len(rows[steps]), *shapes.get(key, (n,))
            )
            for key, rows in self._rows.items()
        }
        if self._acting is not None:
            arrays["acting"] = np.array(self._acting[steps], np.int64)
        width = self._mask_width if mask_width is None else mask_width
        if width is None:
            width = self.mask_width()
        if width:
            chosen = self._masks[steps]
            masks = np.zeros((len(chosen), n, width), bool)
            for t, step in enumerate(chosen):
                for i, mask in step.items():
                    masks[t, i, : min(len(mask), width)] = mask[:width]
            arrays["action_mask"] = masks
        return AgentColumns(self.names, arrays)

    def mask_width(self) -> int:
        """The widest action mask of the steps so far; 0 without masks."""
        return max((len(mask) for step in self._masks for mask in step.values()), default=0)
