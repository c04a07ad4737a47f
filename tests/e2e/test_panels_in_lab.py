"""Panel cards in a real JupyterLab and Chromium: bars, overlays, errors, and their recovery.

One notebook holds a 200-position synthetic episode with four panels: Q-value bars
(the taken action is t % 4), a saliency overlay whose right half is hot, a panel
that raises, and a 2x2 heatmap card with a missing value. Checks read the cards'
data attributes and their canvas pixels.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agent_widget.panels._heatmap import LUT
from harness.lab import Notebook, View
from tests.e2e.episodes import frame_digests, synthetic_frames

E2E = Path(__file__).parent
N = 200
DIGESTS = frame_digests(synthetic_frames(N))
VIEWER = 1  # cell index
HIGHLIGHT_RGB = [0xE6, 0x51, 0x00]  # js/panels/bars.ts HIGHLIGHT_COLOR
BAR_RGB = [0x90, 0xA4, 0xAE]  # js/panels/bars.ts BAR_COLOR
ROW_HEIGHT = 18  # js/panels/bars.ts

CELLS = [
    f"""import sys, time
import numpy as np
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode
from agent_widget.viewer import EpisodeViewer
viewer = EpisodeViewer(synthetic_episode({N}), fps=20)

@viewer.panel("Q")
def q_values(step):
    return np.array([1.0, 2.0, 3.0, 4.0]) + step.t % 3

@viewer.panel("saliency", overlay=True)
def saliency(step):
    hot = np.zeros((12, 16))
    hot[:, 8:] = 1.0
    return hot

@viewer.panel("broken")
def broken(step):
    raise ValueError(f"bad step {{step.t}}")

@viewer.panel("map")
def value_map(step):
    return np.array([[0.0, np.nan], [1.0, 0.5]])""",
    "viewer",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("panels.ipynb", CELLS)]


@pytest.fixture
def view(notebook: Notebook) -> View:
    return notebook.view(VIEWER)


def go_to(view: View, t: int) -> None:
    """Seek as a user does, and check the frame painted is exactly frame t."""
    view.slide_to(t)
    view.wait_painted(t)
    canvas = view.canvas()
    assert DIGESTS.get(canvas["sha256"]) == t


def bar_rows(view: View) -> list[str]:
    """The colour of each bar row of the Q card, read from its canvas pixels."""
    colours = (
        view.card("Q")
        .locator("canvas.aw-bars")
        .evaluate(
            """(canvas, [rowHeight, highlight, bar]) => {
            const c = canvas.getContext("2d");
            const same = (p, rgb) => p[0] === rgb[0] && p[1] === rgb[1] && p[2] === rgb[2];
            const rows = [];
            for (let y = rowHeight / 2; y < canvas.height; y += rowHeight) {
                const line = c.getImageData(0, y, canvas.width, 1).data;
                let h = 0, b = 0;
                for (let i = 0; i < line.length; i += 4) {
                    const p = line.subarray(i, i + 3);
                    if (same(p, highlight)) h++;
                    else if (same(p, bar)) b++;
                }
                rows.push(h > 0 && b === 0 ? "highlight" : b > 0 && h === 0 ? "bar" : "none");
            }
            return rows;
        }""",
            [ROW_HEIGHT, HIGHLIGHT_RGB, BAR_RGB],
        )
    )
    return list(colours)


def test_a_bar_chart_shows_the_sought_step_with_the_taken_action_highlighted(notebook, view):
    for t in (37, 122):
        go_to(view, t)
        data = view.wait_card("Q", t, "bars")
        assert data["highlight"] == str(t % 4)
        expected = ["bar"] * 4
        expected[t % 4] = "highlight"
        assert bar_rows(view) == expected


def test_an_overlay_is_drawn_over_the_frame_and_changes_its_pixels(notebook, view):
    go_to(view, 50)
    view.wait_card("saliency", 50, "heatmap")
    overlay = view.root.locator('canvas.aw-overlay[data-name="saliency"]')
    notebook.wait_for(
        "(el) => el.dataset.step === '50'", overlay.element_handle(), what="the overlay painted"
    )
    pixels = overlay.evaluate(
        """(canvas) => Array.from(
            canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data)"""
    )
    rgba = np.array(pixels, np.uint8).reshape(48, 64, 4)  # the frame's size
    assert (rgba[:, :32, 3] == 0).all()
    assert (rgba[:, 32:] == [*LUT[255], 255]).all()
    frame_box = view.root.locator("canvas.aw-frame").bounding_box()
    assert overlay.bounding_box() == frame_box

    stage = view.root.locator("div.aw-stage")
    with_overlay = screenshot(stage)
    view.card("saliency").locator("input.aw-opacity").evaluate(
        """(el) => { el.value = "0"; el.dispatchEvent(new Event("input", {bubbles: true})); }"""
    )
    without = screenshot(stage)
    half = without.shape[1] // 2
    assert (with_overlay[:, : half - 2] == without[:, : half - 2]).all()
    changed = np.abs(with_overlay[:, half + 2 :].astype(int) - without[:, half + 2 :]).sum(axis=2)
    assert (changed > 30).mean() > 0.9


def test_a_heatmap_card_is_coloured_from_its_levels_with_missing_values_clear(notebook, view):
    go_to(view, 30)
    view.wait_card("map", 30, "heatmap")
    canvas = view.card("map").locator("canvas.aw-image")
    notebook.wait_for(
        "(el) => el.dataset.step === '30'", canvas.element_handle(), what="the map painted"
    )
    pixels = canvas.evaluate(
        """(canvas) => Array.from(
            canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data)"""
    )
    rgba = np.array(pixels, np.uint8).reshape(2, 2, 4)  # the map's own size
    assert rgba[0, 0].tolist() == [*LUT[0], 255]  # the minimum
    assert rgba[0, 1, 3] == 0  # NaN
    assert rgba[1, 0].tolist() == [*LUT[255], 255]  # the maximum
    assert rgba[1, 1].tolist() == [*LUT[128], 255]  # level 128, entry round(127 * 255 / 254)


def test_an_exception_shows_an_error_card_and_the_frame_still_scrubs(notebook, view):
    go_to(view, 20)
    view.wait_card("broken", 20, "error")
    error = view.card("broken").locator("div.aw-error-title").inner_text()
    assert error == "ValueError: bad step 20"
    trace = view.card("broken").locator("pre.aw-traceback").inner_text()
    assert 'raise ValueError(f"bad step {step.t}")' in trace
    for t in (21, 90, 91):
        go_to(view, t)
    view.wait_card("broken", 91, "error")
    view.wait_card("Q", 91, "bars")


def test_re_registering_a_fixed_panel_replaces_its_error_card(notebook, view):
    go_to(view, 64)
    view.wait_card("broken", 64, "error")
    notebook.execute('viewer.add_panel("broken", lambda step: f"fixed at {step.t}")')
    view.wait_card("broken", 64, "text")
    assert view.card("broken").locator("pre.aw-text").inner_text() == "fixed at 64"
    assert view.card("broken").locator("div.aw-error").count() == 0


def test_a_slow_panel_is_dimmed_while_the_frames_keep_coming(notebook, view):
    notebook.execute(
        """import threading
gate = threading.Event()
viewer.add_panel("slow", lambda step: gate.wait(30) and f"slow {step.t}")"""
    )
    try:
        go_to(view, 100)
        for t in range(101, 106):  # the slow panel is still computing step 100
            go_to(view, t)
            assert view.card("slow").get_attribute("data-current") != "true"
        notebook.execute("gate.set()")
        view.wait_card("slow", 105, "text")  # caught up with the newest step
        view.wait_card("Q", 105, "bars")
    finally:
        notebook.execute('gate.set(); viewer.remove_panel("slow")')


def test_a_fast_panel_waits_for_at_most_one_call_of_a_slow_one(notebook, view):
    """The slow panel is let through one call at a time. While its first call runs the
    user moves on twice; both panels' queued requests follow (replaced by the front end),
    so once that call returns the fast card shows the user's step, computed once, and the
    slow panel's next call is for that step too."""
    notebook.execute(
        """import threading
permits = threading.Semaphore(0)
slow_calls, fast_calls = [], []
def slow(step):
    slow_calls.append(step.t)
    permits.acquire(timeout=60)
    return f"slow {step.t}"
def fast(step):
    fast_calls.append(step.t)
    return f"fast {step.t}"
viewer.add_panel("slow", slow)
viewer.add_panel("fast", fast)"""
    )
    try:
        [first] = notebook.wait_until(lambda: notebook.python("slow_calls"), what="slow's call")
        go_to(view, 170)
        go_to(view, 171)
        # Each panel's request is re-asked for on its own clock (at most every 100 ms), so
        # the slow one's may still be for 170 when the fast one's is for 171.
        queued = "[viewer._panels._wanted.get(name, [None])[0] for name in ('slow', 'fast')]"
        notebook.wait_until(
            lambda: notebook.python(queued) == [171, 171], what="both requests moved to 171"
        )
        notebook.execute("permits.release()")  # the one slow call returns
        view.wait_card("fast", 171, "text")
        assert notebook.python("fast_calls") == [171]
        assert notebook.python("slow_calls") == [first, 171]  # its next call waits
    finally:
        notebook.execute(
            'permits.release(); permits.release(); viewer.remove_panel("slow"); '
            'viewer.remove_panel("fast")'
        )


def test_a_panel_that_never_returns_says_so_and_recovers_once_it_does(notebook, view):
    """A panel spinning past its 1 s limit: its card says so, the other cards keep
    answering, and once the call is let go its panel answers the step shown."""
    notebook.execute(
        """import threading
let_go = threading.Event()
def spin(step):
    while not let_go.is_set():
        pass
    return f"back at {step.t}"
viewer.add_panel("stuck", spin, timeout=1)"""
    )
    try:
        go_to(view, 140)
        view.wait_card("stuck", 140, "error")
        title = view.card("stuck").locator("div.aw-error-title").inner_text()
        assert title == "TimeoutError: no answer after 1 s"
        go_to(view, 141)
        view.wait_card("Q", 141, "bars")
        view.wait_card("stuck", 141, "error")  # at once: the call for 140 still runs
        notebook.execute("let_go.set()")
        view.wait_card("stuck", 141, "text")
        assert view.card("stuck").locator("pre.aw-text").inner_text() == "back at 141"
    finally:
        notebook.execute('let_go.set(); viewer.remove_panel("stuck")')


def test_a_precomputed_panel_reports_progress_and_then_every_step_is_cached(notebook, view):
    go_to(view, 0)
    notebook.execute(
        """computed = []
viewer.add_panel("all", lambda step: computed.append(step.t) or f"pre {step.t}", precompute=True)"""
    )
    notebook.wait_for(
        "(el) => el.dataset.progress === '200/200'",
        view.card("all").element_handle(),
        timeout=60,
        what="precompute to finish",
    )
    assert sorted(notebook.python("computed")) == list(range(N))
    for t in (7, 150):
        go_to(view, t)
        view.wait_card("all", t, "text")
    assert len(notebook.python("computed")) == N  # served from the cache
    notebook.execute('viewer.remove_panel("all")')


def canvas_pixels(view: View, name: str) -> np.ndarray:
    """Card ``name``'s bars canvas as rows of RGBA, at its device pixels."""
    data = (
        view.card(name)
        .locator("canvas.aw-bars")
        .evaluate(
            """(canvas) => ({width: canvas.width, height: canvas.height,
                rgba: Array.from(canvas.getContext("2d").getImageData(
                    0, 0, canvas.width, canvas.height).data)})"""
        )
    )
    return np.array(data["rgba"], np.uint8).reshape(data["height"], data["width"], 4)


def test_the_greedy_action_is_marked_beside_its_label_not_as_a_bar(notebook, view):
    """A greedy Q of 0.426 beside a 30: the bars' area is painted as in a card naming
    no greedy action (no outline reaching the axis maximum), the label side differs
    on the greedy row only."""
    go_to(view, 5)
    notebook.execute(
        """class Bars(dict):
    pass

def bars(greedy):
    result = Bars(NOOP=0.426, FIRE=30.0, RIGHT=12.0)
    result.taken, result.greedy = 1, greedy
    return result

viewer.add_panel("greedy", lambda step: bars(0))
viewer.add_panel("plain", lambda step: bars(None))"""
    )
    try:
        assert view.wait_card("greedy", 5, "bars")["greedy"] == "0"
        view.wait_card("plain", 5, "bars")
        marked, plain = canvas_pixels(view, "greedy"), canvas_pixels(view, "plain")
        assert marked.shape == plain.shape
        ratio = marked.shape[0] / (3 * ROW_HEIGHT)
        left = round(round(marked.shape[1] / ratio * 0.3) * ratio)  # the bars' area's left edge
        np.testing.assert_array_equal(marked[:, left:], plain[:, left:])
        differ = np.flatnonzero((marked[:, :left] != plain[:, :left]).any(axis=(1, 2)))
        assert len(differ) > 0
        assert differ.max() < ROW_HEIGHT * ratio  # the first row's label side only
    finally:
        notebook.execute('viewer.remove_panel("greedy"); viewer.remove_panel("plain")')


def test_cards_can_be_moved_collapsed_and_hidden(notebook, view):
    def names() -> list[str]:
        return view.root.locator("div.aw-card:not([hidden])").evaluate_all(
            "(cards) => cards.map((c) => c.dataset.name)"
        )

    start = names()
    assert start[:2] == ["Q", "saliency"]
    view.card("Q").locator("button.aw-down").click()
    assert names()[:2] == ["saliency", "Q"]
    view.card("Q").locator("button.aw-up").click()
    view.card("Q").locator("button.aw-collapse").click()
    assert not view.card("Q").locator("div.aw-card-body").is_visible()
    view.card("Q").locator("button.aw-collapse").click()
    view.card("Q").locator("button.aw-hide").click()
    assert "Q" not in names()
    view.root.locator("summary.aw-panel-menu-title").click()
    view.root.locator('input.aw-show[data-name="Q"]').check()
    assert names() == start


def screenshot(locator) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("RGB"))
