"""The Agent tab in a real TensorBoard, in Chromium: the table of a logdir's runs and
episodes (text only, sortable, read again when TensorBoard reloads), an episode opened
in the notebook's viewer, its frames painted exactly as recorded, stepped with the
arrow keys, with a card computed in TensorBoard's process by a ``--agent_panels`` file,
a deep link to a step, and a run's link to its scalars.

The logdir holds what a CleanRL-style script writes (``SummaryWriter`` scalars and
``RecordRollout(directory=)`` episodes in one run folder), an episode written by
``record(path=)``, and one whose metadata is a stranger's HTML.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from playwright.sync_api import Frame, Response
from torch.utils.tensorboard import SummaryWriter

from agent_widget import load, record, save
from agent_widget.recording import RecordRollout
from harness.lab import rgb_sha256
from harness.tensorboard import TensorBoard
from harness.views import View
from tests.sample_episodes import episode
from tests.tensorboard.tab import agent_tab

pytestmark = pytest.mark.e2e

HOSTILE = "<img src=x onerror=window.__hostile=1>"
CLEANRL = "CartPole-v1__ppo__1"
# The --agent_panels file: a card computed in TensorBoard's process for the step shown.
PANELS = """
from agent_widget.panels import register

@register("where")
def where(step):
    return f"t={step.t} action={step.action} x={step.obs[0]:.4f}"
"""


def write_logdir(root: Path) -> None:
    """A CleanRL-style run (scalars and two recorded episodes), a ``record(path=)``
    episode, and an episode whose algorithm is HTML."""
    run = root / CLEANRL
    writer = SummaryWriter(str(run))
    for step in range(5):
        writer.add_scalar("charts/episodic_return", 10.0 * step, step)
    writer.close()
    env = RecordRollout(gym.make("CartPole-v1", render_mode="rgb_array"), directory=run)
    env.action_space.seed(0)
    for seed in (0, 1):
        env.reset(seed=seed)
        while not any(env.step(env.action_space.sample())[2:4]):
            pass
    env.close()
    (root / "single").mkdir()
    cartpole = gym.make("CartPole-v1", render_mode="rgb_array")
    record(
        cartpole,
        lambda obs: 1,
        seed=3,
        algorithm="always-right",
        path=root / "single/right.rollout",
    )
    (root / "odd").mkdir()
    save(episode([1.0, 2.0], algorithm=HOSTILE), root / "odd/strange.rollout")


@pytest.fixture(scope="module")
def tensorboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TensorBoard]:
    folder = tmp_path_factory.mktemp("agent-tab")
    write_logdir(folder / "runs")
    (folder / "panels.py").write_text(PANELS)
    server = TensorBoard(folder / "runs", folder, "--agent_panels", str(folder / "panels.py"))
    yield server
    server.stop()


def column(frame: Frame, key: str) -> list[str]:
    return frame.locator(f'tbody td[data-key="{key}"]').all_text_contents()


def test_the_tab_lists_the_runs_episodes_as_text_sortable(page, tensorboard):
    assert tensorboard.plugins["agent"]["enabled"] is True
    _, frame = agent_tab(page, f"{tensorboard.url}#agent")
    assert sorted(set(column(frame, "run"))) == [CLEANRL, "odd", "single"]
    assert column(frame, "algorithm").count("always-right") == 1
    assert HOSTILE in column(frame, "algorithm")  # shown as the text it is
    assert frame.locator("img").count() == 0
    assert frame.evaluate("() => window.__hostile") is None
    frame.locator('th[data-key="length"] button').click()
    lengths = [int(text) for text in column(frame, "length")]
    assert lengths == sorted(lengths)
    frame.locator('th[data-key="length"] button').click()
    assert [int(text) for text in column(frame, "length")] == sorted(lengths, reverse=True)


def test_an_episode_opens_in_the_viewer_painted_as_recorded_and_steps_with_arrow_keys(
    page, tensorboard
):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent")
    path = f"{CLEANRL}/episode-001.rollout"
    frame_replies: list[str] = []

    def on_response(response: Response) -> None:
        if "/data/plugin/agent/message?" in response.url:
            frame_replies.append(response.headers["content-type"])

    page.on("response", on_response)
    frame.locator(f'tr[data-path="{path}"] button.aw-tb-open').click()
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(0, timeout=60)
    recorded = load(tensorboard.logdir / path).frames
    assert recorded is not None
    first = view.canvas()
    assert (first["width"], first["height"]) == (600, 400)
    assert first["sha256"] == rgb_sha256(recorded[0])
    view.press("ArrowRight")
    view.wait_painted(1)
    second = view.canvas()
    assert second["sha256"] == rgb_sha256(recorded[1])
    assert second["sha256"] != first["sha256"]  # the cart moved: a different picture
    view.press("End")
    last = len(recorded) - 1
    view.wait_painted(last)
    assert view.canvas()["sha256"] == rgb_sha256(recorded[last])
    page.remove_listener("response", on_response)
    # The frames past the first chunk (which the state carries) came from the plugin's
    # route, as binary bodies.
    assert frame_replies
    assert set(frame_replies) == {"application/octet-stream"}


def test_a_deep_link_opens_its_episode_at_its_step(page, tensorboard):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent")
    path = f"{CLEANRL}/episode-000.rollout"
    frame.locator(f'tr[data-path="{path}"] button.aw-tb-open').click()
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(0, timeout=60)
    view.press("ArrowRight", "ArrowRight", "ArrowRight")
    view.wait_painted(3)
    expected = f"#agent&p.agent.run={CLEANRL}&p.agent.episode=episode-000.rollout&p.agent.t=3"
    # The link follows the model's step, which the viewer may set after it paints.
    watched.wait_for(
        "(tail) => document.querySelector('a.aw-tb-link')?.href.endsWith(tail)",
        expected,
        what="the link to step 3",
    )
    link = frame.locator("a.aw-tb-link").get_attribute("href")
    assert link is not None
    assert link.endswith(expected)
    watched, frame = agent_tab(page, link)  # as pasted into a new tab
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(3, timeout=60)
    recorded = load(tensorboard.logdir / path).frames
    assert recorded is not None
    assert view.canvas()["sha256"] == rgb_sha256(recorded[3])


def test_a_reload_lists_the_episodes_written_since(page, tensorboard):
    watched, _ = agent_tab(page, f"{tensorboard.url}#agent")
    late = tensorboard.logdir / "late"
    late.mkdir()
    try:
        save(episode([4.0, 4.0]), late / "new.rollout")
        page.locator("app-header-reload button").click()  # TensorBoard's own reload
        watched.wait_for(
            "() => document.querySelector('tr[data-path=\"late/new.rollout\"]') !== null",
            what="the new episode's row after the reload",
        )
    finally:
        (late / "new.rollout").unlink()
        late.rmdir()


def test_a_runs_scalars_link_shows_its_scalars_alone(page, tensorboard):
    _, frame = agent_tab(page, f"{tensorboard.url}#agent")
    links = frame.locator('td[data-key="scalars"] a')
    assert set(links.all_text_contents()) == {CLEANRL}  # the only run with event files
    links.first.click()
    page.wait_for_url("**#timeseries")
    runs_filter = page.get_by_role("textbox", name="Filter runs (regex)")
    assert runs_filter.input_value() == f"^{CLEANRL}$"
    page.get_by_text("charts/episodic_return").first.wait_for()


def test_a_panels_file_card_follows_the_step(page, tensorboard):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent")
    path = f"{CLEANRL}/episode-000.rollout"
    frame.locator(f'tr[data-path="{path}"] button.aw-tb-open').click()
    view = View(watched, frame.locator(".agent-widget"))
    view.wait_painted(0, timeout=60)
    recorded = load(tensorboard.logdir / path)
    for t in (0, 1, 2):
        if t:
            view.press("ArrowRight")
        view.wait_card("where", t, "text")
        text = view.card("where").locator("pre.aw-text").inner_text()
        action, x = recorded.actions[t], recorded.observations[t][0]
        assert text == f"t={t} action={action} x={x:.4f}"
