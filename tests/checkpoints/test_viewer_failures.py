"""CheckpointViewer on evaluations that failed: the steps played are shown with what
happened, and no divergence is drawn from where a failed evaluation stopped."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.checkpoints import CheckpointRecorder, Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/torch/loop"


class _CrashingReset(gym.Wrapper):
    """An env whose reset raises for seed 1 once ``crash`` is set."""

    crash = False

    def reset(self, *, seed=None, options=None):
        if seed == 1 and _CrashingReset.crash:
            raise OSError("simulator crashed")
        return self.env.reset(seed=seed, options=options)


@pytest.fixture
def library(tmp_path) -> RunLibrary:
    """Checkpoints 10 (fine), 20 (the policy raises midway; seed 1's reset crashes) and 30."""
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(
        lambda: _CrashingReset(cartpole(None)), seeds=[0, 1], library=library, run="loop"
    )

    def flaky(obs: np.ndarray) -> int:
        if obs[2] > 0.05:
            raise RuntimeError("NaN in the Q-network")
        return lean(obs)

    recorder.record(10, lean)
    _CrashingReset.crash = True
    with pytest.warns(UserWarning, match="training step 20"):
        recorder.record(20, flaky)
    _CrashingReset.crash = False
    recorder.record(30, lean)
    return library


def test_a_failed_evaluation_shows_the_steps_played_and_says_what_happened(library):
    viewer = CheckpointViewer(library, RUN, checkpoint=0)
    viewer.checkpoint = 1
    assert viewer.episode.title == "training step 20 · seed 0"
    assert viewer.episode.length > 1  # the steps played before it raised
    assert viewer.message == (
        "evaluation at training step 20, seed 0: RuntimeError: NaN in the Q-network"
    )
    viewer.checkpoint = 2
    assert viewer.message == ""


def test_an_evaluation_that_failed_at_reset_shows_as_its_message(library):
    viewer = CheckpointViewer(library, RUN, checkpoint=0, seed=1)
    viewer.checkpoint = 1
    assert viewer.episode.title == "training step 20 · seed 1"
    assert viewer.episode.length == 1  # no observation: nothing played
    assert viewer.message == "evaluation at training step 20, seed 1: OSError: simulator crashed"
    assert viewer.divergence is None
    viewer.checkpoint = 2  # after it, no divergence from a failed evaluation either
    assert viewer.episode.title == "training step 30 · seed 1"
    assert viewer.divergence is None
    assert viewer.message == ""


class _Shifted(gym.ObservationWrapper):
    """CartPole seen a little off: a replay in it parts from the recorded observations."""

    def observation(self, observation):
        return observation + np.float32(0.5)


def test_an_episode_that_cannot_be_replayed_is_said_not_shown(library):
    checkpoints = Checkpoints(
        library, RUN, render_env=lambda: _Shifted(gym.make("CartPole-v1", render_mode="rgb_array"))
    )
    viewer = CheckpointViewer(checkpoints, checkpoint=0)
    assert viewer.episode is None
    assert viewer.message.startswith(
        "cannot show training step 10, seed 0: ReplayDivergenceError: "
    )
