"""Rollout.from_minari on small Minari datasets that each test builds itself."""

from __future__ import annotations

import gymnasium as gym
import h5py  # Minari's default storage format
import minari
import numpy as np
import pytest
from minari.data_collector.episode_buffer import EpisodeBuffer

from agent_widget.episodes import Rollout
from agent_widget.recording import record
from agent_widget.recording._minari import ReplayDivergenceError, from_minari
from tests.cartpole import lean


@pytest.fixture(autouse=True)
def datasets_in_tmp(tmp_path, monkeypatch):
    """Minari reads and writes datasets under MINARI_DATASETS_PATH: keep them in tmp_path."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))


def collect(env, seed, policy=lean, episode_id=0, max_steps=500):
    """One episode as a Minari buffer: what a DataCollector stores, infos included."""
    obs, _ = env.reset(seed=seed)
    observations, actions, rewards, terminations, truncations = [obs], [], [], [], []
    infos = {"step": [0]}
    for t in range(max_steps):
        action = policy(obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(reward)
        terminations.append(terminated)
        truncations.append(truncated or t == max_steps - 1)
        infos["step"].append(t + 1)
        if terminated or truncated:
            break
    return EpisodeBuffer(
        id=episode_id,
        seed=seed,
        observations=observations,
        actions=actions,
        rewards=rewards,
        terminations=terminations,
        truncations=truncations,
        infos=infos,
    )


def create(dataset_id, buffers, env, **kwargs):
    return minari.create_dataset_from_buffers(
        dataset_id,
        buffers,
        env=env,
        eval_env=env.spec,
        algorithm_name="lean",
        author="tests",
        author_email="tests@example.com",
        code_permalink="https://example.com/tests",
        description="built by the test itself",
        **kwargs,
    )


@pytest.fixture
def cartpole_dataset():
    env = gym.make("CartPole-v1")
    buffers = [collect(env, seed, episode_id=i) for i, seed in enumerate((20, 21))]
    return create("cartpole/lean-v0", buffers, env)


def tamper(dataset, field, index, change):
    """Edit one stored entry of episode 0 in the hdf5 file, then reopen the dataset."""
    path = dataset.storage.data_path / "main_data.hdf5"
    with h5py.File(path, "r+") as file:
        stored = file[f"episode_0/{field}"]
        stored[index] = change(stored[index])
    return minari.load_dataset(dataset.id)


def test_from_minari_takes_the_stored_data_as_it_is(cartpole_dataset):
    episode = cartpole_dataset[1]

    rollout = from_minari(cartpole_dataset, 1)

    assert rollout.frames is None
    assert np.array_equal(rollout.observations, episode.observations)
    assert np.array_equal(rollout.actions, episode.actions)
    assert np.array_equal(rollout.rewards, episode.rewards)
    assert np.array_equal(rollout.terminated, episode.terminations)
    assert np.array_equal(rollout.truncated, episode.truncations)
    assert [info["step"] for info in rollout.infos] == list(range(len(episode) + 1))


def test_from_minari_metadata_names_the_dataset_episode_and_seed(cartpole_dataset):
    meta = from_minari(cartpole_dataset, 1).metadata

    assert (meta["minari_dataset"], meta["minari_episode"], meta["seed"]) == (
        "cartpole/lean-v0",
        1,
        21,
    )
    assert (meta["env_id"], meta["algorithm"]) == ("CartPole-v1", "lean")
    assert meta["action_names"] == ["LEFT", "RIGHT"]


def test_rollout_from_minari_delegates_here(cartpole_dataset):
    rollout = Rollout.from_minari(cartpole_dataset, 0)

    assert np.array_equal(rollout.observations, cartpole_dataset[0].observations)


def test_render_replays_the_episode_frame_for_frame(cartpole_dataset):
    actions = iter(cartpole_dataset[0].actions)
    expected = record(gym.make("CartPole-v1", render_mode="rgb_array"), lambda o: next(actions), 20)

    rollout = from_minari(cartpole_dataset, 0, render=True)

    assert len(rollout.frames) == rollout.num_positions == expected.num_positions
    for t in range(expected.num_positions):
        assert np.array_equal(rollout.frames[t], expected.frames[t]), f"frame {t} differs"


def test_a_tampered_observation_is_reported_at_its_position(cartpole_dataset):
    dataset = tamper(cartpole_dataset, "observations", 5, lambda obs: obs + 0.5)

    with pytest.raises(ReplayDivergenceError, match=r"position 5 \(after action 4\)") as error:
        from_minari(dataset, 0, render=True)

    assert error.value.position == 5
    assert "render=False" in str(error.value)


def test_a_tampered_action_is_reported_where_the_replay_departs(cartpole_dataset):
    dataset = tamper(cartpole_dataset, "actions", 3, lambda action: 1 - action)

    with pytest.raises(ReplayDivergenceError) as error:
        from_minari(dataset, 0, render=True)

    assert error.value.position == 4  # the observation after the changed action 3


def test_an_episode_without_a_seed_cannot_be_replayed():
    env = gym.make("CartPole-v1")
    buffer = collect(env, seed=5)
    unseeded = EpisodeBuffer(**{**buffer.__dict__, "seed": None})
    dataset = create("cartpole/unseeded-v0", [unseeded], env)

    with pytest.raises(ReplayDivergenceError, match="no stored seed") as error:
        from_minari(dataset, 0, render=True)

    assert error.value.position == 0


def test_a_replay_that_ends_early_is_reported():
    env = gym.make("FrozenLake-v1", is_slippery=False)
    down = collect(env, seed=0, policy=lambda obs: 1)  # 0, 4, 8, then the hole at 12
    longer = EpisodeBuffer(
        **{
            **down.__dict__,
            "observations": [*down.observations, 12],
            "actions": [*down.actions, 1],
            "rewards": [*down.rewards, 0.0],
            "terminations": [False] * len(down.terminations) + [True],
            "truncations": [*down.truncations, False],
            "infos": None,
        }
    )
    dataset = create("lake/longer-v0", [longer], env)

    with pytest.raises(ReplayDivergenceError, match="ends after action 2, not after action 3"):
        from_minari(dataset, 0, render=True)


def test_image_observations_stored_as_jpeg_still_replay():
    env = gym.wrappers.AddRenderObservation(
        gym.make("CartPole-v1", render_mode="rgb_array"), render_only=True
    )
    dataset = create("cartpole/pixels-v0", [collect(env, 3, lambda obs: 0, max_steps=6)], env)

    rollout = from_minari(dataset, 0, render=True)

    assert rollout.num_steps == 6
    assert len(rollout.frames) == 7
    assert rollout.observations.shape == (7, 400, 600, 3)


@pytest.mark.filterwarnings("ignore::UserWarning:minari.utils")  # no env, no metadata: fine here
def test_dict_observations_become_a_dict_of_arrays():
    space = gym.spaces.Dict(
        cart=gym.spaces.Box(-np.inf, np.inf, (2,)), pole=gym.spaces.Box(-np.inf, np.inf, (2,))
    )
    cartpole = gym.make("CartPole-v1")
    obs, _ = cartpole.reset(seed=0)
    steps = [obs] + [cartpole.step(0)[0] for _ in range(3)]
    buffer = EpisodeBuffer(
        seed=0,
        observations={"cart": [o[:2] for o in steps], "pole": [o[2:] for o in steps]},
        actions=[0, 0, 0],
        rewards=[1.0, 1.0, 1.0],
        terminations=[False, False, False],
        truncations=[False, False, True],
    )
    dataset = minari.create_dataset_from_buffers(
        "cartpole/dict-v0", [buffer], observation_space=space, action_space=gym.spaces.Discrete(2)
    )

    rollout = from_minari(dataset, 0)

    assert set(rollout.observations) == {"cart", "pole"}
    assert np.array_equal(rollout.observations["pole"], np.array(steps)[:, 2:])
    assert rollout.metadata["env_id"] is None


def test_an_episode_index_out_of_range_is_an_index_error(cartpole_dataset):
    with pytest.raises(IndexError, match=r"episode index 2 out of range .* with 2 episodes"):
        from_minari(cartpole_dataset, 2)
