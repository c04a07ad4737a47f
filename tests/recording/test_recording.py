"""record(), the RecordRollout wrapper and record_vector() on real gymnasium envs."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta, timezone

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from agent_widget import load
from agent_widget.recording import RecordRollout, record, record_vector
from tests.cartpole import cartpole, lean


def lean_rows(obs):
    """``lean`` for a vector env: an action for each sub-env's row of observations."""
    return np.array([lean(row) for row in obs])


def manual_loop(env, policy, seed):
    """What a user's own loop sees: observations, actions, rewards and rendered frames."""
    render = env.render if env.render_mode == "rgb_array" else lambda: None
    obs, _ = env.reset(seed=seed)
    observations, actions, rewards, frames = [obs], [], [], [render()]
    done = False
    while not done:
        action = policy(obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(reward)
        frames.append(render())
        done = terminated or truncated
    return np.array(observations), np.array(actions), np.array(rewards), frames


def assert_same_frames(frames_a, frames_b):
    assert len(frames_a) == len(frames_b)
    for t, (a, b) in enumerate(zip(frames_a, frames_b, strict=True)):
        assert np.array_equal(a, b), f"frame {t} differs"


class InfoWith(gym.Wrapper):
    """Adds fixed entries to every info dict."""

    def __init__(self, env, **extra):
        super().__init__(env)
        self.extra = extra

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, {**info, **self.extra}

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, {**info, **self.extra}


class ReusedBuffer(gym.ObservationWrapper):
    """Returns the same array object every step, as some preprocessing wrappers do."""

    def __init__(self, env):
        super().__init__(env)
        self.buffer = np.zeros(env.observation_space.shape, env.observation_space.dtype)

    def observation(self, observation):
        self.buffer[:] = observation
        return self.buffer


def test_record_matches_a_manual_loop_frame_for_frame():
    observations, actions, rewards, frames = manual_loop(cartpole(), lean, seed=3)

    rollout = record(cartpole(), lean, seed=3)

    assert rollout.num_steps == len(actions)
    assert rollout.num_positions == len(actions) + 1
    assert np.array_equal(rollout.observations, observations)
    assert np.array_equal(rollout.actions, actions)
    assert np.array_equal(rollout.rewards, rewards)
    assert_same_frames(rollout.frames, frames)
    assert rollout.frames[0].shape == (400, 600, 3)


def test_record_marks_the_episode_end():
    rollout = record(cartpole(), lean, seed=0)

    assert rollout.terminated.tolist() == [False] * (rollout.num_steps - 1) + [True]
    assert not rollout.truncated.any()


def test_record_fills_metadata():
    before = datetime.now(timezone.utc).replace(microsecond=0)

    rollout = record(
        cartpole(), lean, seed=7, agent="lean", algorithm="heuristic", metadata={"run": 12}
    )

    meta = rollout.metadata
    assert (meta["env_id"], meta["seed"], meta["agent"], meta["algorithm"], meta["run"]) == (
        "CartPole-v1",
        7,
        "lean",
        "heuristic",
        12,
    )
    assert meta["action_names"] == ["LEFT", "RIGHT"]
    created = datetime.fromisoformat(meta["created"])
    assert created.utcoffset() == timedelta(0)
    assert before <= created <= datetime.now(timezone.utc)


def test_record_stops_at_max_steps_and_marks_the_last_step_truncated():
    rollout = record(cartpole(), lean, seed=0, max_steps=5)

    assert rollout.num_steps == 5
    assert len(rollout.frames) == 6
    assert rollout.truncated.tolist() == [False, False, False, False, True]
    assert not rollout.terminated.any()


def test_record_without_rendering_keeps_observations_and_no_frames():
    observations, actions, _, _ = manual_loop(cartpole(), lean, seed=1)

    rollout = record(cartpole(render_mode=None), lean, seed=1)

    assert rollout.frames is None
    assert np.array_equal(rollout.observations, observations)
    assert np.array_equal(rollout.actions, actions)


def test_record_frozen_lake_follows_a_path_to_the_goal():
    env = gym.make("FrozenLake-v1", is_slippery=False, render_mode="rgb_array")
    path = iter([2, 2, 1, 1, 1, 2])  # RIGHT RIGHT DOWN DOWN DOWN RIGHT on the 4x4 map

    rollout = record(env, lambda obs: next(path), seed=0)

    assert rollout.observations.tolist() == [0, 1, 2, 6, 10, 14, 15]
    assert rollout.rewards.tolist() == [0, 0, 0, 0, 0, 1]
    assert rollout.terminated[-1]
    assert rollout.metadata["action_names"] == ["LEFT", "DOWN", "RIGHT", "UP"]
    assert len(rollout.frames) == 7
    assert rollout.frames[0].shape == (256, 256, 3)
    assert not np.array_equal(rollout.frames[0], rollout.frames[1])  # the player moved


def test_record_slippery_frozen_lake_replays_the_seeded_randomness():
    def make():
        return gym.make("FrozenLake-v1", is_slippery=True, render_mode="rgb_array")

    observations, _, rewards, frames = manual_loop(make(), lambda obs: 2, seed=5)

    rollout = record(make(), lambda obs: 2, seed=5)

    assert np.array_equal(rollout.observations, observations)
    assert np.array_equal(rollout.rewards, rewards)
    assert_same_frames(rollout.frames, frames)
    assert [info["prob"] for info in rollout.infos[1:]] == [pytest.approx(1 / 3)] * len(rewards)


def test_record_pong_frames_are_the_screen():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")

    rollout = record(env, lambda obs: 2, seed=0, max_steps=20)

    assert rollout.metadata["action_names"][:3] == ["NOOP", "FIRE", "RIGHT"]
    assert rollout.frames[0].shape == (210, 160, 3)
    assert_same_frames(rollout.frames, list(rollout.observations))
    assert rollout.infos[-1]["frame_number"] == 80  # 20 steps, frameskip 4
    assert rollout.truncated[-1]


def test_a_minigrid_recording_keeps_the_names_of_its_actions_enum(tmp_path):
    pytest.importorskip("minigrid")
    env = gym.make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array")

    rollout = record(env, lambda obs: 2, seed=0, max_steps=3)  # forward

    names = ["left", "right", "forward", "pickup", "drop", "toggle", "done"]
    assert rollout.metadata["action_names"] == names
    assert load(rollout.save(tmp_path / "grid.rollout")).metadata["action_names"] == names


def test_a_half_cheetah_recording_names_its_action_dimensions_by_actuator(monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "egl")
    pytest.importorskip("mujoco")
    env = gym.make("HalfCheetah-v5")

    rollout = record(env, lambda obs: env.action_space.sample(), seed=0, max_steps=3)

    assert rollout.metadata["action_names"] == [
        "bthigh",
        "bshin",
        "bfoot",
        "fthigh",
        "fshin",
        "ffoot",
    ]
    assert rollout.metadata["action_space"]["shape"] == [6]


def test_policy_extras_become_per_step_arrays():
    seen = []

    def policy(obs):
        q = np.array([-obs[2], obs[2]])
        seen.append(q)
        return int(q.argmax()), {"q_values": q, "value": float(q.max())}

    rollout = record(cartpole(), policy, seed=0)

    assert rollout.extras["q_values"].shape == (rollout.num_steps, 2)
    assert np.array_equal(rollout.extras["q_values"], np.array(seen))
    assert np.array_equal(rollout.extras["value"], np.array(seen).max(axis=1))
    assert np.array_equal(rollout.actions, np.array(seen).argmax(axis=1))


def test_extras_missing_at_a_later_step_is_an_error_naming_it():
    steps = iter(range(100))

    def policy(obs):
        return (0, {"value": 1.0}) if next(steps) < 3 else 0

    with pytest.raises(ValueError, match=r"step 3: extras \[\] differ from step 0's \['value'\]"):
        record(cartpole(), policy, seed=0)


def test_non_json_infos_are_dropped_with_one_warning_naming_them():
    env = InfoWith(cartpole(render_mode=None), kept=1, handle=object())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rollout = record(env, lean, seed=0)

    assert len(caught) == 1
    assert "'handle'" in str(caught[0].message)
    assert "'kept'" not in str(caught[0].message)
    assert rollout.infos[0] == {"kept": 1}
    assert all(info == {"kept": 1} for info in rollout.infos)


def test_array_observations_are_copied_when_an_env_reuses_its_buffer():
    observations, _, _, _ = manual_loop(cartpole(render_mode=None), lean, seed=2)

    rollout = record(ReusedBuffer(cartpole(render_mode=None)), lean, seed=2)

    assert np.array_equal(rollout.observations, observations)


def test_dict_observations_become_a_dict_of_arrays():
    space = gym.spaces.Dict(
        cart=gym.spaces.Box(-np.inf, np.inf, (2,)), pole=gym.spaces.Box(-np.inf, np.inf, (2,))
    )
    env = gym.wrappers.TransformObservation(
        cartpole(render_mode=None), lambda obs: {"cart": obs[:2], "pole": obs[2:]}, space
    )
    observations, _, _, _ = manual_loop(cartpole(render_mode=None), lean, seed=4)

    rollout = record(env, lambda obs: int(obs["pole"][0] > 0), seed=4)

    assert set(rollout.observations) == {"cart", "pole"}
    assert np.array_equal(rollout.observations["cart"], observations[:, :2])
    assert np.array_equal(rollout.observations["pole"], observations[:, 2:])


def test_wrapper_records_a_users_own_loop():
    env = RecordRollout(cartpole(), agent="lean")
    for seed in (3, 4):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            env.record_extras(lean_angle=float(obs[2]))
            obs, _, terminated, truncated, _ = env.step(lean(obs))
            done = terminated or truncated

    assert [r.metadata["seed"] for r in env.rollouts] == [3, 4]
    assert env.rollouts[0].metadata["agent"] == "lean"
    assert env.current is None
    for rollout, seed in zip(env.rollouts, (3, 4), strict=True):
        observations, actions, _, frames = manual_loop(cartpole(), lean, seed=seed)
        assert np.array_equal(rollout.actions, actions)
        assert np.array_equal(rollout.extras["lean_angle"], observations[:-1, 2])
        assert_same_frames(rollout.frames, frames)


def test_wrapper_current_shows_the_episode_in_progress():
    env = RecordRollout(cartpole())
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)

    current = env.current

    assert current.num_steps == 3
    assert len(current.frames) == 4
    assert env.rollouts == []


def test_wrapper_files_an_episode_cut_short_by_reset_as_truncated():
    env = RecordRollout(cartpole())
    env.reset(seed=0)
    env.step(0)
    env.step(1)

    env.reset(seed=1)

    assert len(env.rollouts) == 1
    assert env.rollouts[0].truncated.tolist() == [False, True]
    assert env.current.num_steps == 0


def test_wrapper_end_episode_files_the_episode_at_a_step_limit():
    env = RecordRollout(cartpole())
    env.reset(seed=0)
    env.step(0)

    rollout = env.end_episode()

    assert env.rollouts == [rollout]
    assert rollout.truncated.tolist() == [True]
    assert env.end_episode() is None


def test_wrapper_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="call reset"):
        RecordRollout(cartpole()).step(0)


def sync_cartpoles(num_envs: int, **kwargs) -> gym.vector.SyncVectorEnv:
    return gym.make_vec(
        "CartPole-v1",
        num_envs=num_envs,
        vectorization_mode="sync",
        render_mode="rgb_array",
        **kwargs,
    )


def assert_same_rollout(a, b):
    assert np.array_equal(a.observations, b.observations)
    assert np.array_equal(a.actions, b.actions)
    assert np.array_equal(a.rewards, b.rewards)
    assert np.array_equal(a.terminated, b.terminated)
    assert np.array_equal(a.truncated, b.truncated)
    assert_same_frames(a.frames, b.frames)


def test_vector_rollouts_equal_single_env_recordings_with_the_same_seeds():
    rollouts = record_vector(sync_cartpoles(3), lean_rows, seed=10)

    singles = [record(cartpole(), lean, seed=10 + i) for i in range(3)]
    # The episodes end at different steps, so autoreset happened while others ran on.
    assert len({r.num_steps for r in singles}) == 3
    for rollout, single in zip(rollouts, singles, strict=True):
        assert_same_rollout(rollout, single)
    assert [r.metadata["seed"] for r in rollouts] == [10, 11, 12]
    assert [r.metadata["sub_env"] for r in rollouts] == [0, 1, 2]
    assert rollouts[0].metadata["action_names"] == ["LEFT", "RIGHT"]


def test_vector_recording_with_autoreset_disabled_gives_the_same_rollouts():
    disabled = sync_cartpoles(2, vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED})

    rollouts = record_vector(disabled, lean_rows, seed=10)

    for rollout, i in zip(rollouts, range(2), strict=True):
        assert_same_rollout(rollout, record(cartpole(), lean, seed=10 + i))


def test_vector_batched_extras_are_split_per_sub_env():
    def policy(obs):
        return lean_rows(obs), {"angle": obs[:, 2]}

    rollouts = record_vector(sync_cartpoles(2), policy, seed=0)

    for rollout in rollouts:
        assert np.array_equal(rollout.extras["angle"], rollout.observations[:-1, 2])


def test_vector_max_steps_truncates_unfinished_episodes():
    rollouts = record_vector(sync_cartpoles(2), lean_rows, seed=0, max_steps=4)

    assert [r.num_steps for r in rollouts] == [4, 4]
    assert all(r.truncated.tolist() == [False, False, False, True] for r in rollouts)
