"""The timeline and the learning curve read like TensorBoard's, in a real JupyterLab
(issue #53 items 2 to 6): each extra on a band of its own with its own labelled axis that
a zoom rescales with the drawing; a multi-agent episode's returns on the return's own
axis; a constant reward a quiet band in both themes; axes fitted to the data; a log scale
toggle; and the values under the cursor, read against the data.
"""

from __future__ import annotations

import numpy as np
import pytest

from harness.appearance import DARK, LIGHT, set_theme
from harness.charts import axis_labels, band_axes, chart_of, hover_at, tallest_run
from harness.lab import Notebook

CARTPOLE, PENDULUM, CONNECT_FOUR, TRAINING = range(1, 5)
# The timeline's colours (js/shared/timeline-draw.ts LIGHT and DARK).
COLOURS = {
    "light": {
        "reward": "#4c9a2a",
        "return": "#1f5fbf",
        "extras": ["#8e44ad", "#16a085", "#d35400"],
    },
    "dark": {
        "reward": "#7cc35a",
        "return": "#7ab4ff",
        "extras": ["#c59be0", "#4fd1b5", "#ffa868"],
    },
}
CELLS = [
    """import gymnasium as gym
import numpy as np
import pettingzoo
from agent_widget import EpisodeViewer, record
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer

balanced = record(gym.make("CartPole-v1", render_mode="rgb_array"),
                  lambda obs: int(obs[2] + obs[3] > 0), seed=0)  # a reward of 1 every step
cartpole = EpisodeViewer(balanced)

clock = iter(range(1000))
def act(obs):  # a value that rises along the episode, wiggling with the pole's speed
    torque = float(np.clip(-2 * obs[2], -2, 2))
    return np.array([torque], np.float32), {
        "mean": np.array([torque, torque / 2]), "value": next(clock) + float(obs[2])}

swing = record(gym.make("Pendulum-v1", render_mode="rgb_array"), act, seed=0, max_steps=120)
pendulum = EpisodeViewer(swing, extras=["mean", "value"])

game = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
leftmost = lambda agent, obs: int(np.flatnonzero(obs["action_mask"])[0])
four = EpisodeViewer(record(game, leftmost, seed=0))

lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake, interval=0)
episode_returns = []
def snapshot(q_table, episode=None, ret=None, steps=None):
    episode_returns.append(ret)
    training.snapshot(q_table, episode, ret, steps=steps)
QLearning(lake, seed=0).train(300, callback=snapshot)""",
    "cartpole",
    "pendulum",
    "four",
    "training",
]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("timeline_axes.ipynb", CELLS, viewport={"width": 1200, "height": 1000}),
]


def timeline(notebook: Notebook, cell: int, within: str = ""):
    """The timeline's canvas in the output of ``cell``, once its axes are drawn."""
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell)
    canvas = root.locator(f"{within} canvas.aw-timeline".strip()).first
    notebook.wait_for(
        "(el) => el.closest('.aw-chart').querySelector('.aw-axis-steps .aw-axis-tick') !== null",
        canvas.element_handle(),
        timeout=60,
        what="the timeline's axes",
    )
    return canvas


def value_to_y(ticks: list[tuple[str, float]]):
    """The CSS y of a value on an axis, from two of its labelled ticks."""
    (a, ya), (b, yb) = (float(ticks[0][0]), ticks[0][1]), (float(ticks[-1][0]), ticks[-1][1])
    return lambda value: ya + (value - a) * (yb - ya) / (b - a)


def topmost(canvas, colour: str, top: float, bottom: float, *, lowest: bool = False) -> float:
    """The CSS y of the highest (``lowest``: the lowest) pixel of ``colour`` (a line's
    core) between two CSS ys."""
    return canvas.evaluate(
        """(canvas, [colour, top, bottom, lowest]) => {
            const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
            const ratio = canvas.width / canvas.getBoundingClientRect().width;
            const {width, height} = canvas;
            const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            const rows = [];
            const end = Math.min(height, Math.round(bottom * ratio));
            for (let y = Math.round(top * ratio); y < end; y++) rows.push(y);
            if (lowest) rows.reverse();
            const core = (i) => data[i + 3] > 200
                && rgb.every((v, k) => Math.abs(data[i + k] - v) <= 3);
            for (const y of rows) {
                for (let x = 0; x < width; x++) if (core(4 * (y * width + x))) return y / ratio;
            }
            return null;
        }""",
        [colour, top, bottom, lowest],
    )


def extent(notebook: Notebook, extra: str, start: int = 0, stop: int | None = None) -> list[float]:
    """The lowest and highest value of the Pendulum's ``extra`` over steps ``start:stop``."""
    values = f"swing.extras[{extra!r}][{start}:{stop}]"
    return notebook.python(f"[float({values}.min()), float({values}.max())]")


def near(text: str, value: float) -> bool:
    """Whether a number as formatNumber prints it (4 decimals) is ``value``."""
    return abs(float(text) - value) <= 5e-5 + 1e-6 * abs(value)


def test_each_extra_has_its_own_band_named_by_it_with_an_axis_fitted_to_it(notebook):
    canvas = timeline(notebook, PENDULUM)
    bands = band_axes(chart_of(canvas))
    assert list(bands) == ["", "mean", "value"], bands
    for name in ("mean", "value"):
        lo, hi = extent(notebook, name)
        labels = [float(label) for label, _ in bands[name]]
        assert 2 <= len(labels) <= 3, (name, bands[name])
        slack = 0.15 * (hi - lo)
        assert all(lo - slack <= v <= hi + slack for v in labels), (name, lo, hi, labels)
        assert labels == sorted(labels, reverse=True), labels
    # The value's line tops out where its axis's labels put its maximum.
    value_y = value_to_y(bands["value"])
    top_of_band = bands["value"][0][1] - 8
    drawn = topmost(canvas, COLOURS["light"]["extras"][2], top_of_band, top_of_band + 44)
    maximum = notebook.python("float(swing.extras['value'].max())")
    assert drawn is not None
    assert abs(drawn - value_y(maximum)) <= 2.5, (drawn, value_y(maximum), bands["value"])


def test_a_zoom_rescales_an_extras_axis_labels_with_its_drawing(notebook):
    """No silent rescale: zoomed into the first 30 steps, the value's labels fit those
    steps' values and its line tops out at their maximum as labelled."""
    canvas = timeline(notebook, PENDULUM)
    whole = band_axes(chart_of(canvas))["value"]
    canvas.evaluate(
        """(el) => {
            const rect = el.getBoundingClientRect();
            el.dispatchEvent(new WheelEvent("wheel", {deltaY: -700, ctrlKey: true, bubbles: true,
                cancelable: true, clientX: rect.left, clientY: rect.top + 5}));
        }"""
    )
    try:
        start, stop = map(int, canvas.get_attribute("data-range").split(","))
        assert start == 0, (start, stop)
        assert stop < 60, (start, stop)
        notebook.wait_until(
            lambda: band_axes(chart_of(canvas))["value"] != whole, what="the zoomed value axis"
        )
        zoomed = band_axes(chart_of(canvas))["value"]
        lo, hi = extent(notebook, "value", start, stop)
        labels = [float(label) for label, _ in zoomed]
        slack = 0.15 * (hi - lo)
        assert all(lo - slack <= v <= hi + slack for v in labels), (lo, hi, labels)
        top_of_band = zoomed[0][1] - 8
        drawn = topmost(canvas, COLOURS["light"]["extras"][2], top_of_band, top_of_band + 44)
        assert abs(drawn - value_to_y(zoomed)(hi)) <= 2.5, (drawn, zoomed, hi)
    finally:
        canvas.dblclick()
    assert band_axes(chart_of(canvas))["value"] == whole


def test_connect_fours_returns_share_the_return_axis_and_end_in_one_mark(notebook):
    canvas = timeline(notebook, CONNECT_FOUR)
    bands = band_axes(chart_of(canvas))
    assert list(bands) == [""], bands  # no band of their own
    assert [label for label, _ in bands[""]] == ["1", "0", "-1"], bands
    y = value_to_y(bands[""])
    finals = notebook.python("[float(r) for r in np.nansum(four.rollout.agent_rewards, axis=0)]")
    assert sorted(finals) == [-1, 1], finals
    # The winner's line ends on the label 1, the loser's on -1: one axis for both.
    winner, loser = (COLOURS["light"]["extras"][i] for i in np.argsort(finals)[::-1])
    assert abs(topmost(canvas, winner, 0, 64) - y(1)) <= 2.5
    assert abs(topmost(canvas, loser, 0, 64, lowest=True) - y(-1)) <= 2.5
    marks = canvas.evaluate(
        """(canvas) => {
            const data = canvas.getContext("2d").getImageData(0, 1, canvas.width, 1).data;
            let runs = 0, inside = false;
            for (let x = 0; x < canvas.width; x++) {
                const dark = data[4 * x + 3] > 100 && data[4 * x] < 100 && data[4 * x + 1] < 100;
                if (dark && !inside) runs += 1;
                inside = dark;
            }
            return runs;
        }"""
    )
    assert marks == 1, marks


def band_share(canvas, colour: str, alpha: tuple[int, int], within: int = 3) -> float:
    """The share of the main band's pixels (CSS rows 7 to 57) painted ``colour`` at an
    opacity inside ``alpha`` (0-255): how much of the band a fill of it covers."""
    return canvas.evaluate(
        """(canvas, [colour, [lo, hi], within]) => {
            const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
            const ratio = canvas.width / canvas.getBoundingClientRect().width;
            const [top, bottom] = [Math.round(7 * ratio), Math.round(57 * ratio)];
            const {width} = canvas;
            const data = canvas.getContext("2d").getImageData(0, top, width, bottom - top).data;
            let painted = 0;
            for (let i = 0; i < data.length; i += 4) {
                const near = rgb.every((v, k) => Math.abs(data[i + k] - v) <= within);
                if (near && data[i + 3] >= lo && data[i + 3] <= hi) painted += 1;
            }
            return painted / (data.length / 4);
        }""",
        [colour, list(alpha), within],
    )


def test_cartpoles_constant_reward_is_a_quiet_band_under_a_readable_return_in_both_themes(
    notebook,
):
    """The old timeline filled the band solid (a share of ~0.97 of its pixels in the
    reward colour); now a faint fill, a solid edge at 1, and the return line over it."""
    canvas = timeline(notebook, CARTPOLE)
    length = notebook.python("len(balanced.rewards)")
    try:
        for theme, name in [(LIGHT, "light"), (DARK, "dark")]:
            set_theme(notebook, theme)
            notebook.wait_for(
                "([el, theme]) => el.dataset.theme === theme",
                [canvas.element_handle(), name],
                what=f"the timeline in the {name} theme",
            )
            colours = COLOURS[name]
            solid = band_share(canvas, colours["reward"], (200, 255))
            faint = band_share(canvas, colours["reward"], (20, 80))
            # The return line's core: its colour, softened by its antialiasing.
            line = tallest_run(canvas, colours["return"], 60, min_alpha=200)
            found = f"{name}: solid {solid:.3f}, faint {faint:.3f}, return {line}"
            assert solid <= 0.1, found  # the band's edge and the axis's, not a slab
            assert faint >= 0.6, found  # the band, under the return's line
            assert line["columns"] > 0.9 * length, found  # the return over it, all along
    finally:
        set_theme(notebook, LIGHT)


def test_the_return_axis_is_fitted_to_the_return_and_a_toggle_makes_it_log(notebook):
    canvas = timeline(notebook, CARTPOLE)
    chart = chart_of(canvas)
    total = notebook.python("int(balanced.rewards.sum())")
    labels = [float(label) for label in axis_labels(chart)["left"]]
    assert max(labels) <= total, (total, labels)  # no tick past the data, as 0-400 for 220 was
    top, bottom = band_axes(chart)[""][0][1], band_axes(chart)[""][-1][1]
    step = (bottom - top) / (max(labels) - min(labels))
    assert (total - max(labels)) * step <= 50 * 1.15, (total, labels)
    toggle = notebook.page.locator(".jp-Notebook .jp-Cell").nth(CARTPOLE).locator(".aw-log-toggle")
    toggle.check()
    notebook.wait_for("(el) => el.dataset.log === 'true'", canvas.element_handle(), what="log")
    assert axis_labels(chart)["left"] == ["100", "10", "1"]
    toggle.uncheck()
    assert [float(label) for label in axis_labels(chart)["left"]] == sorted(labels, reverse=True)


def test_the_hover_reads_each_series_at_the_step_under_the_pointer(notebook):
    canvas = timeline(notebook, PENDULUM)
    length = notebook.python("len(swing.rewards) + 1")
    t = 36
    hover = hover_at(notebook, canvas, (t + 0.5) / length)
    assert hover["heading"] == f"step {t}", hover
    rows = {row[0]: row[1] for row in hover["rows"]}
    assert list(rows) == ["reward", "return", "mean[0]", "mean[1]", "value"], hover
    expected = notebook.python(
        f"""{{"reward": float(swing.rewards[{t}]), "return": float(swing.rewards[:{t}].sum()),
        "mean[0]": float(swing.extras['mean'][{t}, 0]),
        "mean[1]": float(swing.extras['mean'][{t}, 1]),
        "value": float(swing.extras['value'][{t}])}}"""
    )
    for name, value in expected.items():
        assert near(rows[name], value), (name, rows[name], value)
    box = canvas.bounding_box()
    assert abs(hover["rule"] - (t + 0.5) / length * box["width"]) <= 1, hover
    # A click on a legend entry hides its series: from the hover and from the plot.
    cell = notebook.page.locator(".jp-Notebook .jp-Cell").nth(PENDULUM)
    legend = cell.locator(".aw-timeline-legend")
    entry = legend.locator("button.aw-legend-toggle", has_text="value")
    colour = COLOURS["light"]["extras"][2]
    assert tallest_run(canvas, colour, min_alpha=200)["columns"] > 100
    entry.click()
    assert entry.get_attribute("aria-pressed") == "false"
    assert tallest_run(canvas, colour, min_alpha=200)["columns"] <= 2  # its axis's edge alone
    hidden = hover_at(notebook, canvas, (t + 0.5) / length)
    assert [row[0] for row in hidden["rows"]] == ["reward", "return", "mean[0]", "mean[1]"]
    entry.click()
    assert tallest_run(canvas, colour, min_alpha=200)["columns"] > 100
    notebook.page.mouse.move(0, 0)


def test_the_learning_curve_hover_reads_an_episodes_return_raw_and_smoothed(notebook):
    canvas = timeline(notebook, TRAINING, ".aw-learning-curve")
    episodes = notebook.python("len(episode_returns)")
    k = 120
    hover = hover_at(notebook, canvas, (k + 0.5) / (episodes + 1))
    assert hover["heading"] == f"episode {k}", hover
    rows = {row[0]: row[1:] for row in hover["rows"]}
    raw, smoothed = rows["episode return"]
    assert near(raw, notebook.python(f"episode_returns[{k}]")), rows
    weight = notebook.python("training.timeline.timeline_smoothing")
    # TensorBoard's debiased exponential moving average of the episodes' returns.
    expected = notebook.python(
        f"""(lambda w, xs: (lambda last: last)(
            __import__('functools').reduce(lambda acc, x: (acc[0] * w + (1 - w) * x, acc[1] + 1),
                                           xs, (0.0, 0))))({weight}, episode_returns[:{k + 1}])"""
    )
    last, seen = expected
    assert near(smoothed, last / (1 - weight**seen)), (rows, expected)
    assert near(rows["total return"][0], notebook.python(f"sum(episode_returns[:{k}])")), rows
    notebook.page.mouse.move(0, 0)
