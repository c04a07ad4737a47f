"""``record_vector`` on Stable-Baselines3's VecEnvs and with ``episodes=N`` (issue #41):
each episode equal to what a plain loop over the same env sees, the terminal
observation kept without a frame where SB3 (or gymnasium's SAME_STEP) resets in the
step."""

from __future__ import annotations

import ale_py
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_atari_env
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecFrameStack,
    VecTransposeImage,
)

from agent_widget.episodes import Rollout, load
from agent_widget.format._lazy_columns import StoredFrames
from agent_widget.recording import record, record_vector
from tests.cartpole import cartpole, lean

gym.register_envs(ale_py)


def lean_rows(obs: np.ndarray) -> np.ndarray:
    return (obs[:, 2] > 0).astype(int)


def single_env_episodes(policy, seed: int, count: int) -> list[Rollout]:
    """A sub-env's episodes as one env plays them: reset with ``seed`` once, then its
    generator goes on (what a vector env's autoreset does)."""
    env = cartpole()
    return [record(env, policy, seed=seed if k == 0 else None) for k in range(count)]


def assert_same_episode(rollout: Rollout, single: Rollout, *, last_frame: bool = True) -> None:
    """Same observations, actions, rewards and flags; the same frames (all but the last
    when the vector env reset in the step: then it is missing)."""
    np.testing.assert_array_equal(rollout.observations, single.observations)
    np.testing.assert_array_equal(rollout.actions, single.actions)
    np.testing.assert_array_equal(rollout.rewards, single.rewards)
    np.testing.assert_array_equal(rollout.terminated, single.terminated)
    np.testing.assert_array_equal(rollout.truncated, single.truncated)
    kept = len(single.frames) if last_frame else len(single.frames) - 1
    for t in range(kept):
        np.testing.assert_array_equal(rollout.frames[t], single.frames[t])
    if not last_frame:
        assert rollout.frames[-1].shape == (0, 0, 3)  # missing, as the format keeps it
        assert rollout.infos[-1]["no_frame"].startswith("terminal observation: ")


def sb3_cartpoles(kind: type, num_envs: int):
    return kind([cartpole] * num_envs)


@pytest.mark.parametrize("kind", [DummyVecEnv, SubprocVecEnv])
def test_an_sb3_vec_env_records_what_a_predict_loop_on_it_sees(kind):
    venv = sb3_cartpoles(kind, 2)
    model = PPO("MlpPolicy", venv, seed=1, n_steps=64)  # untrained: episodes of ~10 steps
    try:
        rollouts = record_vector(venv, model, seed=3)
    finally:
        venv.close()

    # A plain loop over the same kind of VecEnv: seed, reset, predict, step.
    loop = sb3_cartpoles(kind, 2)
    try:
        loop.seed(3)
        obs = loop.reset()
        seen = [[obs[i]] for i in range(2)]
        actions: list[list] = [[], []]
        done = [False, False]
        while not all(done):
            action, _ = model.predict(obs, deterministic=True)
            obs, _, dones, infos = loop.step(action)
            for i in range(2):
                if not done[i]:
                    actions[i].append(action[i])
                    seen[i].append(infos[i]["terminal_observation"] if dones[i] else obs[i])
                    done[i] = bool(dones[i])
    finally:
        loop.close()
    for i, rollout in enumerate(rollouts):
        np.testing.assert_array_equal(rollout.actions, actions[i])
        np.testing.assert_array_equal(rollout.observations, np.stack(seen[i]))

    # And each sub-env's episode is the single env's with seed 3 + i, but its last frame.
    predict = lambda obs: model.predict(obs, deterministic=True)[0]  # noqa: E731
    for i, rollout in enumerate(rollouts):
        assert_same_episode(rollout, record(cartpole(), predict, seed=3 + i), last_frame=False)
    assert [r.metadata["seed"] for r in rollouts] == [3, 4]
    assert rollouts[0].metadata["env_id"] == "CartPole-v1"
    assert rollouts[0].metadata["action_names"] == ["LEFT", "RIGHT"]


def test_five_episodes_over_two_sb3_sub_envs_are_split_two_and_three():
    venv = sb3_cartpoles(DummyVecEnv, 2)

    rollouts = record_vector(venv, lean_rows, seed=7, episodes=5)

    meta = [(r.metadata["sub_env"], r.metadata["sub_env_episode"]) for r in rollouts]
    assert meta == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
    assert [r.metadata["seed"] for r in rollouts] == [7, None, 8, None, None]
    singles = single_env_episodes(lean, 7, 2) + single_env_episodes(lean, 8, 3)
    for rollout, single in zip(rollouts, singles, strict=True):
        assert rollout.terminated[-1]  # whole episodes, none cut
        assert_same_episode(rollout, single, last_frame=False)
    with pytest.raises(ValueError, match="has no seed"):  # a later episode: no seed to replay
        rollouts[1].branch(2, 0, env=cartpole(), policy=lean)
    first_branched = rollouts[0].branch(2, 0, env=cartpole(), policy=lean)
    np.testing.assert_array_equal(first_branched.observations[:3], rollouts[0].observations[:3])


def test_sb3_episodes_written_to_files_keep_the_missing_last_frame(tmp_path):
    """Each episode in its own file as it is recorded; longer than a chunk (16
    positions), so the missing frame is written by the chunked writer."""
    venv = sb3_cartpoles(DummyVecEnv, 2)

    rollouts = record_vector(venv, lean_rows, seed=30, episodes=3, directory=tmp_path)

    files = sorted(tmp_path.glob("episode-*.rollout"))  # numbered as the episodes began
    assert [p.name for p in files] == [f"episode-00{k}.rollout" for k in range(3)]
    assert any(r.num_positions > 16 for r in rollouts)
    singles = single_env_episodes(lean, 30, 1) + single_env_episodes(lean, 31, 2)
    for rollout, file, single in zip(rollouts, files, singles, strict=True):
        assert isinstance(rollout.frames, StoredFrames)  # read back from its file
        assert_same_episode(rollout, single, last_frame=False)
        assert_same_episode(load(file), single, last_frame=False)


@pytest.mark.parametrize(
    ("mode", "autoreset"),
    [
        ("sync", AutoresetMode.NEXT_STEP),
        ("async", AutoresetMode.NEXT_STEP),
        ("sync", AutoresetMode.DISABLED),
        ("sync", AutoresetMode.SAME_STEP),
        ("async", AutoresetMode.SAME_STEP),
    ],
)
def test_n_episodes_from_a_gymnasium_vector_env_are_its_sub_envs_episodes(mode, autoreset):
    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=2,
        vectorization_mode=mode,
        render_mode="rgb_array",
        vector_kwargs={"autoreset_mode": autoreset},
    )
    try:
        rollouts = record_vector(envs, lean_rows, seed=20, episodes=5)
    finally:
        envs.close()

    assert [(r.metadata["sub_env"], r.metadata["seed"]) for r in rollouts] == [
        (0, 20),
        (0, None),
        (1, 21),
        (1, None),
        (1, None),
    ]
    singles = single_env_episodes(lean, 20, 2) + single_env_episodes(lean, 21, 3)
    # SAME_STEP resets in the step that ends an episode: its last position is the
    # final observation, with no frame (as for SB3). The other modes keep every frame.
    last_frame = autoreset != AutoresetMode.SAME_STEP
    for rollout, single in zip(rollouts, singles, strict=True):
        assert_same_episode(rollout, single, last_frame=last_frame)


def test_short_episodes_are_not_favoured_when_one_sub_env_ends_sooner():
    """Sub-env 0 plays episodes of a few steps, sub-env 1 long ones: still two each."""

    def rows(obs):
        return np.array([int(obs[0, 2] > 0), int(3 * obs[1, 2] + obs[1, 3] > 0)])

    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    rollouts = record_vector(envs, rows, seed=0, episodes=4, max_steps=2_000)

    assert [r.metadata["sub_env"] for r in rollouts] == [0, 0, 1, 1]
    assert max(r.num_steps for r in rollouts[:2]) < 50 < min(r.num_steps for r in rollouts[2:])


def test_a_step_cap_keeps_the_episodes_under_way_as_truncated():
    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")

    rollouts = record_vector(envs, lean_rows, seed=0, episodes=6, max_steps=25)

    ends = [
        (r.metadata["sub_env"], bool(r.terminated[-1]), bool(r.truncated[-1])) for r in rollouts
    ]
    assert ends[-1] == (1, False, True)
    assert sum(truncated for *_, truncated in ends) == 2
    assert all(r.num_steps > 0 for r in rollouts)


def pong(num_envs: int):
    # A time limit of 200 emulator steps (about 45 agent steps after the no-op reset and
    # the frame skip) keeps Pong's episodes short; SB3 marks them TimeLimit.truncated.
    kwargs = {"render_mode": "rgb_array", "max_episode_steps": 200}
    return VecFrameStack(
        make_atari_env("ALE/Pong-v5", n_envs=num_envs, seed=0, env_kwargs=kwargs), 4
    )


def test_atari_frames_are_the_screen_and_observations_the_stacked_ones():
    venv = pong(2)
    policy = lambda obs: np.full(len(obs), 2)  # noqa: E731 (RIGHT: up)
    rollouts = record_vector(venv, policy, episodes=3)

    loop = pong(2)  # the same envs, stepped by hand
    obs = loop.reset()
    screens = [[image] for image in loop.get_images()]
    observations: list[list] = [[obs[i]] for i in range(2)]
    for _ in range(max(r.num_steps for r in rollouts) * 2):
        obs, _, dones, infos = loop.step(policy(obs))
        for i, image in enumerate(loop.get_images()):
            if dones[i]:
                observations[i].append(infos[i]["terminal_observation"])
            observations[i].append(obs[i])
            screens[i].append(image)

    assert [r.metadata["sub_env"] for r in rollouts] == [0, 1, 1]
    assert rollouts[0].metadata["action_names"][2] == "RIGHT"
    for rollout in rollouts:
        assert rollout.truncated[-1]
        assert not rollout.terminated.any()
        stacks = np.asarray(rollout.observations)
        assert stacks.shape == (rollout.num_steps + 1, 84, 84, 4)
        # A stack starts from zeros and shifts by one frame each step.
        assert not stacks[0][..., :3].any()
        np.testing.assert_array_equal(stacks[1:, ..., :3], stacks[:-1, ..., 1:])
    first, second = rollouts[1], rollouts[2]  # sub-env 1's two episodes, back to back
    n = first.num_steps
    np.testing.assert_array_equal(first.observations, np.stack(observations[1][: n + 1]))
    np.testing.assert_array_equal(second.observations[0], observations[1][n + 1])
    for t in range(n):
        assert first.frames[t].shape == (210, 160, 3)
        np.testing.assert_array_equal(first.frames[t], screens[1][t])
    assert first.frames[n].shape == (0, 0, 3)
    np.testing.assert_array_equal(second.frames[0], screens[1][n])  # the next start's


def test_a_transposed_image_vec_env_records_the_same_episode_channels_first():
    def policy(obs):
        return np.full(len(obs), 2)

    plain = record_vector(pong(2), policy, episodes=1)
    transposed = record_vector(VecTransposeImage(pong(2)), policy, episodes=1)

    assert [r.metadata["sub_env"] for r in transposed] == [1]  # (1 + i) // 2: [0, 1]
    channels_first = np.asarray(transposed[0].observations)
    assert channels_first.shape[1:] == (4, 84, 84)
    np.testing.assert_array_equal(
        channels_first, np.moveaxis(np.asarray(plain[0].observations), -1, 1)
    )
    np.testing.assert_array_equal(transposed[0].actions, plain[0].actions)


def test_an_error_in_the_policy_keeps_the_sb3_episodes_so_far():
    calls = []

    def failing(obs):
        calls.append(obs)
        if len(calls) == 5:
            raise RuntimeError("policy broke")
        return lean_rows(obs)

    with pytest.raises(RuntimeError, match="policy broke") as caught:
        record_vector(sb3_cartpoles(DummyVecEnv, 2), failing, seed=0)

    kept = caught.value.rollouts
    assert [r.num_steps for r in kept] == [4, 4]
    assert all(r.truncated[-1] and r.frames[-1].shape == (400, 600, 3) for r in kept)
