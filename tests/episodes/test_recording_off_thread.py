"""Recording with the frames encoded by the encoder process: the same stored bytes as
encoding them on the stepping thread (where there is one core), an encoder killed
mid-episode is an error naming it with every step kept, and a policy that forks
records on."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys

import pytest

from agent_widget.episodes import load, record
from agent_widget.format import ArrayFrames
from agent_widget.format._encoder_process import EncoderDied, cores, encoder_process
from tests.cartpole import balance, cartpole

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")

STEPS = 200


def digest(frames):
    """The stored chunks of ``frames``, as one hash."""
    parts = [part for k in range(frames.num_chunks) for part in frames.chunk(k)]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


ONE_CORE = f"""
import os, sys
os.sched_setaffinity(0, {{0}})
from agent_widget.episodes import record
from agent_widget.format import _encoder_process
from tests.cartpole import balance, cartpole
from tests.episodes.test_recording_off_thread import digest
rollout = record(cartpole(), balance, seed=0, max_steps={STEPS})
print(_encoder_process._process is None, digest(rollout.frames))
"""


def test_one_core_encodes_on_the_stepping_thread_the_same_bytes():
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    rollout = record(cartpole(), balance, seed=0, max_steps=STEPS)
    done = subprocess.run(
        [sys.executable, "-c", ONE_CORE],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    assert done.stdout.split() == ["True", digest(rollout.frames)], done.stderr


class KillsTheEncoder:
    """A policy that kills the encoder process (SIGKILL) at step ``at``."""

    def __init__(self, at):
        self.at, self.t = at, 0

    def __call__(self, obs):
        if self.t == self.at:
            os.kill(encoder_process().process.pid, signal.SIGKILL)
        self.t += 1
        return balance(obs)


@pytest.mark.parametrize("to_disk", [False, True], ids=["memory", "path"])
def test_an_encoder_killed_mid_episode_is_an_error_naming_it_with_the_steps_kept(tmp_path, to_disk):
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    pid = process.process.pid
    path = tmp_path / "ep.rollout" if to_disk else None
    with pytest.raises(
        EncoderDied, match=rf"frame encoder process \(pid {pid}\) died \(killed by signal 9\)"
    ) as caught:
        record(cartpole(), KillsTheEncoder(at=100), seed=0, max_steps=STEPS, path=path)
    kept = caught.value.rollout
    assert 100 <= kept.num_steps < STEPS  # up to the step that found it dead
    reference = record(cartpole(), balance, seed=0, max_steps=kept.num_steps)
    assert digest(kept.frames) == digest(reference.frames)
    assert digest(kept.frames) == digest(ArrayFrames(list(reference.frames)))
    if to_disk:
        assert digest(load(path).frames) == digest(reference.frames)
    again = encoder_process()  # the next episode started another
    assert again is not None
    assert again.process.pid != pid
    assert again.wait_ready()


class Forks:
    """A policy that forks at step ``at``; the child records an episode of its own
    (with an encoder process of its own) and exits 0 if it holds the right bytes."""

    def __init__(self, at, expected):
        self.at, self.t, self.expected, self.child = at, 0, expected, None

    def __call__(self, obs):
        if self.t == self.at:
            self.child = os.fork()
            if self.child == 0:
                process = encoder_process()
                ok = process.wait_ready() and process.process.pid != self.parent_encoder
                rollout = record(cartpole(), balance, seed=0, max_steps=STEPS)
                os._exit(0 if ok and digest(rollout.frames) == self.expected else 1)
        self.t += 1
        return balance(obs)


def test_a_policy_that_forks_records_on_and_so_does_its_child():
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    reference = record(cartpole(), balance, seed=0, max_steps=STEPS)
    policy = Forks(at=40, expected=digest(reference.frames))
    policy.parent_encoder = process.process.pid
    rollout = record(cartpole(), policy, seed=0, max_steps=STEPS)
    _, status = os.waitpid(policy.child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert digest(rollout.frames) == digest(reference.frames)
