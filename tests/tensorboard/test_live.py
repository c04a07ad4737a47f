"""A recording under way in the Agent tab, in Chromium: another process runs
``record(path=)``, whose ``<path>.part`` the tab lists and opens with what is there; as
the recording goes on, TensorBoard's reload shows the positions written since in the
episode already open, and once the recording ends, the finished file in its place.

The recorder pauses (reads a line) at two steps, so the test knows the file has grown
between two looks; which positions the file holds at each is the encoder's to say (it
trails the episode by a chunk or two), so each frame painted is checked against the
finished file's frame at the same position.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_widget import load
from harness.lab import rgb_sha256
from harness.tensorboard import TensorBoard
from harness.views import View, WatchedPage
from tests.tensorboard.tab import agent_tab

pytestmark = pytest.mark.e2e

PAUSES = (50, 150)  # the actions the recorder waits before asking for
RECORDER = f"""
import sys
import gymnasium as gym
from agent_widget import record

asked = 0

def policy(obs):
    global asked
    if asked in {PAUSES}:
        print(asked, flush=True)
        sys.stdin.readline()
    asked += 1
    return 2

env = gym.make("MountainCar-v0", render_mode="rgb_array")
record(env, policy, seed=0, max_steps=200, path=sys.argv[1])
"""
RUN = "live"
PART = f"{RUN}/car.rollout.part"


class Recorder:
    """``record(path=)`` in a process of its own, paused at each of ``PAUSES``."""

    def __init__(self, path: Path) -> None:
        argv = [sys.executable, "-c", RECORDER, str(path)]
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def paused(self) -> int:
        """Waits for the next pause; the action it waits before."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the recorder ended (exit code {self.process.wait()})"
        return int(line)

    def go_on(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture
def tensorboard(tmp_path: Path) -> Iterator[TensorBoard]:
    (tmp_path / "runs" / RUN).mkdir(parents=True)
    server = TensorBoard(tmp_path / "runs", tmp_path)
    yield server
    server.stop()


def positions_written(part: Path) -> int:
    """How many positions a reader of the growing file sees now (0 before it can read it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # load() says the recording is not whole: it is not yet
        try:
            return load(part).num_positions
        except Exception:  # not yet a readable file: the recorder has only begun
            return 0


def shown_length(view: View) -> int:
    return int(view.slider().get_attribute("max") or -1) + 1


def end_painted(view: View) -> tuple[int, str]:
    """Goes to the last position the view holds; that position and its frame's digest."""
    last = shown_length(view) - 1
    view.press("End")
    view.wait_painted(last, timeout=60)
    return last, view.canvas()["sha256"]


def reload(watched: WatchedPage) -> None:
    watched.page.locator("app-header-reload button").click()  # TensorBoard's own reload


def test_a_growing_recording_opens_with_what_is_there_and_grows_on_reload(page, tensorboard):
    part = tensorboard.logdir / PART
    recorder = Recorder(tensorboard.logdir / RUN / "car.rollout")
    try:
        assert recorder.paused() == PAUSES[0]
        watched = WatchedPage(page)
        watched.wait_until(lambda: positions_written(part) > 0, what="the first chunks on disk")
        watched, frame = agent_tab(page, f"{tensorboard.url}#agent", rows=1)
        row = frame.locator(f'tr[data-path="{PART}"]')
        row.locator("button.aw-tb-open").click()
        view = View(watched, frame.locator(".agent-widget"))
        view.wait_painted(0, timeout=60)
        first = view.canvas()["sha256"]
        before, before_sha = end_painted(view)
        assert 0 < before < PAUSES[0]

        recorder.go_on()
        assert recorder.paused() == PAUSES[1]
        watched.wait_until(
            lambda: positions_written(part) > before + 1, what="the recording to grow on disk"
        )
        reload(watched)
        watched.wait_for(
            "([el, n]) => Number(el.querySelector('input.aw-slider').max) > n",
            [view.handle, before],
            timeout=60,
            what="the open episode to grow on TensorBoard's reload",
        )
        grown, grown_sha = end_painted(view)
        assert grown > before

        recorder.go_on()
        assert recorder.process.wait(timeout=120) == 0
        finished = load(tensorboard.logdir / RUN / "car.rollout").frames
        assert finished is not None
        assert first == rgb_sha256(finished[0])
        assert before_sha == rgb_sha256(finished[before])
        assert grown_sha == rgb_sha256(finished[grown])

        reload(watched)  # the .part is gone: the finished file opens in its place
        watched.wait_for(
            "() => document.querySelector('a.aw-tb-link')?.href.includes('episode=car.rollout&')",
            timeout=60,
            what="the finished file shown in place of the recording",
        )
        view = View(watched, frame.locator(".agent-widget"))
        view.wait_painted(grown, timeout=60)
        assert view.canvas()["sha256"] == grown_sha
        assert shown_length(view) == len(finished)
    finally:
        recorder.stop()
