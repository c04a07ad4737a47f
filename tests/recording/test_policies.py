"""``record(env, model)`` with a Stable-Baselines3 model: its deterministic
``predict``, the same episode as a loop over ``predict`` (issue #41)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3 import DQN, PPO

from agent_widget import record
from agent_widget.recording import record_vector
from tests.cartpole import cartpole


def predict_loop(env: gym.Env, model, seed: int, deterministic: bool = True) -> list:
    """The episode's actions as a user's own loop over ``model.predict`` takes them."""
    obs, _ = env.reset(seed=seed)
    actions = []
    while True:
        action, _ = model.predict(obs, deterministic=deterministic)
        actions.append(action)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return actions


def test_a_dqn_model_records_the_episode_its_predict_loop_plays():
    model = DQN("MlpPolicy", cartpole(None), seed=0)
    rollout = record(cartpole(None), model, seed=3)
    expected = predict_loop(cartpole(None), model, seed=3)
    np.testing.assert_array_equal(rollout.actions, expected)


def test_a_continuous_ppo_model_records_its_mean_actions_by_default():
    model = PPO("MlpPolicy", gym.make("Pendulum-v1"), seed=0)
    rollout = record(gym.make("Pendulum-v1"), model, seed=1, max_steps=20)
    expected = predict_loop(gym.make("Pendulum-v1"), model, seed=1)[:20]
    np.testing.assert_allclose(rollout.actions, np.stack(expected))
    sampled = record(gym.make("Pendulum-v1"), model, seed=1, max_steps=20, deterministic=False)
    assert not np.allclose(sampled.actions, rollout.actions)


def test_a_vector_env_calls_predict_on_the_batch():
    model = PPO("MlpPolicy", gym.make("Pendulum-v1"), seed=0)
    envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
    rollouts = record_vector(envs, model, seed=0, max_steps=5)
    single = record(gym.make("Pendulum-v1"), model, seed=1, max_steps=5)
    np.testing.assert_allclose(rollouts[1].actions, single.actions, rtol=1e-6)


def test_something_neither_callable_nor_a_model_is_refused_by_name():
    with pytest.raises(TypeError, match=r"predict.*got str"):
        record(cartpole(None), "greedy", seed=0)
