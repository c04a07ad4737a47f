"""CompareViewer in a real JupyterLab and Chromium: one slider moves every episode's canvas.

Two synthetic episodes of one env and seed, of different lengths, with frames that
name their episode and position (so a canvas checksum says which frame is shown),
whose actions first differ at step 23.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator

from harness.charts import chart_of, hover, hover_hidden, tallest_run
from harness.lab import Notebook, View
from tests.e2e.episodes import frame_digests, synthetic_frames

E2E = Path(__file__).parent
LONG, SHORT, DIVERGENCE = 60, 40, 23
# The short episode's frames are those of positions 1000.. of the synthetic sequence.
DIGESTS = [frame_digests(synthetic_frames(LONG)), frame_digests(synthetic_frames(1000 + SHORT))]
DIGESTS[1] = {digest: t - 1000 for digest, t in DIGESTS[1].items() if t >= 1000}
COMPARE = 1  # cell index

CELLS = [
    f"""import sys
sys.path.insert(0, {str(E2E)!r})
import numpy as np
from episodes import synthetic_frames
from agent_widget.compare import CompareViewer
from agent_widget.episodes import Rollout

def episode(frames, actions):
    return Rollout.from_arrays(frames=frames, actions=actions,
                               rewards=np.where(np.arange(len(actions)) % 7 == 6, 1.0, 0.0),
                               metadata={{"env_id": "Synthetic-v0", "seed": 0}})

long_actions = np.arange({LONG - 1}) % 4
short_actions = long_actions[:{SHORT - 1}].copy()
short_actions[{DIVERGENCE}] = (short_actions[{DIVERGENCE}] + 1) % 4
long = episode(synthetic_frames({LONG}), long_actions)
short = episode(synthetic_frames({1000 + SHORT})[1000:], short_actions)
compare = CompareViewer({{"long": long, "short": short}}, fps=20)""",
    "compare",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("compare.ipynb", CELLS)]


@pytest.fixture
def root(notebook: Notebook) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(COMPARE).locator(".aw-compare")
    root.wait_for(timeout=30_000)
    return root


@pytest.fixture
def views(notebook: Notebook, root: Locator) -> list[View]:
    return [notebook.view(COMPARE, i) for i in range(2)]


def assert_show(views: list[View], positions: list[int]) -> None:
    """Each child has painted its expected position, and its canvas holds exactly that frame."""
    for i, (view, t) in enumerate(zip(views, positions, strict=True)):
        view.wait_painted(t)
        canvas = view.canvas()
        shown = DIGESTS[i].get(canvas["sha256"], "no frame of this episode")
        assert (canvas["step"], shown) == (t, t), (
            f"episode {i}: painted {canvas['step']} shows {shown}"
        )


def slide_to(root: Locator, t: int) -> None:
    root.locator(".aw-shared input.aw-slider").evaluate(
        """(el, t) => {
            el.value = String(t);
            el.dispatchEvent(new Event("input", {bubbles: true}));
        }""",
        t,
    )


def kernel_step(notebook: Notebook) -> int:
    return int(notebook.python("compare.step"))


def test_the_shared_slider_moves_every_canvas_to_its_frame(notebook, root, views):
    slide_to(root, 30)
    assert_show(views, [30, 30])
    notebook.wait_until(lambda: kernel_step(notebook) == 30, what="compare.step == 30")


def test_a_shorter_episode_holds_its_last_frame_marked_ended(notebook, root, views):
    slide_to(root, 50)
    assert_show(views, [50, SHORT - 1])
    ended = root.locator(".aw-cell .aw-ended")
    assert ended.nth(0).inner_text() == ""
    assert ended.nth(1).inner_text() == f"ended at t = {SHORT - 1}"
    # Saved, so that the next test's step set in Python is not undone by this save.
    notebook.wait_until(lambda: kernel_step(notebook) == 50, what="compare.step == 50")


def test_setting_step_in_python_moves_every_episode(notebook, views):
    notebook.execute("compare.step = 12")
    assert_show(views, [12, 12])


def test_the_divergence_is_found_marked_and_jumped_to(notebook, root, views):
    assert notebook.python("compare.divergence") == DIVERGENCE
    notebook.execute("compare.step = 0")
    assert_show(views, [0, 0])
    jump = root.locator("button.aw-jump-divergence")
    assert jump.inner_text() == f"Jump to divergence (t = {DIVERGENCE})"
    jump.click()
    assert_show(views, [DIVERGENCE, DIVERGENCE])
    notebook.wait_until(lambda: kernel_step(notebook) == DIVERGENCE, what="the kernel's step")
    # The playhead on the divergence step does not hide its mark (js/compare/chart.ts).
    marks = root.locator("canvas.aw-compare-chart").evaluate(
        """(canvas, [t, length]) => {
            const c = canvas.getContext("2d");
            const {width, height} = canvas;
            const x = Math.round(((t + 0.5) / length) * width);
            const strip = c.getImageData(x - 3, 0, 7, height).data;
            let pink = 0;
            for (let i = 0; i < strip.length; i += 4) {
                pink += strip[i] === 0xe9 && strip[i + 1] === 0x1e && strip[i + 2] === 0x63;
            }
            return pink;
        }""",
        [DIVERGENCE, LONG],
    )
    assert marks > 10


def test_step_keys_in_a_child_move_the_whole_comparison(notebook, views):
    notebook.execute("compare.step = 5")
    assert_show(views, [5, 5])
    views[1].press("ArrowRight", "ArrowRight")
    assert_show(views, [7, 7])
    notebook.wait_until(lambda: kernel_step(notebook) == 7, what="compare.step == 7")


def test_playback_moves_every_episode_and_pauses_on_one_shared_step(notebook, root, views):
    notebook.execute("compare.step = 0")
    assert_show(views, [0, 0])
    play = root.locator(".aw-shared button.aw-play")
    play.click()
    notebook.wait_for(
        "(el) => Number(el.dataset.step) >= 45", root.element_handle(), what="playback to 45"
    )
    play.click()
    stopped = int(root.get_attribute("data-step") or -1)
    assert 45 <= stopped < LONG
    assert_show(views, [stopped, min(stopped, SHORT - 1)])
    notebook.animation_frames(30)  # still playing, it would have moved on
    assert root.get_attribute("data-step") == str(stopped), "the comparison kept moving"
    notebook.wait_until(lambda: kernel_step(notebook) == stopped, what=f"compare.step == {stopped}")


def test_the_legend_names_each_episode_with_its_return(root):
    items = root.locator(".aw-legend .aw-legend-item")
    assert [items.nth(i).inner_text() for i in range(2)] == ["long: return 8", "short: return 5"]


def test_hovering_the_chart_shows_each_episodes_return_at_that_step(notebook, root):
    """The values under the pointer are the episodes' returns there, as recorded: the
    shorter one held at its last return past its end."""
    returns = notebook.python("[long.returns.tolist(), short.returns.tolist()]")
    canvas = root.locator("canvas.aw-compare-chart")
    for t in (10, 30, 55):
        shown = hover(notebook, canvas, (t + 0.5) / LONG, f"step {t}")
        held = [r[min(t, len(r) - 1)] for r in returns]
        assert shown["rows"] == [["long", f"{held[0]:g}"], ["short", f"{held[1]:g}"]], t
        assert shown["inside"], shown
        assert not shown["covers"], shown
        width = canvas.bounding_box()["width"]
        assert abs(shown["rule"] - (t + 0.5) / LONG * width) <= 1, shown
    notebook.page.mouse.move(0, 0)
    notebook.wait_until(lambda: hover_hidden(chart_of(canvas)), what="the hover box to go")


def test_a_legend_click_hides_its_line_and_a_second_shows_it(notebook, root):
    canvas = root.locator("canvas.aw-compare-chart")
    short = root.locator(".aw-legend .aw-legend-item").nth(1)
    orange = "#ff7f0e"  # the short episode's line, light theme (js/compare/chart.ts)
    assert tallest_run(canvas, orange, min_alpha=128)["columns"] > 100
    short.click()
    assert short.get_attribute("aria-pressed") == "false"
    notebook.wait_until(
        lambda: tallest_run(canvas, orange, min_alpha=128)["columns"] == 0,
        what="the short episode's line to go",
    )
    shown = hover(notebook, canvas, 10.5 / LONG, "step 10")
    assert [row[0] for row in shown["rows"]] == ["long"]
    short.click()
    assert short.get_attribute("aria-pressed") == "true"
    notebook.wait_until(
        lambda: tallest_run(canvas, orange, min_alpha=128)["columns"] > 100,
        what="the short episode's line to come back",
    )
    notebook.page.mouse.move(0, 0)


def test_a_diff_panel_compares_both_episodes_at_each_shared_step(notebook, root, views):
    notebook.execute(
        """compare.add_diff_panel(
    "actions", lambda a, b: f"long {a.t}: {a.action}, short {b.t}: {b.action}", a="long", b="short"
)"""
    )
    try:
        for t in (10, DIVERGENCE):
            slide_to(root, t)
            assert_show(views, [t, t])
            views[1].wait_card("actions", t, "text")
            a, b = t % 4, (t % 4 + (t == DIVERGENCE)) % 4
            text = views[1].card("actions").locator("pre.aw-text").inner_text()
            assert text == f"long {t}: {a}, short {t}: {b}"
        assert views[0].card("actions").count() == 0  # the card is in b's viewer only
    finally:
        notebook.execute('compare.remove_panel("actions")')


def test_a_plain_comparison_shows_no_what_if_bar(root):
    """The bar is what_if()'s alone (test_what_if_in_lab sees it there)."""
    bar = root.locator(".aw-what-if")
    assert bar.count() == 1
    assert not bar.is_visible()


def test_in_a_420_px_cell_the_frames_stay_side_by_side_next_to_the_slider(notebook, root):
    root.evaluate("(root) => { root.parentElement.style.width = '420px'; }")
    try:
        notebook.wait_for(
            """(root) => root.querySelector(".aw-compare-grid").style.gridTemplateColumns
                .startsWith("repeat(2,")""",
            root.element_handle(),
            what="the grid laid out for 420 px",
        )
        boxes = root.evaluate(
            """(root) => [".aw-shared .aw-slider", ".aw-cell:nth-child(1) canvas.aw-frame",
                          ".aw-cell:nth-child(2) canvas.aw-frame"].map((selector) => {
                const box = root.querySelector(selector).getBoundingClientRect();
                return {left: box.left, right: box.right, top: box.top, bottom: box.bottom};
            })"""
        )
        slider, first, second = boxes
        assert first["top"] == second["top"]  # side by side
        assert first["right"] <= second["left"]
        # One slider for both, its frames under it and the shared chart (axis titles,
        # legend): not after a column's readout, 1,500 px down as before.
        assert slider["bottom"] <= first["top"] < slider["bottom"] + 400
        assert second["right"] <= 420 + root.bounding_box()["x"]
    finally:
        root.evaluate("(root) => { root.parentElement.style.width = ''; }")
