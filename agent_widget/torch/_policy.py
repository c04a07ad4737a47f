"""``Policy``: a policy network's view of one step, as bars, and its series over the episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from agent_widget.panels import EpisodeData, Step
from agent_widget.torch._bars import ActionBars, action_labels, taken_action
from agent_widget.torch._continuous import continuous_bars, continuous_series
from agent_widget.torch._model import BATCH_SIZE, AgentModel, Preprocess, is_q_network, observation
from agent_widget.torch._series import entropy, per_action, softmax, taken_actions, td_errors


class Policy:
    """Panel: what a policy would do at a step.

    Discrete actions: the probability of every action, with V, entropy and the
    top-2 gap. Probabilities live on one axis, 0 to 1, for every step. The taken
    action is highlighted and the most probable one marked (a sampled action often
    is not it).

    Continuous actions (a ``Box``): one bar per action dimension, the actor's mean
    action, a whisker of one standard deviation either side (a Gaussian actor's),
    the action taken marked, on the action space's bounds; squashed actors (SAC)
    and scaled ones (SAC, TD3) are shown as the env receives their actions.

    A Q-network (an SB3 DQN) has no policy to show: it is refused, pointing to
    :class:`QValues` (a softmax of Q-values is not the agent's policy).

    Args:
        model: an ``nn.Module`` mapping observations (batch first) to action logits
            ``(batch, actions)`` or to a pair ``(logits, value)``; for a ``Box``, to
            actions ``(batch, k)`` or a Gaussian's ``(mean, log_std)``; or a
            Stable-Baselines3 PPO, A2C, SAC or TD3 model.
        preprocess: builds the model's input from a batch of observations; defaults to
            their float32 values (an SB3 model: its own conversion).
        action_space: the env's action space, for an episode that does not keep it in
            its metadata (recorded episodes do; an SB3 model knows its own).
        batch_size: observations per forward pass when the whole episode is run.
        normalize: what observations go through first, for a model trained under
            SB3's ``VecNormalize``: by default the model's own
            (``model.get_vec_normalize_env()``); a ``VecNormalize`` loaded apart
            (``VecNormalize.load("vecnormalize.pkl", venv)``), a function of a batch of
            observations, or False for none.

    Examples:
        >>> import torch
        >>> from agent_widget.episodes import Rollout
        >>> rollout = Rollout.from_arrays(observations=np.eye(2, dtype=np.float32), actions=[0])
        >>> bars = Policy(torch.nn.Linear(2, 3))(Step(rollout, 0))
        >>> round(sum(bars.values()), 6), bars.scale, sorted(bars.stats)
        (1.0, (0.0, 1.0), ['entropy', 'top-2 gap'])
    """

    def __init__(
        self,
        model: Any,
        *,
        preprocess: Preprocess | None = None,
        action_space: gym.Space[Any] | None = None,
        batch_size: int = BATCH_SIZE,
        normalize: Any = None,
    ) -> None:
        if is_q_network(model):
            raise TypeError(
                f"Policy shows a policy's actions; a {type(model).__name__} has Q-values and "
                "no policy (a softmax of them is not what it does): use QValues(model)"
            )
        self.model = AgentModel(model, preprocess, action_space, normalize)
        self.batch_size = batch_size

    def __call__(self, step: Step) -> ActionBars:
        self.model.resolve(step.rollout)
        if self.model.box is not None:
            return continuous_bars(self.model, step)
        logits, value = self.model.step_outputs(observation(step))
        probabilities = softmax(logits)
        stats = {} if value is None else {"V": value}
        stats["entropy"] = float(entropy(logits))
        if len(logits) > 1:
            top = np.sort(probabilities)
            stats["top-2 gap"] = float(top[-1] - top[-2])
        labels = action_labels(len(logits), step.action_names)
        taken = taken_action(step, len(logits))
        source = "the actor" if value is None else "the actor; V from the critic"
        return ActionBars(
            probabilities, labels, taken=taken, scale=(0.0, 1.0), stats=stats, source=source
        )

    def series(self, episode: EpisodeData, gamma: float = 0.99) -> dict[str, np.ndarray]:
        """Per-action series over the episode, from one batched run of the model.

        Returns float64 arrays of length ``T``: ``"entropy"`` (nats) and
        ``"prob_taken"`` (probability of the action taken); with a value head also
        ``"value"`` and ``"td_error"`` (``r + gamma V(s') - V(s)``, 0 bootstrap after
        termination, NaN where the next observation is missing). For continuous
        actions: ``"mean"`` (T, k), the actor's action in the action space (for the
        timeline: ``EpisodeViewer(rollout, extras=["mean"])``), and, for a Gaussian
        actor, ``"entropy"``.
        """
        self.model.resolve(episode)
        if self.model.box is not None:
            return continuous_series(self.model, episode, self.batch_size)
        self.model.require_discrete(episode, "Policy.series")
        actions = taken_actions(episode)
        logits, value = self.model.episode_outputs(episode, batch_size=self.batch_size)
        steps = len(actions)
        probabilities = softmax(per_action(logits, steps))
        series = {
            "entropy": entropy(per_action(logits, steps)),
            "prob_taken": probabilities[np.arange(steps), actions],
        }
        if value is not None:
            series["value"] = value[:steps]
            series["td_error"] = td_errors(episode, value[:steps], value, gamma)
        return series
