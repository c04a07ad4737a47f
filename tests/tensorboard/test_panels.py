"""Cards in TensorBoard: the panels a ``--agent_panels`` file registers, computed in
TensorBoard's process for the step asked, as the notebook's worker would send them; a
file that fails leaves TensorBoard up and says why; a stuck panel gets its error card
while TensorBoard's other routes go on answering."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from torch.utils.tensorboard import SummaryWriter

from agent_widget import save
from agent_widget.panels import register
from tests.sample_episodes import episode
from tests.tensorboard.apps import get, tensorboard, tensorboard_with_scalars
from tests.tensorboard.bodies import unpacked
from tests.waiting import LIMIT

PANELS = """
import numpy as np
from agent_widget.panels import register

@register("where")
def where(step):
    return f"t={step.t} action={step.action}"

@register("bars")
def bars(step):
    return np.array([step.t, 2.0, 3.0], np.float32)
"""
PATH = "run/episode-000.rollout"


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    (tmp_path / "run").mkdir()
    save(episode([1.0] * 20), tmp_path / PATH)
    return tmp_path


def answer(client, step: int, names: list[str] | None = None):
    m = {"type": "panel", "step": step} | ({} if names is None else {"names": names})
    response = get(client, "message", path=PATH, m=json.dumps(m))
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def cards(client, step: int, names: list[str] | None = None) -> list:
    return unpacked(answer(client, step, names).data)["replies"]


def test_a_panels_file_cards_are_answered_for_the_step_asked(
    logdir, tmp_path, empty_panel_registry
):
    (tmp_path / "panels.py").write_text(PANELS)
    client = tensorboard(logdir, agent_panels=str(tmp_path / "panels.py"))
    state = unpacked(get(client, "episode", path=PATH).data)["state"]
    assert [panel["name"] for panel in state["panels"]] == ["where", "bars"]
    (text, _), (bar, buffers) = cards(client, 7)
    assert text["type"] == "panel"
    assert (text["name"], text["step"], text["kind"]) == ("where", 7, "text")
    assert text["text"] == "t=7 action=1"  # actions cycle 0, 1, 2
    assert (bar["name"], bar["kind"]) == ("bars", "bars")
    assert np.frombuffer(buffers[0], "<f8").tolist() == [7.0, 2.0, 3.0]  # float64 LE
    ((only, _),) = cards(client, 3, ["where"])
    assert only["text"] == "t=3 action=0"


def test_a_panels_file_that_fails_leaves_tensorboard_up_and_says_why(
    logdir, tmp_path, empty_panel_registry
):
    (tmp_path / "broken.py").write_text("raise RuntimeError('no GPU here')\n")
    client = tensorboard(logdir, agent_panels=str(tmp_path / "broken.py"))
    listing = get(client, "runs").json
    assert "broken.py failed: RuntimeError: no GPU here" in listing["panels_problem"]
    assert [run["run"] for run in listing["runs"]] == ["run"]
    assert cards(client, 0) == []


def test_a_stuck_panel_gets_its_error_card_and_tensorboard_answers_meanwhile(
    logdir, stuck, empty_panel_registry
):
    register("stuck", stuck, timeout=2)
    with SummaryWriter(logdir / "run") as writer:  # a training run's scalars beside it
        writer.add_scalar("loss", 0.5, 0)
    client = tensorboard_with_scalars(logdir)
    answered: list = []
    asking = threading.Thread(target=lambda: answered.append(answer(client, 4)))
    asking.start()
    assert stuck.entered.wait(LIMIT)
    # While the panel spins, TensorBoard's other routes answer.
    assert tensorboard(logdir).get("/data/plugins_listing").status_code == 200
    assert client.get("/data/plugins_listing").status_code == 200
    assert get(client, "runs").status_code == 200
    scalars = client.get("/data/plugin/scalars/tags")  # the scalars dashboard answers
    assert scalars.json == {"run": {"loss": {"displayName": "loss", "description": ""}}}
    asking.join(LIMIT)
    ((card, _),) = unpacked(answered[0].data)["replies"]
    assert (card["name"], card["kind"], card["retry"]) == ("stuck", "error", True)
    assert "no answer after 2 s" in card["message"]
    # Not cached: the view asks again, and gets the result once the panel returns one.
    assert answered[0].headers["Cache-Control"] == "no-store"
    assert "ETag" not in answered[0].headers
    ((again, _),) = cards(client, 5)  # the next step's card says so at once
    assert again["kind"] == "error"
