"""Scales in a real JupyterLab: every chart (the timeline, the comparison chart, the
training chart, a bars card) has tick labels a user can read, the timeline's step ticks
follow a zoom, reward bars start at zero (a -1 reaches down from zero; CartPole's
constant reward, a quiet band, is tests/e2e/test_timeline_axes_in_lab.py's), rates have
their own 0-1 axis and training curves a smoothing slider. Legends show only beside
their chart.
"""

from __future__ import annotations

import itertools

import pytest

from harness.charts import axis_labels, chart_of, tallest_run
from harness.lab import Notebook

CARTPOLE, COMPARE, TRAINING, PENALTIES = range(1, 5)
# The timeline's light colours (js/shared/timeline-draw.ts LIGHT).
REWARD, PENALTY = "#4c9a2a", "#c0392b"
CELLS = [
    """import gymnasium as gym
import numpy as np
from agent_widget import CompareViewer, EpisodeViewer, record
from agent_widget.episodes import Rollout
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer

env = gym.make("CartPole-v1", render_mode="rgb_array")
balanced = record(env, lambda obs: int(obs[2] + obs[3] > 0), seed=0)  # reward 1 a step
falling = record(env, lambda obs: 0, seed=0)
cartpole = EpisodeViewer(balanced)
cartpole.add_panel("Q", lambda step: {"LEFT": 0.036, "RIGHT": 0.0454})""",
    "cartpole",
    'CompareViewer({"balanced": balanced, "falling": falling})',
    """lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake, interval=0)
QLearning(lake, seed=0).train(200, callback=training.snapshot)
training""",
    # Pong's rewards: mostly 0, a few -1 and +1.
    """rewards = np.zeros(300)
rewards[20::40], rewards[50::90] = -1, 1
EpisodeViewer(Rollout.from_arrays(observations=np.zeros((301, 2)), actions=[0] * 300,
                                  rewards=rewards))""",
]


pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("scales.ipynb", CELLS, viewport={"width": 1200, "height": 1000}),
]


def timeline(notebook: Notebook, cell: int, within: str = ""):
    """The timeline's canvas of the viewer of ``cell`` (``within``: a selector inside it)."""
    canvas = notebook.view(cell).root.locator(f"{within} canvas.aw-timeline".strip())
    notebook.wait_for(
        "(el) => el.closest('.aw-chart').querySelector('.aw-axis-steps .aw-axis-tick') !== null",
        canvas.element_handle(),
        what="the timeline's axes",
    )
    return canvas


def numbers(labels: list[str]) -> list[float]:
    return [float(label) for label in labels]


def test_the_timeline_has_a_return_axis_a_reward_axis_and_a_step_axis(notebook):
    labels = axis_labels(chart_of(timeline(notebook, CARTPOLE)))
    returns, rewards, steps = (numbers(labels[k]) for k in ("left", "right", "steps"))
    assert 3 <= len(returns) <= 5, labels
    assert returns == sorted(returns, reverse=True), labels  # top to bottom
    assert returns[-1] == 0, labels
    total = notebook.python("int(balanced.rewards.sum())")
    # Fitted (js/shared/axis.ts): the top tick the last under the data, not one past it.
    assert returns[0] <= total < 2 * returns[0] - returns[1], (total, labels)
    assert rewards == [1, 0.5, 0], labels  # the rewards' own axis, from zero
    assert len({len(label.split(".")[-1]) for label in labels["right"]}) == 1  # one precision
    assert steps[0] == 0, labels
    gaps = {b - a for a, b in itertools.pairwise(steps)}
    assert len(gaps) == 1, labels  # one nice step
    assert gaps.pop() in {50, 100}, labels


def test_zooming_in_makes_the_step_ticks_finer_and_a_double_click_restores_them(notebook):
    """The double click shows the whole episode and leaves the step where it was, though
    each of its presses lands on the middle of the strip (a click there seeks)."""
    canvas = timeline(notebook, CARTPOLE)
    view = notebook.view(CARTPOLE)
    view.slide_to(7)
    view.wait_painted(7)
    chart = chart_of(canvas)
    whole = axis_labels(chart)["steps"]
    canvas.evaluate(
        """(el) => {
            const rect = el.getBoundingClientRect();
            el.dispatchEvent(new WheelEvent("wheel", {deltaY: -1000, ctrlKey: true, bubbles: true,
                cancelable: true, clientX: rect.left + rect.width / 2, clientY: rect.top + 5}));
        }"""
    )
    start, stop = map(int, canvas.get_attribute("data-range").split(","))
    assert stop - start < 100
    zoomed = numbers(axis_labels(chart)["steps"])
    assert zoomed != numbers(whole)
    assert all(start <= t < stop for t in zoomed), (start, stop, zoomed)
    assert zoomed[1] - zoomed[0] < 50, zoomed
    canvas.dblclick()
    assert axis_labels(chart)["steps"] == whole
    assert view.slider().input_value() == "7"
    view.wait_painted(7)
    notebook.wait_until(lambda: notebook.python("cartpole.step") == 7, what="the kernel's step")


def test_a_penalty_of_minus_one_reaches_down_from_zero(notebook):
    canvas = timeline(notebook, PENALTIES)
    assert numbers(axis_labels(chart_of(canvas))["right"]) == [1, 0, -1]
    for colour in (PENALTY, REWARD):
        bars = tallest_run(canvas, colour)
        assert bars["columns"] >= 3, (colour, bars)
        assert bars["tallest"] > 15, (colour, bars)  # half the band, not a tick on an edge


def test_the_comparison_chart_has_its_axes_and_its_columns_no_legend_without_a_chart(notebook):
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(COMPARE).locator(".aw-compare").first
    chart = root.locator(".aw-compare-chart-frame")
    notebook.wait_for(
        "(el) => el.querySelector('.aw-axis-steps .aw-axis-tick') !== null",
        chart.element_handle(),
        what="the comparison chart's axes",
    )
    labels = axis_labels(chart)
    returns = numbers(labels["left"])
    assert 3 <= len(returns) <= 5, labels
    assert returns[-1] == 0, labels
    total = notebook.python("int(balanced.rewards.sum())")
    assert returns[0] <= total < 2 * returns[0] - returns[1], (total, labels)
    assert labels["right"] == []
    assert numbers(labels["steps"])[0] == 0, labels
    # The columns' own timelines are hidden, their legends with them.
    grid = root.locator(".aw-compare-grid")
    assert grid.locator(".aw-timeline-legend").count() == 2
    assert grid.locator(".aw-timeline-legend:visible").count() == 0


def test_the_training_chart_puts_the_success_rate_on_a_0_to_1_axis_and_smooths(notebook):
    canvas = timeline(notebook, TRAINING, ".aw-learning-curve")  # the curve, in episodes
    labels = axis_labels(chart_of(canvas))
    assert labels["left"][-3:] == ["1.0", "0.5", "0.0"], labels  # the rates' band
    assert len(labels["left"]) >= 6, labels  # and the returns' axis above it
    assert len(labels["right"]) >= 3, labels  # the episode returns' axis
    slider = notebook.view(TRAINING).root.locator(".aw-learning-curve .aw-smoothing-slider")
    assert slider.is_visible()
    assert slider.input_value() == "0.6"
    slider.fill("0.9")
    notebook.wait_until(
        lambda: notebook.python("training.timeline.timeline_smoothing") == 0.9,
        what="the smoothing to reach the kernel",
    )
    # An env's rewards are not training curves: no slider there.
    assert not notebook.view(CARTPOLE).root.locator(".aw-smoothing").is_visible()


def test_a_bars_card_has_a_value_axis_under_its_bars(notebook):
    view = notebook.view(CARTPOLE)
    view.wait_card("Q", view.painted_step(), "bars")
    axis = view.card("Q").locator(".aw-bars-axis .aw-axis-tick")
    labels = axis.all_inner_texts()
    assert 2 <= len(labels) <= 5, labels
    assert labels[0] == "0.00" or float(labels[0]) == 0, labels
    assert len({len(label.split(".")[-1]) for label in labels}) == 1, labels  # one precision
