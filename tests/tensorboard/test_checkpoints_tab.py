"""A Stable-Baselines3 DQN's checkpoints in the Agent tab of a real TensorBoard: the run
its ``tensorboard_log=`` scalars and ``RecordCheckpoints`` episodes make, each episode's
training step in the table, and an episode recorded without frames painted in Chromium
with the frames its replay renders, stepped with the arrow keys; with a ``--agent_panels``
file defining ``model``, its ``QValues`` card is its own checkpoint network's forward pass;
and the run's link to its scalars shows TensorBoard's Time Series of ``DQN_1`` alone (a
second training's ``DQN_10`` beside it is filtered out)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch
from playwright.sync_api import Response
from torch.utils.tensorboard import SummaryWriter

from agent_widget import load
from agent_widget.recording import render_frames
from agent_widget.sb3 import RecordCheckpoints
from harness.dqn_run import RUN, checkpoint_q_values, dqn
from harness.lab import rgb_sha256
from harness.tensorboard import TensorBoard
from harness.views import View, WatchedPage
from tests.tensorboard.bodies import unpacked
from tests.tensorboard.tab import agent_tab

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def tensorboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TensorBoard]:
    """TensorBoard on a logdir where DQN logged its scalars and its checkpoints' episodes."""
    folder = tmp_path_factory.mktemp("checkpoints-tab")
    logdir = folder / "runs"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a network this small only loses time to a second thread
    try:
        model = dqn()
        model.tensorboard_log = str(logdir)  # as DQN(..., tensorboard_log=logdir)
        record = RecordCheckpoints("CartPole-v1", every=1_000, seeds=[0], library=logdir, run="dqn")
        model.learn(2_000, callback=record)
    finally:
        torch.set_num_threads(threads)
    decoy = SummaryWriter(str(logdir / "DQN_10"))  # another training's scalars
    decoy.add_scalar("rollout/exploration_rate", 1.0, 0)
    decoy.close()
    (folder / "panels.py").write_text("from harness.dqn_run import dqn\n\nmodel = dqn()\n")
    server = TensorBoard(logdir, folder, "--agent_panels", str(folder / "panels.py"))
    yield server
    server.stop()


def test_a_checkpoint_episode_shows_its_step_and_the_frames_its_replay_renders(page, tensorboard):
    assert (tensorboard.logdir / "DQN_1").is_dir()  # the scalars DQN logged
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=2)
    rows = frame.locator("tbody tr")
    steps = frame.locator('tbody td[data-key="training_step"]').all_text_contents()
    assert sorted(steps) == ["1000", "2000"]
    path = rows.nth(steps.index("2000")).get_attribute("data-path")
    assert path is not None
    assert path.startswith(f"{RUN}/episode-")
    stored = load(tensorboard.logdir / path)
    assert stored.frames is None  # recorded without frames, during training
    rendered = render_frames(stored).frames
    frame.locator(f'tr[data-path="{path}"] button.aw-tb-open').click()
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(0, timeout=60)
    assert view.canvas()["sha256"] == rgb_sha256(rendered[0])
    view.press("ArrowRight")
    view.wait_painted(1)
    assert view.canvas()["sha256"] == rgb_sha256(rendered[1])


def test_a_checkpoint_episode_q_values_card_is_its_networks_forward_pass(page, tensorboard):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=2)
    steps = frame.locator('tbody td[data-key="training_step"]').all_text_contents()
    path = frame.locator("tbody tr").nth(steps.index("2000")).get_attribute("data-path")
    assert path is not None
    panel_replies: list[Response] = []

    def on_response(response: Response) -> None:
        if "/data/plugin/agent/message?" in response.url and "panel" in response.url:
            panel_replies.append(response)

    page.on("response", on_response)
    frame.locator(f'tr[data-path="{path}"] button.aw-tb-open').click()
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(0, timeout=60)
    view.press("ArrowRight")
    view.wait_painted(1)
    card = view.wait_card("QValues", 1, "bars")
    page.remove_listener("response", on_response)
    expected = checkpoint_q_values(
        tensorboard.logdir, 2_000, load(tensorboard.logdir / path).observations[1]
    )
    assert card["greedy"] == str(int(np.argmax(expected)))  # the card the page shows
    sent = [
        np.frombuffer(buffers[0], "<f8")
        for response in panel_replies
        if response.status == 200
        for message, buffers in unpacked(response.body())["replies"]
        if (message["name"], message["step"], message["kind"]) == ("QValues", 1, "bars")
    ]
    assert sent  # what went over the wire: the checkpoint's own forward pass
    np.testing.assert_allclose(sent[0], expected, rtol=1e-5, atol=1e-6)


def test_a_checkpoint_runs_scalars_link_shows_its_trainings_scalars_alone(page, tensorboard):
    _, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=2)
    links = frame.locator('td[data-key="scalars"] a')
    assert set(links.all_text_contents()) == {"DQN_1"}  # logger.dir, kept by RecordCheckpoints
    links.first.click()
    page.wait_for_url("**#timeseries")
    assert page.get_by_role("textbox", name="Filter runs (regex)").input_value() == "^DQN_1$"
    page.get_by_text("rollout/exploration_rate").first.wait_for()
    # The runs TensorBoard lists and draws: DQN_1, not DQN_10 (which it has: the filter
    # is anchored).
    WatchedPage(page).wait_for(
        """() => [...document.querySelectorAll(
              "runs-selector tb-data-table-content-cell.table-column-run")]
            .map((cell) => cell.textContent.trim()).join() === 'DQN_1'""",
        what="the runs table to list DQN_1 alone",
    )
    assert "DQN_10" in page.request.get(f"{tensorboard.url}data/runs").json()
