"""RecordCheckpoints in a real PPO's training under VecNormalize: each checkpoint keeps
the observation statistics of its moment (without pickle), and the viewer feeds each
checkpoint's network its own."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from safetensors.numpy import load_file
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from agent_widget.checkpoints import Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from agent_widget.sb3 import RecordCheckpoints
from agent_widget.torch import Policy
from tests.vecnormalized import mean, mean_action, pendulum, vec_normalized

EVERY, STEPS = 256, 768
RUN = "Pendulum-v1/PPO/ppo"


class Then(BaseCallback):
    """The VecNormalize's statistics and the policy's weights at every checkpoint, as
    they were then (called after RecordCheckpoints at the same step)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = {}

    def _on_step(self) -> bool:
        if self.num_timesteps % EVERY == 0:
            rms = self.model.get_vec_normalize_env().obs_rms
            weights = copy.deepcopy(self.model.policy.state_dict())
            self.seen[self.num_timesteps] = (rms.mean.copy(), rms.var.copy(), weights)
        return True


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    library = RunLibrary(tmp_path_factory.mktemp("runs"))
    model = PPO("MlpPolicy", vec_normalized(), n_steps=256, batch_size=64, seed=0, device="cpu")
    record = RecordCheckpoints(pendulum, every=EVERY, seeds=[0], library=library, run="ppo",
                               max_steps=40)  # fmt: skip
    then = Then()
    model.learn(STEPS, callback=CallbackList([record, then]))
    return library, model, then.seen


def policy_then(weights) -> PPO:
    """A fresh PPO holding the weights a checkpoint had (loaded here, not by the tool)."""
    fresh = PPO("MlpPolicy", pendulum(), device="cpu")
    fresh.policy.load_state_dict(weights)
    return fresh


def normalized(obs, mean_then, var_then, stats):
    """VecNormalize's formula with the statistics of a checkpoint."""
    scaled = (obs - mean_then) / np.sqrt(var_then + stats.epsilon)
    return np.clip(scaled, -stats.clip_obs, stats.clip_obs).astype(np.float32)


def test_each_checkpoint_keeps_its_own_statistics_as_safetensors(trained):
    library, model, seen = trained
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.steps == sorted(seen) == [256, 512, 768]
    live = model.get_vec_normalize_env()
    for step, (mean_then, var_then, _) in seen.items():
        path = checkpoints.folder / f"checkpoint-{step:010d}.obs-statistics.safetensors"
        tensors = load_file(path)  # a safetensors file: no pickle in it
        np.testing.assert_array_equal(tensors["mean"], mean_then)
        np.testing.assert_array_equal(tensors["var"], var_then)
        assert (tensors["clip_obs"][0], tensors["epsilon"][0]) == (live.clip_obs, live.epsilon)
        kept = checkpoints.statistics(step)
        np.testing.assert_array_equal(kept.mean, mean_then)
    assert np.abs(seen[256][0] - seen[768][0]).max() > 0.01  # they moved during training


def test_each_checkpoint_was_evaluated_on_its_own_normalisation(trained):
    library, model, seen = trained
    checkpoints = Checkpoints(library, RUN)
    stats = model.get_vec_normalize_env()
    for step, (mean_then, var_then, weights) in seen.items():
        episode = checkpoints.recorded(step, 0)
        obs = normalized(episode.observations[:-1], mean_then, var_then, stats)
        np.testing.assert_allclose(episode.actions, mean_action(policy_then(weights), obs),
                                   atol=1e-5)  # fmt: skip


def test_the_viewer_feeds_each_checkpoints_network_its_own_statistics(trained):
    library, model, seen = trained
    stats = model.get_vec_normalize_env()
    viewer = CheckpointViewer(library, RUN, model=model, ahead=False)
    viewer.add_panel("policy", Policy)
    try:
        for index, (step, (mean_then, var_then, weights)) in enumerate(sorted(seen.items())):
            viewer.checkpoint = index
            card = viewer.episode._panels.card_now("policy", 3)[1]
            obs = Checkpoints(library, RUN).recorded(step, 0).observations[3]
            expected = mean(policy_then(weights), normalized(obs, mean_then, var_then, stats))
            shown = np.frombuffer(card.buffers[0], "<f8")
            np.testing.assert_allclose(shown, expected[0], atol=1e-6)
        # The statistics the training ended with give the first checkpoint other numbers.
        mean_then, var_then, weights = seen[256]
        obs = Checkpoints(library, RUN).recorded(256, 0).observations[3]
        own = mean(policy_then(weights), normalized(obs, mean_then, var_then, stats))
        at_end = mean(policy_then(weights), stats.normalize_obs(obs))
        assert np.abs(own - at_end).max() > 1e-4
    finally:
        viewer.close()
