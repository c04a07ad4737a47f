"""Stable-Baselines3 models as plain networks, with the action space they act in.

DQN -> Q-values; PPO/A2C -> ``(logits, value)`` for discrete actions, the
Gaussian's ``(mean, log_std)`` for a ``Box``; SAC -> its squashed Gaussian's
``(mean, log_std)`` before the squashing; TD3/DDPG -> the actor's action before
scaling. Where SB3 maps the network's numbers into the env's action space (SAC's
tanh, the [-1, 1] -> [low, high] scaling of SAC and TD3), the module carries that
map as ``to_action_space`` so panels show actions as the env receives them.

Imported only when an SB3 model is handed to a panel, so SB3 stays optional. The
input is built by the policy's own ``obs_to_tensor`` (which also moves channel-last
images to channels-first, as SB3's ``VecTransposeImage`` does during training); the
networks scale images themselves (``normalize_images``), so gradients are taken
with respect to the raw observation values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from gymnasium import spaces
from stable_baselines3 import DDPG, DQN, SAC, TD3
from stable_baselines3.common.distributions import (
    CategoricalDistribution,
    DiagGaussianDistribution,
)
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn

if TYPE_CHECKING:  # _model imports this module for SB3 models
    from agent_widget.torch._model import Preprocess


class ActorCritic(nn.Module):
    """An SB3 actor-critic policy as ``obs -> (logits, value)`` for discrete actions,
    or ``obs -> (mean, log_std)`` for a diagonal Gaussian over a ``Box``.

    The logits are the categorical distribution's (softmax gives SB3's probabilities).
    """

    def __init__(self, policy: ActorCriticPolicy) -> None:
        super().__init__()
        if not isinstance(policy.action_dist, (CategoricalDistribution, DiagGaussianDistribution)):
            raise ValueError(
                f"policy and saliency panels read categorical and diagonal Gaussian policies; "
                f"this one has a {type(policy.action_dist).__name__} (gSDE, multi-discrete "
                "and Bernoulli policies are not read yet)"
            )
        self.policy = policy
        self.gaussian = isinstance(policy.action_dist, DiagGaussianDistribution)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        policy = self.policy
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
        if self.gaussian:
            mean = policy.action_net(latent_pi)
            return mean, policy.log_std.expand_as(mean)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


class SquashedGaussian(nn.Module):
    """SAC's actor as ``obs -> (mean, log_std)`` of its Gaussian before the tanh."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        if model.policy.actor.use_sde:
            raise ValueError("SAC with gSDE (use_sde=True) is not read yet")
        self.actor = model.policy.actor
        self.to_action_space = _squashed(model.policy.action_space)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mean, log_std, _ = self.actor.get_action_dist_params(obs)
        return mean, log_std


class DeterministicActor(nn.Module):
    """TD3's (or DDPG's) actor as ``obs -> action`` in [-1, 1], before SB3's scaling."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.actor = model.policy.actor
        self.to_action_space = _unscaled(model.policy.action_space)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.actor(obs)


def adapt(model: Any) -> tuple[nn.Module, Preprocess, spaces.Space[Any]]:
    """The network inside an SB3 model, its input conversion and its action space.

    Examples:
        >>> import gymnasium as gym
        >>> import numpy as np
        >>> from stable_baselines3 import PPO
        >>> network, preprocess, space = adapt(PPO("MlpPolicy", gym.make("CartPole-v1")))
        >>> logits, value = network(preprocess(np.zeros((1, 4))))
        >>> tuple(logits.shape), tuple(value.shape), space
        ((1, 2), (1,), Discrete(2))
    """
    policy = model.policy
    if isinstance(policy.observation_space, spaces.Dict):
        raise ValueError("dict observation spaces are not supported by the SB3 adapter")
    network: nn.Module
    if isinstance(model, DQN):
        network = policy.q_net
    elif isinstance(model, SAC):
        network = SquashedGaussian(model)
    elif isinstance(model, (TD3, DDPG)):
        network = DeterministicActor(model)
    elif isinstance(policy, ActorCriticPolicy):
        network = ActorCritic(policy)
    else:
        raise ValueError(
            f"no adapter for {type(model).__name__}: Stable-Baselines3 DQN, PPO, A2C, SAC, "
            "TD3 and DDPG models are supported; pass the torch network itself for others"
        )

    def preprocess(batch: Any) -> torch.Tensor:
        tensor, _ = policy.obs_to_tensor(batch)
        return tensor.float()

    return network, preprocess, policy.action_space


def is_q_network(model: Any) -> bool:
    """Whether an SB3 model is a DQN: Q-values, no policy to show probabilities of."""
    return isinstance(model, DQN)


def has_critics(model: Any) -> bool:
    """Whether an SB3 model's critics score (observation, action) pairs: SAC, TD3, DDPG."""
    return isinstance(model, (SAC, TD3, DDPG))


def _unscaled(space: spaces.Box) -> Callable[[torch.Tensor], torch.Tensor]:
    """SB3's ``unscale_action``: [-1, 1] -> [low, high], on tensors."""
    low = torch.as_tensor(space.low, dtype=torch.float32).reshape(-1)
    high = torch.as_tensor(space.high, dtype=torch.float32).reshape(-1)
    return lambda x: low.to(x) + 0.5 * (x + 1.0) * (high - low).to(x)


def _squashed(space: spaces.Box) -> Callable[[torch.Tensor], torch.Tensor]:
    """SAC's map from its Gaussian's numbers to actions: tanh, then unscaled."""
    unscale = _unscaled(space)
    return lambda x: unscale(torch.tanh(x))
