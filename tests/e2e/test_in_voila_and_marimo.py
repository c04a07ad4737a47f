"""The main paths in Voila (``voila app.ipynb``) and marimo (``marimo run app.py`` and
the editor, ``marimo edit``; widgets shown with ``mo.ui.anywidget``), in Chromium: the
viewer paints the right frame and follows keys and its slider, a panel card shows the
text Python computed, a CompareViewer paints both columns on one slider, and the
leaderboard opens runs in a viewer and side by side, and the TrainingViewer paints
its value maps, writes their text and plays an episode. marimo's widget manager has
no ``create_view``: the comparison, the leaderboard and the TrainingViewer draw their
children from their models.

Each host serves the same widgets (tests/e2e/scene.py), one server per session and
one page per host for this module; each test moves the widgets where it needs them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator

from harness.appearance import canvas_size
from harness.charts import learning_curve
from harness.hosts import HostServer
from harness.views import View, WatchedPage
from tests.e2e import scene

pytestmark = pytest.mark.e2e

HOSTS = {"voila": "voila_server", "marimo": "marimo_server", "marimo-edit": "marimo_edit_server"}


class HostPage(WatchedPage):
    """A host's page with the scene's widgets, all shown."""

    def viewer(self) -> View:
        root = self.page.locator(".agent-widget").filter(has_text="solo viewer")
        root.wait_for(timeout=60_000)
        return View(self, root)

    def compare(self) -> Locator:
        root = self.page.locator(".aw-compare").filter(has_text="side by side")
        root.wait_for(timeout=60_000)
        return root

    def training(self, algorithm: str = "scene") -> Locator:
        """The TrainingViewer whose title names ``algorithm``."""
        root = self.page.locator(".aw-training").filter(has_text=f"· {algorithm} · training")
        root.locator(".agent-widget").first.wait_for(timeout=60_000)
        return root

    def board(self) -> Locator:
        root = self.page.locator(".aw-leaderboard")
        root.locator("tr.aw-run").first.wait_for(timeout=60_000)
        return root


@pytest.fixture(scope="module", params=list(HOSTS))
def app(request: pytest.FixtureRequest, new_page) -> Iterator[HostPage]:
    server: HostServer = request.getfixturevalue(HOSTS[request.param])
    app = HostPage(new_page())
    try:
        server.open(app.page)
        app.board()
    except Exception as error:
        raise AssertionError(
            f"{server.name} did not show the widgets: {error}\n"
            f"{app.console_tail()}\nserver log:\n{server.log_tail()}"
        ) from None
    yield app
    app.page.close()


def assert_shows(view: View, t: int, digests: dict[str, int]) -> None:
    """The view has painted step t, and its canvas holds exactly that frame's pixels."""
    view.wait_painted(t, timeout=60)
    canvas = view.canvas()
    shown = digests.get(canvas["sha256"], "no frame of the episode")
    assert (canvas["step"], shown) == (t, t), f"painted step {canvas['step']} shows {shown}"
    assert canvas["opaque"]


def slide(slider: Locator, t: int) -> None:
    """Move a slider as a user would: set its value and fire ``input``."""
    slider.evaluate(
        """(el, t) => {
            el.value = String(t);
            el.dispatchEvent(new Event("input", {bubbles: true}));
        }""",
        t,
    )


def test_the_viewer_paints_the_frame_of_its_step(app):
    view = app.viewer()
    slide(view.slider(), 0)
    assert_shows(view, 0, scene.VIEWER_DIGESTS)


def test_arrow_keys_step_the_viewer_frame_by_frame(app):
    view = app.viewer()
    slide(view.slider(), 10)
    assert_shows(view, 10, scene.VIEWER_DIGESTS)
    view.press("ArrowRight", "ArrowRight", "ArrowRight")
    assert_shows(view, 13, scene.VIEWER_DIGESTS)
    view.press("ArrowLeft")
    assert_shows(view, 12, scene.VIEWER_DIGESTS)
    view.press("End")
    assert_shows(view, scene.N - 1, scene.VIEWER_DIGESTS)


def test_the_slider_paints_its_frame_and_the_text_card_shows_what_python_computed(app):
    view = app.viewer()
    for t in (30, 19):
        slide(view.slider(), t)
        assert_shows(view, t, scene.VIEWER_DIGESTS)
        view.wait_card("note", t, "text")
        reward = 1.0 if t % 10 == 9 else 0.0
        assert view.card("note").locator(".aw-text").inner_text() == (
            f"python saw t={t}, reward {reward}"
        )


def test_the_comparison_paints_both_columns_on_one_slider(app):
    root = app.compare()
    views = [View(app, root.locator(".agent-widget").nth(i)) for i in range(2)]
    for t in (7, scene.LONG - 2):
        slide(root.locator(".aw-shared input.aw-slider"), t)
        assert_shows(views[0], t, scene.LONG_DIGESTS)
        assert_shows(views[1], min(t, scene.SHORT - 1), scene.SHORT_DIGESTS)
    assert root.locator(".aw-cell .aw-ended").nth(1).inner_text() == (
        f"ended at t = {scene.SHORT - 1}"
    )


def tick_only(app: HostPage, board: Locator, runs: set[str]) -> None:
    """Tick exactly the runs named ``runs`` (by their run column), as a user would."""
    for row in board.locator("tr.aw-run").all():
        name = row.locator("td").nth(1).inner_text()
        tick, wanted = row.locator("input.aw-tick"), name in runs
        if tick.is_checked() != wanted:
            tick.click()
            app.wait_until(
                lambda tick=tick, wanted=wanted: tick.is_checked() == wanted, what=f"{name} ticked"
            )


def test_the_leaderboard_opens_a_ticked_run_in_a_viewer(app):
    board = app.board()
    tick_only(app, board, {"slow"})
    board.locator("button.aw-open").click()
    opened = board.locator(".aw-opened > .aw-child > .agent-widget")
    opened.wait_for(timeout=60_000)
    assert_shows(View(app, opened), 0, scene.SLOW_DIGESTS)
    view = View(app, opened)
    view.press("ArrowRight", "ArrowRight")
    assert_shows(view, 2, scene.SLOW_DIGESTS)


def test_the_leaderboard_opens_two_ticked_runs_side_by_side(app):
    board = app.board()
    tick_only(app, board, {"fast", "slow"})
    board.locator("button.aw-open").click()
    compare = board.locator(".aw-opened .aw-compare")
    compare.wait_for(timeout=60_000)
    labels = compare.locator(".aw-legend-item").all_inner_texts()
    order = ["fast" if "fast" in label else "slow" for label in labels]
    digests = {"fast": scene.FAST_DIGESTS, "slow": scene.SLOW_DIGESTS}
    for i, run in enumerate(order):
        assert_shows(View(app, compare.locator(".agent-widget").nth(i)), 0, digests[run])
    assert sorted(order) == ["fast", "slow"]


def test_the_training_viewer_paints_its_value_maps_and_writes_their_text(app):
    root = app.training()
    view = View(app, root.locator(".aw-training-timeline .agent-widget"))
    for t in (scene.TRAINED, 1):
        slide(view.slider(), t)
        view.wait_painted(t, timeout=60)
        canvas = view.canvas()
        assert canvas["step"] == t
        assert canvas["sha256"] == scene.TRAINING_DIGESTS[t], f"position {t}'s map not painted"
        assert canvas["opaque"]
    letters = view.root.locator("canvas.aw-cell-labels")
    app.wait_for(
        "(el) => el.dataset.labels === '2'", letters.element_handle(), what="S and G written"
    )
    size = canvas_size(letters)
    # The colour bar beside the map is left out of the room: the map is fitted to whole
    # pixels, never shrunk by CSS to a fractional width.
    assert size["width"] == size["shownWidth"] * size["ratio"] > 0
    assert float(size["shownWidth"]).is_integer()
    bar = view.root.locator(".aw-colour-bar")
    ends = [bar.locator(f".aw-scale-{end}").inner_text() for end in ("low", "high")]
    assert ends == ["0", "1"]  # the scale fixed by value_range


def test_the_training_viewers_play_button_shows_the_episode_inside_the_widget(app):
    root = app.training()
    root.locator("button.aw-play-greedy").click()
    played = View(app, root.locator(".aw-played .agent-widget"))
    played.root.wait_for(timeout=60_000)
    played.wait_painted(0, timeout=60)
    assert "greedy policy at position" in played.root.locator(".aw-title").inner_text()
    assert played.canvas()["opaque"]
    assert root.locator(".aw-message").inner_text() == ""


def test_the_training_viewers_curve_is_the_seeded_runs_in_episodes(app):
    """The same seeded run gives the same curve in every host, however many positions
    its pace gave: x ticks in episodes, every episode's return in the total."""
    episodes = scene.CURVE_EPISODES
    drawn = learning_curve(app, app.training("curve"), episodes)
    ticks = [int(label) for label in drawn["steps"]]
    step = ticks[1] - ticks[0]
    assert ticks == list(range(0, ticks[-1] + 1, step)), drawn["steps"]
    assert episodes - step < ticks[-1] <= episodes, f"{episodes} episodes, ticks {ticks}"
    assert drawn["legend"][1] == f"total return 0 to {scene.CURVE_RETURNS.sum():.0f}"
    assert drawn["caption"].endswith(f"shows the table after episode {episodes - 1:,}")


def test_buttons_and_inputs_carry_their_own_borders_and_padding(app):
    controls = app.viewer().root.locator(".aw-controls")
    controls = {
        s: controls.locator(s) for s in ("button.aw-prev", "button.aw-play", "input.aw-fps")
    }
    controls["Play greedy policy"] = app.training().locator("button.aw-play-greedy")
    for name, control in controls.items():
        style = control.evaluate(
            """(el) => { const s = getComputedStyle(el);
                return [s.borderTopStyle, s.borderTopWidth, s.paddingLeft]; }"""
        )
        assert style == ["solid", "1px", "8px"], name
