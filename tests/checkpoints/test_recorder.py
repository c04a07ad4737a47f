"""CheckpointRecorder in a plain torch loop (CleanRL's shape), and the run it leaves."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
import torch
from torch import nn

from agent_widget.checkpoints import CheckpointRecorder, Checkpoints, WeightsFileError
from agent_widget.library import RunLibrary
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/torch/loop"


def q_network() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))


def greedy(q: nn.Module):
    def act(obs: np.ndarray) -> int:
        with torch.no_grad():
            return int(q(torch.as_tensor(obs)).argmax())

    return act


def train(
    recorder: CheckpointRecorder, q: nn.Module, steps: int, every: int
) -> dict[int, torch.Tensor]:
    """A stand-in for a training loop (each step nudges the weights); the Q-values of a
    fixed observation at each checkpoint, as the network gave them then."""
    probe, seen = torch.ones(1, 4), {}
    optimizer = torch.optim.SGD(q.parameters(), lr=0.05)
    for step in range(1, steps + 1):
        loss = (q(torch.randn(8, 4)) - 1).pow(2).mean()
        optimizer.zero_grad(), loss.backward(), optimizer.step()
        if step % every == 0:
            recorder.record(step, greedy(q), network=q)  # the one line in the loop
            seen[step] = q(probe).detach().clone()
    return seen


def test_a_torch_loop_records_episodes_and_weights_per_checkpoint(tmp_path):
    library = RunLibrary(tmp_path)
    q = q_network()
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0, 1], library=library, run="loop")
    seen = train(recorder, q, steps=60, every=20)

    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.steps == [20, 40, 60]
    assert checkpoints.failures == {}
    episodes = library.open(RUN)
    assert len(episodes) == 6
    assert sorted((e.metadata["training_step"], e.metadata["seed"]) for e in episodes) == [
        (s, seed) for s in (20, 40, 60) for seed in (0, 1)
    ]
    assert all(e.frames is None for e in episodes)  # nothing rendered while training
    assert {e.metadata["checkpoint"] for e in episodes} == {
        f"checkpoint-{s:010d}.safetensors" for s in (20, 40, 60)
    }
    for step, q_values in seen.items():
        loaded = checkpoints.load_weights(step, q_network())
        assert torch.equal(loaded(torch.ones(1, 4)), q_values)
    assert checkpoints.returns() == {
        s: {seed: float(checkpoints.episode(s, seed).rewards.sum()) for seed in (0, 1)}
        for s in (20, 40, 60)
    }
    shown = checkpoints.episode(40, 1)
    assert len(shown.frames) == shown.num_positions
    assert shown.frames[0].shape == (400, 600, 3)
    assert checkpoints.episode(40, 1) is shown  # rendered once, when first asked for


def test_a_policy_that_raises_is_recorded_and_training_goes_on(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0, 1], library=library, run="loop")
    q = q_network()

    def flaky(obs: np.ndarray) -> int:
        if obs[2] > 0.05:
            raise RuntimeError("NaN in the Q-network")
        return lean(obs)

    recorder.record(10, lean, network=q)
    with pytest.warns(UserWarning, match="training step 20") as caught:
        recorder.record(20, flaky, network=q)
    assert [str(w.message) for w in caught] == [
        f"evaluation at training step 20, seed {seed}: RuntimeError: NaN in the Q-network "
        "(training goes on; recorded in the run)"
        for seed in (0, 1)
    ]
    assert {w.filename for w in caught} == {__file__}  # the line that called record
    recorder.record(30, lean, network=q)  # training went on

    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.steps == [10, 20, 30]
    assert set(checkpoints.failures) == {(20, 0), (20, 1)}
    failed = checkpoints.episode(20, 0)
    assert failed.metadata["evaluation_error"] == (
        "evaluation at training step 20, seed 0: RuntimeError: NaN in the Q-network"
    )
    assert failed.num_steps > 0  # the steps played before it raised
    assert failed.truncated[-1]
    assert recorder.failures == [checkpoints.failures[20, 0], checkpoints.failures[20, 1]]
    assert checkpoints.episode(30, 0).frames is not None


def test_checkpoints_recorded_after_the_run_was_opened_appear_on_refresh(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder("CartPole-v1", seeds=[0, 1], library=library, run="loop")
    q = q_network()
    recorder.record(100, lean, network=q)
    checkpoints = Checkpoints(library, RUN)
    first = checkpoints.episode(100, 1)
    assert checkpoints.refresh() == []
    recorder.record(200, greedy(q), network=q)
    recorder.record(300, greedy(q))
    assert checkpoints.steps == [100]
    assert checkpoints.refresh() == [200, 300]
    assert checkpoints.steps == [100, 200, 300]
    assert checkpoints.seeds(300) == [0, 1]
    assert checkpoints.episode(100, 1) is first  # rendered once, kept across refreshes
    assert checkpoints.episode(200, 0).metadata["training_step"] == 200
    loaded = checkpoints.load_weights(
        200, nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    )
    assert torch.equal(loaded(torch.ones(1, 4)), q(torch.ones(1, 4)))
    with pytest.raises(WeightsFileError, match="training step 300 saved no weights"):
        checkpoints.weights_file(300)


def test_a_missing_weights_file_or_checkpoint_says_which(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder("CartPole-v1", seeds=[0], library=library, run="loop")
    recorder.record(5, lean, network=q_network())
    recorder.record(6, lean)  # episodes only
    checkpoints = Checkpoints(library, RUN)
    path = checkpoints.weights_file(5)
    path.unlink()
    with pytest.raises(
        WeightsFileError, match=f"weights file {path} of training step 5 is missing"
    ):
        checkpoints.load_weights(5, q_network())
    with pytest.raises(WeightsFileError, match="training step 6 saved no weights"):
        checkpoints.load_weights(6, q_network())
    with pytest.raises(KeyError, match=r"no checkpoint at training step 7; the run has \[5, 6\]"):
        checkpoints.episode(7, 0)
    run = json.loads((checkpoints.folder / "run.json").read_text())
    assert [e["seed"] for e in run["episodes"]] == [0, 0]


def test_a_bucket_library_is_refused_before_training():
    with pytest.raises(ValueError, match="a bucket library does not hold weights files yet"):
        CheckpointRecorder("CartPole-v1", library=RunLibrary("s3://bucket/runs"))


class _CrashingReset(gym.Wrapper):
    """An env whose reset raises for seed 1, before any observation."""

    def reset(self, *, seed=None, options=None):
        if seed == 1:
            raise OSError("simulator crashed")
        return self.env.reset(seed=seed, options=options)


def test_an_env_that_raises_at_reset_is_recorded_as_an_empty_failed_episode(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(
        lambda: _CrashingReset(cartpole(None)), seeds=[0, 1], library=library, run="loop"
    )
    with pytest.warns(UserWarning, match="seed 1: OSError: simulator crashed"):
        recorder.record(1, lean)
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.failures == {
        (1, 1): "evaluation at training step 1, seed 1: OSError: simulator crashed"
    }
    assert checkpoints.episode(1, 1).num_steps == 0
    assert checkpoints.episode(1, 0).frames is not None


def test_the_checkpoints_layer_loads_no_sb3():
    """SB3 is the layer above's: a plain torch loop records checkpoints without it."""
    code = "import sys, agent_widget.checkpoints; print('stable_baselines3' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == "False\n"
