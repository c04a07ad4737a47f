"""A real PPO trained a few hundred steps on Pendulum under SB3's ``VecNormalize``, and
the independent forward pass the normalisation tests check numbers against."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO, SAC
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

ENV = "Pendulum-v1"


def pendulum() -> gym.Env:
    return gym.make(ENV)


def vec_normalized() -> VecNormalize:
    return VecNormalize(DummyVecEnv([pendulum]), norm_obs=True, norm_reward=True)


@functools.cache
def trained() -> PPO:
    """PPO after 512 steps under VecNormalize: its statistics far from (0, 1), as every
    RL Zoo MuJoCo model's are (Pendulum's angular velocity swings over +-8)."""
    model = PPO("MlpPolicy", vec_normalized(), n_steps=256, batch_size=64, seed=0, device="cpu")
    model.learn(512)
    model.get_vec_normalize_env().training = False  # stats frozen, as for evaluation
    return model


def mean(model: PPO, normalized: np.ndarray) -> np.ndarray:
    """The policy's Gaussian mean on an already normalized batch: computed here from
    ``model.policy``, without ``predict`` or the panels' adapter."""
    obs = torch.as_tensor(np.asarray(normalized, dtype=np.float32)).reshape(-1, 3)
    with torch.no_grad():
        return model.policy.get_distribution(obs).distribution.mean.numpy()


def mean_action(model: PPO, normalized: np.ndarray) -> np.ndarray:
    """That mean clipped to the bounds, as ``predict`` clips its action."""
    space = model.action_space
    return np.clip(mean(model, normalized), space.low, space.high)


@functools.cache
def trained_sac() -> SAC:
    """SAC after 300 steps under VecNormalize: critics and an actor fed normalized
    observations."""
    model = SAC("MlpPolicy", vec_normalized(), learning_starts=100, seed=0, device="cpu")
    model.learn(300)
    model.get_vec_normalize_env().training = False
    return model
