"""CheckpointViewer in a real JupyterLab and Chromium, on a real SB3 DQN's checkpoints.

This module trains the DQN (harness/dqn_run.py) into a library the notebook's kernel
opens, and renders each checkpoint's episodes itself by replay, so it knows the frame
every (checkpoint, seed, step) must paint and where consecutive checkpoints' recorded
actions first differ.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agent_widget.checkpoints import Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from agent_widget.torch import QValues
from harness.appearance import (
    DARK,
    LIGHT,
    axe_violations,
    canvas_names,
    colours_of,
    most_common_colour,
    near,
    parse_rgb,
    set_theme,
    theme_colours,
)
from harness.charts import chart_of, hover, painted_rows, tallest_run
from harness.dqn_run import RUN, dqn, train
from harness.lab import Notebook, View, opened, rgb_sha256
from tests.e2e.test_page_in_browser import OpenedPage

pytestmark = pytest.mark.e2e

STEPS = [1000, 2000, 3000, 4000]
VIEWER = 1  # cell index
SLIDE = """(el, i) => {
    el.value = String(i);
    el.dispatchEvent(new Event("input", {bubbles: true}));
}"""


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    train(root)
    return root


@pytest.fixture(scope="module")
def checkpoints(library) -> Checkpoints:
    return Checkpoints(RunLibrary(library), RUN)


@pytest.fixture(scope="module")
def notebook(open_notebook, library) -> Iterator[Notebook]:
    cells = [
        f"""from agent_widget import CheckpointViewer
from agent_widget.torch import QValues
from harness.dqn_run import RUN, dqn

viewer = CheckpointViewer({str(library)!r}, RUN, model=dqn(), checkpoint=0)
viewer.add_panel("Q", QValues)""",
        "viewer",
    ]
    with open_notebook("checkpoints.ipynb", cells) as notebook:
        yield notebook


def episode_view(notebook: Notebook, step: int, seed: int) -> View:
    """The episode shown, once it is the one of (``step``, ``seed``)."""
    title = f"training step {step:,} · seed {seed}"
    root = notebook.widgets(VIEWER).filter(has_text=title)
    root.wait_for(timeout=30_000)
    return View(notebook, root)


def choose_checkpoint(notebook: Notebook, index: int) -> None:
    """Move the training-step slider as a user would."""
    notebook.page.locator(".aw-checkpoints input.aw-checkpoint-slider").evaluate(SLIDE, index)


def assert_paints(view: View, checkpoints: Checkpoints, step: int, seed: int, t: int) -> None:
    view.wait_painted(t)
    frame = checkpoints.episode(step, seed).frames[t]
    assert view.canvas()["sha256"] == rgb_sha256(np.asarray(frame)[..., :3]), (step, seed, t)


def first_difference(checkpoints: Checkpoints, before: int, now: int, seed: int) -> int | None:
    a = checkpoints.recorded(before, seed).actions
    b = checkpoints.recorded(now, seed).actions
    common = min(len(a), len(b))
    differ = np.flatnonzero(a[:common] != b[:common])
    return int(differ[0]) if len(differ) else (None if len(a) == len(b) else common)


def test_both_controls_paint_the_frame_of_the_checkpoint_and_step(notebook, checkpoints):
    view = episode_view(notebook, STEPS[0], 0)
    assert_paints(view, checkpoints, STEPS[0], 0, 0)
    t = min(checkpoints.recorded(step, 0).num_positions for step in STEPS) - 1
    view.slide_to(t)  # the episode-step control
    assert_paints(view, checkpoints, STEPS[0], 0, t)
    for index in (2, 1, 3):  # the training-step control: same seed, same step
        choose_checkpoint(notebook, index)
        view = episode_view(notebook, STEPS[index], 0)
        assert_paints(view, checkpoints, STEPS[index], 0, t)
    view.slide_to(t // 2)
    assert_paints(view, checkpoints, STEPS[3], 0, t // 2)


def test_the_marked_divergence_is_where_the_recorded_actions_first_differ(notebook, checkpoints):
    marked = []
    for index in (1, 2, 3):
        choose_checkpoint(notebook, index)
        view = episode_view(notebook, STEPS[index], 0)
        expected = first_difference(checkpoints, STEPS[index - 1], STEPS[index], 0)
        timeline = view.root.locator("canvas.aw-timeline")
        notebook.wait_until(
            lambda timeline=timeline, expected=expected: (
                timeline.get_attribute("data-mark") == (None if expected is None else str(expected))
            ),
            what=f"the timeline of checkpoint {STEPS[index]} to mark t = {expected}",
        )
        jump = notebook.page.locator(".aw-checkpoints button.aw-jump-divergence")
        assert jump.is_hidden() == (expected is None)
        if expected is not None:
            assert jump.inner_text() == (
                f"Acts differently from the checkpoint before at t = {expected}: go there"
            )
            jump.click()  # goes to the step marked
            assert_paints(view, checkpoints, STEPS[index], 0, expected)
        marked.append(expected)
    assert any(t is not None for t in marked)


def test_the_seed_chooser_shows_that_seeds_episode_at_the_same_checkpoint(notebook, checkpoints):
    choose_checkpoint(notebook, 3)
    view = episode_view(notebook, STEPS[3], 0)
    view.slide_to(4)
    assert_paints(view, checkpoints, STEPS[3], 0, 4)
    notebook.page.locator(".aw-checkpoints select.aw-seed").select_option("1")
    view = episode_view(notebook, STEPS[3], 1)
    assert_paints(view, checkpoints, STEPS[3], 1, 4)
    legend = notebook.page.locator(".aw-checkpoints .aw-legend").inner_text()
    returns = checkpoints.returns()[STEPS[3]]
    assert f"seed 1: {returns[1]:g}" in legend
    assert f"seed 0: {returns[0]:g}" in legend


def test_its_page_paints_each_checkpoint_and_step_with_no_kernel(
    library, checkpoints, new_page, tmp_path
):
    viewer = CheckpointViewer(library, RUN, model=dqn(), checkpoint=0)
    viewer.add_panel("Q", QValues)
    path = viewer.to_html(tmp_path / "checkpoints.html", seeds=[0], progress=False)
    opened = OpenedPage(new_page(), path.as_uri())
    page = opened.page
    t = min(checkpoints.recorded(step, 0).num_positions for step in STEPS) - 1
    view = View(opened, page.locator("div.agent-widget").filter(has_text="training step 1,000"))
    view.slide_to(t)
    assert_paints(view, checkpoints, STEPS[0], 0, t)
    for index in (3, 1):
        page.locator(".aw-checkpoints input.aw-checkpoint-slider").evaluate(SLIDE, index)
        title = f"training step {STEPS[index]:,} · seed 0"
        view = View(opened, page.locator("div.agent-widget").filter(has_text=title))
        assert_paints(view, checkpoints, STEPS[index], 0, t)
        expected = first_difference(checkpoints, STEPS[index - 1], STEPS[index], 0)
        mark = view.root.locator("canvas.aw-timeline").get_attribute("data-mark")
        assert mark == (None if expected is None else str(expected))
    assert opened.requests() == []


def test_every_control_and_picture_is_named_and_axe_finds_nothing(notebook):
    root = notebook.page.locator(".aw-checkpoints")
    named = canvas_names(root)
    assert named
    for canvas in named:
        assert canvas["role"] == "img", canvas
        assert canvas["label"], canvas
    assert axe_violations(root) == []


CHART = ".aw-checkpoints canvas.aw-compare-chart"
BLUE, ORANGE = (
    "#1f77b4",
    "#ff7f0e",
)  # seed 0's and seed 1's lines, light theme (js/compare/chart.ts)


def test_hovering_the_chart_shows_each_seeds_return_at_that_checkpoint(notebook, checkpoints):
    canvas = notebook.page.locator(CHART)
    returns = checkpoints.returns()
    for i, step in enumerate(STEPS):
        shown = hover(
            notebook, canvas, (i + 0.5) / len(STEPS), f"training step {step:,} ({i + 1} of 4)"
        )
        assert shown["rows"] == [[f"seed {seed}", f"{returns[step][seed]:g}"] for seed in (0, 1)]
        assert shown["inside"], shown
        assert not shown["covers"], shown
    notebook.page.mouse.move(0, 0)


def test_the_chart_draws_a_point_at_each_checkpoint_joined_by_straight_lines(notebook, checkpoints):
    """Seed 0's line alone (seed 1 hidden by its legend entry): a dot at each checkpoint's
    return, and between two checkpoints a straight line, not a step halfway."""
    canvas = notebook.page.locator(CHART)
    seed1 = notebook.page.locator(".aw-checkpoints .aw-legend-item").nth(1)
    seed1.click()
    try:
        assert seed1.get_attribute("aria-pressed") == "false"
        notebook.wait_until(
            lambda: tallest_run(canvas, ORANGE, min_alpha=128)["columns"] == 0,
            what="seed 1's line to be hidden",
        )
        drawn = painted_rows(canvas, BLUE)
        (v0, y0), (v1, y1) = drawn["ticks"][0], drawn["ticks"][-1]
        ratio, rows = drawn["ratio"], drawn["rows"]
        returns = [checkpoints.returns()[step][0] for step in STEPS]
        y_of = [y0 + (v - v0) * (y1 - y0) / (v1 - v0) for v in returns]
        x_of = [(i + 0.5) / len(STEPS) * len(rows) for i in range(len(STEPS))]
        for x, y in zip(x_of, y_of, strict=True):
            # Left of the point's centre, clear of the cursor: a dot is 6 px tall, a line 2.
            column = [r for r in rows[round(x - 2 * ratio)] if abs(r - y) <= 5 * ratio]
            assert len(column) >= round(4 * ratio), (x, y, column)
        i = max(range(len(STEPS) - 1), key=lambda i: abs(returns[i + 1] - returns[i]))
        assert abs(returns[i + 1] - returns[i]) >= 20, returns  # the run learned: a slope
        x = x_of[i] + (x_of[i + 1] - x_of[i]) / 4
        painted = rows[round(x)]
        assert painted, x
        assert abs(np.mean(painted) - (y_of[i] + (y_of[i + 1] - y_of[i]) / 4)) <= 2 * ratio
    finally:
        seed1.click()
    assert seed1.get_attribute("aria-pressed") == "true"
    notebook.wait_until(
        lambda: tallest_run(canvas, ORANGE, min_alpha=128)["columns"] > 0,
        what="seed 1's line to be shown again",
    )


def test_the_chart_has_axis_titles_and_the_view_a_readable_title(notebook):
    root = notebook.page.locator(".aw-checkpoints")
    assert root.locator(".aw-axis-title-x").inner_text() == "training step"
    assert root.locator(".aw-axis-title-y").inner_text() == "evaluation return"
    assert root.locator(":scope > .aw-title").inner_text() == "DQN on CartPole-v1 · run dqn"
    chart = chart_of(notebook.page.locator(CHART)).bounding_box()
    title = root.locator(":scope > .aw-title").bounding_box()
    assert title["y"] - root.bounding_box()["y"] >= 4  # room above the title
    assert title["y"] + title["height"] < chart["y"]


def test_its_controls_take_jupyterlab_darks_colours(notebook):
    """Buttons, the seed chooser and the slider in JupyterLab Dark: painted in the
    theme's layout and text colours, as the episode viewer's controls, not a browser's
    light grey."""
    root = notebook.page.locator(".aw-checkpoints")
    light = theme_colours(notebook)
    set_theme(notebook, DARK)
    try:
        notebook.wait_for(
            "(el) => el.dataset.theme === 'dark'", root.locator("canvas").first.element_handle()
        )
        dark = theme_colours(notebook)
        assert dark != light
        seed = root.locator("select.aw-seed")
        back = root.locator("button.aw-checkpoint-back")
        assert near(most_common_colour(seed), dark["--jp-layout-color1"])
        # As the episode viewer's own buttons: a layout colour of the theme.
        button = most_common_colour(back)
        assert near(button, most_common_colour(root.locator(".agent-widget button.aw-play")))
        assert any(near(button, dark[f"--jp-layout-color{i}"]) for i in (1, 2))
        for control in (seed, back):
            text = control.evaluate("(el) => getComputedStyle(el).color")
            assert near(parse_rgb(text), dark["--jp-ui-font-color1"])
        # The slider's track in the theme's colour, and no light grey pixel anywhere on it.
        colours = set(colours_of(root.locator("input.aw-checkpoint-slider")))
        assert any(near(colour, dark["--jp-layout-color3"]) for colour in colours)
        assert not [c for c in colours if min(c) >= 180], "a light grey slider in the dark theme"
    finally:
        set_theme(notebook, LIGHT)


LIVE = [
    """import tempfile, threading
import torch
from agent_widget import CheckpointViewer
from agent_widget.sb3 import RecordCheckpoints
from harness.dqn_run import RUN, RUN_NAME, dqn

torch.set_num_threads(1)
root = tempfile.mkdtemp()
model = dqn()
record = RecordCheckpoints("CartPole-v1", every=1000, seeds=[0], library=root, run=RUN_NAME)
model.learn(1000, callback=record)
viewer = CheckpointViewer(root, RUN, poll=0.2)""",
    "viewer",
]


def test_checkpoints_a_training_thread_writes_appear_in_the_open_view(server, new_page):
    with opened(server, new_page(), "live.ipynb", LIVE) as notebook:
        episode_view(notebook, 1000, 0)
        label = notebook.page.locator(".aw-checkpoints .aw-checkpoint-label")
        assert label.inner_text() == "training step 1,000 (1 of 1)"
        notebook.execute(
            "learning = threading.Thread(target=model.learn, args=(3000,), "
            "kwargs={'callback': record, 'reset_num_timesteps': False}); learning.start()"
        )  # the cell ends at once: the kernel is idle while the thread trains
        notebook.wait_until(
            lambda: label.inner_text() == "training step 4,000 (4 of 4)",
            timeout=120,
            what="the fourth checkpoint to appear in the view",
        )
        slider = notebook.page.locator(".aw-checkpoints input.aw-checkpoint-slider")
        assert slider.get_attribute("max") == "3"
        episode_view(notebook, 4000, 0).wait_painted(0)  # it followed the newest
        notebook.execute("learning.join(); viewer.close()")


def test_a_view_opened_before_the_first_checkpoint_paints_it_when_it_lands(
    server, new_page, tmp_path
):
    """The view opened in the cell after the one starting the training, before the run
    exists: it says so, then paints the first checkpoint's frame and takes the next one,
    the cell never run again."""
    cells = [
        f"""import threading
import torch
from agent_widget import CheckpointViewer
from agent_widget.sb3 import RecordCheckpoints
from harness.dqn_run import RUN, RUN_NAME, dqn

torch.set_num_threads(1)
model = dqn()
record = RecordCheckpoints("CartPole-v1", every=1000, seeds=[0], library={str(tmp_path)!r},
                           run=RUN_NAME)
viewer = CheckpointViewer({str(tmp_path)!r}, RUN)""",
        "viewer",
    ]
    with opened(server, new_page(), "early.ipynb", cells) as notebook:
        root = notebook.page.locator(".aw-checkpoints")
        message = root.locator(".aw-message")
        notebook.wait_until(
            lambda: message.inner_text() == f"no checkpoint yet in run {RUN}: looking every 1 s",
            what="the view to say there is no checkpoint yet",
        )
        assert root.locator(".aw-checkpoint-episode canvas").count() == 0
        assert root.locator("input.aw-checkpoint-slider").is_disabled()
        notebook.execute(
            "learning = threading.Thread(target=model.learn, args=(1000,), "
            "kwargs={'callback': record}); learning.start()"
        )  # the cell ends at once: the kernel is idle while the thread trains
        label = root.locator(".aw-checkpoint-label")
        notebook.wait_until(
            lambda: label.inner_text() == "training step 1,000 (1 of 1)",
            timeout=120,
            what="the first checkpoint to appear in the view",
        )
        checkpoints = Checkpoints(RunLibrary(tmp_path), RUN)
        assert_paints(episode_view(notebook, 1000, 0), checkpoints, 1000, 0, 0)
        assert message.inner_text() == ""
        notebook.execute(
            "learning.join(); learning = threading.Thread(target=model.learn, args=(1000,), "
            "kwargs={'callback': record, 'reset_num_timesteps': False}); learning.start()"
        )  # the training goes on: the next checkpoint
        notebook.wait_until(
            lambda: label.inner_text() == "training step 2,000 (2 of 2)",
            timeout=120,
            what="the second checkpoint to appear in the view",
        )
        checkpoints.refresh()
        assert_paints(episode_view(notebook, 2000, 0), checkpoints, 2000, 0, 0)
        notebook.execute("learning.join(); viewer.close()")


def test_a_checkpoint_episode_opened_from_the_leaderboard_paints_its_replayed_frames(
    server, new_page, library, checkpoints
):
    """Recorded without frames (training stays fast), the run's first episode (training
    step 1,000, seed 0) opens from the leaderboard with the frames the viewer replays."""
    cells = [
        f"""from agent_widget.library import RunLibrary
board = RunLibrary({str(library)!r}).leaderboard()""",
        "board",
    ]
    assert checkpoints.episodes[0].metadata["training_step"] == STEPS[0]
    assert checkpoints.episodes[0].frames is None
    with opened(server, new_page(), "board.ipynb", cells) as notebook:
        root = notebook.page.locator(".aw-leaderboard")
        root.locator("tr.aw-run", has_text="dqn").locator("input.aw-tick").check()
        notebook.wait_until(
            lambda: notebook.python("board.selected") == [RUN], what="the run ticked"
        )
        root.locator("button.aw-open").click()
        view = View(notebook, root.locator(".aw-opened .agent-widget"))
        view.root.wait_for(timeout=30_000)
        frames = checkpoints.episode(STEPS[0], 0).frames
        assert np.asarray(frames[0]).shape == (400, 600, 3)
        assert_paints(view, checkpoints, STEPS[0], 0, 0)
        last = len(frames) - 1
        view.slide_to(last)
        assert_paints(view, checkpoints, STEPS[0], 0, last)
