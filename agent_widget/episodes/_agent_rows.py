"""A multi-agent episode's per-agent columns as they are recorded: one row a step, one
column per agent (the env's ``possible_agents``), what an absent agent did filled in so
each column is one numpy array (``Rollout.agent_rewards`` and the rest say with what)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from agent_widget.format import AgentColumns


class AgentRows:
    """Per-agent values, a step at a time.

    Args:
        names: the agents, in column order.
        action_space: an agent's action space (PettingZoo's ``env.action_space``); the
            agents' must share one shape, so their actions form one array.
        turns: whether one agent acts a step (AEC), so which one is kept.
    """

    def __init__(self, names: Sequence[str], action_space: Callable[[str], Any], turns: bool):
        self.names = list(names)
        self._index = {name: i for i, name in enumerate(self.names)}
        spaces = {name: action_space(name) for name in self.names}
        shapes = {name: tuple(space.shape or ()) for name, space in spaces.items()}
        if len(set(shapes.values())) > 1:
            raise ValueError(
                f"the agents' actions have different shapes ({shapes}); agent-widget "
                "records agents whose actions share one shape"
            )
        self._shape = next(iter(shapes.values()))
        kinds = {np.dtype(space.dtype).kind for space in spaces.values()}
        integer = kinds <= set("iub")
        self._dtype = np.dtype(np.int64 if integer else np.float64)
        self.fill = -1 if integer else np.nan  # the action of an agent that took none
        keys = ["rewards", "actions", "acted", "present", "terminated", "truncated"]
        self._rows: dict[str, list[np.ndarray]] = {key: [] for key in keys}
        self._acting: list[int] | None = [] if turns else None
        self._masks: list[dict[int, np.ndarray]] = []

    def column(self, agent: str) -> int:
        """The column of ``agent``; ValueError for one the env did not declare."""
        column = self._index.get(agent)
        if column is None:
            raise ValueError(
                f"the env reports agent {agent!r}, not among its possible_agents {self.names}"
            )
        return column

    def no_action(self) -> np.ndarray:
        """The action stored where an agent took none."""
        return np.full(self._shape, self.fill, self._dtype)

    def actions_row(self, actions: Mapping[str, Any]) -> np.ndarray:
        """``(n_agents, ...)``: the agents' actions of one step, ``fill`` where none."""
        row = np.full((len(self.names), *self._shape), self.fill, self._dtype)
        for agent, action in actions.items():
            try:
                row[self.column(agent)] = action
            except (TypeError, ValueError):
                raise ValueError(
                    f"agent {agent!r}'s action {action!r:.40} is not a number of shape "
                    f"{self._shape} (its action space's)"
                ) from None
        return row

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
            "actions": self.actions_row(actions),
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
        ``mask_width`` (a file's chunks all have the first one's columns)."""
        n = len(self.names)
        shapes = {"actions": (n, *self._shape)}
        dtypes: dict[str, np.dtype[Any]] = {"rewards": np.dtype(np.float64), "actions": self._dtype}
        arrays = {
            key: np.array(rows[steps], dtypes.get(key, np.dtype(bool))).reshape(
                len(rows[steps]), *shapes.get(key, (n,))
            )
            for key, rows in self._rows.items()
        }
        if self._acting is not None:
            arrays["acting"] = np.array(self._acting[steps], np.int64)
        width = self.mask_width() if mask_width is None else mask_width
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
