"""The run library's leaderboard in a real JupyterLab: text-only table, rows grouped by
env by default and ranked within it by the sorted column, filtering, and ticked runs
opening side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator

from harness.appearance import horizontal_overflow, set_cell_width
from harness.lab import Notebook
from tests.e2e.episodes import frame_digests, synthetic_frames

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
lib.add([episode(25, 0.7)], algorithm="ppo", run="mid")
lib.add([episode(10, 0.0)], algorithm="random", run={MARKUP!r})
board = lib.leaderboard()""",
    "board",
    "lib",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("leaderboard.ipynb", CELLS)]


def board(notebook: Notebook, cell: int = BOARD) -> Locator:
    """The leaderboard in ``cell``, in a window wide enough for its table in its own order
    (narrower, the sorted column moves next to the run's name)."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".aw-leaderboard")
    root.wait_for(timeout=30_000)
    return root


def lines(root: Locator) -> list[list[str]]:
    """The body rows' cell texts (group headers are one cell)."""
    return root.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))"
    )


def table(root: Locator) -> list[list[str]]:
    """The runs' rows' cell texts (no group headers)."""
    return [line for line in lines(root) if len(line) > 1]


def sorted_by(root: Locator) -> dict[str, str]:
    """Each header's text and its aria-sort."""
    return dict(
        root.locator("thead th.aw-sortable").evaluate_all(
            "(ths) => ths.map((th) => [th.textContent, th.getAttribute('aria-sort')])"
        )
    )


def test_rows_are_grouped_by_env_and_ranked_within_it_by_default(notebook):
    """A header over the env's runs, then best return first whatever the algorithm:
    19 (dqn), 16.8 (ppo), 14.5 (dqn), 0."""
    root = board(notebook)
    assert notebook.python("board.group_by") == "env"
    assert root.locator("select.aw-group-by").input_value() == "env"
    assert lines(root)[0] == ["Synthetic-v0 (4 runs)"]
    rows = table(root)
    assert [r[1] for r in rows] == ["fast", "mid", "slow", MARKUP]
    # run, env, algorithm, episodes, return (one decimal, as 14.5 needs), success
    assert rows[0][1:7] == ["fast", "Synthetic-v0", "dqn", "1", "19.0 ± 0.0", "-"]
    assert [r[5] for r in rows[1:3]] == ["16.8 ± 0.0", "14.5 ± 0.0"]
    headers = sorted_by(root)
    assert headers.pop("return (mean ± std) ▼") == "descending"
    assert set(headers.values()) == {"none"}


def test_grouping_is_a_choice_of_the_table_and_of_python(notebook):
    root = board(notebook)
    root.locator("select.aw-group-by").select_option("algorithm")
    notebook.wait_until(
        lambda: notebook.python("board.group_by") == "algorithm", what="board.group_by"
    )
    rows = lines(root)
    assert [r[0] if len(r) == 1 else r[1] for r in rows] == [
        *["dqn (2 runs)", "fast", "slow"],
        *["ppo (1 run)", "mid", "random (1 run)", MARKUP],
    ]
    notebook.execute("board.group_by = None")
    notebook.wait_until(lambda: len(lines(root)) == 4, what="the groups' headers to go")
    assert root.locator("select.aw-group-by").input_value() == ""
    notebook.execute('board.group_by = "env"')
    notebook.wait_until(lambda: len(lines(root)) == 5, what="the env's header back")


def test_numbers_are_right_aligned_and_every_control_has_a_name(notebook):
    root = board(notebook)
    aligns = root.locator("tbody tr.aw-run").first.evaluate(
        "(tr) => [...tr.cells].map((c) => getComputedStyle(c).textAlign)"
    )
    assert aligns[4:8] == ["right"] * 4  # episodes, return, success, steps
    assert {*aligns[1:4]} <= {"left", "start"}  # run, env, algorithm
    assert root.locator("input.aw-filter").get_attribute("aria-label")
    names = root.locator("input.aw-tick").evaluate_all(
        "(boxes) => boxes.map((b) => b.getAttribute('aria-label'))"
    )
    assert names[0] == "Tick run fast (Synthetic-v0 · dqn)"


def test_names_from_the_library_are_shown_as_text_never_as_markup(notebook):
    rows = table(board(notebook))
    assert rows[3][1] == MARKUP
    assert board(notebook).locator("tbody img").count() == 0
    assert notebook.page.evaluate("() => window.__awInjected") is None


def test_clicking_a_column_header_sorts_by_it(notebook):
    """Steps 29 (slow), 24 (mid), 19 (fast), 9; the header's button takes keys too."""
    root = board(notebook)
    steps = root.get_by_role("button", name="steps", exact=True)
    steps.click()  # numbers sort largest first
    assert [r[1] for r in table(root)] == ["slow", "mid", "fast", MARKUP]
    assert sorted_by(root)["steps ▼"] == "descending"
    root.get_by_role("button", name="steps", exact=True).press("Enter")
    assert [r[1] for r in table(root)] == [MARKUP, "fast", "mid", "slow"]
    headers = sorted_by(root)
    assert headers.pop("steps ▲") == "ascending"
    assert set(headers.values()) == {"none"}
    root.get_by_role("button", name="return (mean ± std)", exact=True).click()


def test_the_filter_keeps_matching_runs_only(notebook):
    root = board(notebook)
    root.locator("input.aw-filter").fill("lr=0.001")
    rows = table(root)
    assert [r[1] for r in rows] == ["slow"]
    root.locator("input.aw-filter").fill("")
    assert len(table(root)) == 4


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
    assert len(table(board(notebook, DISPLAYED))) == 4


def test_in_a_420_px_cell_the_table_scrolls_inside_its_own_box(notebook):
    root = board(notebook)
    size = notebook.page.viewport_size
    try:
        set_cell_width(notebook, root, 420)
        fit = horizontal_overflow(root)
        assert fit["scrollWidth"] <= fit["clientWidth"], fit
        assert fit["width"] <= fit["cell"], fit
        scroll = root.locator(".aw-table-scroll")
        widths = scroll.evaluate("(el) => [el.scrollWidth, el.clientWidth]")
        assert widths[0] > widths[1]  # the table is wider: its box scrolls
    finally:
        notebook.page.set_viewport_size(size)


VISIBLE = """(root) => {
    const box = root.querySelector(".aw-table-scroll").getBoundingClientRect();
    const shown = (cell) => {
        const r = cell.getBoundingClientRect();
        // Over the cells scrolled under it: the topmost element at its middle is itself.
        const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && cell.contains(top);
    };
    const row = root.querySelector("tbody tr.aw-run");
    const index = (th) => [...th.parentElement.cells].indexOf(th);
    const sorted = root.querySelector("thead th[aria-sort$='ending']");
    const run = root.querySelector("thead th[data-key='run']");
    return {sorted: [shown(sorted), shown(row.cells[index(sorted)])],
            run: [shown(run), shown(row.cells[index(run)])]};
}"""


def test_in_a_420_px_cell_the_run_and_sorted_columns_stay_in_view(notebook):
    root = board(notebook)
    scroll = root.locator(".aw-table-scroll")
    size = notebook.page.viewport_size
    try:
        set_cell_width(notebook, root, 420)
        for key in ("return_mean", "steps"):
            if key != "return_mean":
                root.locator(f"th[data-key='{key}'] button").click()
            for left in (0, 10_000):  # scrolled to either end
                scroll.evaluate("(el, left) => { el.scrollLeft = left; }", left)
                root.evaluate("() => new Promise(requestAnimationFrame)")
                assert root.evaluate(VISIBLE) == {
                    "sorted": [True, True],
                    "run": [True, True],
                }, (key, left)
    finally:
        root.locator("th[data-key='return_mean'] button").click()  # back to best first
        scroll.evaluate("(el) => { el.scrollLeft = 0; }")
        notebook.page.set_viewport_size(size)
