"""EpisodeViewer.to_html in Chromium: the page opened from file://, with no network at all.

Every request the page might make, to any address, is refused and counted: the count
must stay zero. The canvas must show the exact frame of the step shown, at the
start, after an arrow key, after a slider jump and while playing, and the
precomputed cards must follow the step.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from playwright.sync_api import Page, Route

from agent_widget import CompareViewer, EpisodeViewer, Rollout, record
from harness.appearance import axe_violations, canvas_names
from harness.charts import tallest_run
from harness.lab import View, rgb_sha256
from tests.e2e.episodes import SCRIPT_NOTE, frame_digests, synthetic_episode, synthetic_frames

pytestmark = pytest.mark.e2e

N = 120


class OpenedPage:
    """A page opened (from a file: its ``as_uri()``) with every network request refused and
    counted."""

    def __init__(self, page: Page, url: str) -> None:
        self.page, self.console, self.refused = page, [], []
        page.on("console", lambda message: self.console.append(message.text))
        page.route("**/*", self._route)
        # The page's own policy blocks requests before they reach the network: count those.
        page.add_init_script(
            "window.__blocked = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (event) => window.__blocked.push(event.blockedURI));"
        )
        page.goto(url)

    def _route(self, route: Route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def wait_for(self, script: str, arg: Any = None, *, timeout: float = 30, what: str = "") -> Any:
        try:
            handle = self.page.wait_for_function(script, arg=arg, timeout=timeout * 1000)
            return handle.json_value()
        except Exception as error:
            console = "\n".join(self.console[-20:])
            raise AssertionError(f"timed out waiting for {what}: {error}\n{console}") from None

    def view(self) -> View:
        return View(self, self.page.locator("div.agent-widget"))  # type: ignore[arg-type]

    def requests(self) -> list[str]:
        """Every request beyond the page's own file: refused here, blocked by the page's
        policy, or loaded (file:// included)."""
        blocked = self.page.evaluate("window.__blocked")
        return self.refused + blocked + [u for u in self.loaded if u != self.page.url]

    @property
    def loaded(self) -> list[str]:
        return self.page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> tuple[Path, dict[str, int]]:
    rollout = synthetic_episode(N)
    viewer = EpisodeViewer(rollout, fps=30)
    viewer.add_panel("notes", lambda step: f"t = {step.t}")
    viewer.add_panel("q", lambda step: np.array([1.0, 2.0, step.t % 5, 0.5]))
    path = viewer.to_html(tmp_path_factory.mktemp("page") / "synthetic.html", progress=False)
    return path, frame_digests(rollout.frames)


@pytest.fixture
def opened(new_page, synthetic) -> Iterator[tuple[OpenedPage, View, dict[str, int]]]:
    path, digests = synthetic
    page = new_page()
    opened = OpenedPage(page, path.as_uri())
    yield opened, opened.view(), digests
    page.close()


def shows(view: View, digests: dict[str, int], t: int) -> None:
    """Step ``t`` is painted, and the canvas holds exactly frame ``t``."""
    view.wait_painted(t)
    canvas = view.canvas()
    assert canvas["step"] == t
    assert digests.get(canvas["sha256"]) == t, f"the canvas does not show frame {t}"


def test_the_page_shows_the_right_frame_at_the_start_after_a_key_and_a_jump(opened):
    page, view, digests = opened
    shows(view, digests, 0)
    view.press("ArrowRight")
    shows(view, digests, 1)
    view.slide_to(97)
    shows(view, digests, 97)
    view.press("End")
    shows(view, digests, N - 1)
    assert page.requests() == []


def test_the_page_plays_showing_the_right_frame_at_each_step_it_paints(opened):
    """Frame rate and dropped frames are measured by benchmarks/page.py, not here."""
    page, view, digests = opened
    shows(view, digests, 0)
    view.press(" ")
    seen = [0]
    while len(seen) <= 5:  # five steps painted by playback, each checked
        page.wait_for(
            "([el, t]) => Number(el.dataset.paintedStep) > t",
            [view.handle, seen[-1]],
            what=f"playback to paint a step past {seen[-1]} (painted: {seen})",
        )
        canvas = view.canvas()
        assert digests.get(canvas["sha256"]) == canvas["step"]
        seen.append(canvas["step"])
    assert page.requests() == []


def test_the_cards_show_the_shown_step(opened):
    page, view, _ = opened
    view.slide_to(42)
    assert view.wait_card("notes", 42, "text")["step"] == "42"
    assert view.card("notes").inner_text().endswith("t = 42")
    view.press("ArrowLeft")
    view.wait_card("q", 41, "bars")
    assert page.requests() == []


def test_a_recorded_cartpole_episode_with_an_error_card(new_page, tmp_path):
    env = gym.make("CartPole-v1", render_mode="rgb_array")
    rollout = record(env, lambda obs: int(obs[2] > 0), seed=0)
    viewer = EpisodeViewer(rollout, step=10)
    viewer.add_panel("boom", lambda step: 1 / 0)
    path = viewer.to_html(tmp_path / "cartpole.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        view = opened.view()
        view.wait_painted(10)
        assert view.canvas()["sha256"] == rgb_sha256(rollout.frames[10])
        card = view.wait_card("boom", 10, "error")
        assert card["kind"] == "error"
        assert "ZeroDivisionError" in view.card("boom").inner_text()
        assert "CartPole-v1" in view.root.inner_text()
        assert opened.requests() == []
    finally:
        page.close()


def test_a_saliency_map_that_is_no_picture_of_the_frame_is_drawn_in_its_card(new_page, tmp_path):
    from minigrid.wrappers import ImgObsWrapper
    from torch import manual_seed, nn

    from agent_widget.torch import Saliency

    env = ImgObsWrapper(gym.make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array"))
    rollout = record(env, lambda obs: 2, seed=0, max_steps=3)
    manual_seed(0)
    viewer = EpisodeViewer(rollout, step=1)
    viewer.add_panel("saliency", Saliency(nn.Sequential(nn.Flatten(), nn.Linear(147, 3))),
                     overlay=True)  # fmt: skip
    path = viewer.to_html(tmp_path / "minigrid.html", progress=False)
    page = new_page()
    try:
        view = OpenedPage(page, path.as_uri()).view()
        view.wait_card("saliency", 1, "heatmap")
        card = view.card("saliency")
        assert "on the observation's 7x7 grid" in card.locator(".aw-caption").inner_text()
        assert card.locator("canvas.aw-image").evaluate("(el) => [el.width, el.height]") == [7, 7]
        overlay = view.root.locator("canvas.aw-overlay[data-name=saliency]")
        assert overlay.get_attribute("data-step") is None  # nothing drawn over the frame
    finally:
        page.close()


def test_a_comparison_page_moves_every_rollout_on_one_slider(new_page, tmp_path):
    frames = synthetic_frames(60)
    a = Rollout.from_arrays(frames=frames, actions=np.zeros(59, int))
    b = Rollout.from_arrays(frames=frames[::-1][:40], actions=np.ones(39, int))
    compare = CompareViewer({"a": a, "b": b})
    compare.panel("notes")(lambda step: f"t = {step.t}")
    path = compare.to_html(tmp_path / "compare.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        a_view, b_view = (View(opened, page.locator("div.agent-widget").nth(i)) for i in (0, 1))
        a_view.wait_painted(0)
        page.locator("div.aw-compare").press("ArrowRight")
        for view, frame in ((a_view, frames[1]), (b_view, frames[::-1][1])):
            view.wait_painted(1)
            assert view.canvas()["sha256"] == rgb_sha256(frame)
        page.locator("div.aw-shared input.aw-slider").evaluate(
            "(el) => { el.value = '50'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
        )
        a_view.wait_painted(50)
        assert a_view.canvas()["sha256"] == rgb_sha256(frames[50])
        b_view.wait_painted(39)  # b ended at 39 and holds its last frame
        assert b_view.canvas()["sha256"] == rgb_sha256(frames[::-1][39])
        assert a_view.wait_card("notes", 50, "text")["step"] == "50"
        assert opened.requests() == []
    finally:
        page.close()


class Captioned(dict):
    """Bars whose labels and caption are hostile markup."""

    caption = SCRIPT_NOTE


def test_no_card_turns_a_string_into_markup(new_page, tmp_path):
    """Text, error message, traceback, bar labels, caption and panel name all carry a
    script and an image with an onerror handler; each must show as text."""
    viewer = EpisodeViewer(synthetic_episode(20))

    def error(step):
        raise ValueError(SCRIPT_NOTE)

    viewer.add_panel(SCRIPT_NOTE, lambda step: SCRIPT_NOTE)
    viewer.add_panel("error", error)
    viewer.add_panel("bars", lambda step: Captioned({SCRIPT_NOTE: 1.0, "b": 2.0}))
    path = viewer.to_html(tmp_path / "hostile.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        view = opened.view()
        view.wait_painted(0)
        for name, kind in ((SCRIPT_NOTE, "text"), ("error", "error"), ("bars", "bars")):
            view.wait_card(name, 0, kind)
        cards = view.root.locator("div.aw-card")
        assert cards.locator("img, script").count() == 0
        texts = view.root.locator("div.aw-cards").inner_text()
        assert texts.count(SCRIPT_NOTE) >= 3  # the name, the text, the error message
        assert "ValueError" in view.card("error").inner_text()
        caption = view.card("bars").inner_text()
        assert SCRIPT_NOTE in caption
        labels = view.card("bars").locator("canvas").count()
        assert labels >= 1  # bar labels are drawn on a canvas, as pixels
        assert page.evaluate("window.__awInjected") is None
        assert opened.requests() == []
    finally:
        page.close()


def test_stepping_past_either_end_stays_on_it(opened):
    """The front end clamps the step itself (in a notebook it does so while the kernel
    is busy, before any answer): never a position past the ends."""
    _, view, digests = opened
    view.press("End")
    shows(view, digests, N - 1)
    view.press("ArrowRight", "ArrowRight", "ArrowLeft")  # one back from where they left it
    shows(view, digests, N - 2)
    assert view.slider().input_value() == str(N - 2)
    view.press("Home", "ArrowLeft", "ArrowRight")
    shows(view, digests, 1)
    assert view.slider().input_value() == "1"


def test_what_went_wrong_at_a_step_is_shown_at_that_step(new_page, tmp_path):
    """A NaN and an infinite reward: marked on the timeline at their steps (pink), said
    in the readout, left out of the return; a frame of another size: painted at its
    size; a missing frame: said so on the canvas, and the next one painted."""
    frames = list(synthetic_frames(12))
    frames[9] = np.full((20, 30, 3), 200, np.uint8)
    frames[6] = None  # render() gave nothing
    rewards = np.ones(11)
    rewards[4], rewards[7] = np.nan, np.inf
    rollout = Rollout.from_arrays(frames=frames, rewards=rewards, allow_resize=True)
    path = EpisodeViewer(rollout).to_html(tmp_path / "faults.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        view = opened.view()
        view.wait_painted(0)
        timeline = view.root.locator("canvas.aw-timeline")
        assert timeline.get_attribute("data-non-finite-steps") == "4,7"
        marks = timeline.evaluate(
            """(canvas) => {
                const c = canvas.getContext("2d");
                const pink = (x) => {
                    const [r, g, b] = c.getImageData(x, 2, 1, 1).data;
                    return r === 0xd8 && g === 0x1b && b === 0x60;
                };
                const columns = [];
                for (let x = 0; x < canvas.width; x++) if (pink(x)) columns.push(x);
                return { columns, width: canvas.width };
            }"""
        )
        width = marks["width"]
        assert marks["columns"], "no mark on the timeline"
        steps = sorted({int(x * 12 / width) for x in marks["columns"]})
        assert steps == [4, 7]
        view.slide_to(4)
        view.wait_painted(4)
        assert (
            "reward: NaN (of action 4; not a finite number: left out of the return)"
            in view.readout()
        )
        view.slide_to(6)
        view.wait_painted(6)
        assert view.root.evaluate(
            """(root) => {
                const c = root.querySelector("canvas.aw-frame");
                return [c.width, c.height, c.getAttribute("aria-label")];
            }"""
        ) == [480, 270, "no frame at step 6"]
        view.slide_to(8)
        view.wait_painted(8)
        assert "return: 6 (before action 8)\n" in view.readout()  # 8 rewards of 1, 2 not finite
        assert view.canvas()["sha256"] == rgb_sha256(frames[8])
        view.slide_to(9)
        view.wait_painted(9)
        canvas = view.canvas()
        assert (canvas["width"], canvas["height"]) == (30, 20)
        assert canvas["sha256"] == rgb_sha256(frames[9])
    finally:
        page.close()


@pytest.mark.parametrize("widget", ["viewer", "comparison"])
def test_the_page_plays_at_the_widgets_own_speed(new_page, tmp_path, widget):
    """A page of a viewer set to 12 fps starts at 12 fps, not at a default."""
    rollout = synthetic_episode(20)
    made = EpisodeViewer(rollout) if widget == "viewer" else CompareViewer([rollout])
    made.fps = 12  # as a user sets it after display: the page reads the trait as it is
    path = made.to_html(tmp_path / "speed.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        # The comparison's own box: its children's are hidden, driven by it.
        shown = "div.aw-shared input.aw-fps" if widget == "comparison" else "input.aw-fps"
        fps = page.locator(shown)
        fps.wait_for()
        opened.wait_for("(el) => el.value !== ''", fps.element_handle(), what="the fps box")
        assert fps.input_value() == "12"
    finally:
        page.close()


def test_axe_finds_no_violation_and_every_control_and_picture_is_named(opened):
    """The page has one theme of its own (light): axe over the whole viewer, then the
    names a screen reader reads for the card buttons, the panels menu and the canvases."""
    page, view, _ = opened
    view.wait_card("q", 0, "bars")
    assert axe_violations(view.root) == []
    for action in ["Move panel q up", "Move panel q down", "Collapse panel q", "Hide panel q"]:
        assert view.card("q").get_by_role("button", name=action, exact=True).count() == 1
    menu = view.root.get_by_role("checkbox", name="Show panel q", exact=True, include_hidden=True)
    assert menu.count() == 1
    canvases = {c["class"]: c for c in canvas_names(view.root)}
    assert all(c["role"] == "img" and c["label"] for c in canvases.values()), canvases
    assert canvases["aw-frame"]["label"] == f"Frame at step 0 of {N - 1}"
    assert canvases["aw-bars"]["label"] == "Bars of panel q at step 0"
    assert canvases["aw-timeline"]["label"].startswith("Timeline of reward and return")
    assert page.requests() == []


def test_a_comparison_page_has_no_axe_violation_and_names_its_lines(new_page, tmp_path):
    frames = synthetic_frames(20)
    runs = {name: Rollout.from_arrays(frames=frames, actions=np.zeros(19, int)) for name in "ab"}
    path = CompareViewer(runs).to_html(tmp_path / "compare.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        View(opened, page.locator("div.agent-widget").nth(1)).wait_painted(0)
        root = page.locator("div.aw-compare")
        assert axe_violations(root) == []
        shared = {c["class"]: c for c in canvas_names(root.locator(".aw-shared"))}
        assert shared["aw-compare-chart"]["role"] == "img"
        chart = shared["aw-compare-chart"]["label"]
        assert chart == "Returns of a, b by step (click to go to a step)"
        swatches = root.locator(".aw-legend").get_by_role("img")
        assert swatches.evaluate_all("(s) => s.map((e) => e.getAttribute('aria-label'))") == [
            "Line of a in the returns chart",
            "Line of b in the returns chart",
        ]
    finally:
        page.close()


def test_a_connect_four_page_reads_out_the_agent_that_acted_and_draws_a_return_line_each(
    new_page, tmp_path
):
    pettingzoo = pytest.importorskip("pettingzoo")
    env = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
    game = record(env, lambda agent, obs: int(np.flatnonzero(obs["action_mask"])[0]), seed=0)
    win = int(np.flatnonzero(np.nan_to_num(game.agent_rewards[:, 0]) == 1)[0])
    legal = " ".join(map(str, np.flatnonzero(game.action_masks[win, 0])))
    path = EpisodeViewer(game, step=1).to_html(tmp_path / "connect_four.html", progress=False)
    page = new_page()
    try:
        opened = OpenedPage(page, path.as_uri())
        view = opened.view()
        view.wait_painted(1)
        assert view.canvas()["sha256"] == rgb_sha256(game.frames[1])
        opened.wait_for(
            "(root) => root.querySelector('.aw-readout').textContent.includes('acted')",
            view.handle,
            what="the readout of position 1's agents",
        )
        readout = view.readout().splitlines()
        assert readout[1:4] == [
            "acted: player_1",
            "player_0: action - · reward 0 · return 0 (after action 1)",
            "player_1: action 0 · legal 0 1 2 3 4 5 6 · reward 0 · return 0 (after action 1)",
        ]
        view.slide_to(win)
        view.wait_painted(win)
        opened.wait_for(
            "([root, text]) => root.querySelector('.aw-readout').textContent.includes(text)",
            [view.handle, "reward -1"],
            what="the readout of the winning move",
        )
        assert view.readout().splitlines()[1:4] == [
            "acted: player_0",
            f"player_0: action {game.agent_actions[win, 0]} · legal {legal} · reward 1 · "
            f"return 1 (after action {win})",
            f"player_1: action - · reward -1 · return -1 (after action {win})",
        ]
        keys = view.root.locator(".aw-timeline-key")
        for agent in game.agents:
            assert keys.filter(has_text=f"return[{agent}]").count() == 1
        canvas = view.root.locator("canvas.aw-timeline")
        # The extras' first two colours, a line each (thin: counted antialiased too).
        for colour in ("#8e44ad", "#16a085"):
            assert tallest_run(canvas, colour, within=40, min_alpha=64)["columns"] > 100, colour
        assert opened.requests() == []
    finally:
        page.close()
