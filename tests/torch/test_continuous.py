"""Continuous actions (issue #41): panels read a Gaussian actor's ``(mean, log_std)``
as such, never as ``(logits, value)``, with the action space the episode keeps; SB3's
PPO, SAC and TD3 shown as the env receives their actions; a DQN refused by Policy.
Real envs (Pendulum, and a 6-dimensional Box as HalfCheetah's) and real networks:
the panels' numbers equal the networks' own."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import DQN, PPO, SAC, TD3
from torch import nn

from agent_widget import EpisodeViewer, record
from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.panels._cards import to_card
from agent_widget.torch import Policy, QValues, Saliency
from tests.cartpole import cartpole

torch.manual_seed(0)


class GaussianActor(nn.Module):
    """CleanRL's continuous actor, small: obs -> (mean, log_std), log_std a parameter."""

    def __init__(self, observations: int, actions: int) -> None:
        super().__init__()
        self.mean = nn.Linear(observations, actions)
        self.log_std = nn.Parameter(torch.linspace(-1.0, 0.0, actions))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.mean(x), self.log_std


def pendulum_episode(policy=None, steps: int = 12) -> Rollout:
    env = gym.make("Pendulum-v1")
    return record(env, policy or (lambda obs: np.array([0.3], np.float32)), seed=0, max_steps=steps)


def six_dimensional_episode(steps: int = 8) -> Rollout:
    """An episode in a 6-dimensional Box within [-1, 1] (HalfCheetah's action space):
    Pendulum's observations wrapped to take six torques and use the first."""

    class SixTorques(gym.ActionWrapper):
        def __init__(self, env: gym.Env) -> None:
            super().__init__(env)
            self.action_space = gym.spaces.Box(-1.0, 1.0, (6,), np.float32)

        def action(self, action: np.ndarray) -> np.ndarray:
            return action[:1] * 2.0

    env = SixTorques(gym.make("Pendulum-v1"))
    rng = np.random.default_rng(0)
    return record(
        env, lambda obs: rng.uniform(-1, 1, 6).astype(np.float32), seed=0, max_steps=steps
    )


def test_a_gaussian_actor_shows_its_means_spread_and_the_taken_action():
    actor = GaussianActor(3, 1)
    rollout = pendulum_episode()
    step = Step(rollout, 4)
    bars = Policy(actor)(step)
    with torch.no_grad():
        mean = actor.mean(torch.as_tensor(step.obs, dtype=torch.float32)).double().numpy()
    std = np.exp(actor.log_std.detach().double().numpy())
    np.testing.assert_allclose(bars.heights, mean, rtol=1e-6)
    np.testing.assert_allclose(bars.ranges, np.stack([mean - std, mean + std], 1), rtol=1e-6)
    np.testing.assert_allclose(bars.marks, [0.3], rtol=1e-6)
    assert bars.labels == ("a[0]",)
    assert bars.scale == (-2.0, 2.0)  # Pendulum's torque bounds
    assert bars.greedy is None
    assert "V" not in bars.stats  # no log-std read as a value
    expected_entropy = float(actor.log_std.sum()) + 0.5 * np.log(2 * np.pi * np.e)
    assert bars.stats["entropy"] == pytest.approx(expected_entropy)


def test_the_series_of_a_continuous_actor_are_its_means_for_the_timeline():
    actor = GaussianActor(3, 6)
    rollout = six_dimensional_episode()
    series = Policy(actor).series(rollout)
    with torch.no_grad():
        expected = actor.mean(torch.as_tensor(rollout.observations[:-1])).double().numpy()
    np.testing.assert_allclose(series["mean"], expected, rtol=1e-6)
    assert series["entropy"].shape == (rollout.num_steps,)
    rollout.extras.update(series)
    viewer = EpisodeViewer(rollout, extras=["mean"])
    assert {f"extra:mean[{i}]" for i in range(6)} <= set(viewer.series)


def test_the_card_carries_the_whiskers_and_marks():
    rollout = pendulum_episode()
    card = to_card(Policy(GaussianActor(3, 1))(Step(rollout, 2)), Step(rollout, 2))
    assert card.kind == "bars"
    assert np.shape(card.meta["ranges"]) == (1, 2)
    assert card.meta["marks"] == pytest.approx([0.3])


def test_saliency_of_any_action_dimension_or_their_sum_on_six_dimensions():
    rollout = six_dimensional_episode()
    actor = GaussianActor(3, 6)
    step = Step(rollout, 3)
    weights = actor.mean.weight.detach().double().numpy()
    third = Saliency(actor, target=2)(step)
    np.testing.assert_allclose(list(third.values()), weights[2], rtol=1e-5)
    total = Saliency(actor)(step)  # the default for a Box: the sum
    np.testing.assert_allclose(list(total.values()), weights.sum(0), rtol=1e-5)
    with pytest.raises(ValueError, match=r"continuous.*target=k"):
        Saliency(actor, target="argmax")(step)
    with pytest.raises(ValueError, match="not one of 6 dimensions"):
        Saliency(actor, target=6)(step)


def test_an_episode_without_a_kept_space_is_read_from_its_actions_or_not_at_all():
    recorded = pendulum_episode()
    # Vectors of floats as actions: a Box of their shape.
    bare = Rollout.from_arrays(observations=recorded.observations, actions=recorded.actions)
    assert Policy(GaussianActor(3, 1))(Step(bare, 0)).ranges is not None
    # No actions to tell by: a pair of outputs is not guessed at...
    unknown = Rollout.from_arrays(observations=recorded.observations)
    with pytest.raises(ValueError, match="does not say its action space"):
        Policy(GaussianActor(3, 1))(Step(unknown, 0))
    # ...unless the space is given.
    space = gym.make("Pendulum-v1").action_space
    assert Policy(GaussianActor(3, 1), action_space=space)(Step(unknown, 0)).ranges is not None


@pytest.mark.parametrize("algorithm", [SAC, TD3])
def test_q_values_of_sac_and_td3_are_their_critics_at_the_action_taken_and_their_own(algorithm):
    model = algorithm("MlpPolicy", gym.make("Pendulum-v1"), seed=0)
    rollout = record(gym.make("Pendulum-v1"), lambda obs: np.array([1.5], np.float32), seed=0,
                     max_steps=5)  # fmt: skip
    step = Step(rollout, 2)
    bars = QValues(model)(step)
    obs = torch.as_tensor(step.obs[None])
    own, _ = model.predict(step.obs, deterministic=True)
    with torch.no_grad():
        taken = [float(q) for q in model.critic(obs, torch.tensor([[0.75]]))]  # 1.5 of 2
        mine = [float(q) for q in model.critic(obs, torch.as_tensor(own[None] / 2))]
    assert bars.labels == ("Q1(s, a)", "Q2(s, a)", "Q1(s, π)", "Q2(s, π)")
    np.testing.assert_allclose(bars.heights, taken + mine, rtol=1e-5)
    assert bars.stats["min Q(s, a)"] == pytest.approx(min(taken))
    last = QValues(model)(Step(rollout, rollout.num_steps))  # no action taken: the actor's only
    assert last.labels == ("Q1(s, π)", "Q2(s, π)")


def test_q_values_refuse_continuous_actions():
    with pytest.raises(ValueError, match="QValues reads outputs per discrete action"):
        QValues(nn.Linear(3, 1))(Step(pendulum_episode(), 0))


def test_policy_refuses_a_dqn_pointing_to_q_values():
    with pytest.raises(TypeError, match=r"DQN has Q-values.*use QValues\(model\)"):
        Policy(DQN("MlpPolicy", cartpole(None)))


def test_sb3_ppo_on_pendulum_shows_the_gaussian_it_acts_with():
    model = PPO("MlpPolicy", gym.make("Pendulum-v1"), seed=0, n_steps=64, batch_size=32)
    model.learn(128)
    rollout = record(gym.make("Pendulum-v1"), model, seed=0, max_steps=10)
    step = Step(rollout, 5)
    bars = Policy(model)(step)
    obs = torch.as_tensor(step.obs[None])
    distribution = model.policy.get_distribution(obs).distribution
    mean = distribution.mean.detach().double().numpy()[0]
    std = distribution.stddev.detach().double().numpy()[0]
    np.testing.assert_allclose(bars.heights, mean, rtol=1e-5)
    np.testing.assert_allclose(bars.ranges[:, 1] - bars.heights, std, rtol=1e-5)
    np.testing.assert_allclose(bars.marks, np.clip(mean, -2, 2), rtol=1e-5)  # deterministic


def test_sb3_sac_shows_squashed_actions_in_the_env_bounds():
    model = SAC("MlpPolicy", gym.make("Pendulum-v1"), seed=0, learning_starts=0)
    rollout = record(gym.make("Pendulum-v1"), model, seed=0, max_steps=6)
    step = Step(rollout, 3)
    bars = Policy(model)(step)
    expected, _ = model.predict(step.obs, deterministic=True)
    np.testing.assert_allclose(bars.heights, expected, rtol=1e-5)  # tanh'd and scaled
    np.testing.assert_allclose(bars.marks, expected, rtol=1e-5)
    low, high = bars.ranges[0]
    assert -2.0 <= low < bars.heights[0] < high <= 2.0


def test_sb3_td3_shows_its_deterministic_action():
    model = TD3("MlpPolicy", gym.make("Pendulum-v1"), seed=0)
    rollout = record(gym.make("Pendulum-v1"), model, seed=0, max_steps=6)
    step = Step(rollout, 2)
    bars = Policy(model)(step)
    expected, _ = model.predict(step.obs, deterministic=True)
    np.testing.assert_allclose(bars.heights, expected, rtol=1e-5)
    assert bars.ranges is None
    assert "entropy" not in bars.stats


def half_cheetah() -> gym.Env:
    return gym.make("HalfCheetah-v5", render_mode="rgb_array")


def test_half_cheetah_with_a_torch_gaussian_actor():
    actor = GaussianActor(17, 6)

    def act(obs):
        with torch.no_grad():
            mean, _ = actor(torch.as_tensor(obs, dtype=torch.float32))
        return mean.numpy()

    rollout = record(half_cheetah(), act, seed=0, max_steps=30)
    assert rollout.frames[0].shape == (480, 480, 3)
    assert rollout.metadata["action_space"]["shape"] == [6]
    step = Step(rollout, 17)
    bars = Policy(actor)(step)
    np.testing.assert_allclose(bars.heights, act(step.obs), rtol=1e-6)
    np.testing.assert_allclose(bars.marks, act(step.obs), rtol=1e-6)  # it took its mean
    assert bars.scale == (-1.0, 1.0)
    assert len(Saliency(actor, target=5)(step)) == 17  # one attribution per feature


def test_half_cheetah_with_sb3_ppo_after_a_few_hundred_steps():
    model = PPO("MlpPolicy", half_cheetah(), seed=0, n_steps=128, batch_size=64)
    model.learn(256)
    rollout = record(half_cheetah(), model, seed=0, max_steps=20)
    step = Step(rollout, 9)
    bars = Policy(model)(step)
    distribution = model.policy.get_distribution(torch.as_tensor(step.obs[None])).distribution
    np.testing.assert_allclose(bars.heights, distribution.mean.detach().numpy()[0], rtol=1e-5)
    np.testing.assert_allclose(
        bars.ranges[:, 1] - bars.heights, distribution.stddev.detach().numpy()[0], rtol=1e-5
    )
