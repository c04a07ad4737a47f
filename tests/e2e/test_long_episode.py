"""A 100,000-step episode opens and seeks to its end in a real JupyterLab."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from episodes import synthetic_frames
from lab import Notebook, Server, opened, rgb_sha256

pytestmark = pytest.mark.e2e

N = 100_001  # 100,000 actions
SIZE = 16


@pytest.fixture(scope="module")
def notebook(server: Server, new_page) -> Iterator[Notebook]:
    cells = [
        f"""import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from episodes import synthetic_episode
from agent_widget.viewer import EpisodeViewer
viewer = EpisodeViewer(synthetic_episode({N}, {SIZE}, {SIZE}, infos=False))
viewer""",
    ]
    with opened(server, new_page(), "long.ipynb", cells) as notebook:
        yield notebook


def test_a_100000_step_episode_opens_and_seeks_to_its_end(notebook):
    view = notebook.view(0)
    last = N - 1
    frames = synthetic_frames(N, SIZE, SIZE)
    view.wait_painted(0)
    assert view.canvas()["sha256"] == rgb_sha256(frames[0])
    assert view.slider().get_attribute("max") == str(last)
    view.press("End")
    view.wait_painted(last)
    canvas = view.canvas()
    assert (canvas["step"], canvas["sha256"]) == (last, rgb_sha256(frames[last]))
    notebook.wait_until(
        lambda: notebook.python("viewer.step") == last, what="viewer.step at the end"
    )


def test_a_kernel_that_does_not_answer_is_said_in_words_and_the_view_recovers(notebook):
    """A kernel that answers nothing (here: stopped with SIGSTOP, as a hung or suspended
    one) is said so within a few seconds, where the frame would be and on the cards;
    once it answers again (SIGCONT) the view shows the frame by itself."""
    view = notebook.view(0)
    notebook.execute("viewer.add_panel('notes', lambda step: f't = {step.t}')")
    pid = notebook.python("__import__('os').getpid()")
    target = 54_321
    os.kill(pid, signal.SIGSTOP)
    try:
        view.slide_to(target)
        late = "(el) => el.dataset.noAnswer === 'true'"
        notebook.wait_for(late, view.handle, timeout=6, what="the frame's note")
        status = view.root.locator(".aw-status").inner_text()
        assert "no answer from the kernel: it may be busy running a cell" in status
        assert view.painted_step() != target
        card = view.card("notes")
        notebook.wait_for(late, card.element_handle(), timeout=6, what="the card's note")
        assert "no answer from the kernel" in card.inner_text().lower()
    finally:
        os.kill(pid, signal.SIGCONT)
    view.wait_painted(target)
    assert view.canvas()["sha256"] == rgb_sha256(synthetic_frames(target + 1, SIZE, SIZE)[target])
    view.wait_card("notes", target, "text")
    assert view.root.get_attribute("data-no-answer") == "false"
    assert view.root.locator(".aw-status").inner_text() == ""
    assert card.get_attribute("data-no-answer") == "false"
