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


def test_an_episode_that_cannot_be_replayed_is_shown_without_frames_saying_why(library):
    checkpoints = Checkpoints(
        library, RUN, render_env=lambda: _Shifted(gym.make("CartPole-v1", render_mode="rgb_array"))
    )
    viewer = CheckpointViewer(checkpoints, checkpoint=0)
    assert viewer.episode.title == "training step 10 · seed 0"
    assert not viewer.episode.has_frames
    assert viewer.episode.length == checkpoints.recorded(10, 0).num_positions
    assert viewer.message.startswith(
        "shown without frames, as replaying it failed: ReplayDivergenceError: "
    )
    assert checkpoints.unrendered == {(10, 0): viewer.message}


def test_an_env_not_made_again_shows_its_episode_with_its_policy_panel(tmp_path):
    """A MiniGrid run seen through ImgObsWrapper (minigrid's, never imported from a
    file): no frames rendered, the reason and render_env= said, the policy panel
    computed from the recorded observations with the checkpoint's network."""
    from minigrid.wrappers import ImgObsWrapper

    from agent_widget.torch import Policy

    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(7 * 7 * 3, 7))
    recorder = CheckpointRecorder(
        lambda: ImgObsWrapper(gym.make("MiniGrid-Empty-5x5-v0")),
        seeds=[0],
        library=tmp_path,
        run="grid",
        max_steps=6,
    )
    recorder.record(100, lambda obs: 2, network=net)
    viewer = CheckpointViewer(tmp_path, "MiniGrid-Empty-5x5-v0/torch/grid", model=net)
    viewer.add_panel("policy", Policy)
    episode = viewer.episode
    assert (episode.length, episode.rollout.frames) == (7, None)  # its image observations shown
    assert viewer.message.startswith(
        "shown without frames, as replaying it failed: ReplayDivergenceError: "
    )
    assert "(wrapper ImgObsWrapper (minigrid.wrappers:ImgObsWrapper) is not one of" in (
        viewer.message
    )
    assert viewer.message.endswith("pass render_env=, a function making the env as it was "
                                   "recorded, with render_mode='rgb_array')")  # fmt: skip
    obs = torch.as_tensor(episode.rollout.observations[3], dtype=torch.float32)[None]
    expected = torch.softmax(net(obs), dim=-1)[0].detach().numpy()
    np.testing.assert_allclose(np.asarray(episode.card("policy", 3)), expected, rtol=1e-5)
