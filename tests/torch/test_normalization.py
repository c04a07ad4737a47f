"""The torch panels of a model trained under SB3's VecNormalize: fed the observations
it was trained on, its own VecNormalize or one loaded apart, checked against a forward
pass of ``model.policy`` on ``normalize_obs(obs)``."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from stable_baselines3 import PPO, SAC
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

from agent_widget.panels import Step
from agent_widget.recording import record
from agent_widget.torch import Policy, QValues, Saliency
from tests.vecnormalized import mean, pendulum, trained, trained_sac

T = 7


@pytest.fixture(scope="module")
def episode():
    """An episode of the trained PPO, its observations raw."""
    return record(pendulum(), trained(), seed=0, max_steps=20)


def normalized_obs(t, episode):
    return trained().get_vec_normalize_env().normalize_obs(episode.observations[t])


def test_policy_bars_are_the_mean_on_the_normalized_observation(episode):
    bars = Policy(trained())(Step(episode, T))
    np.testing.assert_allclose(np.asarray(bars), mean(trained(), normalized_obs(T, episode))[0],
                               atol=1e-6)  # fmt: skip
    raw = mean(trained(), episode.observations[T])[0]
    assert np.abs(np.asarray(bars) - raw).max() > 0.01  # what the panel showed before


def test_policy_series_runs_the_whole_episode_normalized(episode):
    series = Policy(trained()).series(episode)
    stats = trained().get_vec_normalize_env()
    expected = mean(trained(), stats.normalize_obs(episode.observations[:-1]))
    np.testing.assert_allclose(series["mean"], expected, atol=1e-6)


def test_a_vec_normalize_loaded_apart_is_passed_as_normalize(tmp_path, episode):
    trained().save(tmp_path / "model.zip")
    trained().get_vec_normalize_env().save(str(tmp_path / "vecnormalize.pkl"))
    loaded = PPO.load(tmp_path / "model.zip", device="cpu")
    stats = VecNormalize.load(str(tmp_path / "vecnormalize.pkl"), DummyVecEnv([pendulum]))
    bars = Policy(loaded, normalize=stats)(Step(episode, T))
    np.testing.assert_allclose(np.asarray(bars), mean(trained(), normalized_obs(T, episode))[0],
                               atol=1e-6)  # fmt: skip


def test_saliency_is_the_gradient_at_the_normalized_observation(episode):
    attribution = Saliency(trained(), target=0)(Step(episode, T))
    obs = torch.as_tensor(normalized_obs(T, episode), dtype=torch.float32)[None]
    obs.requires_grad_()
    trained().policy.get_distribution(obs).distribution.mean[0, 0].backward()
    np.testing.assert_allclose(list(attribution.values()), obs.grad[0].numpy(), atol=1e-6)


def test_sac_critics_score_the_normalized_observation():
    model = trained_sac()
    stats = model.get_vec_normalize_env()
    rollout = record(pendulum(), model, seed=0, max_steps=10)
    bars = QValues(model)(Step(rollout, 3))
    obs = torch.as_tensor(stats.normalize_obs(rollout.observations[3]), dtype=torch.float32)[None]
    taken = torch.as_tensor(model.policy.scale_action(rollout.actions[3:4]), dtype=torch.float32)
    with torch.no_grad():
        own = model.actor(obs, deterministic=True)
        expected = [float(q) for q in model.critic(obs, taken)] + [
            float(q) for q in model.critic(obs, own)
        ]
    np.testing.assert_allclose(np.asarray(bars), expected, atol=1e-5)


def test_a_model_without_the_normalisation_its_episode_saw_is_refused(tmp_path, episode):
    """The episode was recorded with the model's own VecNormalize; the same model loaded
    from its zip alone has none, and would show numbers it was never trained on."""
    trained().save(tmp_path / "model.zip")
    loaded = PPO.load(tmp_path / "model.zip", device="cpu")
    with pytest.raises(ValueError, match="the episode's policy saw normalized observations"):
        Policy(loaded)(Step(episode, T))
    with pytest.raises(ValueError, match=r"pass normalize= the VecNormalize it was trained with"):
        Saliency(loaded, target=0)(Step(episode, T))
    raw = Policy(loaded, normalize=False)(Step(episode, T))  # asked for: shown
    np.testing.assert_allclose(np.asarray(raw), mean(trained(), episode.observations[T])[0],
                               atol=1e-6)  # fmt: skip


def test_sac_critics_without_the_normalisation_are_refused_too(tmp_path):
    model = trained_sac()
    rollout = record(pendulum(), model, seed=0, max_steps=5)
    model.save(tmp_path / "sac.zip")
    loaded = SAC.load(tmp_path / "sac.zip", device="cpu")
    with pytest.raises(ValueError, match="the episode's policy saw normalized observations"):
        QValues(loaded)(Step(rollout, 2))
