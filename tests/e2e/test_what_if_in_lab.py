"""The "What if…" bar in a real JupyterLab and Chromium: a CartPole episode, branched at
the step the slider is on, on the action picked in the bar; the branch appears beside
the episode and both futures are painted, the same frame up to the branch point."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator

from harness.lab import Notebook, View, opened

ROOT = Path(__file__).resolve().parents[2]  # where the kernel finds the harness
T = 30  # the branch point
CELL = 1

CELLS = [
    f"""import sys
sys.path.insert(0, {str(ROOT)!r})
from harness.lab import rgb_sha256
from agent_widget import record, what_if

from tests.cartpole import balance, cartpole

episode = record(cartpole(), balance, seed=3, max_steps=80, agent="pd")
other = 1 - int(episode.actions[{T}])
viewer = what_if(episode, env=cartpole, policy=balance)""",
    "viewer",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("what_if.ipynb", CELLS)]


@pytest.fixture(scope="module")
def root(notebook: Notebook) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(CELL).locator(".aw-compare")
    root.wait_for(timeout=30_000)
    return root


def slide_to(root: Locator, t: int) -> None:
    root.locator(".aw-shared input.aw-slider").evaluate(
        """(el, t) => {
            el.value = String(t);
            el.dispatchEvent(new Event("input", {bubbles: true}));
        }""",
        t,
    )


def branch_at(notebook: Notebook, root: Locator, t: int) -> list[View]:
    """Branch at ``t`` on the kernel's ``other`` action from the bar, as a user would;
    the views of the episode and of its branch once the branch's column is there."""
    bar = root.locator(".aw-what-if")
    slide_to(root, t)
    notebook.wait_until(lambda: notebook.python("viewer.step") == t, what="viewer.step")
    assert bar.locator(".aw-what-if-step").inner_text() == f"t = {t}"
    bar.locator("select.aw-what-if-action").select_option(str(notebook.python("other")))
    bar.locator("button.aw-what-if-go").click()
    notebook.wait_for(
        "(grid) => grid.querySelectorAll('.aw-cell .agent-widget').length === 2",
        root.locator(".aw-compare-grid").element_handle(),
        timeout=60,
        what="the branch's column",
    )
    status = bar.locator(".aw-what-if-status")  # set after the branch is added: it may come later
    notebook.wait_until(lambda: status.inner_text() == f"1 branch at t = {t}", what="the status")
    cells = root.locator(".aw-compare-grid .aw-cell")
    return [View(notebook, cells.nth(i).locator(".agent-widget")) for i in range(2)]


def painted(view: View, t: int) -> str:
    view.wait_painted(t)
    canvas = view.canvas()
    assert canvas["step"] == t
    return canvas["sha256"]


def test_the_bar_branches_at_the_slider_on_the_action_picked_and_paints_both_futures(
    notebook, root
):
    bar = root.locator(".aw-what-if")
    assert bar.is_visible()
    options = bar.locator("select.aw-what-if-action option").all_inner_texts()
    names = ["LEFT (0)", "RIGHT (1)"]
    names[notebook.python("int(episode.actions[0])")] += ", taken"
    assert options == [*names, "every other action"]
    views = branch_at(notebook, root, T)
    assert notebook.python("viewer.divergence") == T

    # At the branch point both show the episode's own frame ...
    slide_to(root, T)
    shown = [painted(view, T) for view in views]
    assert shown == [notebook.python(f"rgb_sha256(episode.frames[{T}])")] * 2
    # ... and five steps on, each its own future, as the kernel holds them.
    later = T + 5
    slide_to(root, later)
    shown = [painted(view, later) for view in views]
    want = [
        notebook.python(f"rgb_sha256(episode.frames[{later}])"),
        notebook.python(f"rgb_sha256(viewer.rollouts[1].frames[{later}])"),
    ]
    assert shown == want
    assert shown[0] != shown[1]


def test_the_bar_offers_another_action_than_the_one_taken_and_marks_that_one(notebook, root):
    """At each step the action the episode took is marked, and the bar's choice is the
    other one, so "Branch" shows a future that differs; the last position took none."""
    bar = root.locator(".aw-what-if")
    select = bar.locator("select.aw-what-if-action")
    last = notebook.python("episode.num_steps")
    taken = notebook.python(f"episode.actions[{T - 3}:{T + 3}].tolist()")
    assert len(set(taken)) == 2, taken  # both actions are taken somewhere in this stretch
    for t, action in [*zip(range(T - 3, T + 3), taken, strict=True), (last, None)]:
        slide_to(root, t)
        notebook.wait_until(
            lambda t=t: bar.locator(".aw-what-if-step").inner_text() == f"t = {t}",
            what=f"the bar at t = {t}",
        )
        marked = select.locator("option[data-taken]").all_inner_texts()
        if action is None:
            assert marked == [], t
            continue
        assert marked == [["LEFT (0), taken", "RIGHT (1), taken"][action]], t
        assert select.input_value() == str(1 - action), t


GAME_CELLS = [
    f"""import sys
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
from pettingzoo.classic import connect_four_v3
from harness.lab import rgb_sha256
from agent_widget import record, what_if

rng = np.random.default_rng(0)
def random_legal(agent, obs):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))
def first_legal(agent, obs):
    return int(np.flatnonzero(obs["action_mask"])[0])
def game():
    return connect_four_v3.env(render_mode="rgb_array")

episode = record(game(), random_legal, seed=0, agent="random")
other = (int(episode.actions[4]) + 1) % 7
viewer = what_if(episode, env=game, policy=first_legal)""",
    "viewer",
]


def test_a_turn_based_game_branches_the_move_of_the_player_whose_turn_it_was(server, new_page):
    """Connect Four: the bar offers the seven columns; the column picked at t = 4 is
    played by the player whose turn it was, and the next position shows its own board."""
    pytest.importorskip("pettingzoo")
    t = 4
    with opened(server, new_page(), "what_if_game.ipynb", GAME_CELLS) as notebook:
        root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(CELL).locator(".aw-compare")
        root.wait_for(timeout=30_000)
        bar = root.locator(".aw-what-if")
        options = bar.locator("select.aw-what-if-action option").all_inner_texts()
        columns = [*map(str, range(7))]
        columns[notebook.python("int(episode.actions[0])")] += ", taken"
        assert options == [*columns, "every other action"]
        views = branch_at(notebook, root, t)
        acting = notebook.python("str(episode.acting_agent[4])")
        assert notebook.python(f"int(viewer.rollouts[1].agent_action({acting!r})[4])") == (
            notebook.python("other")
        )
        slide_to(root, t + 1)  # the boards after the two moves
        shown = [painted(view, t + 1) for view in views]
        assert shown == [
            notebook.python(f"rgb_sha256(episode.frames[{t + 1}])"),
            notebook.python(f"rgb_sha256(viewer.rollouts[1].frames[{t + 1}])"),
        ]
        assert shown[0] != shown[1]
