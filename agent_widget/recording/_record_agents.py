"""``record()`` of a PettingZoo env: many agents in one episode.

A position is what one ``env.step`` leaves: in an AEC env one agent's turn (the
agent whose turn it was is kept: ``Rollout.acting_agent``), in a Parallel env one move
of every agent present. Every ``env.step`` is a position, the steps PettingZoo has a
terminated agent take with action ``None`` (its leaving) too, so the rewards kept are
exactly what ``env.rewards`` said after each step. Agents that leave (killed, done) and
join are kept: each has its column from the env's ``possible_agents``, filled where it
is absent (``Rollout.agent_present``). The one-agent fields hold the step as a whole:
``rewards`` summed over the agents, ``actions`` the acting agent's (AEC) or every
agent's (Parallel), so what shows one agent's episode shows this one. Agents whose
actions differ in shape (a Discrete agent beside a Box one) keep them in a column each
(``Rollout.agent_action``), and ``actions`` is then empty. Agents whose action spaces
differ at all have them described each in the metadata's ``agent_action_spaces``.

Observations are kept per agent (``observations["<agent>"]``, or
``"<agent>/<key>"`` for a dict space) when one position's, of all agents, take at most
:data:`MAX_OBSERVATION_BYTES`: a board game's planes, Knights-Archers-Zombies' vectors.
Pistonball's (20 agents, each a 457x120 image: 3.3 MB a position) are not kept by
default: each is a crop of the frame, which is kept, and encoding twenty images a step
would slow the recording several times over for what the frame already shows.
``agent_observations=True`` keeps them anyway.

Nothing here imports PettingZoo: an env is known as one by PettingZoo's base classes,
looked up only when PettingZoo has been imported (no env of it can exist otherwise).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np

from agent_widget.episodes import (
    AgentRows,
    Rollout,
    agent_names,
    agent_spaces,
    describe_space,
    space_names,
)
from agent_widget.format import Spool
from agent_widget.recording._agent_policies import ActionSource, action_mask, check_legal
from agent_widget.recording._episode_buffer import EpisodeBuffer
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._kept_note import kept_note
from agent_widget.recording._recording_metadata import base_metadata

Api = Literal["aec", "parallel"]
MAX_OBSERVATION_BYTES = 64 * 2**10  # one position's observations of all agents, kept


def pettingzoo_api(env: Any) -> Api | None:
    """``"aec"`` or ``"parallel"`` for a PettingZoo env (or a wrapper of one), else None."""
    module = sys.modules.get("pettingzoo.utils.env")
    if module is None:
        return None
    if isinstance(env, module.AECEnv):
        return "aec"
    if isinstance(env, module.ParallelEnv):
        return "parallel"
    return None


def record_agents(
    env: Any,
    policies: ActionSource,
    api: Api,
    *,
    seed: int | None,
    max_steps: int,
    labels: Mapping[str, Any],
    path: str | os.PathLike[str] | None,
    agent_observations: bool | None,
) -> Rollout:
    """One episode of a PettingZoo env (``agent_widget.record`` documents it for users)."""
    recording = _Recording(env, api, seed, labels, agent_observations, path)
    run = _aec_steps if api == "aec" else _parallel_steps
    try:
        run(env, policies, recording, seed, max_steps)
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        with interrupts_held(raise_after=False):  # a second Ctrl-C waits for the filing
            partial = recording.finish(replace=False)
            if partial is not None:
                error.rollout = partial  # type: ignore[attr-defined]
                error.add_note(kept_note(partial, path))
        raise
    rollout = recording.finish(replace=True)
    assert rollout is not None  # the reset started it
    return rollout


class _Recording:
    """The episode as it is recorded: the one-agent fields in an :class:`EpisodeBuffer`,
    the per-agent columns in :class:`AgentRows` beside it."""

    def __init__(
        self,
        env: Any,
        api: Api,
        seed: int | None,
        labels: Mapping[str, Any],
        agent_observations: bool | None,
        path: str | os.PathLike[str] | None,
    ) -> None:
        self.env, self.path = env, path
        self.names = [str(agent) for agent in env.possible_agents]
        self.rows = AgentRows.for_spaces(self.names, env.action_space, turns=api == "aec")
        self.renders = getattr(env, "render_mode", None) == "rgb_array"
        self.observations = _AgentObservations(self.names, env.observation_space)
        self.keep_observations = (
            self.observations.bytes <= MAX_OBSERVATION_BYTES
            if agent_observations is None
            else agent_observations
        )
        name = env.metadata.get("name") if isinstance(env.metadata, Mapping) else None
        spaces = {agent: describe_space(env.action_space(agent)) for agent in self.names}
        unwrapped = getattr(env, "unwrapped", env)
        names = agent_names(
            {agent: space_names(unwrapped, env.action_space(agent)) for agent in self.names}
        )
        first = env.action_space(self.names[0])
        self.metadata = {
            **base_metadata(name or type(env).__name__, seed, names.pop("action_names"), first, {}),
            **agent_spaces(spaces),
            **names,
            "pettingzoo_api": api,
            **labels,  # the user's metadata wins on clashes, as of one agent's episode
        }
        self.truncated_any = False
        self.buffer: EpisodeBuffer | None = None

    def check_agents(self, before: list[str], done: set[str], t: int) -> list[str]:
        """The agents now, or ValueError if they changed in a way PettingZoo's API
        forbids: an agent gone that was neither terminated nor truncated, or one that
        is not among ``possible_agents``."""
        after = [str(agent) for agent in self.env.agents]
        strangers = [agent for agent in after if agent not in self.names]
        if strangers:
            raise ValueError(
                f"step {t}: env.agents holds {strangers}, not among its possible_agents "
                f"{self.names}; the {t} steps before it are kept"
            )
        vanished = [agent for agent in before if agent not in after and agent not in done]
        if vanished:
            raise ValueError(
                f"step {t}: agent(s) {vanished} left env.agents without being terminated "
                f"or truncated; the {t} steps before it are kept"
            )
        return after

    def start(self, observations: Mapping[str, Any], infos: Mapping[str, Any]) -> None:
        self.check_agents([], set(), 0)
        self.buffer = EpisodeBuffer(
            self._observations(observations),
            _infos(infos),
            self._frame(),
            self.renders,
            None if self.path is None else Spool.to_path(self.path),
            metadata=self.metadata,
            agents=self.rows,
        )

    def add(
        self,
        action: Any,
        observations: Mapping[str, Any],
        infos: Mapping[str, Any],
        row: dict[str, Any],
        done: bool,
    ) -> None:
        """A step whole, or nothing: the buffer refuses what it cannot store before it
        changes, and the row (made before) is appended after it."""
        assert self.buffer is not None
        self.truncated_any |= bool(row["truncated"].any())
        reward = float(np.nansum(row["rewards"]))  # 0 when no agent got one
        frame = self._frame()
        with interrupts_held():
            self.buffer.add(
                action,
                {},
                self._observations(observations),
                reward,
                done and not self.truncated_any,
                done and self.truncated_any,
                _infos(infos),
                frame,
                row,
            )

    def finish(self, *, replace: bool) -> Rollout | None:
        """The episode as it ends (one stopped before its end marked truncated), read
        back from its file when it has one; None before the reset. ``replace``: whether
        its file replaces one at its path (:meth:`EpisodeBuffer.finish`)."""
        buffer, self.buffer = self.buffer, None  # filed once
        if buffer is None:
            return None
        buffer.cut()
        rollout = buffer.finish(replace=replace)
        if self.keep_observations:
            return rollout
        return dataclasses.replace(rollout, observations=None)

    def _frame(self) -> Any:
        return self.env.render() if self.renders else None

    def _observations(self, observations: Mapping[str, Any]) -> dict[str, Any]:
        return self.observations.position(observations) if self.keep_observations else {}


class _AgentObservations:
    """One position's observations as one flat dict: an entry per agent (per agent and
    key for a dict space), zeros for an agent absent there."""

    def __init__(self, names: list[str], space: Callable[[str], Any]) -> None:
        self.zeros = {name: _zeros(space(name)) for name in names}
        self.bytes = sum(
            value.nbytes for zeros in self.zeros.values() for value in _entries("", zeros).values()
        )

    def position(self, observations: Mapping[str, Any]) -> dict[str, Any]:
        flat: dict[str, Any] = {}
        for name, zeros in self.zeros.items():
            flat |= _entries(name, observations.get(name, zeros))
        return flat


def _zeros(space: Any) -> Any:
    sub = getattr(space, "spaces", None)
    if isinstance(sub, Mapping):
        return {str(key): _zeros(value) for key, value in sub.items()}
    return np.zeros(space.shape or (), space.dtype or np.float64)


def _entries(name: str, observation: Any) -> dict[str, Any]:
    if isinstance(observation, Mapping):
        return {f"{name}/{key}": np.asarray(value) for key, value in observation.items()}
    return {name: np.asarray(observation)}


def _infos(infos: Mapping[str, Any]) -> dict[str, Any]:
    """A position's info: each agent's, by name."""
    return {str(agent): dict(info) for agent, info in infos.items()}


def _aec_steps(
    env: Any, policies: ActionSource, recording: _Recording, seed: int | None, max_steps: int
) -> None:
    """An AEC env's episode, a turn a position."""

    def observed() -> dict[str, Any]:
        return {agent: env.observe(agent) for agent in env.agents}

    env.reset(seed=seed)
    recording.start(observed() if recording.keep_observations else {}, env.infos)
    for t in range(max_steps):
        present = [str(agent) for agent in env.agents]
        if not present:
            return
        agent = env.agent_selection
        if agent not in present:
            raise ValueError(
                f"step {t}: the agent to act, {agent!r}, is not in env.agents {present}; "
                f"the {t} steps before it are kept"
            )
        observation, _, terminated, truncated, info = env.last()
        done = {a for a in present if env.terminations.get(a) or env.truncations.get(a)}
        actions, masks = {}, {}
        if not (terminated or truncated):  # else its leaving: PettingZoo's action None
            action = policies.action(agent, observation, t)
            mask = action_mask(observation, info)
            check_legal(agent, action, mask, t)
            actions[agent] = action
            masks = {} if mask is None else {agent: mask}
        env.step(actions.get(agent))
        after = recording.check_agents(present, done, t)
        row = recording.rows.row(
            present=present,
            actions=actions,
            rewards={a: env.rewards[a] for a in after if a in env.rewards},
            terminated={a: env.terminations.get(a) for a in after},
            truncated={a: env.truncations.get(a) for a in after},
            masks=masks,
            acting=agent,
            t=t,
        )
        recording.add(
            recording.rows.step_action(actions),
            observed() if recording.keep_observations else {},
            {a: env.infos[a] for a in after},
            row,
            done=not after,
        )


def _parallel_steps(
    env: Any, policies: ActionSource, recording: _Recording, seed: int | None, max_steps: int
) -> None:
    """A Parallel env's episode, a move of every agent a position."""
    observations, infos = env.reset(seed=seed)
    recording.start(observations, infos)
    for t in range(max_steps):
        present = [str(agent) for agent in env.agents]
        if not present:
            return
        actions, masks = {}, {}
        for agent in present:
            if agent not in observations:
                raise ValueError(
                    f"step {t}: the env gave no observation for agent {agent!r}; "
                    f"the {t} steps before it are kept"
                )
            action = policies.action(agent, observations[agent], t)
            mask = action_mask(observations[agent], infos.get(agent))
            check_legal(agent, action, mask, t)
            actions[agent] = action
            if mask is not None:
                masks[agent] = mask
        observations, rewards, terminated, truncated, infos = env.step(actions)
        done = {str(a) for a in present if terminated.get(a) or truncated.get(a)}
        after = recording.check_agents(present, done, t)
        row = recording.rows.row(
            present=present,
            actions=actions,
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            masks=masks,
            t=t,
        )
        recording.add(recording.rows.step_action(actions), observations, infos, row, done=not after)
