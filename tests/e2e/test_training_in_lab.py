"""TrainingViewer in a real JupyterLab and Chromium: snapshots appear while training runs.

The notebook trains Q-learning on FrozenLake 4x4 with a TrainingViewer attached;
this module trains the same seeded agent itself, so it knows the exact value map
each position must paint.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.agents import QLearning
from agent_widget.gridworld import ValueMap
from agent_widget.gridworld._snapshots import Snapshots
from agent_widget.gridworld._training import CELL_SIZE
from harness.lab import Notebook, View, rgb_sha256

EPISODES = 40
MORE = 20
VIEWER = 1  # cell index


def expected_maps() -> list[tuple[str, tuple[str, str]]]:
    """The RGB digest of every position's frame, the grid of the value map before
    training, then of each snapshot as the viewer keeps it (to the snapshots'
    tolerance), and the ends of its colour scale as the colour bar writes them."""
    env = gym.make("FrozenLake-v1", map_name="4x4")
    snapshots = Snapshots()
    QLearning(env, seed=0).train(EPISODES + MORE, callback=snapshots.append)
    value_map = ValueMap(env, cell_size=CELL_SIZE)
    tables = [snapshots[k] for k in range(len(snapshots))]
    grids = [value_map.grid(table) for table in [np.zeros((16, 4)), *tables]]
    return [(rgb_sha256(grid), (f"{low:.3g}", f"{high:.3g}")) for grid, (low, high) in grids]


MAPS = expected_maps()
DIGESTS = [digest for digest, _ in MAPS]

CELLS = [
    """import time
import gymnasium as gym
import numpy as np
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer

env = gym.make("FrozenLake-v1", map_name="4x4")
viewer = TrainingViewer(env, interval=0)
agent = QLearning(env, seed=0)

def slowly(q_table, **called):  # episode, ret and steps
    viewer.snapshot(q_table, **called)
    time.sleep(0.05)  # deliberate: training's pace, the snapshots spread over seconds""",
    "viewer",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("training.ipynb", CELLS)]


def assert_shows(view: View, t: int) -> None:
    view.wait_painted(t)
    canvas = view.canvas()
    assert canvas["step"] == t
    assert canvas["sha256"] == DIGESTS[t], f"position {t} is not the value map of its snapshot"


def training(notebook: Notebook, episodes: int):
    """Train in the kernel; the cell stays busy until the block ends."""
    return notebook.held(f"agent.train({episodes}, callback=slowly)")


def test_snapshots_sent_from_a_running_cell_appear_before_it_ends(notebook):
    view = notebook.view(VIEWER)
    assert_shows(view, 0)  # the table before training
    with training(notebook, EPISODES) as run:
        notebook.wait_until(
            lambda: view.slider().get_attribute("max") == str(EPISODES),
            what=f"the slider to reach {EPISODES}",
        )
        assert_shows(view, EPISODES)  # followed the newest position; its frame came pushed
        assert f"\nepisode: {EPISODES - 1}\n" in view.readout()
        view.press("ArrowLeft")
        assert_shows(view, EPISODES - 1)
        assert not run.done, f"the cell ended early:\n{run.wait()}"


def test_a_view_scrubbed_back_stays_while_training_goes_on(notebook):
    view = notebook.view(VIEWER)
    view.press("Home")
    assert_shows(view, 0)
    with training(notebook, MORE) as run:
        notebook.wait_until(
            lambda: view.slider().get_attribute("max") == str(EPISODES + MORE),
            what=f"the slider to reach {EPISODES + MORE}",
        )
        assert_shows(view, 0)
        view.press("End")
        assert_shows(view, EPISODES + MORE)
        assert not run.done


def test_the_learning_curves_legend_names_episode_returns_not_rewards(notebook):
    legend = notebook.view(VIEWER).root.locator(".aw-learning-curve .aw-timeline-legend")
    keys = legend.locator(".aw-timeline-key").all_inner_texts()
    assert keys[0] == "episode return"
    assert keys[1].startswith("total return 0 to "), keys
    assert "moving average" in keys
    assert "success rate" in keys
    assert "reward" not in keys


def written_text(view: View) -> dict:
    """What the widget writes over and beside the frame: the letters canvas's pixel and
    shown sizes, its inked pixels in and out of the start and goal cells, the colour
    bar's ends and the position they are of."""
    return view.root.evaluate(
        """(root) => {
            const frame = root.querySelector("canvas.aw-frame");
            const labels = root.querySelector("canvas.aw-cell-labels");
            const box = labels.getBoundingClientRect();
            const {width, height} = labels;
            const rgba = labels.getContext("2d").getImageData(0, 0, width, height).data;
            // Cells of a 4x4 grid: S at (0, 0), G at (3, 3).
            const ink = {start: 0, goal: 0, elsewhere: 0};
            for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
                const i = 4 * (y * width + x);
                if (rgba[i + 3] < 200 || rgba[i] > 60) continue;  // not opaque dark ink
                const [row, col] = [Math.floor(4 * y / height), Math.floor(4 * x / width)];
                const start = row === 0 && col === 0, goal = row === 3 && col === 3;
                ink[start ? "start" : goal ? "goal" : "elsewhere"] += 1;
            }
            const bar = root.querySelector(".aw-colour-bar");
            return {
                width, height, ratio: devicePixelRatio, shown: [box.width, box.height],
                frame: [frame.width, frame.getBoundingClientRect().width], ink,
                ends: [bar.querySelector(".aw-scale-low").textContent,
                       bar.querySelector(".aw-scale-high").textContent],
                position: Number(bar.dataset.position), hidden: bar.hidden,
            };
        }"""
    )


def test_the_letters_and_the_scale_are_written_as_text_at_the_shown_size(notebook):
    view = notebook.view(VIEWER)
    for t in (EPISODES + MORE, 1):  # ends that differ: the first snapshot's barely spread
        view.slide_to(t)
        assert_shows(view, t)
        notebook.wait_until(
            lambda t=t: written_text(view)["position"] == t, what=f"the scale of position {t}"
        )
        text = written_text(view)
        assert text["ends"] == list(MAPS[t][1]), f"position {t}'s scale is {MAPS[t][1]}"
        assert not text["hidden"]
    assert MAPS[EPISODES + MORE][1] != MAPS[1][1]
    # Crisp: a device pixel of the letters' canvas per device pixel shown, though the
    # frame under it is enlarged (its pixels are 5 CSS px wide).
    frame_pixels, frame_shown = text["frame"]
    assert frame_shown >= 4 * frame_pixels
    assert text["width"] == round(text["shown"][0] * text["ratio"])
    assert text["height"] == round(text["shown"][1] * text["ratio"])
    ink = text["ink"]
    assert ink["start"] > 30, ink  # "S" written
    assert ink["goal"] > 30, ink  # and "G"
    assert ink["elsewhere"] == 0, ink


def test_play_opens_the_greedy_episode_of_the_shown_snapshot(notebook):
    view = notebook.view(VIEWER)
    view.press("End")
    assert_shows(view, EPISODES + MORE)
    training = view.root.locator("xpath=ancestor::div[@class='aw-training']")
    play = training.locator("button.aw-play-greedy")
    assert play.inner_text() == "Play greedy policy"
    play.click()
    played = View(notebook, training.locator(".aw-played .agent-widget"))
    played.wait_painted(0)
    assert f"after episode {EPISODES + MORE - 1}" in played.root.inner_text()
    notebook.wait_until(lambda: written_text(played)["position"] == 0, what="the played map's text")
    assert written_text(played)["ends"] == list(MAPS[EPISODES + MORE][1])  # the table played
    play.click()  # again: the new episode replaces the last, one viewer below
    notebook.wait_until(
        lambda: training.locator(".aw-played .agent-widget").count() == 1 and play.is_enabled(),
        what="the second played episode to replace the first",
    )
