"""``QValues``: a Q-network's view of one step, as bars, and its series over the episode."""

from __future__ import annotations

from typing import Any

import numpy as np

from agent_widget.panels import EpisodeData, Step
from agent_widget.torch._bars import ActionBars, action_labels, taken_action
from agent_widget.torch._critic import Critics
from agent_widget.torch._model import (
    BATCH_SIZE,
    AgentModel,
    Preprocess,
    has_critics,
    observation,
    positions,
)
from agent_widget.torch._roles import refuse_actor, refuse_value_head, role_of
from agent_widget.torch._scale import EpisodeRange
from agent_widget.torch._series import per_action, taken_actions, td_errors


class QValues:
    """Panel: the Q-value of every action at a step, with V, advantages and the top-2 gap.

    The bars are one forward pass on the step's observation. The taken action is
    highlighted and the greedy one marked (they differ under epsilon-greedy). The
    value axis spans the Q-values (or advantages) of the whole episode, computed
    once in batches, so bar heights compare across steps.

    An actor's outputs are no Q-values: an SB3 PPO or A2C, a module marked with
    :func:`~agent_widget.torch.mark_policy`, or one returning ``(logits, value)`` is
    refused, pointing to :class:`Policy` (which shows the critic's V too).

    Args:
        model: an ``nn.Module`` mapping observations (batch first) to Q-values
            ``(batch, actions)``, or a Stable-Baselines3 DQN model; or an SB3 SAC,
            TD3 or DDPG model, whose critics' Q of the action taken and of the
            actor's own action are shown instead (:mod:`agent_widget.torch._critic`).
        preprocess: builds the model's input from a batch of observations; defaults to
            their float32 values (an SB3 model: its own conversion).
        epsilon: exploration rate of the policy whose value V is shown:
            ``V = (1 - epsilon) max Q + epsilon mean Q`` (0 gives ``max Q``).
        advantages: show the advantages ``Q - V`` as the bars instead of Q.
        scale: ``"episode"`` (axis fixed over the episode), a ``(low, high)`` pair, or
            ``None`` (each step fits its own values).
        batch_size: observations per forward pass when the whole episode is run.
        normalize: what observations go through first, for a model trained under
            SB3's ``VecNormalize``: by default the model's own
            (``model.get_vec_normalize_env()``); a ``VecNormalize`` loaded apart
            (``VecNormalize.load("vecnormalize.pkl", venv)``), a function of a batch of
            observations, or False for none.

    Examples:
        >>> import torch
        >>> from agent_widget.episodes import Rollout
        >>> rollout = Rollout.from_arrays(observations=np.eye(2, dtype=np.float32), actions=[1])
        >>> q = QValues(torch.nn.Linear(2, 3))
        >>> bars = q(Step(rollout, 0))   # viewer.add_panel("Q", q) shows it as a card
        >>> len(bars), bars.taken, sorted(bars.stats)
        (3, 1, ['A(taken)', 'V', 'top-2 gap'])
    """

    def __init__(
        self,
        model: Any,
        *,
        preprocess: Preprocess | None = None,
        epsilon: float = 0.0,
        advantages: bool = False,
        scale: str | tuple[float, float] | None = "episode",
        batch_size: int = BATCH_SIZE,
        normalize: Any = None,
    ) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        self.model = AgentModel(model, preprocess, normalize=normalize)
        # An SB3 SAC/TD3/DDPG: its critics score the action taken and the actor's own.
        self._critics = Critics(model, self.model) if has_critics(model) else None
        if self.model.box is not None and self._critics is None:
            raise ValueError(
                f"QValues reads Q-values per discrete action; {type(model).__name__} acts in "
                f"a Box of shape {self.model.box} and has no critic: use Policy for its actions"
            )
        if self._critics is None:
            refuse_actor(model, role_of(model))
        self.epsilon = epsilon
        self.advantages = advantages
        self.batch_size = batch_size
        self._range = EpisodeRange(self._episode_shown) if scale == "episode" else None
        self._scale = None if scale == "episode" else _checked_scale(scale)

    def __call__(self, step: Step) -> ActionBars | None:
        if self._critics is not None:
            return self._critics(step)
        self.model.require_discrete(step.rollout, "QValues")
        q, head = self.model.step_outputs(observation(step))
        refuse_value_head(head)
        value = float(self.values(q))
        shown = q - value if self.advantages else q
        taken = taken_action(step, len(q))
        stats = {"V": value}
        if len(q) > 1:
            top = np.sort(q)
            stats["top-2 gap"] = float(top[-1] - top[-2])
        if taken is not None:
            stats["A(taken)"] = float(q[taken] - value)
        scale = self._scale
        if self._range is not None:
            scale = self._range(step.rollout, positions(step.rollout), shown)
        labels = action_labels(len(q), step.action_names)
        return ActionBars(
            shown, labels, taken=taken, scale=scale, stats=stats, source="the Q-network"
        )

    def values(self, q: np.ndarray) -> np.ndarray:
        """V of the epsilon-greedy policy, along the last axis of Q."""
        return (1.0 - self.epsilon) * q.max(axis=-1) + self.epsilon * q.mean(axis=-1)

    def series(self, episode: EpisodeData, gamma: float = 0.99) -> dict[str, np.ndarray]:
        """Per-action series over the episode, from one batched run of the model.

        Returns float64 arrays of length ``T``: ``"value"`` (V at each step),
        ``"q_taken"`` (Q of the action taken) and ``"td_error"``
        (``r + gamma max Q(s') - Q(s, a)``, 0 bootstrap after termination, NaN where
        the next observation is missing).

        Examples:
            >>> rollout.extras.update(q.series(rollout))  # doctest: +SKIP
            >>> EpisodeViewer(rollout, extras=["value", "td_error"])  # doctest: +SKIP
        """
        self.model.require_discrete(episode, "QValues.series")
        actions = taken_actions(episode)
        q, head = self.model.episode_outputs(episode, batch_size=self.batch_size)
        refuse_value_head(head)
        q_taken = per_action(q, len(actions))[np.arange(len(actions)), actions]
        return {
            "value": self.values(per_action(q, len(actions))),
            "q_taken": q_taken,
            "td_error": td_errors(episode, q_taken, q.max(axis=-1), gamma),
        }

    def _episode_shown(self, episode: EpisodeData, start: int) -> np.ndarray:
        q, _ = self.model.episode_outputs(episode, start, self.batch_size)
        return q - self.values(q)[:, None] if self.advantages else q


def _checked_scale(scale: Any) -> tuple[float, float] | None:
    if scale is None:
        return None
    try:
        low, high = (float(bound) for bound in scale)
    except (TypeError, ValueError):
        raise ValueError(f'scale must be "episode", (low, high) or None, got {scale!r}') from None
    if not low < high:
        raise ValueError(f"scale must have low < high, got ({low}, {high})")
    return low, high
