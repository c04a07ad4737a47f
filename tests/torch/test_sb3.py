"""Stable-Baselines3 models in the torch panels, checked against SB3's own answers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import A2C, DQN, PPO

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.torch import Policy, QValues, Saliency
from tests.torch_nets import picture


def cartpole_step(t: int = 0) -> Step:
    env = gym.make("CartPole-v1")
    observations = [env.reset(seed=3)[0]]
    for action in (0, 1, 1):
        observations.append(env.step(action)[0])
    rollout = Rollout.from_arrays(observations=np.stack(observations), actions=[0, 1, 1])
    return Step(rollout, t, ["LEFT", "RIGHT"])


class Screen(gym.Env):
    """84x84x4 uint8 observations, channel last (as frame-stacking wrappers make them)."""

    observation_space = gym.spaces.Box(0, 255, (84, 84, 4), np.uint8)
    action_space = gym.spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


def test_dqn_q_values_are_its_q_network_and_its_greedy_action_is_predicts():
    dqn = DQN("MlpPolicy", "CartPole-v1", seed=0)
    step = cartpole_step(1)
    with torch.no_grad():
        expected = dqn.q_net(torch.as_tensor(step.obs[None])).double().numpy()[0]
    bars = QValues(dqn)(step)
    np.testing.assert_allclose(np.asarray(bars), expected, rtol=1e-6)
    assert bars.greedy == int(dqn.predict(step.obs, deterministic=True)[0])
    assert list(bars) == ["LEFT", "RIGHT"]


@pytest.mark.parametrize("algorithm", [PPO, A2C])
def test_actor_critic_probabilities_and_value_are_sb3s(algorithm):
    model = algorithm("MlpPolicy", "CartPole-v1", seed=0)
    step = cartpole_step(2)
    obs, _ = model.policy.obs_to_tensor(step.obs)
    with torch.no_grad():
        probs = model.policy.get_distribution(obs).distribution.probs[0].double().numpy()
        value = float(model.policy.predict_values(obs)[0, 0])
    bars = Policy(model)(step)
    np.testing.assert_allclose(np.asarray(bars), probs, rtol=1e-6)
    assert bars.stats["V"] == pytest.approx(value, rel=1e-6)


def test_saliency_of_an_sb3_model_is_the_gradient_through_its_network():
    dqn = DQN("MlpPolicy", "CartPole-v1", seed=0)
    step = cartpole_step(0)
    x = torch.as_tensor(step.obs[None]).requires_grad_()
    (gradient,) = torch.autograd.grad(dqn.q_net(x)[0, 1], x)
    saliency = Saliency(dqn, target=1)(step)
    np.testing.assert_allclose(list(saliency.values()), gradient[0].numpy(), rtol=1e-5)
    assert all(p.grad is None for p in dqn.policy.parameters())


def test_channel_last_observations_reach_a_cnn_policy_transposed_and_map_onto_the_frame():
    model = PPO("CnnPolicy", Screen(), n_steps=8, batch_size=8, seed=0)
    observations = np.random.default_rng(0).integers(0, 256, (2, 84, 84, 4), dtype=np.uint8)
    frames = np.stack([picture(obs, (210, 160)) for obs in observations])
    step = Step(Rollout.from_arrays(frames=frames, observations=observations, actions=[1]), 0)
    obs, _ = model.policy.obs_to_tensor(observations[0])
    with torch.no_grad():
        probs = model.policy.get_distribution(obs).distribution.probs[0].double().numpy()
    np.testing.assert_allclose(np.asarray(Policy(model)(step)), probs, rtol=1e-5)
    assert Saliency(model, method="perturbation")(step).shape == (210, 160)


def test_q_values_of_a_continuous_actor_without_critics_are_refused_naming_it():
    with pytest.raises(ValueError, match=r"PPO acts in a Box of shape .* no critic"):
        QValues(PPO("MlpPolicy", "Pendulum-v1", n_steps=8, batch_size=8))


def test_a_policy_it_cannot_read_is_refused_naming_its_distribution():
    env = gym.make("CartPole-v1")
    env.action_space = gym.spaces.MultiDiscrete([2, 2])
    with pytest.raises(ValueError, match="MultiCategoricalDistribution"):
        Policy(PPO("MlpPolicy", env, n_steps=8, batch_size=8))
