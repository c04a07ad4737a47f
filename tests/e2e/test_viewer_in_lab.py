"""EpisodeViewer in a real JupyterLab and Chromium: the pixels, the controls, the kernel link.

One notebook holds the viewers of this module: a synthetic 200-position episode
displayed twice, a viewer that grows live, and a recorded CartPole episode.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.lab import Notebook, View
from tests.e2e.episodes import SCRIPT_NOTE, SCRIPT_STEP, frame_digests, synthetic_frames

E2E = Path(__file__).parent
N = 200
FRAMES = synthetic_frames(N)
DIGESTS = frame_digests(FRAMES)
LIVE_STEPS = 40
VIEWER, SECOND_VIEW, LIVE, CARTPOLE, FRAMELESS = 1, 2, 3, 4, 5  # cell indices

CELLS = [
    f"""import sys, time
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode, synthetic_frames
from agent_widget.viewer import EpisodeViewer
viewer = EpisodeViewer(synthetic_episode({N}), fps=20)""",
    "viewer",
    "viewer",
    f"""live_frames = synthetic_frames({LIVE_STEPS})
live = EpisodeViewer(live_frames[:1], title="live")
live""",
    """import gymnasium as gym
from agent_widget.recording import record

env = gym.make("CartPole-v1", render_mode="rgb_array")
policy = lambda obs: int(obs[2] + 0.01 * obs[3] > 0)  # fails after 110 steps
cartpole = EpisodeViewer(record(env, policy, seed=1), step=60)
cartpole""",
    """import numpy as np
from agent_widget.episodes import Rollout
EpisodeViewer(Rollout.from_arrays(observations=np.zeros((4, 2)), actions=[1, 0, 1]))""",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("viewer.ipynb", CELLS)]


@pytest.fixture
def view(notebook: Notebook) -> View:
    return notebook.view(VIEWER)


def assert_shows(view: View, t: int) -> None:
    """The view has painted step t, and its canvas holds exactly frame t's pixels."""
    view.wait_painted(t)
    canvas = view.canvas()
    shown = DIGESTS.get(canvas["sha256"], "no frame of the episode")
    assert (canvas["step"], shown) == (t, t), f"painted step {canvas['step']} shows {shown}"
    assert (canvas["width"], canvas["height"], canvas["opaque"]) == (64, 48, True)


def go_to(notebook: Notebook, view: View, t: int) -> None:
    """Set the step from the kernel once the view's last move is saved there: a save
    still on its way would otherwise land after this one and win, as the user's last."""
    shown = int(view.slider().input_value())
    notebook.wait_until(lambda: kernel_step(notebook) == shown, what=f"viewer.step == {shown}")
    notebook.execute(f"viewer.step = {t}")
    assert_shows(view, t)


def kernel_step(notebook: Notebook, name: str = "viewer") -> int:
    return int(notebook.python(f"{name}.step"))


def test_the_first_frame_is_painted_exactly(view):
    assert_shows(view, 0)


def test_sliding_paints_the_frame_and_tells_python(notebook, view):
    go_to(notebook, view, 0)
    view.slide_to(37)
    assert_shows(view, 37)
    notebook.wait_until(lambda: kernel_step(notebook) == 37, what="viewer.step == 37 in the kernel")


def test_arrow_keys_home_and_end_step_through_the_episode(notebook, view):
    go_to(notebook, view, 10)
    view.press("ArrowRight", "ArrowRight", "ArrowRight")
    assert_shows(view, 13)
    view.press("ArrowLeft")
    assert_shows(view, 12)
    view.press("End")
    assert_shows(view, N - 1)
    view.press("Home")
    assert_shows(view, 0)


def test_a_burst_of_key_presses_ends_on_the_last_one_in_view_and_kernel(notebook, view):
    # Saves to the kernel are throttled; the kernel's echoes of earlier saves must
    # never move the view back.
    go_to(notebook, view, 20)
    view.press(*["ArrowRight"] * 25)
    assert_shows(view, 45)
    notebook.wait_until(lambda: kernel_step(notebook) == 45, what="viewer.step == 45 in the kernel")
    # The kernel has every save; a change it makes now reaches the view after their
    # echoes (ipywidgets applies a model's updates in order): once it shows, none is left.
    notebook.execute("title, viewer.title = viewer.title, 'after the burst'")
    notebook.wait_for(
        "(el) => el.textContent.includes('after the burst')", view.handle, what="the new title"
    )
    notebook.execute("viewer.title = title")
    assert_shows(view, 45)


def test_setting_step_in_python_moves_the_view(notebook, view):
    go_to(notebook, view, 40)
    go_to(notebook, view, 183)  # a chunk far from anything fetched so far


def test_play_then_pause_stops_on_an_exact_frame(notebook, view):
    go_to(notebook, view, 0)
    play = view.root.locator("button.aw-play")
    play.click()
    notebook.wait_for(
        "(el) => Number(el.getAttribute('data-painted-step')) >= 8", view.handle, what="playback"
    )
    play.click()
    assert play.inner_text().strip() == "Play"
    stopped = int(view.slider().input_value())
    assert 8 <= stopped < N
    assert_shows(view, stopped)  # its frame may have been on its way
    notebook.animation_frames(30)  # playing at 20 fps, it would have moved 10 steps
    assert (view.painted_step(), view.slider().input_value()) == (stopped, str(stopped))
    notebook.wait_until(lambda: kernel_step(notebook) == stopped, what=f"viewer.step == {stopped}")


def test_clicking_the_timeline_seeks(notebook, view):
    go_to(notebook, view, 0)
    timeline = view.root.locator("canvas.aw-timeline")
    box = timeline.bounding_box()
    assert box is not None
    timeline.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    notebook.wait_for(
        "(el) => Math.abs(Number(el.getAttribute('data-painted-step')) - 100) <= 3",
        view.handle,
        what="a seek near the middle",
    )
    landed = view.painted_step()
    assert landed is not None
    assert_shows(view, landed)
    notebook.wait_until(lambda: kernel_step(notebook) == landed, what=f"viewer.step == {landed}")


def test_the_same_viewer_displayed_twice_stays_in_sync(notebook, view):
    go_to(notebook, view, 0)
    second = notebook.view(SECOND_VIEW)
    assert_shows(second, 0)
    view.slide_to(77)
    assert_shows(second, 77)
    second.press("ArrowRight")
    assert_shows(view, 78)


def test_the_readout_names_the_action(notebook, view):
    go_to(notebook, view, 14)
    text = view.readout()
    assert "t: 14 / " in text
    assert "action: 2 (DOWN)" in text


def test_the_readout_shows_markup_in_an_info_as_text(notebook, view):
    go_to(notebook, view, SCRIPT_STEP)
    notebook.wait_for(
        "(el) => el.querySelector('.aw-readout').textContent.includes('<script>')",
        view.handle,
        what="the info with <script> in the readout",
    )
    assert SCRIPT_NOTE in view.readout()
    markup = view.root.evaluate(
        """(root) => ({
            scripts: root.querySelectorAll("script").length,
            images: root.querySelectorAll("img").length,
            // only the readout's own rows, notes and tree: no element made of the info's text
            readoutElements: [...new Set([...root.querySelectorAll(".aw-readout *")]
                .map((e) => e.tagName.toLowerCase()))].sort(),
            injected: window.__awInjected ?? null,
        })"""
    )
    assert markup == {
        "scripts": 0,
        "images": 0,
        "readoutElements": ["dd", "details", "div", "dl", "dt", "span", "summary"],
        "injected": None,
    }


def test_live_growth_paints_new_frames_while_the_cell_runs(notebook):
    live = notebook.view(LIVE)  # its frames are the first frames of FRAMES
    slider = live.slider()
    assert slider.get_attribute("max") == "0"
    last = LIVE_STEPS - 1
    # The cell stays busy after its appends until the test has looked, so everything
    # checked below reached the browser while the kernel could not answer requests.
    with notebook.held(
        f"""for t in range(1, {LIVE_STEPS}):
    live.append(frame=live_frames[t], action=t % 4, reward=1.0, info={{"t": t}})
    time.sleep(0.05)  # deliberate: a live loop's pace, its frames pushed as they come"""
    ) as run:
        notebook.wait_until(
            lambda: int(slider.get_attribute("max") or 0) > 0, what="the slider to grow"
        )
        assert_shows(live, last)  # followed the growth; the frame came pushed
        assert f'info: {{"t":{last}}}' in live.readout()
        live.press("ArrowLeft")  # the readout data of the pushed chunk came along
        assert_shows(live, last - 1)
        assert f'info: {{"t":{last - 1}}}' in live.readout()
        live.press("Home", "ArrowRight")  # chunk 0 held one frame before the growth
        assert_shows(live, 1)
        assert not run.done, f"the cell ended early:\n{run.wait()}"
    assert slider.get_attribute("max") == str(last)
    notebook.wait_until(lambda: kernel_step(notebook, "live") == 1, what="live.step == 1")


def test_a_viewer_without_frames_paints_a_placeholder_and_reads_out(notebook):
    frameless = notebook.view(FRAMELESS)
    frameless.wait_painted(0)
    frameless.press("ArrowRight")
    frameless.wait_painted(1)
    assert "action: 0" in frameless.readout()
