"""What if this agent had played that move: a multi-agent (PettingZoo) episode branched
at step t.

PettingZoo envs replay from their seed, and save no state, so the branch is the
episode recorded again from its seed: its recorded actions up to ``t``, the new
action(s) at ``t``, the policies after. What the replay saw before ``t`` (each agent's
reward, who acted, who was present) is checked against the original's: an env that
does not replay the same is a :class:`ReplayDivergenceError` naming the position.
Recording the prefix again costs its steps and renders once more; the single-agent
branch (:mod:`agent_widget.recording._branch`) reuses the original's frames instead,
but PettingZoo's envs are short and cheap beside Atari's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.recording._agent_policies import ActionSource, AgentPolicies
from agent_widget.recording._branch import parent, plain, whole_number
from agent_widget.recording._minari import ReplayDivergenceError
from agent_widget.recording._record_agents import pettingzoo_api, record_agents


class _Replayed:
    """The recorded actions before ``t``, ``forced`` at ``t`` (by agent; the others keep
    theirs), ``policies`` from then on."""

    def __init__(
        self, rollout: Rollout, t: int, forced: Mapping[str, Any], policies: ActionSource, env: Any
    ) -> None:
        self._rollout, self._t, self._forced = rollout, t, forced
        self._policies, self._env = policies, env

    def action(self, agent: str, observation: Any, t: int) -> Any:
        if t == self._t and agent in self._forced:
            return self._forced[agent]
        if t > self._t:
            return self._policies.action(agent, observation, t)
        recorded = self._rollout.agent_action(agent)[t]
        value = np.asarray(recorded).astype(self._env.action_space(agent).dtype)
        return value.item() if value.ndim == 0 else value  # a discrete action as an int


def branch_agents(
    rollout: Rollout,
    t: int,
    action: Any,
    *,
    env: Any | Callable[[], Any],
    policy: Any,
    max_steps: int = 10_000,
) -> Rollout:
    """``rollout`` replayed to step ``t``, ``action`` there, ``policy`` after
    (``Rollout.branch`` documents it). ``action``: the acting agent's in an AEC env; a
    dict by agent in a Parallel env (agents it leaves out play their recorded action)."""
    t = whole_number(t, "t", 0)
    max_steps = whole_number(max_steps, "max_steps", 1)
    made = env if pettingzoo_api(env) is not None else env()
    api = pettingzoo_api(made)
    forced = _forced(rollout, t, action, api)
    seed = rollout.metadata.get("seed")
    if not isinstance(seed, int):
        raise ValueError(
            "the episode has no seed (metadata['seed']): its start cannot be replayed; "
            "record it with a seed to branch it"
        )
    assert api is not None  # _forced checked it
    replay = _Replayed(rollout, t, forced, AgentPolicies(policy, deterministic=True), made)
    branched = record_agents(
        made,
        replay,
        api,
        seed=seed,
        max_steps=t + max_steps,
        labels={},
        path=None,
        agent_observations=rollout.observations is not None,
    )
    _check_replay(rollout, branched, t)
    actions = {agent: plain(value) for agent, value in forced.items()}
    metadata = {
        **rollout.metadata,
        "created": branched.metadata["created"],
        "branch": {"t": t, "action": actions, "of": parent(rollout.metadata)},
    }
    return replace(branched, metadata=metadata)


def _forced(rollout: Rollout, t: int, action: Any, api: str | None) -> dict[str, Any]:
    """The actions taken at ``t`` instead of the recorded ones, by agent, once checked."""
    recorded = rollout.metadata.get("pettingzoo_api")
    if api is None or api != recorded:
        raise ValueError(f"the env is not a PettingZoo {recorded} env, as the episode's was")
    if not 0 <= t < rollout.num_steps:
        raise ValueError(
            f"cannot branch at step {t}: the episode's steps are 0..{rollout.num_steps - 1}"
        )
    acted = [
        agent for agent, took in zip(rollout.agents, rollout.agent_acted[t], strict=True) if took
    ]
    if api == "aec":
        acting = str(rollout.acting_agent[t])  # type: ignore[index]
        if acting not in acted:
            raise ValueError(f"step {t} is {acting}'s leaving step: it takes no action to change")
        return {acting: action}
    if not isinstance(action, Mapping) or not action:
        raise ValueError("in a Parallel env the action is a dict by agent: {agent: action}")
    absent = [agent for agent in action if agent not in acted]
    if absent:
        raise ValueError(f"agent(s) {absent} took no action at step {t} (it had: {acted})")
    return dict(action)


def _check_replay(original: Rollout, branched: Rollout, t: int) -> None:
    """ReplayDivergenceError unless the replay before ``t`` saw what the episode did:
    each agent's reward, presence and flags, step by step."""
    names = ("agent_rewards", "agent_present", "agent_terminated", "agent_truncated")
    pairs = [(getattr(original, name), getattr(branched, name)) for name in names]
    for s in range(t):
        if s >= branched.num_steps or not all(_same(a[s], b[s]) for a, b in pairs):
            raise ReplayDivergenceError(
                f"replaying the episode from its seed diverged at step {s}: the env does "
                "not replay the same, so it cannot be branched",
                s + 1,
            )


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
