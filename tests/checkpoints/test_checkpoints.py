"""Checkpoints reads only the run's own files, whatever its episodes' metadata names."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from agent_widget.checkpoints import CheckpointRecorder, Checkpoints, WeightsFileError, save_weights
from agent_widget.library import RunLibrary
from agent_widget.recording import record
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/DQN/hostile"


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Linear(4, 2)


@pytest.mark.parametrize("kind", ["absolute", "dot-dot", "link out", "separator"])
def test_a_checkpoint_naming_a_file_outside_the_run_is_refused_unread(tmp_path, kind):
    (tmp_path / "elsewhere").mkdir()
    outside = save_weights(net().state_dict(), tmp_path / "elsewhere" / "secret.safetensors")
    library = RunLibrary(tmp_path / "library")
    folder = library.root / RUN
    names = {
        "absolute": str(outside),
        "dot-dot": "../../../../elsewhere/secret.safetensors",
        "link out": "checkpoint-0000001000.safetensors",
        "separator": "sub/../../../../../elsewhere/secret.safetensors",
    }
    episode = record(cartpole(None), lean, seed=0, max_steps=5)
    episode.metadata.update(
        training_step=1000, seed=0, checkpoint=names[kind], observation_statistics=names[kind]
    )
    library.add([episode], env_id="CartPole-v1", algorithm="DQN", run="hostile")
    if kind == "link out":
        (folder / names[kind]).symlink_to(outside)
    checkpoints = Checkpoints(library, RUN)
    assert not checkpoints.weights_pending(1000)  # not "coming": refused
    refused = "not a file of the run's folder: refused"
    with pytest.raises(WeightsFileError, match=refused) as error:
        checkpoints.load_weights(1000, nn.Linear(4, 2))
    assert "bytes" not in str(error.value)  # nothing of the file pointed at is told
    with pytest.raises(WeightsFileError, match=refused):
        checkpoints.statistics(1000)


def test_a_checkpoint_naming_its_own_file_loads(tmp_path):
    library = RunLibrary(tmp_path)
    episode = record(cartpole(None), lean, seed=0, max_steps=5)
    episode.metadata.update(training_step=1000, seed=0, checkpoint="weights.safetensors")
    library.add([episode], env_id="CartPole-v1", algorithm="DQN", run="hostile")
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.weights_pending(1000)
    save_weights(net().state_dict(), library.root / RUN / "weights.safetensors")
    loaded = checkpoints.load_weights(1000, nn.Linear(4, 2))
    assert torch.equal(loaded.weight, net().weight)


class Untensored(nn.Module):
    """A module whose state_dict holds a value that is no tensor: its weights can't save."""

    def state_dict(self, *args, **kwargs):
        return {"weight": torch.zeros(2), "step": 3}


def test_weights_that_failed_to_save_are_said_so_not_waited_for(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="x")
    with pytest.raises(TypeError, match="weights are saved as tensors"):
        recorder.record(1000, lean, Untensored())
    checkpoints = Checkpoints(library, "CartPole-v1/torch/x")
    assert checkpoints.steps == [1000]  # the episodes are in
    assert not checkpoints.weights_pending(1000)
    with pytest.raises(WeightsFileError, match="failed to save: TypeError: weights are saved"):
        checkpoints.load_weights(1000, nn.Linear(4, 2))
