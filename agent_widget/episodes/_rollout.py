"""``Rollout``: one episode as plain per-step data, knowing nothing about widgets.

Step convention: position ``t`` shows the frame/observation *before* action ``t``;
``rewards[t]`` is what action ``t`` earned. ``T`` actions give ``n = T + 1``
positions (the last has no action). Data with one frame per action (``n == T``) is
accepted too; then the last position has an action but no frame after it.

A multi-agent episode (PettingZoo) keeps that convention, one step being one
``env.step``: a turn of one agent (AEC) or a move of all (Parallel). Its per-agent
columns (``agent_rewards`` ...) sit beside the one-agent fields, which hold the step
as a whole (``rewards`` summed over the agents), so what reads one agent's episode
reads a multi-agent one too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_widget.episodes._action_space import ActionNames, agent_space, with_names
from agent_widget.episodes._checked_input import checked_json_dicts, numeric_array, step_vector
from agent_widget.episodes._lent import lent
from agent_widget.episodes._outcomes import Outcome, outcomes
from agent_widget.format import (
    ACTION_KINDS,
    AgentColumns,
    ArrayFrames,
    Columns,
    Frames,
    write_columns,
)

if TYPE_CHECKING:
    import os

# An array indexable by position (numpy, or lazy with shape/dtype/__getitem__), or a
# dict of them (dict observation spaces).
Observations = Any


@dataclass(eq=False, repr=False)
class Rollout:
    """One episode: frames, observations, actions, rewards, flags, infos, extras, metadata.

    Build one with :meth:`from_arrays`, :func:`agent_widget.record` or
    :func:`agent_widget.episodes.load`; the constructor only checks that lengths agree.
    """

    frames: Frames | None = None
    observations: Observations | None = None
    actions: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    rewards: np.ndarray = field(default_factory=lambda: np.zeros(0))
    terminated: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    truncated: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    infos: Sequence[dict[str, Any]] | None = None
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    # Env states saved while recording, by position (by default where the env can): they
    # let a branch replay from the last one before its branch point. In memory only,
    # never in a file (agent_widget.recording._env_states says why).
    states: dict[int, Any] = field(default_factory=dict)
    # A multi-agent episode's per-agent columns (read through ``agents``, ``agent_rewards``
    # ...); None for one agent.
    agent_columns: AgentColumns | None = None

    def __post_init__(self) -> None:
        steps = len(self.actions)
        per_step = {
            "rewards": self.rewards,
            "terminated": self.terminated,
            "truncated": self.truncated,
        }
        per_step.update({f"extras[{name!r}]": value for name, value in self.extras.items()})
        if self.agent_columns is not None:
            per_step.update({f"agent {k}": v for k, v in self.agent_columns.arrays.items()})
        for name, value in per_step.items():
            if len(value) != steps:
                raise ValueError(
                    f"{name} has {len(value)} entries, expected {steps} (one per action)"
                )
        positions = _position_lengths(self.frames, self.observations, self.infos)
        n = next(iter(positions.values()), steps + 1)
        for name, length in positions.items():
            if length != n:
                raise ValueError(f"{name} has {length} entries but {next(iter(positions))} has {n}")
        if n not in (steps, steps + 1):
            raise ValueError(
                f"{next(iter(positions))} has {n} entries; with {steps} actions expected "
                f"{steps + 1} (one per position) or {steps} (one per action)"
            )
        if self.infos is None:
            self.infos = [{} for _ in range(n)]

    @property
    def num_steps(self) -> int:
        """T, the number of actions."""
        return len(self.actions)

    @property
    def num_positions(self) -> int:
        """n, the number of positions (T + 1, or T for data with one frame per action)."""
        return len(self.infos) if self.infos is not None else self.num_steps + 1

    @property
    def returns(self) -> np.ndarray:
        """``returns[t] = rewards[:t].sum()``, the return collected before position t, (n,)."""
        cumulative = np.concatenate([[0.0], np.cumsum(self.rewards, dtype=np.float64)])
        return cumulative[: self.num_positions]

    @property
    def agents(self) -> list[str]:
        """The agents of a multi-agent episode in column order (PettingZoo's
        ``possible_agents``, then any that joined); ``[]`` for one agent."""
        return [] if self.agent_columns is None else list(self.agent_columns.names)

    @property
    def agent_rewards(self) -> np.ndarray:
        """``(T, n_agents)`` float: what each agent got from step t (PettingZoo's
        ``env.rewards`` after it), NaN where the agent was not in the episode.
        ``rewards`` is their sum over agents."""
        return self._agent_array("rewards")

    @property
    def agent_returns(self) -> np.ndarray:
        """``(n, n_agents)``: each agent's return collected before position t (absent
        steps count 0)."""
        cumulative = np.nancumsum(self.agent_rewards, axis=0, dtype=np.float64)
        zeros = np.zeros((1, len(self.agents)))
        return np.concatenate([zeros, cumulative])[: self.num_positions]

    @property
    def outcomes(self) -> dict[str, Outcome] | None:
        """Each agent's ``"win"``, ``"draw"`` or ``"loss"`` in a game that has a winner
        (zero-sum, ended for every agent: the sign of its return), else None, as for one
        agent (:mod:`agent_widget.episodes._outcomes` says why)."""
        arrays = {} if self.agent_columns is None else self.agent_columns.arrays
        if not {"rewards", "terminated", "truncated"} <= set(arrays):  # none kept: unknown
            return None
        return outcomes(
            self.agents, self.agent_rewards, self.agent_terminated, self.agent_truncated
        )

    @property
    def agent_actions(self) -> np.ndarray:
        """``(T, n_agents, ...)``: each agent's action at step t; where it took none
        (``agent_acted`` False) -1 for integer actions, NaN for real ones. Agents whose
        actions differ in shape have no one array: ValueError, read each agent's with
        :meth:`agent_action`."""
        columns = self.agent_columns
        if columns is not None and "actions" not in columns.arrays:
            raise ValueError(
                f"the agents' actions differ in shape ({self._action_shapes()}): no one "
                "array holds them; read each agent's with rollout.agent_action(agent)"
            )
        return self._agent_array("actions")

    def agent_action(self, agent: str) -> np.ndarray:
        """``(T, ...)``: ``agent``'s action at each step, in its action space's shape
        (int64 for a discrete space, float64 else), -1 or NaN where it took none. Agents
        whose action spaces differ in shape each have theirs stored apart, in its own
        shape and dtype."""
        i = self._agent_index(agent)
        columns = self.agent_columns
        assert columns is not None  # _agent_index checked
        own = columns.arrays.get(f"actions/{i}")
        return np.asarray(own) if own is not None else self.agent_actions[:, i]

    def _action_shapes(self) -> dict[str, tuple[int, ...]]:
        return {agent: self.agent_action(agent).shape[1:] for agent in self.agents}

    @property
    def agent_acted(self) -> np.ndarray:
        """``(T, n_agents)`` bool: whether the agent took an action at step t."""
        return self._agent_array("acted")

    @property
    def agent_present(self) -> np.ndarray:
        """``(T, n_agents)`` bool: whether the agent was in the episode (``env.agents``)
        as step t began: agents leave (killed, finished) and may join."""
        return self._agent_array("present")

    @property
    def agent_terminated(self) -> np.ndarray:
        """``(T, n_agents)`` bool: the agent's termination after step t."""
        return self._agent_array("terminated")

    @property
    def agent_truncated(self) -> np.ndarray:
        """``(T, n_agents)`` bool: the agent's truncation after step t."""
        return self._agent_array("truncated")

    @property
    def acting_agent(self) -> np.ndarray | None:
        """``(T,)`` str: which agent's turn step t was (an AEC env; "" where none);
        None for a Parallel env, where every agent present moves."""
        columns = self.agent_columns
        if columns is None or "acting" not in columns.arrays:
            return None
        names = np.array([*columns.names, ""])
        return names[np.asarray(columns.arrays["acting"])]  # -1: the ""

    @property
    def action_masks(self) -> np.ndarray | None:
        """``(T, n_agents, n_actions)`` bool: the legal actions of each agent at step t,
        where the env gives them (``observation["action_mask"]`` or
        ``info["action_mask"]``); None where it does not."""
        columns = self.agent_columns
        if columns is None or "action_mask" not in columns.arrays:
            return None
        return np.asarray(columns.arrays["action_mask"], bool)

    def for_agent(self, agent: str, *, frames: bool = True) -> Rollout:
        """One agent's side of a multi-agent episode, as a one-agent rollout on the same
        positions (so two agents line up in a ``CompareViewer``): its actions, rewards (0
        where it was absent), the steps where it was first terminated or truncated, its
        infos and observations (``observations["<agent>/<key>"]`` as a dict of ``<key>``).
        ``frames=False`` leaves the episode's frames out: the viewer then shows the
        agent's own image observations, where they are kept (Pistonball's with
        ``record(..., agent_observations=True)``).

        Examples:
            >>> CompareViewer({a: rollout.for_agent(a) for a in rollout.agents})  # doctest: +SKIP
        """
        i = self._agent_index(agent)
        observations = None
        if isinstance(self.observations, Mapping):
            prefix = f"{agent}/"
            own = {
                k[len(prefix) :]: v for k, v in self.observations.items() if k.startswith(prefix)
            }
            observations = self.observations.get(agent, own or None)
        assert self.infos is not None  # set by __post_init__
        return Rollout(
            frames=self.frames if frames else None,
            observations=observations,
            actions=self.agent_action(agent),
            rewards=np.nan_to_num(self.agent_rewards[:, i], nan=0.0),
            terminated=_first(self.agent_terminated[:, i]),
            truncated=_first(self.agent_truncated[:, i])
            | (self.truncated & self.agent_present[:, i]),
            infos=[info.get(agent, {}) for info in self.infos],
            metadata=_own_metadata(self.metadata, agent),
        )

    def _agent_index(self, agent: str) -> int:
        if agent not in self.agents:
            raise ValueError(f"no agent {agent!r} in this episode (its agents: {self.agents})")
        return self.agents.index(agent)

    def _agent_array(self, key: str) -> np.ndarray:
        if self.agent_columns is None:
            raise AttributeError(f"this rollout has one agent: no per-agent {key} (agents == [])")
        return np.asarray(self.agent_columns.arrays[key])

    @classmethod
    def from_arrays(
        cls,
        frames: Frames | Sequence[Any] | np.ndarray | None = None,
        observations: Observations | None = None,
        actions: Any = None,
        rewards: Any = None,
        terminated: Any = None,
        truncated: Any = None,
        infos: Sequence[Mapping[str, Any]] | None = None,
        extras: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        allow_resize: bool = False,
        states: Mapping[int, Any] | None = None,
    ) -> Rollout:
        """Build a rollout from data you already have, validating and normalizing it.

        Missing rewards are zeros, missing terminated/truncated are False, missing
        actions are an empty (T, 0) array. A NaN or infinite reward is kept as it is
        (the viewer marks its step; :attr:`returns` is NaN from there on). Info and
        metadata values that are not JSON-able are dropped with a warning (never pickled).

        Examples:
            >>> r = Rollout.from_arrays(frames=np.zeros((3, 4, 4, 3), np.uint8), actions=[0, 1])
            >>> r.num_steps, r.num_positions, r.returns.tolist()
            (2, 3, [0.0, 0.0, 0.0])
        """
        if frames is not None and not isinstance(frames, Frames):
            frames = ArrayFrames(frames, allow_resize=allow_resize)
        if isinstance(observations, Mapping):
            observations = {
                str(k): numeric_array(v, f"observations[{k!r}]") for k, v in observations.items()
            }
        elif observations is not None:
            observations = numeric_array(observations, "observations")
        given = [x for x in (actions, rewards, terminated, truncated) if x is not None]
        if given:
            steps = len(given[0])
        else:
            n = next(iter(_position_lengths(frames, observations, infos).values()), 1)
            steps = max(n - 1, 0)
        return cls(
            frames=frames,
            observations=observations,
            actions=np.zeros((steps, 0))
            if actions is None
            else numeric_array(actions, "actions", ACTION_KINDS),
            rewards=step_vector(rewards, steps, np.float64, "rewards"),
            terminated=step_vector(terminated, steps, np.bool_, "terminated"),
            truncated=step_vector(truncated, steps, np.bool_, "truncated"),
            infos=None if infos is None else checked_json_dicts(infos, "infos"),
            extras={str(k): numeric_array(v, f"extras[{k!r}]") for k, v in (extras or {}).items()},
            metadata={
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                **checked_json_dicts([metadata or {}], "metadata")[0],
            },
            states=dict(states or {}),
        )

    @classmethod
    def from_minari(cls, dataset: Any, episode_index: int, render: bool = False) -> Rollout:
        """Episode ``episode_index`` of a Minari dataset
        (``agent_widget.recording._minari.from_minari``, which says more)."""
        return lent("from_minari")(dataset, episode_index, render=render)

    def branch(
        self,
        t: int,
        action: Any,
        *,
        env: Any,
        policy: Callable[[Any], Any],
        max_steps: int = 10_000,
    ) -> Rollout:
        """What if: this episode up to ``t``, ``action`` there, then ``policy``
        (``agent_widget.recording._branch.branch``, which says more). A multi-agent
        (PettingZoo) episode is replayed from its seed
        (``agent_widget.recording._branch_agents``): ``action`` is the acting agent's
        in an AEC env, a dict by agent in a Parallel one, and ``policy`` as for
        :func:`~agent_widget.recording.record`."""
        name = "branch_agents" if self.agents else "branch"  # PettingZoo's: from its seed
        return lent(name)(self, t, action, env=env, policy=policy, max_steps=max_steps)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write this rollout to a ``.rollout`` file atomically (``agent_widget.save``)."""
        return write_columns(self.columns, path)

    @property
    def columns(self) -> Columns:
        """This episode as the file format holds it: every field but :attr:`states`."""
        assert self.infos is not None  # set by __post_init__
        return Columns(
            frames=self.frames,
            observations=self.observations,
            actions=self.actions,
            rewards=self.rewards,
            terminated=self.terminated,
            truncated=self.truncated,
            infos=self.infos,
            extras=self.extras,
            metadata=self.metadata,
            agent_columns=self.agent_columns,
        )

    def __repr__(self) -> str:
        frames = "none"
        if self.frames is not None and len(self.frames):
            frames = "x".join(map(str, self.frames[0].shape[:2]))
        total = float(np.sum(self.rewards)) if len(self.rewards) else 0.0
        names = self.agents
        agents = f"agents={names if len(names) <= 4 else len(names)}, " if names else ""
        return (
            f"Rollout(steps={self.num_steps}, positions={self.num_positions}, frames={frames}, "
            f"return={total:g}, extras={sorted(self.extras)}, {agents}"
            f"env_id={self.metadata.get('env_id')!r})"
        )


def named(rollout: Rollout, action_names: ActionNames | None) -> Rollout:
    """``rollout`` with ``action_names`` as its actions' names, over those its metadata
    keeps (None: as it is): what a widget given ``action_names=`` shows."""
    if action_names is None:
        return rollout
    return replace(rollout, metadata=with_names(rollout.metadata, action_names))


def _first(flags: np.ndarray) -> np.ndarray:
    """Only the first True of ``flags``: where an agent's termination happened (PettingZoo
    keeps it set until the agent leaves)."""
    return flags & ~np.concatenate([[False], np.logical_or.accumulate(flags)[:-1]])


def _position_lengths(frames: Any, observations: Any, infos: Any) -> dict[str, int]:
    """Lengths of the per-position fields that are present, first one deciding n."""
    lengths = {}
    if frames is not None:
        lengths["frames"] = len(frames)
    if isinstance(observations, Mapping):
        lengths.update({f"observations[{k!r}]": len(v) for k, v in observations.items()})
    elif observations is not None:
        lengths["observations"] = len(observations)
    if infos is not None:
        lengths["infos"] = len(infos)
    return lengths


def _own_metadata(metadata: Mapping[str, Any], agent: str) -> dict[str, Any]:
    """A multi-agent episode's metadata as one agent's side of it: ``agent`` named, and
    the action space and names its own where the metadata keeps them per agent (what
    reads a one-agent episode knows no other agents)."""
    per_agent = ("agent_action_spaces", "agent_action_names")
    own = {k: v for k, v in metadata.items() if k not in per_agent}
    if "agent_action_spaces" in metadata:
        own["action_space"] = agent_space(metadata, agent)
    names = metadata.get("agent_action_names")
    if isinstance(names, Mapping):
        own["action_names"] = names.get(agent)
    return {**own, "agent": agent}
