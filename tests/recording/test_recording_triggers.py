"""``RecordRollout``'s triggers, as ``RecordVideo`` users know them (issue #41): the
episodes kept are whole, counted as gymnasium counts them, episodes not kept are not
rendered, and in a vector env each sub-env writes the episodes it keeps to a folder."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from agent_widget import RecordRollout, load
from tests.cartpole import cartpole, lean


class CountingRenders(gym.Wrapper):
    """Counts ``render()`` calls: an episode not kept must cost none."""

    renders = 0

    def render(self):
        CountingRenders.renders += 1
        return self.env.render()


def play(env: RecordRollout, episodes: int, seed: int = 0) -> list[int]:
    """A user's loop: ``episodes`` episodes of the lean policy; their lengths."""
    lengths = []
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        steps, done = 0, False
        while not done:
            obs, _, terminated, truncated, _ = env.step(lean(obs))
            steps, done = steps + 1, terminated or truncated
        lengths.append(steps)
    return lengths


def test_the_episode_trigger_keeps_the_episodes_it_names():
    env = RecordRollout(cartpole(), episode_trigger=lambda episode: episode % 3 == 0)
    lengths = play(env, 7)
    assert [r.metadata["seed"] for r in env.rollouts] == [0, 3, 6]
    assert [r.num_steps for r in env.rollouts] == [lengths[0], lengths[3], lengths[6]]
    assert env.episode_id == 6


def test_the_step_trigger_keeps_the_next_whole_episode():
    fired = []
    env = RecordRollout(cartpole(), step_trigger=lambda step: fired.append(step) or step == 50)
    lengths = play(env, 4)
    firing = int(np.searchsorted(np.cumsum(lengths), 50, side="right"))  # the episode of step 50
    assert firing < 3
    kept = firing + 1  # the next one is kept, whole
    assert [r.metadata["seed"] for r in env.rollouts] == [kept]
    assert env.rollouts[0].num_positions == lengths[kept] + 1
    assert env.step_id == sum(lengths)
    assert 50 in fired


def test_an_episode_not_kept_is_not_rendered_and_steps_as_the_env_does():
    CountingRenders.renders = 0
    env = RecordRollout(CountingRenders(cartpole()), episode_trigger=lambda episode: episode == 1)
    plain = cartpole()
    obs, _ = env.reset(seed=5)
    expected, _ = plain.reset(seed=5)
    np.testing.assert_array_equal(obs, expected)
    env.record_extras(value=1.0)  # dropped: this episode is not kept
    for _ in range(5):
        obs, reward, *_ = env.step(lean(obs))
        expected, expected_reward, *_ = plain.step(lean(expected))
        np.testing.assert_array_equal(obs, expected)
        assert reward == expected_reward
    assert CountingRenders.renders == 0
    assert env.current is None
    play(env, 1, seed=9)
    assert CountingRenders.renders == env.rollouts[0].num_positions


def test_sub_envs_of_a_vector_env_write_the_episodes_they_keep(tmp_path):
    def recorded() -> gym.Env:
        return RecordRollout(
            cartpole(), directory=tmp_path, episode_trigger=lambda episode: episode % 2 == 0
        )

    envs = gym.vector.AsyncVectorEnv([recorded, recorded])
    obs, _ = envs.reset(seed=0)
    finished = 0
    while finished < 6:  # a training loop: actions for every sub-env, autoreset
        obs, _, terminated, truncated, _ = envs.step((obs[:, 2] > 0).astype(int))
        finished += int(np.sum(terminated | truncated))
    envs.close()  # each sub-env files its episode in progress
    assert not list(tmp_path.glob("*.part"))  # nothing left unfiled
    rollouts = [load(path) for path in sorted(tmp_path.glob("*.rollout"))]
    seeds = sorted(r.metadata["seed"] for r in rollouts if r.metadata["seed"] is not None)
    assert seeds == [0, 1]  # each sub-env's first episode, reset with its seed
    # Each sub-env kept its episodes 0, 2, 4...: of the 6 finished and the 2 in progress.
    assert 4 <= len(rollouts) <= 5
    assert sum(bool(r.truncated[-1]) and r.num_steps < 500 for r in rollouts) <= 2
    assert all(r.frames is not None and len(r.frames) == r.num_positions for r in rollouts)
