"""How the widgets look and read in a real JupyterLab: every canvas follows a theme
switch at once (no step change needed) and is drawn at its shown size times the
device pixel ratio, numbers are printed to a readable precision, controls have
names and keys, and axe-core finds no accessibility violation in light or dark.

One notebook shows a viewer with a bars panel, a comparison and a leaderboard (the
scene every host is tested with), and a viewer whose infos hold thirds. JupyterLab
keeps the theme in its user settings, which the session's server shares: the module
always leaves it light again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import scene
from appearance import (
    DARK,
    LIGHT,
    axe_violations,
    canvas_size,
    parse_rgb,
    set_theme,
    text_pixels,
)
from lab import Notebook, Server, opened
from playwright.sync_api import Browser, Locator

pytestmark = pytest.mark.e2e

VIEWER, COMPARE, BOARD, THIRDS = 1, 2, 3, 4  # cell indices
Q = {"NOOP": 0.1, "FIRE": 1 / 3, "UPRIGHTFIRE": -0.25, "LEFT": 0.6}
CELLS = [
    scene.SETUP + f"\nviewer.add_panel('Q', lambda step: {Q!r})",
    "viewer",
    "compare",
    "board.selected = [board.rows[0]['id']]\nboard",  # a ticked row, for its contrast
    """EpisodeViewer(Rollout.from_arrays(frames=synthetic_frames(3), actions=[0, 1],
    rewards=[1 / 3, 2 / 3], infos=[{"prob": 1 / 3}] * 3))""",
]
WIDTHS = [1400, 700]  # the page's width, px


@pytest.fixture(scope="module")
def notebook(server: Server, new_page) -> Iterator[Notebook]:
    with opened(server, new_page(), "themes.ipynb", CELLS) as notebook:
        try:
            yield notebook
        finally:
            set_theme(notebook, LIGHT)


def cell(notebook: Notebook, index: int, selector: str) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(selector).first
    root.wait_for(timeout=30_000)
    return root


def bars(notebook: Notebook) -> Locator:
    canvas = cell(notebook, VIEWER, '.aw-card[data-name="Q"] canvas.aw-bars')
    return canvas


def wait_theme(notebook: Notebook, canvas: Locator, theme: str) -> None:
    """Waits until ``canvas`` was last drawn in ``theme`` ("light" or "dark")."""
    notebook.wait_for(
        "([el, theme]) => el.dataset.theme === theme",
        [canvas.element_handle(), theme],
        what=f"the canvas to be drawn in the {theme} theme",
    )


def assert_text_in(pixels: dict, rgb: tuple[int, int, int]) -> None:
    """Every well-covered text pixel is ``rgb`` (up to rounding), and there are some."""
    colours = {tuple(map(int, key.split(","))): n for key, n in pixels["colours"].items()}
    assert sum(colours.values()) > 50, f"hardly any text painted: {colours}"
    off = {
        c: n for c, n in colours.items() if max(abs(a - b) for a, b in zip(c, rgb, strict=True)) > 8
    }
    assert not off, f"text pixels not in {rgb}: {off}"


@pytest.mark.parametrize("width", WIDTHS)
def test_after_a_theme_switch_the_bars_text_is_in_the_new_themes_text_colour(notebook, width):
    notebook.page.set_viewport_size({"width": width, "height": 1000})
    canvas = bars(notebook)
    view = notebook.view(VIEWER)
    step = view.painted_step()
    for theme, name, rgb in [(DARK, "dark", (255, 255, 255)), (LIGHT, "light", (0, 0, 0))]:
        set_theme(notebook, theme)
        wait_theme(notebook, canvas, name)
        pixels = text_pixels(canvas)
        assert parse_rgb(pixels["css"]) == rgb
        assert_text_in(pixels, rgb)
    assert view.painted_step() == step  # no step change was needed


def test_a_theme_marked_on_the_body_without_a_relayout_redraws_the_bars(notebook):
    """JupyterLab hides and shows its shell on a switch (so the canvases' size observers
    fire too); a host that only swaps the variables and marks the body must be followed
    as well."""
    canvas = bars(notebook)
    red = (200, 30, 30)
    notebook.page.evaluate(
        """(rgb) => {
            document.body.style.setProperty("--jp-ui-font-color1", `rgb(${rgb.join(", ")})`);
            document.body.dataset.jpThemeName = "Test red";
        }""",
        list(red),
    )
    try:
        notebook.wait_for(
            "(el) => getComputedStyle(el).color === 'rgb(200, 30, 30)'", canvas.element_handle()
        )
        notebook.wait_until(
            lambda: ",".join(map(str, red)) in text_pixels(canvas)["colours"],
            what="the bars to be redrawn in the new text colour",
        )
        assert_text_in(text_pixels(canvas), red)
    finally:
        notebook.page.evaluate(
            """() => {
                document.body.style.removeProperty("--jp-ui-font-color1");
                document.body.dataset.jpThemeName = "JupyterLab Light";
            }"""
        )
    notebook.wait_until(
        lambda: "0,0,0" in text_pixels(canvas)["colours"], what="the bars in black again"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_bars_canvas_is_its_shown_size_times_the_pixel_ratio(notebook, width):
    notebook.page.set_viewport_size({"width": width, "height": 1000})
    canvas = bars(notebook)
    notebook.wait_for(
        "(el) => el.width === Math.round(el.getBoundingClientRect().width * devicePixelRatio)",
        canvas.element_handle(),
        what="the bars to be redrawn at their new width",
    )
    size = canvas_size(canvas)
    assert size["ratio"] == 1
    assert size["width"] == round(size["shownWidth"])
    assert size["height"] == round(size["shownHeight"])
    assert size["shownWidth"] >= 240  # the labels keep their 11 px at either width


def test_the_timeline_and_comparison_chart_follow_the_theme(notebook):
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    timeline = cell(notebook, VIEWER, "canvas.aw-timeline")
    chart = cell(notebook, COMPARE, "canvas.aw-compare-chart")
    set_theme(notebook, DARK)
    wait_theme(notebook, timeline, "dark")
    wait_theme(notebook, chart, "dark")
    # The comparison's playhead is drawn in the theme's text colour: light on dark.
    playhead = chart.evaluate(
        """(canvas) => {
            const c = canvas.getContext("2d");
            const row = c.getImageData(0, canvas.height / 2, canvas.width, 1).data;
            let best = 0;
            for (let i = 0; i < row.length; i += 4) {
                best = Math.max(best, row[i] + row[i + 1] + row[i + 2]);
            }
            return best;
        }"""
    )
    assert playhead >= 3 * 240
    set_theme(notebook, LIGHT)
    wait_theme(notebook, timeline, "light")
    wait_theme(notebook, chart, "light")


def test_the_readout_prints_numbers_to_a_readable_precision(notebook):
    view = notebook.view(THIRDS)
    view.wait_painted(0)
    notebook.wait_until(lambda: '"prob"' in view.readout(), what="the info to arrive")
    assert 'info: {"prob":0.3333}' in view.readout()
    assert "0.33333" not in view.readout()


def test_the_step_slider_is_named_and_the_keys_are_listed_in_a_help_tooltip(notebook):
    view = notebook.view(VIEWER)
    assert view.slider().get_attribute("aria-label") == "Step"
    assert view.slider().get_attribute("aria-valuetext").startswith("step ")
    help_text = view.root.locator(".aw-keys-help").get_attribute("title")
    for key in ["Shift", "Home", "End", "Space"]:
        assert key in help_text


def test_shift_arrows_step_by_ten_and_space_plays_and_pauses(notebook):
    view = notebook.view(VIEWER)
    view.press("Home", "Shift+ArrowRight", "Shift+ArrowRight")
    view.wait_painted(20)
    view.press("Shift+ArrowLeft")
    view.wait_painted(10)
    play = view.root.locator("button.aw-play")
    view.press(" ")
    notebook.wait_for("(el) => el.textContent === 'Pause'", play.element_handle())
    view.press(" ")
    notebook.wait_for("(el) => el.textContent === 'Play'", play.element_handle())


WIDGETS = {
    "viewer": (VIEWER, ".agent-widget"),
    "compare": (COMPARE, ".aw-compare"),
    "leaderboard": (BOARD, ".aw-leaderboard"),
}


@pytest.mark.parametrize("theme", [LIGHT, DARK])
@pytest.mark.parametrize("widget", list(WIDGETS))
def test_axe_finds_no_accessibility_violation(notebook, widget, theme):
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    index, selector = WIDGETS[widget]
    root = cell(notebook, index, selector)
    if widget == "viewer":
        notebook.view(VIEWER).wait_card("Q", notebook.view(VIEWER).painted_step(), "bars")
    set_theme(notebook, theme)
    try:
        violations = axe_violations(notebook, root)
    finally:
        set_theme(notebook, LIGHT)
    assert not violations, "\n".join(violations)


# Last in the module: closing its notebook shuts down every kernel of the server, the
# module notebook's too.
def test_at_twice_the_pixel_ratio_the_bars_are_drawn_at_twice_their_shown_size(
    server: Server, browser: Browser
):
    context = browser.new_context(viewport={"width": 1100, "height": 1000}, device_scale_factor=2)
    try:
        with opened(server, context.new_page(), "themes-hidpi.ipynb", CELLS) as notebook:
            canvas = bars(notebook)
            notebook.wait_for(
                "(el) => el.width === Math.round(el.getBoundingClientRect().width * 2)",
                canvas.element_handle(),
                what="the bars to be drawn at twice their shown width",
            )
            size = canvas_size(canvas)
            assert size["ratio"] == 2
            assert size["width"] == round(2 * size["shownWidth"])
            assert size["height"] == round(2 * size["shownHeight"])
            timeline = canvas_size(cell(notebook, VIEWER, "canvas.aw-timeline"))
            assert timeline["width"] == round(2 * timeline["shownWidth"])
    finally:
        context.close()
