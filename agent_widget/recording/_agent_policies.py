"""What a multi-agent recording calls for each agent's action, and the legality check
of that action against the env's action mask.

PettingZoo users write one function of ``(agent, observation)`` (shared weights, a
scripted opponent per name), or a dict of per-agent policies (each a function of the
observation, or a model with Stable-Baselines3's ``predict``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np

from agent_widget.recording._policies import as_policy

AgentPolicy = Callable[[str, Any], Any]
"""``(agent, observation) -> action``."""


class ActionSource(Protocol):
    """What a multi-agent recording asks each agent's action of: :class:`AgentPolicies`,
    or a branch's replay of the recorded actions."""

    def action(self, agent: str, observation: Any, t: int) -> Any: ...


class AgentPolicies:
    """``policies`` as one call ``(agent, observation, step) -> action``.

    Args:
        policies: a function ``(agent, observation) -> action``, a dict by agent of
            functions ``observation -> action`` (or models with ``predict``), or one such
            model for every agent.
        deterministic: passed to a model's ``predict``.
    """

    def __init__(self, policies: AgentPolicy | Mapping[str, Any] | Any, deterministic: bool):
        self._by_agent: dict[str, Callable[[Any], Any]] | None = None
        self._function: AgentPolicy | None = None
        if isinstance(policies, Mapping):
            self._by_agent = {str(k): as_policy(p, deterministic) for k, p in policies.items()}
        elif callable(policies):
            self._function = policies
        else:  # one model for every agent (parameter sharing)
            act = as_policy(policies, deterministic)
            self._function = lambda _agent, obs: act(obs)

    def action(self, agent: str, observation: Any, t: int) -> Any:
        """The action of ``agent`` at step ``t``; ValueError when no policy is given for it."""
        if self._function is not None:
            return self._function(agent, observation)
        assert self._by_agent is not None
        policy = self._by_agent.get(agent)
        if policy is None:
            raise ValueError(
                f"step {t}: no policy for agent {agent!r} (the policies dict has "
                f"{sorted(self._by_agent)}); the {t} steps before it are kept"
            )
        return policy(observation)


def action_mask(observation: Any, info: Any) -> np.ndarray | None:
    """The agent's legal actions as bools, where the env gives them: PettingZoo's
    classic games in the observation dict, others in the info."""
    for source in (observation, info):
        if isinstance(source, Mapping) and "action_mask" in source:
            return np.asarray(source["action_mask"]).astype(bool).reshape(-1)
    return None


def check_legal(agent: str, action: Any, mask: np.ndarray | None, t: int) -> None:
    """ValueError naming the agent and step when ``action`` is one ``mask`` forbids (or
    not an action of it at all): the env would otherwise end the game, or step on."""
    if mask is None:
        return
    legal = np.ndim(action) == 0 and np.asarray(action).dtype.kind in "iu"
    legal = legal and 0 <= int(action) < len(mask) and bool(mask[int(action)])
    if not legal:
        raise ValueError(
            f"step {t}: agent {agent!r} chose action {action!r:.40}, which its action mask "
            f"forbids (legal: {np.flatnonzero(mask).tolist()}); the {t} steps before it are kept"
        )
