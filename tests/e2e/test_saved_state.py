"""A notebook executed elsewhere (nbclient, as nbconvert --execute) and saved with its
widget state, then opened in JupyterLab without running it: the viewer shows the
frames the state carries, with no kernel that knows the widget, and says in words
where the rest is: its cards say that this is a saved copy, whose panels a running
kernel computes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbclient
import pytest
from nbformat.sign import NotebookNotary

from harness.charts import learning_curve
from harness.lab import Notebook, new_notebook, rgb_sha256
from harness.views import View
from tests.e2e.episodes import synthetic_frames

pytestmark = pytest.mark.e2e

E2E = Path(__file__).parent
N = 300
TRAINED = 500  # episodes of the TrainingViewer's run
FRAMES = synthetic_frames(N)
CELLS = [
    f"""import sys
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode
from agent_widget import CompareViewer, EpisodeViewer

def notes(step):
    return f't = {{step.t}}'""",
    f"""viewer = EpisodeViewer(synthetic_episode({N}))
viewer.add_panel("notes", notes)
viewer""",
    """compare = CompareViewer({"a": synthetic_episode(30), "b": synthetic_episode(20)})
compare.add_panel("notes", notes)
compare""",
    f"""import gymnasium as gym
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake)
display(training)
QLearning(lake, seed=0).train({TRAINED}, callback=training.snapshot);""",
]


@pytest.fixture(scope="module")
def notebook(open_notebook) -> Iterator[Notebook]:
    executed = new_notebook(CELLS)
    nbclient.NotebookClient(executed, timeout=120, store_widget_state=True).execute()
    assert "widgets" in executed.metadata  # nbconvert's default: the state is saved
    NotebookNotary().sign(executed)  # as `jupyter trust` does
    with open_notebook("saved.ipynb", executed, run=False) as notebook:
        yield notebook


def test_a_saved_notebook_shows_its_frames_without_running(notebook):
    view = notebook.view(1)
    view.wait_painted(0)
    assert view.canvas()["sha256"] == rgb_sha256(FRAMES[0])
    view.press("ArrowRight")
    view.wait_painted(1)
    assert view.canvas()["sha256"] == rgb_sha256(FRAMES[1])
    saved = int(view.root.get_attribute("data-saved-positions") or 0)
    assert 16 <= saved < N  # the default budget holds the first chunks, not all 300 frames
    assert view.root.get_attribute("data-cached-chunks") == str(saved // 16)  # as they came
    view.slide_to(saved - 1)
    view.wait_painted(saved - 1)
    assert view.canvas()["sha256"] == rgb_sha256(FRAMES[saved - 1])
    view.slide_to(N - 1)  # past what was saved: the new kernel knows no such widget
    notebook.wait_for("(el) => el.dataset.noAnswer === 'true'", view.handle, what="the note")
    status = view.root.locator(".aw-status").inner_text()
    assert f"The notebook saved steps 0 to {saved - 1} with this view" in status
    assert "this saved copy has no kernel to send the others: run the cell" in status


def says_saved_copy(view: View) -> None:
    """The panel card says it is a saved copy (not that the kernel is busy), at once."""
    card = view.card("notes")
    assert card.get_attribute("data-saved-copy") == "true"
    text = card.locator(".aw-waiting").inner_text()
    assert text == "A saved copy: a running kernel computes this panel. Run the cell to see it."


def test_a_saved_copys_cards_say_a_running_kernel_computes_them(notebook):
    says_saved_copy(notebook.view(1))
    # The widget view wins over the output's picture where the state is saved.
    output = notebook.page.locator(".jp-Cell").nth(1).locator(".jp-OutputArea-output")
    assert output.locator("img").count() == 0


def test_a_saved_comparisons_cards_say_so_too(notebook):
    """A comparison's viewers are drawn from models the widget manager gives (with no
    comm): each one's card says it is a saved copy."""
    for nth in range(2):
        view = notebook.view(2, nth)
        view.card("notes").wait_for(timeout=30_000)
        says_saved_copy(view)


def test_a_saved_training_viewer_shows_the_trained_table_and_every_episode(notebook):
    """Issue #53: the state is saved as the training cell ends, before the timers that
    drew its last position and sent the rest of its curve; it showed "episode: 0"."""
    training = notebook.page.locator(".jp-Cell").nth(3).locator(".aw-training")
    drawn = learning_curve(notebook, training, TRAINED)  # every episode, the cursor on the last
    assert drawn["caption"].endswith(f"shows the table after episode {TRAINED - 1}")
    view = View(notebook, training.locator(".aw-training-timeline .agent-widget"))
    last = int(view.slider().get_attribute("max") or 0)
    view.wait_painted(last)
    assert view.slider().input_value() == str(last)
    assert f"\nepisode: {TRAINED - 1}\n" in f"\n{view.readout()}\n"
