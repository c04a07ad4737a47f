"""How the widgets look and read in a real JupyterLab: every canvas follows a theme
switch at once (no step change needed) and is drawn at its shown size times the
device pixel ratio, numbers are printed to a readable precision, controls have
names and keys, and axe-core finds no accessibility violation in light or dark.

One notebook shows a viewer with a bars panel, a comparison and a leaderboard (the
scene every host is tested with), a viewer whose infos hold thirds, a TrainingViewer,
a comparison whose columns' bars share a scale, a viewer of rewards of either sign and
a what-if comparison. Each widget is also looked at in a 420 px cell, where nothing
may stick out of it.
JupyterLab keeps the theme in its user settings, which the session's server shares:
the module always leaves it light again.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Locator

from harness.appearance import (
    DARK,
    LIGHT,
    axe_violations,
    broken_words,
    canvas_names,
    canvas_size,
    horizontal_overflow,
    parse_rgb,
    set_cell_width,
    set_theme,
    text_pixels,
)
from harness.charts import axis_labels as labels_of
from harness.charts import chart_of
from harness.lab import Notebook, Server, opened
from tests.e2e import scene

# The cells:
VIEWER, COMPARE, BOARD, THIRDS, TRAINING, SHARED, SMALL, THIN, FRAMELESS, NOISY, WHAT_IF = range(
    1, 12
)
ROOT = Path(__file__).resolve().parents[2]  # where the kernel finds tests.cartpole
Q = {"NOOP": 0.1, "FIRE": 1 / 3, "UPRIGHTFIRE": -0.25, "LEFT": 0.6}
WHY = (
    "pole angle exceeded twelve degrees: episode terminated although the cart velocity "
    "remained comfortably within its documented limits throughout"
)
GREEDY_Q, RANDOM_Q = {"LEFT": 0.609, "RIGHT": 0.2}, {"LEFT": 0.127, "RIGHT": 0.05}
CELLS = [
    scene.SETUP + f"\nviewer.add_panel('Q', lambda step: {Q!r})",
    "viewer",
    "compare",
    "board.selected = [board.rows[0]['id']]\nboard",  # a ticked row, for its contrast
    f"""EpisodeViewer(Rollout.from_arrays(frames=synthetic_frames(3), actions=[0, 1],
    rewards=[1 / 3, 2 / 3], infos=[{{"prob": 1 / 3, "why": {WHY!r}}}] * 3))""",
    """import gymnasium as gym
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake, interval=0, value_range=(0, 1), algorithm="Q-learning")
QLearning(lake, seed=0).train(200, callback=training.snapshot)
training""",
    f"""shared = CompareViewer({{"greedy": episode(synthetic_frames(20)),
                        "random": episode(synthetic_frames(20))}}, title="shared scales")
shared.viewers[0].add_panel("Q", lambda step: {GREEDY_Q!r})
shared.viewers[1].add_panel("Q", lambda step: {RANDOM_Q!r})
shared""",
    "EpisodeViewer(synthetic_frames(3, height=120, width=160), scale=1)",  # a 160 px frame
    # 600x400 white frames crossed by a 1 px line (CartPole's track) at rows 296 to 303,
    # shown 250 px tall.
    """track = np.full((8, 400, 600, 3), 255, np.uint8)
for t in range(8):
    track[t, 296 + t] = 0
EpisodeViewer(track, height=250)""",
    "EpisodeViewer(Rollout.from_arrays(observations=np.zeros((3, 2)), actions=[1, 0]))",
    # More steps than the timeline has pixels, rewards of either sign: each pixel column
    # spans several rewards, drawn as a bar from their least to their greatest.
    """EpisodeViewer(Rollout.from_arrays(observations=np.zeros((2001, 2)), actions=[0] * 2000,
    rewards=np.random.default_rng(0).normal(0.1, 1, 2000)))""",
    f"""sys.path.insert(0, {str(ROOT)!r})
from agent_widget import record, what_if
from tests.cartpole import balance, cartpole
branching = what_if(record(cartpole(), balance, seed=3, max_steps=40, agent="pd"),
                    env=cartpole, policy=balance)
branching""",
]
WIDTHS = [1400, 700]  # the page's width, px

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("themes.ipynb", CELLS)]


@pytest.fixture(scope="module")
def notebook(notebook: Notebook) -> Iterator[Notebook]:
    """The module's notebook, left in the light theme whatever its tests switched to."""
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


def assert_text_in(pixels: dict, rgb: tuple[int, int, int], least: int = 50) -> None:
    """Every well-covered text pixel is ``rgb`` (up to rounding), and at least ``least``."""
    colours = {tuple(map(int, key.split(","))): n for key, n in pixels["colours"].items()}
    assert sum(colours.values()) >= least, f"hardly any text painted: {colours}"
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


# Each theme's own series colours (js/shared/timeline.ts LIGHT and DARK, js/compare/
# chart.ts PALETTE and DARK_PALETTE): the timeline's reward and penalty bars, return line
# and cursor, the comparison's first two episodes' return lines.
SERIES = {
    "timeline": {
        "light": {
            "reward": "#4c9a2a",
            "penalty": "#c0392b",
            "return": "#1f5fbf",
            "cursor": "#e67e22",
        },
        "dark": {
            "reward": "#7cc35a",
            "penalty": "#ff7b6b",
            "return": "#7ab4ff",
            "cursor": "#ffa040",
        },
    },
    "comparison chart": {
        "light": {"long": "#1f77b4", "short": "#ff7f0e"},
        "dark": {"long": "#5fa8e8", "short": "#ffa04d"},
    },
}
# Where each strip is, and what says it holds its data (the timeline notes whether it
# is summarized once it has the series, the chart has its value axis's labels).
STRIPS = {
    "timeline": (NOISY, "canvas.aw-timeline", "el.dataset.summarized !== undefined"),
    "comparison chart": (
        COMPARE,
        "canvas.aw-compare-chart",
        "el.closest('.aw-chart').querySelector('.aw-axis-left .aw-axis-tick') !== null",
    ),
}


def painted_counts(canvas: Locator, colours: dict[str, str], within: int = 2) -> dict[str, int]:
    """How many pixels of a screenshot of ``canvas`` are each colour (``#rrggbb``), every
    channel within ``within``: the inside of a bar or a line, not its anti-aliased edges,
    which blend with what is behind."""
    shot = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")).astype(int)
    counts = {}
    for name, colour in colours.items():
        rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        counts[name] = int((np.abs(shot - rgb).max(axis=2) <= within).sum())
    return counts


@pytest.mark.parametrize("strip", list(SERIES))
def test_the_series_are_painted_in_the_themes_own_colours(notebook, strip):
    """A light theme's colours on a dark background (or the reverse) lose their
    contrast: each theme paints its own, and none of the other's. The noisy viewer's
    rewards give bars either side of zero and a wandering return; the comparison's two
    returns rise."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    index, selector, drawn = STRIPS[strip]
    canvas = cell(notebook, index, selector)
    canvas.scroll_into_view_if_needed()
    colours = SERIES[strip]
    try:
        for theme, name, other in [(DARK, "dark", "light"), (LIGHT, "light", "dark")]:
            set_theme(notebook, theme)
            notebook.wait_for(
                f"([el, theme]) => el.dataset.theme === theme && {drawn}",
                [canvas.element_handle(), name],
                what=f"the {strip} to be drawn with its data in the {name} theme",
            )
            own = painted_counts(canvas, colours[name])
            others = painted_counts(canvas, colours[other])
            found = f"{name} theme: its own colours {own}, the {other} theme's {others}"
            assert min(own.values()) >= 40, found  # each at least a column of the strip
            assert max(others.values()) == 0, found
    finally:
        set_theme(notebook, LIGHT)


def test_each_comparison_column_is_marked_in_its_runs_line_colour(notebook):
    """A column's top edge and its title's dot are its line's colour in the chart and
    the legend, in either theme."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    root = cell(notebook, COMPARE, ".aw-compare")
    try:
        for theme, name in [(DARK, "dark"), (LIGHT, "light")]:
            set_theme(notebook, theme)
            lines = SERIES["comparison chart"][name]
            expected = [
                f"rgb({', '.join(str(int(c[i : i + 2], 16)) for i in (1, 3, 5))})"
                for c in (lines["long"], lines["short"])
            ]
            notebook.wait_for(
                """([root, expected]) => [...root.querySelectorAll(".aw-compare-grid > .aw-cell")]
                    .every((cell, i) => getComputedStyle(cell).borderTopColor === expected[i]
                        && getComputedStyle(cell.querySelector(".aw-title"), "::before")
                            .backgroundColor === expected[i])""",
                [root.element_handle(), expected],
                what=f"the columns marked {expected} in the {name} theme",
            )
    finally:
        set_theme(notebook, LIGHT)


def test_the_readout_prints_numbers_to_a_readable_precision(notebook):
    """Rewards of 1/3 and 2/3: three significant digits of the smallest, at every step."""
    view = notebook.view(THIRDS)
    view.wait_painted(0)
    notebook.wait_until(lambda: '"prob"' in view.readout(), what="the info to arrive")
    assert 'info: {"prob":0.3333,"why":"' in view.readout()
    assert "0.33333" not in view.readout()
    assert "reward: 0.333 (of action 0)\nreturn: 0.000 (before action 0)\n" in view.readout()
    view.press("ArrowRight")
    view.wait_painted(1)
    assert "reward: 0.667 (of action 1)\nreturn: 0.333 (before action 1)\n" in view.readout()


def test_the_readouts_info_is_a_tree_that_stays_open_from_step_to_step(notebook):
    view = notebook.view(THIRDS)
    view.press("Home")
    view.wait_painted(0)
    tree = view.root.locator(".aw-readout details.aw-tree")
    tree.locator("summary").click()
    leaf = tree.locator(".aw-readout-row").first
    assert leaf.locator("dt").inner_text() == "prob"
    assert leaf.locator("dd").inner_text() == "0.3333"
    view.press("ArrowRight")
    view.wait_painted(1)
    assert view.root.locator(".aw-readout details.aw-tree[open]").count() == 1
    assert view.root.locator(".aw-readout .aw-readout-row dd").last.inner_text() == WHY


def test_the_step_slider_is_named_and_the_keys_are_listed_in_a_help_tooltip(notebook):
    view = notebook.view(VIEWER)
    assert view.slider().get_attribute("aria-label") == "Step"
    assert view.slider().get_attribute("aria-valuetext").startswith("step ")
    help_text = view.root.locator(".aw-keys-help").get_attribute("title")
    for key in ["Shift", "Home", "End", "Space"]:
        assert key in help_text


@pytest.mark.parametrize("width", WIDTHS)
def test_beside_a_160_px_frame_speed_loop_and_help_stay_on_one_line(notebook, width):
    """The fps box, its unit, the loop checkbox, its label and the "?" share one line
    (their middles within a pixel): the controls wrap by groups, never between them."""
    notebook.page.set_viewport_size({"width": width, "height": 1000})
    view = notebook.view(SMALL)
    view.wait_painted(0)
    middles = view.root.locator(".aw-options").evaluate(
        """(options) => {
            const middle = (r) => r.top + r.height / 2;
            const text = (label) => {
                const range = document.createRange();
                range.selectNodeContents(label.lastChild);  // the label's text
                return middle(range.getBoundingClientRect());
            };
            const fps = options.querySelector(".aw-fps-label");
            const loop = options.querySelector(".aw-loop-label");
            return [
                middle(fps.querySelector("input").getBoundingClientRect()), text(fps),
                middle(loop.querySelector("input").getBoundingClientRect()), text(loop),
                middle(options.querySelector(".aw-keys-help").getBoundingClientRect()),
            ];
        }"""
    )
    assert max(middles) - min(middles) <= 1, middles
    shown = view.root.locator("canvas.aw-frame").evaluate("(c) => c.getBoundingClientRect().width")
    assert shown == 160


def test_a_frame_shown_smaller_than_its_pixels_keeps_its_thin_lines(notebook):
    """Nearest-neighbour at 250/400 shows 5 rows in 8 and drops the others, lines on them
    with them. Smooth scaling keeps a line on any row, greyed; an upscaled frame stays
    pixelated."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    view = notebook.view(THIN)
    frame = view.root.locator("canvas.aw-frame")
    darkest = []
    for t in range(8):
        view.slide_to(t)
        view.wait_painted(t)
        assert frame.get_attribute("data-scaling") == "smooth"
        shot = np.asarray(Image.open(io.BytesIO(frame.screenshot())).convert("L")).astype(int)
        darkest.append(int(shot.mean(axis=1).min()))
    assert max(darkest) < 230, darkest  # every frame's line shows
    small = notebook.view(SMALL).root.locator("canvas.aw-frame")
    assert small.get_attribute("data-scaling") == "pixelated"


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
    "training": (TRAINING, ".aw-training"),
    "shared scales": (SHARED, ".aw-compare"),
    "what-if": (WHAT_IF, ".aw-compare"),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_axe_finds_no_accessibility_violation_in_any_widget(notebook, theme, width):
    notebook.page.set_viewport_size({"width": width, "height": 1000})
    notebook.view(VIEWER).wait_card("Q", notebook.view(VIEWER).painted_step(), "bars")
    set_theme(notebook, theme)
    try:
        violations = {
            widget: axe_violations(cell(notebook, index, selector))
            for widget, (index, selector) in WIDGETS.items()
        }
    finally:
        set_theme(notebook, LIGHT)
    found = [f"{widget}: {line}" for widget, lines in violations.items() for line in lines]
    assert not found, "\n".join(found)


def test_in_a_420_px_cell_no_widget_sticks_out_nor_breaks_a_word(notebook):
    """A widget fits its cell across: nothing pushes past its edge (wide tables scroll
    inside their own box), nor is it wider than the cell. The readouts wrap between
    words, an info's long sentence (opened in its tree) included."""
    size = notebook.page.viewport_size
    thirds = notebook.view(THIRDS).root
    tree = thirds.locator(".aw-readout details.aw-tree")
    if tree.get_attribute("open") is None:
        tree.locator("summary").click()
    widgets = {**WIDGETS, "thirds": (THIRDS, ".agent-widget")}
    try:
        set_cell_width(notebook, cell(notebook, VIEWER, ".agent-widget"), 420)
        fits = {
            widget: horizontal_overflow(cell(notebook, index, selector))
            for widget, (index, selector) in widgets.items()
        }
        broken = {
            widget: broken_words(cell(notebook, index, selector), ".aw-readout")
            for widget, (index, selector) in widgets.items()
        }
        assert thirds.locator(".aw-readout .aw-tree dd").last.inner_text() == WHY
    finally:
        notebook.page.set_viewport_size(size)
    assert not any(broken.values()), broken
    out = {
        widget: fit
        for widget, fit in fits.items()
        if fit["scrollWidth"] > fit["clientWidth"] or fit["width"] > fit["cell"]
    }
    assert not out, out


def test_every_canvas_is_a_named_picture(notebook):
    """Frames, timelines, bars, charts and legend swatches say what they show."""
    view = notebook.view(VIEWER)
    view.wait_card("Q", view.painted_step(), "bars")
    unnamed = {
        widget: [
            c
            for c in canvas_names(cell(notebook, index, selector))
            if c["role"] != "img" or not c["label"]
        ]
        for widget, (index, selector) in WIDGETS.items()
    }
    assert not any(unnamed.values()), unnamed
    step = view.painted_step()
    names = {c["class"]: c["label"] for c in canvas_names(view.root)}
    assert names["aw-frame"] == f"Frame at step {step} of {scene.N - 1}"
    assert names["aw-bars"] == f"Bars of panel Q at step {step}"
    timeline = "Timeline of reward and return over the steps (click to go to one)"
    assert names["aw-timeline"] == timeline


def test_card_buttons_and_the_panels_menu_say_what_they_do_to_which_panel(notebook):
    card = notebook.view(VIEWER).card("Q")
    for action in ["Move panel Q up", "Move panel Q down", "Collapse panel Q", "Hide panel Q"]:
        assert card.get_by_role("button", name=action, exact=True).count() == 1, action
    card.get_by_role("button", name="Collapse panel Q").click()
    expand = card.get_by_role("button", name="Expand panel Q", exact=True)
    assert expand.get_attribute("title") == "Expand panel Q"
    expand.click()
    menu = notebook.view(VIEWER).root.get_by_role(
        "checkbox", name="Show panel Q", exact=True, include_hidden=True
    )
    assert menu.count() == 1


def painted_bar_widths(canvas: Locator) -> list[int]:
    """Each bar's painted length in canvas pixels: its row's pixels in the bar colours
    (js/panels/bars.ts: rows of 18 px, the bar from 2 to 16)."""
    return list(
        canvas.evaluate(
            """(canvas) => {
            const ratio = canvas.width / canvas.getBoundingClientRect().width;
            const c = canvas.getContext("2d");
            const colours = [[0x90, 0xa4, 0xae], [0xe6, 0x51, 0x00]];
            const widths = [];
            for (let y = 9; y * ratio < canvas.height; y += 18) {
                const row = c.getImageData(0, Math.round(y * ratio), canvas.width, 1).data;
                let n = 0;
                for (let i = 0; i < row.length; i += 4) {
                    const near = (rgb) => rgb.every((v, k) => Math.abs(row[i + k] - v) <= 3);
                    if (row[i + 3] > 250 && colours.some(near)) n++;
                }
                widths.push(n);
            }
            return widths;
        }"""
        )
    )


def shared_bars(notebook: Notebook) -> list[Locator]:
    return [notebook.view(SHARED, i).card("Q").locator("canvas.aw-bars").first for i in range(2)]


def wait_scale(notebook: Notebook, canvases: list[Locator], scale: list[str]) -> None:
    for canvas, expected in zip(canvases, scale, strict=True):
        notebook.wait_for(
            "([el, scale]) => el.dataset.scale === scale",
            [canvas.element_handle(), expected],
            what=f"the bars to be drawn on {expected}",
        )


@pytest.mark.parametrize("width", WIDTHS)
def test_a_comparisons_bars_share_one_scale_so_their_lengths_compare(notebook, width):
    notebook.page.set_viewport_size({"width": width, "height": 1000})
    greedy, random = shared_bars(notebook)
    wait_scale(notebook, [greedy, random], ["0,0.62", "0,0.62"])  # fitted around 0.609
    (greedy_left, greedy_right), (random_left, random_right) = map(
        painted_bar_widths, [greedy, random]
    )
    assert greedy_left > 40  # at 700 px the columns are side by side, their cards narrower
    # random's 0.127 drawn 0.127 / 0.609 as long as greedy's 0.609 (to a pixel or two)
    assert abs(random_left - greedy_left * 0.127 / 0.609) <= 2
    assert abs(random_right - greedy_left * 0.05 / 0.609) <= 2
    assert abs(greedy_right - greedy_left * 0.2 / 0.609) <= 2


def test_without_shared_scales_each_column_fills_its_own(notebook):
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    greedy, random = shared_bars(notebook)
    notebook.execute("shared.shared_scales = False")
    try:
        wait_scale(notebook, [greedy, random], ["0,0.62", "0,0.13"])
        greedy_left, random_left = (painted_bar_widths(c)[0] for c in (greedy, random))
        # Each bar its share of its own axis: 0.609 of 0.62, 0.127 of 0.13.
        assert abs(random_left / (0.127 / 0.13) - greedy_left / (0.609 / 0.62)) <= 2
    finally:
        notebook.execute("shared.shared_scales = True")
    wait_scale(notebook, [greedy, random], ["0,0.62", "0,0.62"])


def test_after_a_theme_switch_the_comparison_charts_labels_are_in_the_new_text_colour(notebook):
    """The axes' labels are text beside the plot (never pixels under a line or the
    divergence mark), in the theme's secondary text colour: light on dark, dark on light."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    chart = cell(notebook, COMPARE, "canvas.aw-compare-chart")
    tick = chart_of(chart).locator(".aw-axis-left .aw-axis-tick").first
    for theme, name, light in [(DARK, "dark", True), (LIGHT, "light", False)]:
        set_theme(notebook, theme)
        wait_theme(notebook, chart, name)
        rgb = parse_rgb(tick.evaluate("(el) => getComputedStyle(el).color"))
        assert (min(rgb) > 150) if light else (max(rgb) < 120), (name, rgb)
    assert labels_of(chart_of(chart))["left"][-1] == "0"


def test_after_a_theme_switch_a_frameless_viewers_placeholder_is_in_the_new_text_colour(
    notebook,
):
    canvas = cell(notebook, FRAMELESS, "canvas.aw-frame")
    for theme, name, rgb in [(DARK, "dark", (255, 255, 255)), (LIGHT, "light", (0, 0, 0))]:
        set_theme(notebook, theme)
        wait_theme(notebook, canvas, name)
        pixels = canvas.evaluate(
            """(canvas) => {
            const {width, height} = canvas;
            const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            const colours = {};
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 3] < 160) continue;  // the page's background shows through
                const key = `${data[i]},${data[i + 1]},${data[i + 2]}`;
                colours[key] = (colours[key] ?? 0) + 1;
            }
            return {colours};
        }"""
        )
        assert_text_in(pixels, rgb)  # "no frames", nothing else painted opaque


def test_the_comparison_legend_draws_each_line_in_its_colour_and_dash(notebook):
    swatches = cell(notebook, COMPARE, ".aw-legend").locator("canvas.aw-swatch")
    runs = [
        swatches.nth(i).evaluate(
            """(canvas) => {
            const row = canvas.getContext("2d")
                .getImageData(0, canvas.height >> 1, canvas.width, 1).data;
            let gaps = 0;
            for (let i = 3; i < row.length; i += 4) gaps += row[i] < 100 ? 1 : 0;
            return gaps;
        }"""
        )
        for i in range(2)
    ]
    assert runs[0] == 0  # the first agent's line is solid
    assert runs[1] > 3  # the second's dashed: it shows through where they overlap


def test_the_training_viewer_reads_out_episode_return_and_success_rate(notebook):
    view = notebook.view(TRAINING)
    view.slide_to(100)
    view.wait_painted(100)
    notebook.wait_until(lambda: "episode:" in view.readout(), what="the info to arrive")
    readout = view.readout()
    assert readout.startswith("position: 100 / 200\nepisode: 99\nreturn: ")
    assert "success rate: " in readout
    for field in ["action:", "reward:", "terminated:"]:
        assert field not in readout
    title = view.root.locator(".aw-title").inner_text()
    assert title == "FrozenLake-v1 · Q-learning · training"


def test_in_the_dark_theme_the_training_maps_colour_bar_sits_on_the_page_not_a_light_slab(
    notebook,
):
    view = notebook.view(TRAINING)
    bar = view.root.locator(".aw-colour-bar")
    set_theme(notebook, DARK)
    try:
        notebook.wait_until(bar.is_visible, what="the colour bar")
        bar.scroll_into_view_if_needed()
        box, ramp = bar.bounding_box(), bar.locator(".aw-colour-ramp").bounding_box()
        assert box is not None
        assert ramp is not None
        assert box["height"] > 200  # beside the whole map
        shot = Image.open(io.BytesIO(notebook.page.screenshot(clip=box))).convert("L")
        pixels = np.asarray(shot.resize((round(box["width"]), round(box["height"]))))
        # Beside the colour ramp: its ends' text on the page's own (dark) background.
        beside = pixels[:, round(ramp["x"] + ramp["width"] - box["x"]) + 1 :]
        assert beside.shape[1] >= 10, beside.shape
        light = float((beside > 128).mean())
        assert light < 0.1, f"{light:.0%} of the colour bar's label column is light"
        assert float(np.median(beside)) < 80
        text = parse_rgb(bar.evaluate("(el) => getComputedStyle(el).color"))
        assert min(text) > 150  # the ends in the dark theme's light text
    finally:
        set_theme(notebook, LIGHT)


# Last in the module: closing its notebook shuts down every kernel of the server, the
# module notebook's too.
def test_at_twice_the_pixel_ratio_bars_and_letters_are_drawn_at_twice_their_shown_size(
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
            # The training map's letters: written at the screen's pixels, over a frame
            # whose own pixels are shown several device pixels wide.
            letters = cell(notebook, TRAINING, "canvas.aw-cell-labels")
            notebook.wait_for(
                "(el) => el.dataset.labels === '2'",  # drawn: "S" and "G"
                letters.element_handle(),
                what="the training map's letters to be written",
            )
            size = canvas_size(letters)
            assert size["width"] == round(2 * size["shownWidth"]) > 0
            assert size["height"] == round(2 * size["shownHeight"])
            frame = canvas_size(cell(notebook, TRAINING, "canvas.aw-frame"))
            assert frame["shownWidth"] == size["shownWidth"]
            assert size["width"] >= 4 * frame["width"]
    finally:
        context.close()


def test_at_a_pixel_ratio_of_1_25_each_frame_pixel_covers_whole_device_pixels(
    server: Server, browser: Browser
):
    """A 160x210 frame fitted to a 700 px tall room is scaled up 3.33 times: 4.17 device
    pixels a frame pixel at 1.25, which nearest-neighbour would draw 4 and 5 pixels
    wide by turns; 4 instead, every one."""
    context = browser.new_context(
        viewport={"width": 1100, "height": 1000}, device_scale_factor=1.25
    )
    cells = [scene.SETUP, "EpisodeViewer(synthetic_frames(3, height=210, width=160))"]
    try:
        with opened(server, context.new_page(), "frame-ratio.ipynb", cells) as notebook:
            view = notebook.view(1)
            view.wait_painted(0)
            frame = view.root.locator("canvas.aw-frame")
            size = canvas_size(frame)
            assert (size["width"], size["height"]) == (160, 210)
            assert size["shownWidth"] * 1.25 == 640
            assert frame.get_attribute("data-device-pixels") == "4"
            shot = np.asarray(Image.open(io.BytesIO(frame.screenshot())).convert("RGB"))
            row = shot[shot.shape[0] // 2].astype(int)
            changes = np.flatnonzero(np.any(row[1:] != row[:-1], axis=1)) + 1
            # The widths of the frame pixels inside the row (a device column at either
            # edge may blend with the page beside the canvas: the end runs are left out).
            runs = np.diff(changes)[1:-1]
            assert len(runs) > 100
            assert set(runs.tolist()) == {4}
    finally:
        context.close()
