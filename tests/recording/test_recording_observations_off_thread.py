"""Recording Atari's preprocessed, stacked screens (observations that are not the frames)
with their chunks encoded by the encoder process: the observations a bare loop sees,
in memory and in the file."""

from __future__ import annotations

import os
import signal

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.episodes import load
from agent_widget.recording import record
from agent_widget.recording._encoder import _ring as frame_ring
from agent_widget.recording._encoder._process import EncoderDied, cores, encoder_process

ale_py = pytest.importorskip("ale_py")
gym.register_envs(ale_py)

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")

STEPS = 100
ACTIONS = np.random.default_rng(0).integers(6, size=STEPS).tolist()
STACK = (4, 84, 84)


def stacked_pong(render_mode="rgb_array"):
    return gym.wrappers.FrameStackObservation(
        gym.wrappers.AtariPreprocessing(
            gym.make("ALE/Pong-v5", render_mode=render_mode, frameskip=1)
        ),
        4,
    )


def scripted(kill_at=None):
    """A policy playing ACTIONS in order; ``kill_at``: the step at which it kills the
    encoder process (SIGKILL)."""
    actions = iter(enumerate(ACTIONS))

    def policy(obs):
        t, action = next(actions)
        if t == kill_at:
            os.kill(encoder_process().process.pid, signal.SIGKILL)
        return action

    return policy


def bare_loop_observations(env):
    obs, _ = env.reset(seed=0)
    seen = [np.array(obs)]
    for action in ACTIONS:
        obs, *_ = env.step(action)
        seen.append(np.array(obs))
    return np.stack(seen)


@pytest.mark.parametrize("to_disk", [False, True], ids=["memory", "path"])
def test_stacked_screens_encoded_off_thread_are_the_bare_loops(tmp_path, encoder, to_disk):
    env = stacked_pong()
    expected = bare_loop_observations(env)
    assert expected.shape == (STEPS + 1, *STACK)
    path = tmp_path / "pong.rollout" if to_disk else None
    rollout = record(env, scripted(), seed=0, max_steps=STEPS, path=path)
    assert rollout.num_steps == STEPS
    # The observations' ring (and the frames') went back to the pool: they were offloaded.
    row_bytes = int(np.prod(STACK))
    assert row_bytes in [ring.slot_bytes for ring in frame_ring._idle]
    assert np.array_equal(np.asarray(rollout.observations), expected)
    if to_disk:
        assert np.array_equal(np.asarray(load(path).observations), expected)


@pytest.mark.parametrize("to_disk", [False, True], ids=["memory", "path"])
def test_an_encoder_killed_with_only_observations_is_an_error_with_every_step_kept(
    tmp_path, encoder, to_disk
):
    env = stacked_pong(render_mode=None)  # no frames: the observations find it dead
    expected = bare_loop_observations(env)
    path = tmp_path / "pong.rollout" if to_disk else None
    pid = encoder.process.pid
    with pytest.raises(EncoderDied, match=rf"\(pid {pid}\) died \(killed by signal 9\)") as caught:
        record(env, scripted(kill_at=40), seed=0, max_steps=STEPS, path=path)
    kept = caught.value.rollout
    assert 40 <= kept.num_steps < STEPS  # up to the step that found it dead
    assert np.array_equal(np.asarray(kept.observations), expected[: kept.num_steps + 1])
    if to_disk:
        from_file = load(path).observations
        assert np.array_equal(np.asarray(from_file), expected[: kept.num_steps + 1])
