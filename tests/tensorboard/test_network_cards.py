"""Cards from each checkpoint's own network in TensorBoard: with a ``--agent_panels``
file defining ``model`` (an SB3 DQN, as ``CheckpointViewer(model=...)`` takes it), a
``RecordCheckpoints`` episode's ``QValues`` card holds that checkpoint network's
forward pass on the step's observation, not another checkpoint's; an episode of no
checkpoint gets no such card; a model no panel takes is said in the tab."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent_widget import load, save
from harness.dqn_run import checkpoint_q_values, train
from tests.sample_episodes import episode
from tests.tensorboard.apps import get, tensorboard
from tests.tensorboard.bodies import unpacked

PANELS = """
from harness.dqn_run import dqn

model = dqn()
"""


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A logdir holding a DQN's two checkpoints (1,000 and 2,000 steps) and a plain episode."""
    root = tmp_path_factory.mktemp("network-cards")
    train(root, steps=2_000, every=1_000, seeds=[0])
    (root / "plain").mkdir()
    save(episode([1.0] * 5), root / "plain/episode.rollout")
    (root.parent / f"{root.name}-panels.py").write_text(PANELS)
    return root


def panels_file(logdir: Path) -> str:
    return str(logdir.parent / f"{logdir.name}-panels.py")


def episode_path(client, step: int) -> str:
    runs = get(client, "runs").json["runs"]
    (path,) = [e["path"] for r in runs for e in r["episodes"] if e.get("training_step") == step]
    return str(path)


def test_a_checkpoint_episode_q_values_card_is_its_own_networks_forward_pass(
    logdir, empty_panel_registry
):
    client = tensorboard(logdir, agent_panels=panels_file(logdir))
    assert get(client, "runs").json["panels_problem"] is None
    path = episode_path(client, 2_000)
    state = unpacked(get(client, "episode", path=path).data)["state"]
    assert [panel["name"] for panel in state["panels"]] == ["QValues", "Saliency"]
    observations = load(logdir / path).observations
    for t in (0, 5):
        m = json.dumps({"type": "panel", "step": t, "names": ["QValues"]})
        response = get(client, "message", path=path, m=m)
        assert response.status_code == 200, response.get_data(as_text=True)
        ((card, buffers),) = unpacked(response.data)["replies"]
        assert (card["name"], card["kind"], card["step"]) == ("QValues", "bars", t)
        shown = np.frombuffer(buffers[0], "<f8")
        own = checkpoint_q_values(logdir, 2_000, observations[t])
        np.testing.assert_allclose(shown, own, rtol=1e-5, atol=1e-6)
        other = checkpoint_q_values(logdir, 1_000, observations[t])
        assert not np.allclose(shown, other, atol=1e-3)  # not the earlier checkpoint's


def test_an_episode_of_no_checkpoint_gets_no_network_card(logdir, empty_panel_registry):
    client = tensorboard(logdir, agent_panels=panels_file(logdir))
    state = unpacked(get(client, "episode", path="plain/episode.rollout").data)["state"]
    assert state["panels"] == []


def test_a_model_no_panel_takes_is_said_in_the_tab(logdir, tmp_path, empty_panel_registry):
    (tmp_path / "odd.py").write_text("model = 'a string, not a network'\n")
    client = tensorboard(logdir, agent_panels=str(tmp_path / "odd.py"))
    problem = get(client, "runs").json["panels_problem"]
    assert problem.startswith("the panels file's model gives no cards")
    path = episode_path(client, 2_000)
    assert unpacked(get(client, "episode", path=path).data)["state"]["panels"] == []
