"""The episode as the viewer serves it: a rollout, plus the steps appended live.

It answers the wire (frames, each position's readout, the timeline's series) and is
what panel functions read their :class:`~agent_widget.panels.Step` from, so a step
appended a moment ago is as readable as one recorded long before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from agent_widget.episodes import ActionNames, AgentRows, Rollout
from agent_widget.format import AgentColumns, ArrayFrames, Frames
from agent_widget.viewer import _summary
from agent_widget.viewer._agents import AgentReadout
from agent_widget.viewer._given import checked_names, timeline_extra
from agent_widget.viewer._growing import GrowingColumn, Joined, Rows
from agent_widget.viewer._transport import action_text, pack_series, shows_actions


class ServedEpisode:
    """The episode as the viewer serves it: the rollout, plus the steps appended live."""

    def __init__(
        self,
        rollout: Rollout,
        frames: Frames | None,
        encoding: str,
        extras: Sequence[str],
        action_names: ActionNames | None,
        full_series: bool = False,
    ) -> None:
        self.frames = frames
        self.full_series = full_series
        self._given = rollout
        self._returns: np.ndarray | None = None
        # A list names every agent's actions (those its space fits); a dict, each agent's.
        self.named = checked_names(action_names, rollout.agents)
        self.action_names = self.named if isinstance(self.named, list) else []
        self._encoding = encoding
        self._frames_owned = False
        self._frames_from_observations = frames is not None and rollout.frames is None
        self._infos = rollout.infos or []
        self._new_infos: list[dict[str, Any]] = []
        self._actions = GrowingColumn(rollout.actions, "action")
        self._flags = {
            "rewards": GrowingColumn(rollout.rewards, "reward"),
            "terminated": GrowingColumn(rollout.terminated, "terminated"),
            "truncated": GrowingColumn(rollout.truncated, "truncated"),
        }
        self._extras = {name: GrowingColumn(timeline_extra(rollout, name), name) for name in extras}
        self._observations = rollout.observations
        self._new_observations: list[Any] = []  # one per appended position, None if not given
        self._other_extras = {k: v for k, v in rollout.extras.items() if k not in self._extras}
        self.metadata = rollout.metadata
        # A multi-agent episode's per-agent columns, grown as steps are appended, and the
        # readout per agent and return lines made of them (again once they grew).
        self._agent_names = rollout.agents
        self._agent_arrays = None
        if rollout.agent_columns is not None:
            self._agent_arrays = {
                key: GrowingColumn(values, f"agents {key}")
                for key, values in rollout.agent_columns.arrays.items()
            }
        self._agents: AgentReadout | None = None

    @property
    def num_positions(self) -> int:
        return len(self._infos) + len(self._new_infos)

    # What a panel's Step reads (agent_widget.panels.EpisodeData), named as on a Rollout.

    @property
    def num_steps(self) -> int:
        return len(self._actions.values)

    @property
    def returns(self) -> np.ndarray:
        rewards = self._flags["rewards"].values
        return np.concatenate([[0.0], np.cumsum(rewards, dtype=np.float64)])[: self.num_positions]

    @property
    def observations(self) -> Sequence[Any] | None:
        if self._observations is None and not any(o is not None for o in self._new_observations):
            return None
        return Joined(Rows(self._observations, len(self._infos)), self._new_observations)

    @property
    def actions(self) -> np.ndarray:
        return np.asarray(self._actions.values)

    @property
    def rewards(self) -> np.ndarray:
        return np.asarray(self._flags["rewards"].values)

    @property
    def terminated(self) -> np.ndarray:
        return np.asarray(self._flags["terminated"].values)

    @property
    def truncated(self) -> np.ndarray:
        return np.asarray(self._flags["truncated"].values)

    @property
    def infos(self) -> Sequence[dict[str, Any]]:
        return Joined(self._infos, self._new_infos)

    @property
    def extras(self) -> dict[str, Any]:
        """The timeline's extras as grown, and the rollout's others (which do not grow)."""
        return {**self._other_extras, **{name: c.values for name, c in self._extras.items()}}

    @property
    def agent_columns(self) -> AgentColumns | None:
        """A multi-agent episode's per-agent columns as grown; None for one agent."""
        if self._agent_arrays is None:
            return None
        arrays = {key: column.values for key, column in self._agent_arrays.items()}
        return AgentColumns(self._agent_names, arrays)

    @property
    def acting_agent(self) -> np.ndarray | None:
        """Whose turn each step was, for a multi-agent (AEC) episode; else None."""
        readout = self._readout()
        return None if readout is None else readout.acting

    def agent_readout(self, positions: Sequence[int]) -> list[dict[str, Any]] | None:
        """A multi-agent episode's readout per agent at ``positions``; else None."""
        readout = self._readout()
        return None if readout is None else readout.rows(positions)

    def agent_step(
        self,
        acting: str | None,
        present: Sequence[str] | None,
        actions: Mapping[str, Any],
        rewards: Mapping[str, Any],
        terminated: Mapping[str, Any],
        truncated: Mapping[str, Any],
        masks: Mapping[str, Any],
    ) -> tuple[AgentColumns, Any, float]:
        """One step of a multi-agent episode, to append: its per-agent columns, made as
        recording makes them from ``acting`` (whose turn it was) and the values by agent
        (``EpisodeViewer.append`` documents them), and its one-agent action and reward
        as recording makes them (the acting agent's action, the agents' rewards summed).
        The agents ``present`` as it began are by default those the values name."""
        columns = self.agent_columns
        if columns is None:
            raise ValueError(
                "this viewer shows one agent: per-agent values (agent=, agent_rewards=, ...) "
                "are for an episode of many agents (a PettingZoo one)"
            )
        rows = AgentRows.like(columns)
        if present is None:
            present = list(dict.fromkeys((*actions, *rewards, *terminated, *truncated, *masks)))
        row = rows.row(
            present=present,
            actions=actions,
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            masks={agent: np.asarray(mask, bool) for agent, mask in masks.items()},
            acting=acting,
            t=self.num_positions,  # as extend() names the step
        )
        rows.append(row)
        return rows.columns(), rows.step_action(actions), float(np.nansum(row["rewards"]))

    def _readout(self) -> AgentReadout | None:
        """The readout per agent of the steps so far, made again once they grew: of the
        steps every column holds, as a panel's thread may read while ``extend`` grows
        them one by one."""
        columns = self.agent_columns
        if columns is None:
            return None
        steps = min(len(values) for values in columns.arrays.values())
        if self._agents is None or len(self._agents.rewards) != steps:
            arrays = {key: values[:steps] for key, values in columns.arrays.items()}
            episode = Rollout(  # the per-agent columns alone are read
                actions=np.zeros((steps, 0)),
                rewards=np.zeros(steps),
                terminated=np.zeros(steps, bool),
                truncated=np.zeros(steps, bool),
                agent_columns=AgentColumns(columns.names, arrays),
            )
            self._agents = AgentReadout(episode, self.named, self.metadata)
        return self._agents

    def action_text(self, t: int) -> str | None:
        actions = self._actions.values
        if shows_actions(actions):
            return None
        return action_text(actions[t], self.action_names) if t < len(actions) else ""

    @property
    def summarized(self) -> bool:
        """Whether the state carries the timeline's summary rather than its series
        (past ``EXACT_STEPS`` actions, unless ``full_series``; see :mod:`._summary`)."""
        return not self.full_series and self.num_steps > _summary.EXACT_STEPS

    def finite_returns(self) -> np.ndarray:
        """The return before each position, non-finite rewards left out (as the page sums
        them); kept until the episode grows, since each chunk reply reads it."""
        if self._returns is None or len(self._returns) != self.num_positions:
            self._returns = _summary.finite_returns(self.rewards, self.num_positions)
        return self._returns

    def timeline_extras(self) -> dict[str, Any]:
        """The lines drawn on the timeline, as grown: a scalar extra's values, and each
        component ``name[i]`` of a vector extra (a continuous action's mean, say)."""
        lines = {}
        for name, column in self._extras.items():
            values = column.values
            if values.ndim == 1:
                lines[name] = values
            else:
                lines.update({f"{name}[{i}]": values[:, i] for i in range(values.shape[1])})
        readout = self._readout()
        if readout is not None:
            lines |= readout.lines()
        return lines

    def readout_values(self, positions: Sequence[int]) -> dict[str, Any] | None:
        """The readout's values of ``positions`` for a reply's index, when the series
        do not carry them (a summarized episode); else None."""
        return _summary.readout_values(self, positions) if self.summarized else None

    def series(self) -> dict[str, bytes]:
        """The timeline's series (see :func:`pack_series`); the front end sums the returns
        and writes scalar actions, with their names, from the ``actions`` series."""
        series = {name: pack_series(column.values) for name, column in self._flags.items()}
        if shows_actions(self._actions.values):
            series["actions"] = pack_series(self._actions.values)
        for name, values in self.timeline_extras().items():
            series[f"extra:{name}"] = pack_series(values)
        return series

    def section(self, start: int, stop: int) -> ServedEpisode:
        """Positions ``start .. stop - 1`` as an episode of their own, to export a range.

        Frames are appended to a new container, so they are re-encoded a chunk at a
        time, never all held raw. The last position keeps its action when the episode
        goes on after it (the one-frame-per-action form of a rollout).
        """
        acted = slice(start, min(stop, self.num_steps))
        frames = None
        if self.frames is not None:
            frames = ArrayFrames(allow_resize=True, encoding=self._encoding)
            for t in range(start, stop):
                frames.append(self.frames[t])
        infos = self.infos
        rollout = Rollout.from_arrays(
            actions=self.actions[acted],
            rewards=self.rewards[acted],
            terminated=self.terminated[acted],
            truncated=self.truncated[acted],
            infos=[infos[t] for t in range(start, stop)],
            extras={name: column.values[acted] for name, column in self._extras.items()},
            metadata=self.metadata,
        )
        if (agents := self.agent_columns) is not None:  # a range of a multi-agent episode
            arrays = {name: values[acted] for name, values in agents.arrays.items()}
            rollout = replace(rollout, agent_columns=AgentColumns(agents.names, arrays))
        return ServedEpisode(
            rollout, frames, self._encoding, list(self._extras), self.named, full_series=True
        )

    def as_rollout(self) -> Rollout:
        """The episode shown as a rollout: the one given while no step was appended, else
        a new one holding the steps appended too (its frames a copy sharing the encoded
        chunks, so later appends leave it as it is). Observations are kept when every
        position has one; an extra the timeline does not draw (which appends do not
        grow) only while none was appended."""
        given = self._given
        if self.num_positions == given.num_positions:
            return given
        frames = None if self._frames_from_observations else self.frames
        if isinstance(frames, ArrayFrames):
            frames = frames.copy()
        observations = None
        if given.observations is not None and all(o is not None for o in self._new_observations):
            rows = Rows(given.observations, given.num_positions)
            observations = _stacked([*(rows[t] for t in range(len(rows))), *self._new_observations])
        return Rollout(
            frames=frames,
            observations=observations,
            actions=self.actions.copy(),
            rewards=self.rewards.copy(),
            terminated=self.terminated.copy(),
            truncated=self.truncated.copy(),
            infos=list(self.infos),
            extras={
                name: np.array(values)
                for name, values in self.extras.items()
                if len(values) == self.num_steps
            },
            metadata=dict(given.metadata),
            states=dict(given.states),
            agent_columns=self.agent_columns,
        )

    def extend(self, part: Rollout) -> None:
        """Append ``part``'s steps. Every column is checked before any of them grows, and
        frames go first, so a refused ``append()`` leaves the episode as it was."""
        if not isinstance(part, Rollout):
            raise TypeError(f"extend() takes a Rollout, got {type(part).__name__}")
        steps = part.num_steps
        first = part.num_positions - steps  # 1 when the part repeats our last position
        if first not in (0, 1):
            raise ValueError(f"the part has {part.num_positions} positions for {steps} actions")
        t = self.num_positions
        columns = [(self._actions, part.actions)]
        columns += [(column, getattr(part, name)) for name, column in self._flags.items()]
        for name, column in self._extras.items():
            if name not in part.extras:
                raise ValueError(
                    f"step {t}: the timeline shows extra {name!r}; pass its value too, "
                    f"e.g. append(..., extras={{{name!r}: value}})"
                )
            columns.append((column, part.extras[name]))
        columns += self._agent_parts(part, t)
        rows = [(column, column.checked(values, t)) for column, values in columns]
        self._extend_frames(part, range(first, first + steps), t)
        for column, values in rows:
            column.extend(values)
        infos = part.infos or []
        observations = Rows(part.observations, part.num_positions)
        self._new_observations.extend(observations[i] for i in range(first, first + steps))
        self._new_infos.extend(infos[i] for i in range(first, first + steps))

    def _agent_parts(self, part: Rollout, t: int) -> list[tuple[GrowingColumn, Any]]:
        """The per-agent columns of a multi-agent episode with ``part``'s values, which
        must name the same agents and hold the same columns (``EpisodeViewer.append``'s
        ``agent_rewards`` and the rest make them); none for one agent."""
        if self._agent_arrays is None:
            return []
        given = part.agent_columns
        if given is None or list(given.names) != self._agent_names:
            held = "none" if given is None else list(given.names)
            raise ValueError(
                f"step {t}: this viewer shows agents {self._agent_names}; the step's agents "
                f"are {held} (give each step's per-agent values: append(..., agent=..., "
                "agent_actions=..., agent_rewards=...))"
            )
        if given.arrays.keys() != self._agent_arrays.keys():
            raise ValueError(
                f"step {t}: the step's per-agent columns {sorted(given.arrays)} are not "
                f"the episode's {sorted(self._agent_arrays)}"
            )
        return [(column, given.arrays[key]) for key, column in self._agent_arrays.items()]

    def _extend_frames(self, part: Rollout, positions: range, t: int) -> None:
        source = part.observations if self._frames_from_observations else part.frames
        if self.frames is None:
            if part.frames is not None:
                raise ValueError(f"step {t}: this viewer shows no frames, yet the step has one")
            return
        if source is None or isinstance(source, Mapping):
            what = "obs" if self._frames_from_observations else "frame"
            raise ValueError(f"step {t}: this viewer shows frames; pass {what}= for every step")
        if not self._frames_owned:  # grow a copy: the caller's rollout stays as it was
            if isinstance(self.frames, ArrayFrames):  # in the viewer's encoding (frames_to_show)
                self.frames = self.frames.copy()  # shares the encoded chunks, decodes none
            else:
                self.frames = ArrayFrames.after(self.frames, encoding=self._encoding)
            self._frames_owned = True
        assert isinstance(self.frames, ArrayFrames)
        for i in positions:
            self.frames.append(source[i])


def _stacked(rows: Sequence[Any]) -> Any:
    """Rows of observations as one array, or a dict space's as a dict of arrays."""
    if isinstance(rows[0], Mapping):
        return {name: _stacked([row[name] for row in rows]) for name in rows[0]}
    return np.stack([np.asarray(row) for row in rows])
