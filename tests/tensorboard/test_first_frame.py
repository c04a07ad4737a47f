"""An episode's first frame in the Agent tab, in Chromium: it comes with the episode's
answer (the state carries the first chunk, so painting it needs no second request),
and a long episode's timeline summary is read and drawn after it, not before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Route

from agent_widget import save
from harness.lab import rgb_sha256
from harness.tensorboard import TensorBoard
from harness.views import View
from tests.e2e.episodes import synthetic_episode, synthetic_frames
from tests.tensorboard.tab import agent_tab

pytestmark = pytest.mark.e2e

SIZE = 16
# Positions: a short episode's series go whole; past 4,096 steps the state holds a summary.
LENGTHS = {"short": 41, "long": 5_001}
# Records, in order, frame 0 painted and the timeline's summary drawn.
WATCH_ORDER_JS = """() => {
  window.__order = [];
  const seen = {"data-painted-step": "0", "data-summarized": "true"};
  new MutationObserver((records) => {
    for (const r of records) {
      const name = r.attributeName;
      if (r.target.getAttribute(name) === seen[name]) window.__order.push(name);
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: Object.keys(seen)});
}"""


@pytest.fixture(scope="module")
def tensorboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TensorBoard]:
    folder = tmp_path_factory.mktemp("first-frame")
    for run, positions in LENGTHS.items():
        (folder / "runs" / run).mkdir(parents=True)
        episode = synthetic_episode(positions, SIZE, SIZE, infos=False)
        save(episode, folder / "runs" / run / "episode.rollout")
    server = TensorBoard(folder / "runs", folder)
    yield server
    server.stop()


def test_the_first_frame_is_painted_from_the_episodes_answer_alone(page, tensorboard):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=len(LENGTHS))
    refused: list[str] = []

    def refuse(route: Route) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route("**/data/plugin/agent/message?**", refuse)  # no frame chunk is answered
    try:
        frame.locator('tr[data-path="short/episode.rollout"] button.aw-tb-open').click()
        view = View(watched, frame.locator(".agent-widget"))
        view.wait_painted(0, timeout=60)
        canvas = view.canvas()
        assert canvas["sha256"] == rgb_sha256(synthetic_frames(1, SIZE, SIZE)[0])
    finally:
        page.unroute("**/data/plugin/agent/message?**", refuse)


def test_a_long_episodes_first_frame_is_painted_before_its_timeline_is_drawn(page, tensorboard):
    watched, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=len(LENGTHS))
    frame.evaluate(WATCH_ORDER_JS)
    frame.locator('tr[data-path="long/episode.rollout"] button.aw-tb-open').click()
    order = watched.wait_for(
        "() => window.__order.length >= 2 && window.__order",
        timeout=60,
        what="frame 0 painted and the timeline's summary drawn",
    )
    assert order == ["data-painted-step", "data-summarized"]
    view = View(watched, frame.locator(".agent-widget"))
    assert view.canvas()["sha256"] == rgb_sha256(synthetic_frames(1, SIZE, SIZE)[0])
    slider = view.slider()
    assert slider.get_attribute("max") == str(LENGTHS["long"] - 1)
