"""Recording a model trained under SB3's VecNormalize: its policy sees observations
normalized as in training, the rollout keeps them raw and says which normalisation."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

from agent_widget.recording import ObservationStatistics, record, record_vector
from tests.vecnormalized import mean_action, pendulum, trained

STEPS = 30


def test_record_feeds_a_model_its_own_vec_normalize():
    model = trained()
    stats = model.get_vec_normalize_env()
    rollout = record(pendulum(), model, seed=0, max_steps=STEPS)
    expected = mean_action(model, stats.normalize_obs(rollout.observations[:-1]))
    np.testing.assert_allclose(rollout.actions, expected, atol=1e-5)
    # And not what the raw observations give: the bug this fixes.
    raw = mean_action(model, rollout.observations[:-1])
    assert np.abs(rollout.actions - raw).max() > 0.05


def test_the_rollout_keeps_raw_observations_and_says_the_normalisation():
    model = trained()
    stats = model.get_vec_normalize_env()
    rollout = record(pendulum(), model, seed=0, max_steps=STEPS)
    first, _ = pendulum().reset(seed=0)
    np.testing.assert_array_equal(rollout.observations[0], first)
    said = rollout.metadata["observation_normalization"]
    assert (said["kind"], said["source"]) == ("VecNormalize", "model")
    np.testing.assert_array_equal(said["mean"], stats.obs_rms.mean)
    np.testing.assert_array_equal(said["var"], stats.obs_rms.var)
    assert (said["clip_obs"], said["epsilon"]) == (stats.clip_obs, stats.epsilon)


def test_a_vec_normalize_saved_apart_is_passed_as_normalize(tmp_path):
    """RL Zoo's layout: the model's zip, and vecnormalize.pkl loaded by the user with
    SB3's own API (the model loaded alone has no VecNormalize)."""
    model = trained()
    model.save(tmp_path / "model.zip")
    model.get_vec_normalize_env().save(str(tmp_path / "vecnormalize.pkl"))
    loaded = PPO.load(tmp_path / "model.zip", device="cpu")
    assert loaded.get_vec_normalize_env() is None
    stats = VecNormalize.load(str(tmp_path / "vecnormalize.pkl"), DummyVecEnv([pendulum]))
    rollout = record(pendulum(), loaded, seed=1, max_steps=STEPS, normalize=stats)
    expected = mean_action(model, stats.normalize_obs(rollout.observations[:-1]))
    np.testing.assert_allclose(rollout.actions, expected, atol=1e-5)
    assert rollout.metadata["observation_normalization"]["source"] == "normalize="


def test_normalize_false_feeds_raw_observations():
    model = trained()
    rollout = record(pendulum(), model, seed=0, max_steps=STEPS, normalize=False)
    expected = mean_action(model, rollout.observations[:-1])
    np.testing.assert_allclose(rollout.actions, expected, atol=1e-5)
    assert "observation_normalization" not in rollout.metadata


def test_a_function_policy_sees_what_a_normalize_function_gives():
    seen = []

    def policy(obs):
        seen.append(obs)
        return np.zeros(1, np.float32)

    rollout = record(pendulum(), policy, seed=0, max_steps=5, normalize=lambda obs: obs * 2)
    np.testing.assert_array_equal(np.stack(seen), rollout.observations[:-1] * 2)
    assert rollout.metadata["observation_normalization"]["kind"].startswith("function")


def test_a_normalize_of_the_wrong_kind_says_what_it_takes():
    with pytest.raises(TypeError, match="normalize must be a VecNormalize"):
        record(pendulum(), trained(), seed=0, normalize="vecnormalize.pkl")


def test_record_vector_normalizes_the_batch():
    model = trained()
    stats = model.get_vec_normalize_env()
    rollouts = record_vector(DummyVecEnv([pendulum, pendulum]), model, seed=0, max_steps=STEPS)
    for rollout in rollouts:
        expected = mean_action(model, stats.normalize_obs(rollout.observations[:-1]))
        np.testing.assert_allclose(rollout.actions, expected, atol=1e-5)
        assert rollout.metadata["observation_normalization"]["source"] == "model"


def test_a_branch_plays_on_with_the_normalized_policy():
    model = trained()
    stats = model.get_vec_normalize_env()
    env = pendulum()
    episode = record(env, model, seed=0, max_steps=STEPS, normalize=False)
    other = episode.branch(10, np.array([2.0], np.float32), env=env, policy=model)
    expected = mean_action(model, stats.normalize_obs(other.observations[11:-1]))
    np.testing.assert_allclose(other.actions[11:], expected, atol=1e-5)
    assert other.metadata["observation_normalization"]["source"] == "model"
    assert "observation_normalization" not in episode.metadata


def test_statistics_normalize_as_vec_normalize_does():
    stats = trained().get_vec_normalize_env()
    obs = np.random.default_rng(0).normal(scale=20, size=(64, 3)).astype(np.float32)
    mine = ObservationStatistics.of(stats).normalize_obs(obs)
    np.testing.assert_array_equal(mine, stats.normalize_obs(obs))
    assert mine.dtype == np.float32
    assert np.abs(mine).max() == stats.clip_obs


def test_normalize_for_many_agents_is_refused_saying_where_it_goes():
    game = pettingzoo.make("aec", "classic/tictactoe-v3")
    with pytest.raises(ValueError, match="normalize= is for a single-agent env's policy"):
        record(game, lambda agent, obs: 0, seed=0, normalize=lambda obs: obs)
