"""CheckpointViewer on a plain torch loop's checkpoints: the model given as a factory (or a
module), and a user panel written as a function of a network."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from agent_widget.checkpoints import CheckpointRecorder, Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/torch/loop"


def q_network() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


@pytest.fixture
def library(tmp_path) -> RunLibrary:
    """Three checkpoints of a network changed between them (seed 0 evaluated)."""
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="loop")
    torch.manual_seed(0)
    q = q_network()
    for step in (1, 2, 3):
        with torch.no_grad():
            for parameter in q.parameters():
                parameter.add_(torch.randn_like(parameter))
        recorder.record(step, lean, network=q)
    return library


def values(network: nn.Module):
    """A user panel: the network's outputs on the step's observation, as bars."""

    def panel(step) -> np.ndarray:
        with torch.no_grad():
            return network(torch.as_tensor(step.obs)[None])[0].numpy()

    return panel


@pytest.mark.parametrize("model", [q_network, q_network()], ids=["factory", "module"])
def test_a_user_panel_gets_each_checkpoints_network(library, model):
    viewer = CheckpointViewer(library, RUN, model=model)
    viewer.add_panel("outputs", values)
    checkpoints = Checkpoints(library, RUN)
    for index, step in enumerate(checkpoints.steps):
        viewer.checkpoint = index
        card = viewer.episode._panels.card_now("outputs", 3)[1]
        network = checkpoints.load_weights(step, q_network())
        observation = checkpoints.recorded(step, 0).observations[3]
        with torch.no_grad():
            expected = network(torch.as_tensor(observation)[None])[0].numpy()
        np.testing.assert_allclose(np.frombuffer(card.buffers[0], "<f8"), expected, rtol=1e-6)
    if isinstance(model, nn.Module):  # the module given is copied, never loaded into
        assert all(viewer.networks(step) is not model for step in checkpoints.steps)


def test_a_model_that_is_no_network_is_refused_naming_what_it_is(library):
    with pytest.raises(TypeError, match="model must be a Stable-Baselines3 model, a torch"):
        CheckpointViewer(library, RUN, model="q.pt")
    viewer = CheckpointViewer(library, RUN, model=lambda: "not a module")
    viewer.add_panel("outputs", values)
    card = viewer.episode._panels.card_now("outputs", 0)[1]
    assert card.kind == "error"
    assert card.meta["message"] == "the model factory returned a str, not an nn.Module"
