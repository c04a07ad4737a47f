"""The run library's leaderboard in a real JupyterLab: text-only table, sorting, filtering,
and ticked runs opening side by side."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator

from harness.lab import Notebook, Server, opened
from tests.e2e.episodes import frame_digests, synthetic_frames

pytestmark = pytest.mark.e2e

E2E = Path(__file__).parent
MARKUP = "<img src=x onerror='window.__awInjected=1'>"
BOARD, DISPLAYED = 1, 2  # cell indices

CELLS = [
    f"""import sys, tempfile
sys.path.insert(0, {str(E2E)!r})
import numpy as np
from episodes import synthetic_frames
from agent_widget.library import RunLibrary
from agent_widget.episodes import Rollout

def episode(n, reward):
    return Rollout.from_arrays(frames=synthetic_frames(n), actions=np.zeros(n - 1, int),
                               rewards=np.full(n - 1, reward),
                               metadata={{"env_id": "Synthetic-v0", "seed": 0}})

lib = RunLibrary(tempfile.mkdtemp())
lib.add([episode(20, 1.0)], algorithm="dqn", run="fast", params={{"lr": 0.01}})
lib.add([episode(30, 0.5)], algorithm="dqn", run="slow", params={{"lr": 0.001}})
lib.add([episode(10, 0.0)], algorithm="random", run={MARKUP!r})
board = lib.leaderboard()""",
    "board",
    "lib",
]


@pytest.fixture(scope="module")
def notebook(server: Server, new_page) -> Iterator[Notebook]:
    with opened(server, new_page(), "leaderboard.ipynb", CELLS) as notebook:
        yield notebook


def board(notebook: Notebook, cell: int = BOARD) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".aw-leaderboard")
    root.wait_for(timeout=30_000)
    return root


def table(root: Locator) -> list[list[str]]:
    """The body rows' cell texts (group headers are one cell)."""
    return root.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))"
    )


def test_runs_are_listed_grouped_by_env_and_algorithm_best_return_first(notebook):
    rows = table(board(notebook))
    assert rows[0] == ["Synthetic-v0 · dqn (2 runs)"]
    assert [r[1] for r in rows[1:3]] == ["fast", "slow"]  # returns 19 and 14.5
    assert rows[1][1:5] == ["fast", "1", "19.0 ± 0.0", "-"]  # one decimal, as 14.5 needs
    assert rows[2][3] == "14.5 ± 0.0"
    assert rows[3] == ["Synthetic-v0 · random (1 run)"]


def test_numbers_are_right_aligned_and_every_control_has_a_name(notebook):
    root = board(notebook)
    aligns = root.locator("tbody tr.aw-run").first.evaluate(
        "(tr) => [...tr.cells].map((c) => getComputedStyle(c).textAlign)"
    )
    assert aligns[2:6] == ["right"] * 4  # episodes, return, success, steps
    assert aligns[1] in ("left", "start")
    assert root.locator("input.aw-filter").get_attribute("aria-label")
    names = root.locator("input.aw-tick").evaluate_all(
        "(boxes) => boxes.map((b) => b.getAttribute('aria-label'))"
    )
    assert names[0] == "Tick run fast (Synthetic-v0 · dqn)"


def test_names_from_the_library_are_shown_as_text_never_as_markup(notebook):
    rows = table(board(notebook))
    assert rows[4][1] == MARKUP
    assert board(notebook).locator("tbody img").count() == 0
    assert notebook.page.evaluate("() => window.__awInjected") is None


def test_clicking_a_column_header_sorts_by_it(notebook):
    root = board(notebook)
    steps = root.locator("th", has_text="steps")
    steps.click()  # numbers sort largest first
    assert [r[1] for r in table(root)[1:3]] == ["slow", "fast"]
    assert steps.get_attribute("aria-sort") == "descending"
    steps.click()
    assert [r[1] for r in table(root)[1:3]] == ["fast", "slow"]


def test_the_filter_keeps_matching_runs_only(notebook):
    root = board(notebook)
    root.locator("input.aw-filter").fill("lr=0.001")
    rows = table(root)
    assert len(rows) == 2
    assert rows[0] == ["Synthetic-v0 · dqn (1 run)"]
    assert rows[1][1] == "slow"
    root.locator("input.aw-filter").fill("")
    assert len(table(root)) == 5


def test_ticked_runs_open_side_by_side_under_the_table(notebook):
    root = board(notebook)
    for run in ("fast", "slow"):
        root.locator("tr.aw-run", has_text=run).locator("input.aw-tick").check()
    notebook.wait_until(
        lambda: len(notebook.python("board.selected")) == 2, what="the selection in the kernel"
    )
    root.locator("button.aw-open").click()
    views = root.locator(".aw-opened .aw-compare .agent-widget")
    views.nth(1).wait_for(timeout=30_000)
    digests = frame_digests(synthetic_frames(1))
    for i in range(2):
        notebook.wait_for(
            "(el) => el.getAttribute('data-painted-step') === '0'",
            views.nth(i).element_handle(),
            what=f"opened episode {i} painted",
        )
        sha = views.nth(i).evaluate(
            """async (root) => {
                const canvas = root.querySelector("canvas.aw-frame");
                const {width, height} = canvas;
                const rgba = canvas.getContext("2d").getImageData(0, 0, width, height).data;
                const rgb = rgba.filter((_, i) => i % 4 !== 3);
                const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", rgb));
                return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
            }"""
        )
        assert digests.get(sha) == 0
    assert notebook.python("type(board.opened).__name__") == "CompareViewer"


def test_displaying_the_library_shows_its_leaderboard(notebook):
    assert len(table(board(notebook, DISPLAYED))) == 5
