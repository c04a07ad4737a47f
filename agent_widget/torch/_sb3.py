"""Stable-Baselines3 models as plain networks: DQN -> Q-values, PPO/A2C -> (logits, value).

Imported only when an SB3 model is handed to a panel, so SB3 stays optional. The
input is built by the policy's own ``obs_to_tensor`` (which also moves channel-last
images to channels-first, as SB3's ``VecTransposeImage`` does during training); the
networks scale images themselves (``normalize_images``), so gradients are taken
with respect to the raw observation values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from gymnasium import spaces
from stable_baselines3 import DQN
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn

if TYPE_CHECKING:  # _model imports this module for SB3 models
    from agent_widget.torch._model import Preprocess


class ActorCritic(nn.Module):
    """An SB3 actor-critic policy as ``obs -> (logits, value)`` for discrete actions.

    The logits are the categorical distribution's (softmax gives SB3's probabilities).
    """

    def __init__(self, policy: ActorCriticPolicy) -> None:
        super().__init__()
        if not isinstance(policy.action_space, spaces.Discrete):
            raise ValueError(
                f"policy and saliency panels need discrete actions; this policy acts in "
                f"{policy.action_space}"
            )
        self.policy = policy

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        policy = self.policy
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def adapt(model: Any) -> tuple[nn.Module, Preprocess]:
    """The network inside an SB3 DQN, PPO or A2C model, and its input conversion.

    Examples:
        >>> import gymnasium as gym
        >>> import numpy as np
        >>> from stable_baselines3 import PPO
        >>> network, preprocess = adapt(PPO("MlpPolicy", gym.make("CartPole-v1")))
        >>> logits, value = network(preprocess(np.zeros((1, 4))))
        >>> tuple(logits.shape), tuple(value.shape)
        ((1, 2), (1,))
    """
    policy = model.policy
    if isinstance(policy.observation_space, spaces.Dict):
        raise ValueError("dict observation spaces are not supported by the SB3 adapter")
    network: nn.Module
    if isinstance(model, DQN):
        network = policy.q_net
    elif isinstance(policy, ActorCriticPolicy):
        network = ActorCritic(policy)
    else:
        raise ValueError(
            f"no adapter for {type(model).__name__}: Stable-Baselines3 DQN, PPO and A2C "
            "models are supported; pass the torch network itself for others"
        )

    def preprocess(batch: Any) -> torch.Tensor:
        tensor, _ = policy.obs_to_tensor(batch)
        return tensor.float()

    return network, preprocess
