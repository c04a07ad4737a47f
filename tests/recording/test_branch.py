"""What if: ``Rollout.branch`` replays an episode from its seed to step t, checks every
position on the way, takes another action there and plays the rest out."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import load, record
from agent_widget.recording import ReplayDivergenceError
from tests.cartpole import balance, cartpole, with_angle


def playback(moves):
    """A policy that plays ``moves`` in order, whatever it sees."""
    remaining = iter(moves)
    return lambda obs: next(remaining)


def assert_same_positions(branch, original, t):
    """Positions 0..t of ``branch`` are ``original``'s, frames and observations alike."""
    for s in range(t + 1):
        np.testing.assert_array_equal(branch.frames[s], original.frames[s], err_msg=f"frame {s}")
        np.testing.assert_array_equal(
            np.asarray(branch.observations[s]), np.asarray(original.observations[s])
        )
        assert branch.infos[s] == original.infos[s]
    np.testing.assert_array_equal(branch.actions[:t], original.actions[:t])
    np.testing.assert_array_equal(branch.rewards[:t], original.rewards[:t])


def test_a_cartpole_branch_shares_the_past_and_takes_the_action_asked():
    original = record(cartpole(), balance, seed=4, max_steps=120, agent="pd")
    t = 60
    other = 1 - int(original.actions[t])
    branch = original.branch(t, other, env=cartpole(), policy=lambda obs: 0)
    assert_same_positions(branch, original, t)
    assert int(branch.actions[t]) == other
    assert (branch.actions[t + 1 :] == 0).all()  # then the policy's: always left
    assert branch.terminated[-1]  # pushed left, the pole falls
    assert branch.num_positions < original.num_positions
    # From the branch point on, another state: the cart moves the other way, seen soon.
    assert not np.array_equal(branch.observations[t + 1], original.observations[t + 1])
    assert not np.array_equal(branch.frames[t + 5], original.frames[t + 5])
    assert branch.metadata["branch"] == {
        "t": t,
        "action": other,
        "of": {"agent": "pd", "created": original.metadata["created"]},
    }
    assert branch.metadata["seed"] == 4


def test_extras_the_policy_gives_carry_on_and_a_branch_of_a_branch_works(tmp_path):
    policy = with_angle(balance)
    original = record(cartpole(), policy, seed=1, max_steps=80)
    first = original.branch(30, 0, env=cartpole(), policy=policy)
    assert len(first.extras["angle"]) == first.num_steps
    np.testing.assert_array_equal(first.extras["angle"][:30], original.extras["angle"][:30])
    saved = load(first.save(tmp_path / "first.rollout"))  # a loaded branch branches too
    second = saved.branch(40, 1, env=cartpole(), policy=policy)
    assert_same_positions(second, first, 40)
    np.testing.assert_array_equal(second.actions[:30], original.actions[:30])
    assert (int(second.actions[30]), int(second.actions[40])) == (0, 1)
    assert second.metadata["branch"]["t"] == 40
    assert second.metadata["branch"]["of"]["branch"]["t"] == 30


def test_a_slippery_frozenlake_branch_replays_its_slips():
    def lake():
        return gym.make("FrozenLake-v1", is_slippery=True, render_mode="rgb_array")

    rng = np.random.default_rng(0)
    moves = rng.integers(4, size=100).tolist()
    original = record(lake(), playback(moves), seed=1)
    assert original.num_steps == 11
    t = original.num_steps // 2
    branch = original.branch(t, (int(original.actions[t]) + 2) % 4, env=lake, policy=lambda o: 1)
    assert_same_positions(branch, original, t)
    assert int(branch.actions[t]) == (int(original.actions[t]) + 2) % 4


def test_a_pong_branch_shares_the_frames_and_the_screen_observations():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)

    def pong():
        return gym.make("ALE/Pong-v5", render_mode="rgb_array")

    moves = np.random.default_rng(0).integers(6, size=300).tolist()
    original = record(pong(), playback(moves), seed=3, max_steps=300)
    t = 250
    branch = original.branch(t, 0, env=pong(), policy=lambda obs: 3, max_steps=40)
    assert_same_positions(branch, original, t)
    assert branch.num_steps == t + 40
    assert (branch.actions[t:] == [0] + [3] * 39).all()
    np.testing.assert_array_equal(branch.observations[t + 20], branch.frames[t + 20])


class IgnoresSeed(gym.Wrapper):
    """CartPole whose reset starts somewhere new every time, whatever the seed."""

    def reset(self, **kwargs):
        kwargs.pop("seed", None)
        return self.env.reset(**kwargs)


def test_an_env_that_does_not_replay_from_its_seed_is_a_clear_error():
    original = record(cartpole(), balance, seed=0, max_steps=50)
    with pytest.raises(ReplayDivergenceError, match="not deterministic from this seed") as e:
        original.branch(20, 0, env=IgnoresSeed(cartpole()), policy=balance)
    assert e.value.position == 0
    assert "observation at position 0" in str(e.value)


def test_bad_branch_points_actions_envs_and_rollouts_are_clear_errors():
    original = record(cartpole(), balance, seed=0, max_steps=30)
    env = cartpole()
    with pytest.raises(ValueError, match="cannot branch at position 99"):
        original.branch(99, 0, env=env, policy=balance)
    with pytest.raises(ValueError, match="not in the env's action space"):
        original.branch(5, 7, env=env, policy=balance)
    mountain = gym.make("MountainCar-v0", render_mode="rgb_array")
    with pytest.raises(ValueError, match="recorded in 'CartPole-v1'"):
        original.branch(5, 0, env=mountain, policy=balance)
    unseeded = record(cartpole(), balance, max_steps=30)
    with pytest.raises(ValueError, match="no seed"):
        unseeded.branch(5, 0, env=env, policy=balance)
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        original.branch(5, 0, env=gym.make("CartPole-v1"), policy=balance)
    if original.terminated[-1]:
        with pytest.raises(ValueError, match="terminated there"):
            original.branch(original.num_steps, 0, env=env, policy=balance)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"t": 1.5}, TypeError, r"t must be a whole number, not 1\.5 \(float\)"),
        ({"t": "3"}, TypeError, r"t must be a whole number, not '3' \(str\)"),
        ({"t": True}, TypeError, r"t must be a whole number, not True \(bool\)"),
        ({"t": -1}, ValueError, r"t must be at least 0, not -1"),
        ({"max_steps": 0}, ValueError, r"max_steps must be at least 1, not 0"),
        ({"max_steps": 2.0}, TypeError, r"max_steps must be a whole number"),
    ],
)
def test_arguments_that_are_no_branch_point_or_step_count_are_named(arguments, error, message):
    original = record(cartpole(), balance, seed=0, max_steps=30)
    made = []
    with pytest.raises(error, match=message):
        original.branch(
            **{"t": 5, "action": 0, "max_steps": 10, **arguments},
            env=lambda: made.append(1) or cartpole(),
            policy=balance,
        )
    assert made == []  # refused before any env is made
    assert (
        original.branch(np.int64(5), 0, env=cartpole(), policy=balance).metadata["branch"]["t"] == 5
    )


def test_a_policy_that_raises_in_the_branch_leaves_the_branch_so_far_on_the_error():
    original = record(cartpole(), balance, seed=2, max_steps=60)
    calls = iter(range(100))

    def breaks(obs):
        if next(calls) == 5:
            raise RuntimeError("agent broke")
        return balance(obs)

    with pytest.raises(RuntimeError, match="agent broke") as caught:
        original.branch(10, 0, env=cartpole(), policy=breaks)
    partial = caught.value.rollout
    assert partial.num_steps == 15  # the 10 replayed, the action asked, 4 of the policy's
    assert partial.truncated[-1]
    assert_same_positions(partial, original, 10)


class Counting(gym.Wrapper):
    """Counts the env's steps, to tell a replay from the seed from one from a state."""

    steps = 0

    def step(self, action):
        self.steps += 1
        return self.env.step(action)


def pong(**kwargs):
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    return gym.make("ALE/Pong-v5", render_mode="rgb_array", **kwargs)


def test_saved_states_let_a_branch_replay_only_from_the_last_one_before_it(tmp_path):
    moves = np.random.default_rng(1).integers(6, size=400).tolist()
    original = record(pong(), playback(moves), seed=5, max_steps=400, states_every=100)
    assert sorted(original.states) == [100, 200, 300, 400][: len(original.states)]
    plain = record(pong(), playback(moves), seed=5, max_steps=400, states_every=0)
    assert plain.states == {}
    env = Counting(pong())
    branch = original.branch(250, 0, env=env, policy=lambda obs: 2, max_steps=60)
    assert env.steps == 50 + 60  # from the state at 200, then the branch's own
    from_seed = plain.branch(250, 0, env=pong(), policy=lambda obs: 2, max_steps=60)
    assert_same_positions(branch, original, 250)
    for s in range(250, branch.num_positions):  # the same future, however it was reached
        np.testing.assert_array_equal(branch.frames[s], from_seed.frames[s])
    assert [p for p in sorted(branch.states) if p <= 250] == [100, 200]  # the original's
    assert load(original.save(tmp_path / "p.rollout")).states == {}  # never in a file
    with pytest.raises(ValueError, match="states_every must be a number of steps"):
        record(pong(), playback(moves), seed=5, max_steps=10, states_every=-1)


PONG_STEPS, T = 1_000, 900


@pytest.fixture(scope="module")
def pong_episode():
    """A Pong episode recorded with defaults (states and all), and the actions it took."""
    moves = np.random.default_rng(0).integers(6, size=PONG_STEPS).tolist()
    return record(pong(), playback(moves), seed=0, max_steps=PONG_STEPS), moves


def assert_as_recorded_afresh(branch, moves, t, action, then):
    """``branch`` is a fresh recording of ``moves`` up to ``t``, ``action`` at ``t``,
    then ``then``: frames and observations, position by position."""
    n = branch.num_steps - t - 1
    fresh = record(pong(), playback([*moves[:t], action, *[then] * n]), seed=0, max_steps=t + 1 + n)
    assert fresh.num_positions == branch.num_positions
    for s in range(branch.num_positions):
        np.testing.assert_array_equal(branch.frames[s], fresh.frames[s], err_msg=f"frame {s}")
        np.testing.assert_array_equal(branch.observations[s], fresh.observations[s])
    np.testing.assert_array_equal(branch.rewards, fresh.rewards)


def test_states_are_saved_by_default_as_deltas_within_a_tenth_of_the_file(pong_episode, tmp_path):
    episode, _ = pong_episode
    positions = sorted(episode.states)
    assert len(positions) >= 8, positions  # a branch anywhere replays a few dozen steps
    every = positions[1] - positions[0]
    assert positions == list(range(every, episode.num_steps + 1, every))[: len(positions)]
    first, *rest = (episode.states[p] for p in positions)
    assert first.base is None  # held whole, the others against the one before
    assert all(s.base is episode.states[p] for s, p in zip(rest, positions[:-1], strict=True))
    assert max(s.nbytes for s in rest) < first.nbytes / 10  # deltas: a fraction of a state
    file_bytes = episode.save(tmp_path / "pong.rollout").stat().st_size
    assert sum(s.nbytes for s in episode.states.values()) <= 0.10 * file_bytes


def test_a_branch_from_default_states_is_the_episode_recorded_afresh(pong_episode):
    episode, moves = pong_episode
    env = Counting(pong())
    action = (int(episode.actions[T]) + 1) % 6
    branch = episode.branch(T, action, env=env, policy=lambda obs: 3, max_steps=30)
    last = max(p for p in episode.states if p < T)
    assert env.steps == (T - last) + 30  # the steps after the last state before t, then 30
    assert_same_positions(branch, episode, T)
    assert_as_recorded_afresh(branch, moves, T, action, 3)


def test_a_branch_from_the_seed_is_the_episode_recorded_afresh(pong_episode, tmp_path):
    episode, moves = pong_episode
    loaded = load(episode.save(tmp_path / "pong.rollout"))  # no states: from the seed
    env = Counting(pong())
    action = (int(episode.actions[T]) + 1) % 6
    branch = loaded.branch(T, action, env=env, policy=lambda obs: 3, max_steps=30)
    assert env.steps == T + 30
    assert_as_recorded_afresh(branch, moves, T, action, 3)


def test_a_branch_holds_its_parents_encoded_chunks_before_the_branch_point(pong_episode):
    episode, _ = pong_episode
    t = 16 * 40 + 5  # within chunk 40: its 5 frames are encoded again, with the branch's
    branch = episode.branch(t, 0, env=pong(), policy=lambda obs: 3, max_steps=20)
    for k in range(t // 16):
        mine, parents = branch.frames.chunk(k), episode.frames.chunk(k)
        assert all(a.payload is b.payload for a, b in zip(mine, parents, strict=True)), k
        assert branch.observations.payload(k) is episode.observations.payload(k)
    assert branch.frames.chunk(t // 16)[0].payload is not episode.frames.chunk(t // 16)[0].payload


class CannotClone(gym.Wrapper):
    """CartPole whose env says it can save its state, and raises when asked."""

    def __init__(self, env):
        super().__init__(env)
        env.unwrapped.clone_state = self._refuse
        env.unwrapped.restore_state = self._refuse

    def _refuse(self, *args):
        raise RuntimeError("this env's state cannot be cloned")


def test_an_env_whose_clone_raises_records_without_states_and_branches_from_the_seed():
    quiet = record(CannotClone(cartpole()), balance, seed=3, max_steps=120)
    assert quiet.states == {}  # by default: nothing said
    assert quiet.num_steps == 120
    with pytest.warns(UserWarning, match="clone_state raised RuntimeError"):
        asked = record(CannotClone(cartpole()), balance, seed=3, max_steps=120, states_every=10)
    assert asked.states == {}
    assert asked.num_steps == 120  # every step kept
    np.testing.assert_array_equal(asked.actions, quiet.actions)
    branch = asked.branch(60, 0, env=cartpole(), policy=balance, max_steps=20)
    assert_same_positions(branch, asked, 60)
    assert int(branch.actions[60]) == 0


def test_a_state_a_wrapper_cannot_follow_falls_back_to_the_seed():
    def stacked():  # the stack of the last frames is the wrapper's, not in the ALE state
        return gym.wrappers.FrameStackObservation(pong(), 2)

    moves = np.random.default_rng(2).integers(6, size=200).tolist()
    original = record(stacked(), playback(moves), seed=9, max_steps=200, states_every=50)
    assert original.states
    env = Counting(stacked())
    # One step after the state at 100 the stack still holds a frame from before it.
    branch = original.branch(101, 0, env=env, policy=lambda obs: 2, max_steps=10)
    assert env.steps == 1 + 101 + 10  # the state at 100 was tried, then the seed
    assert_same_positions(branch, original, 101)


class SaveableCartPole(gym.Wrapper):
    """CartPole whose env saves and restores its state, as ALE's does (any such pair)."""

    def __init__(self, env):
        super().__init__(env)
        env.unwrapped.clone_state = self._clone
        env.unwrapped.restore_state = self._restore

    def _clone(self):
        inner = self.env.unwrapped
        return inner.state.copy(), inner.steps_beyond_terminated

    def _restore(self, saved):
        inner = self.env.unwrapped
        inner.state, inner.steps_beyond_terminated = saved[0].copy(), saved[1]


def test_any_env_with_a_clone_and_restore_pair_has_states_by_default():
    original = record(SaveableCartPole(cartpole()), balance, seed=6, max_steps=300)
    assert sorted(original.states)[:3] == [64, 128, 192]
    env = Counting(SaveableCartPole(cartpole()))
    branch = original.branch(150, 0, env=env, policy=balance, max_steps=20)
    assert env.steps == (150 - 128) + 20  # from the state at 128
    assert_same_positions(branch, original, 150)
    moves = [*original.actions[:150].tolist(), *branch.actions[150:].tolist()]
    fresh = record(cartpole(), playback(moves), seed=6, max_steps=branch.num_steps)
    np.testing.assert_array_equal(branch.observations, fresh.observations)
    np.testing.assert_array_equal(branch.frames[branch.num_steps], fresh.frames[branch.num_steps])
