"""A 100,000-step episode opens and seeks to its end in a real JupyterLab."""

from __future__ import annotations

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
