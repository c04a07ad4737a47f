"""A continuous actor-critic's Q-values at a step (Stable-Baselines3 SAC, TD3, DDPG):
each critic's Q of the action taken and of the action the actor would take now.

A critic scores an (observation, action) pair, not every action at once, so the bars
are per critic: ``Q1(s, a)`` ... for the action taken, ``Q1(s, π)`` ... for the
actor's own (deterministic) action. Their gap says whether the action taken (an
exploration sample, or another agent's) looked better or worse than the actor's
choice. SAC and TD3 learn from the smaller of their critics, kept in the caption.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agent_widget.panels import Step
from agent_widget.torch._bars import ActionBars
from agent_widget.torch._model import AgentModel, observation


class Critics:
    """The bars of an SB3 continuous actor-critic's critics at a step (see the module
    docstring). Actions go to the critics scaled to [-1, 1], as SB3 trains them, and
    observations normalized as the model was trained on them (``agent``'s normalisation)."""

    def __init__(self, model: Any, agent: AgentModel) -> None:
        self.model = model
        self.agent = agent

    def __call__(self, step: Step) -> ActionBars | None:
        policy = self.model.policy
        self.agent.check_normalization(step.rollout)
        seen = observation(step)
        if self.agent.normalization is not None:
            seen = self.agent.normalization.apply(seen)
        obs, _ = policy.obs_to_tensor(seen)
        own, _ = self.model.predict(seen, deterministic=True)
        actions = {"π": own}
        if step.action is not None:
            actions = {"a": step.action, **actions}
        values, labels = [], []
        with torch.no_grad():
            for name, action in actions.items():
                scaled = policy.scale_action(np.asarray(action, np.float32).reshape(1, -1))
                qs = self.model.critic(obs.float(), torch.as_tensor(scaled, dtype=torch.float32))
                values += [float(q.reshape(-1)[0]) for q in qs]
                labels += [f"Q{i + 1}(s, {name})" for i in range(len(qs))]
        critics = len(values) // len(actions)
        stats = {f"min Q(s, {name})": min(values[k * critics : (k + 1) * critics])
                 for k, name in enumerate(actions)}  # fmt: skip
        numbers = ", ".join(str(i + 1) for i in range(critics))
        source = f"critic{'s' if critics > 1 else ''} {numbers}; π is the actor's action"
        return ActionBars(values, labels, greedy=False, stats=stats, source=source)
