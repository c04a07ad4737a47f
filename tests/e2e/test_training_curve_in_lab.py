"""The TrainingViewer's learning curve in a real JupyterLab and Chromium: drawn in episodes.

Issue #53: the curve was drawn over positions, which come at most every 0.25 s, so a
500-episode run showed 3 of them and each bar summed however many episodes ran in
between. Here the notebook trains seeded Q-learning at full speed (the default
interval) for 500 and for 3,000 episodes; the curve's x-axis must count those
episodes, its legend's total return must be the seeded run's, and the positions sit
on it as a sampling: a click on the curve goes to the last one before that episode.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

from agent_widget.agents import QLearning
from harness.charts import learning_curve
from harness.lab import Notebook, View

RUNS = {"short": 500, "long": 3_000}  # episodes
CELLS = [
    """import gymnasium as gym
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
lake = gym.make("FrozenLake-v1", map_name="4x4")""",
    *(
        f"""{name} = TrainingViewer(lake)
display({name})
QLearning(lake, seed=0).train({episodes}, callback={name}.snapshot);"""
        for name, episodes in RUNS.items()
    ),
    f"""in_steps = TrainingViewer(lake, x="steps")
display(in_steps)
stepping = QLearning(lake, seed=0)
stepping.train({RUNS["short"]}, callback=in_steps.snapshot);""",
]
CELL = {"short": 1, "long": 2, "in_steps": 3}

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("training_curve.ipynb", CELLS)]


def seeded_returns(episodes: int) -> list[float]:
    lake = gym.make("FrozenLake-v1", map_name="4x4")
    return QLearning(lake, seed=0).train(episodes).tolist()


def curve(notebook: Notebook, run: str) -> dict:
    """The curve of ``run`` as drawn, once it holds every episode."""
    training = notebook.page.locator(".jp-Notebook .jp-Cell").nth(CELL[run]).locator(".aw-training")
    return learning_curve(notebook, training, RUNS.get(run, RUNS["short"]))


def number(label: str) -> float:
    """A tick label's number: "2.5k" is 2,500."""
    return float(label[:-1]) * 1_000 if label.endswith("k") else float(label)


@pytest.mark.parametrize("run", list(RUNS))
def test_the_curves_x_axis_counts_episodes_not_positions(notebook, run):
    episodes = RUNS[run]
    drawn = curve(notebook, run)
    ticks = [int(label) for label in drawn["steps"]]
    step = ticks[1] - ticks[0]
    assert ticks == list(range(0, ticks[-1] + 1, step)), drawn["steps"]
    assert episodes - step < ticks[-1] <= episodes, f"{episodes} episodes, ticks {ticks}"
    positions = notebook.python(f"{run}.num_positions")
    assert ticks[-1] > positions  # not the positions, however few came
    assert drawn["caption"] == (
        f"Learning curve over {episodes:,} episodes; position {positions - 1} shows the "
        f"table after episode {episodes - 1:,}"
    )
    assert "bottom: episodes" in drawn["title"]


def test_a_curve_in_steps_counts_env_steps_on_its_x_axis(notebook):
    steps = notebook.python("stepping.steps")
    assert steps > 3 * RUNS["short"]  # FrozenLake's episodes take several steps each
    drawn = curve(notebook, "in_steps")
    ticks = [number(label) for label in drawn["steps"]]
    step = ticks[1] - ticks[0]
    assert ticks == [k * step for k in range(len(ticks))], drawn["steps"]
    assert steps - step < ticks[-1] <= steps, f"{steps} env steps, ticks {drawn['steps']}"
    assert "bottom: env steps" in drawn["title"]
    assert drawn["legend"][1] == f"total return 0 to {sum(seeded_returns(RUNS['short'])):.0f}"


@pytest.mark.parametrize("run", list(RUNS))
def test_the_curve_is_the_seeded_runs_episode_by_episode(notebook, run):
    returns = seeded_returns(RUNS[run])
    drawn = curve(notebook, run)
    assert drawn["legend"][0] == "episode return"
    # The running total of every episode's return, to its last: none lost, none twice.
    assert drawn["legend"][1] == f"total return 0 to {sum(returns):.0f}"
    assert "moving average" in drawn["legend"]
    assert "success rate" in drawn["legend"]
    kept = notebook.python(f"{run}._curve.returns.tolist()")
    assert kept == returns


def test_a_click_on_the_curve_shows_the_last_position_before_that_episode(notebook):
    root = notebook.widgets(CELL["short"]).first
    curve(notebook, "short")
    view = View(notebook, root)
    positions = notebook.python("list(short._curve.positions)")  # episodes before each
    canvas = root.locator(".aw-learning-curve canvas.aw-timeline")
    box = canvas.bounding_box()
    assert box is not None
    canvas.click(position={"x": box["width"] * 0.6, "y": box["height"] / 2})
    # Point k of the curve is after k episodes; the click lands on the one under it.
    clicked = int(0.6 * (RUNS["short"] + 1))
    expected = max(p for p, episodes in enumerate(positions) if episodes <= clicked)
    assert 0 < expected < len(positions) - 1  # neither end: a position inside the curve
    view.wait_painted(expected)
    assert view.slider().input_value() == str(expected)
    notebook.wait_until(
        lambda: f"position {expected} shows" in root.locator(".aw-curve-caption").inner_text(),
        what=f"the caption of position {expected}",
    )
    caption = root.locator(".aw-curve-caption").inner_text()
    assert f"the table after episode {positions[expected] - 1}" in caption, caption
    cursor = root.locator(".aw-learning-curve canvas.aw-timeline").get_attribute("data-cursor")
    assert cursor == str(positions[expected])
