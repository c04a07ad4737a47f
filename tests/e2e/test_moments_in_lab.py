"""lib.moments in a real JupyterLab: the steps a query found listed as text, and a
click opening the viewer at that episode and step, the found steps in its timeline."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator

from harness.lab import Notebook

MOMENTS = 1  # cell index
MARKUP = "<img src=x onerror=window.__awInjected=1>"
QUERY = (
    f"SELECT run, episode, t, angle, '{MARKUP}' AS note FROM steps WHERE angle > 0.05 "
    "ORDER BY episode, t"
)
CELLS = [
    """import tempfile
from agent_widget import RunLibrary, record
from tests.cartpole import cartpole, lean, with_angle
lib = RunLibrary(tempfile.mkdtemp())
lib.add([record(cartpole(), with_angle(lean), seed=s) for s in range(2)],
        algorithm="lean", run="a")""",
    f"moments = lib.moments({QUERY!r}, stretches=True)\nmoments",
]


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("moments.ipynb", CELLS)]


def listing(notebook: Notebook) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(MOMENTS).locator(".aw-moments")
    root.wait_for(timeout=30_000)
    return root


def cells(root: Locator) -> list[list[str]]:
    return root.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))"
    )


def test_the_moments_are_listed_as_the_kernel_found_them_in_text(notebook):
    root = listing(notebook)
    rows = notebook.python("moments.rows")
    assert len(rows) > 1
    assert cells(root) == rows
    headers = root.locator("thead th").all_text_contents()
    assert headers == ["run", "episode", "t", "last", "angle", "note"]
    steps = notebook.python("moments.steps")
    assert steps > len(rows)  # stretches of several steps each
    assert root.locator(".aw-count").text_content() == f"{len(rows)} moments ({steps} steps)"
    assert rows[0][0] == "CartPole-v1/lean/a"
    assert rows[0][5] == MARKUP  # shown as text
    assert root.locator("tbody img").count() == 0
    assert notebook.page.evaluate("() => window.__awInjected") is None


def test_clicking_a_moment_opens_the_viewer_at_its_step_with_the_found_steps(notebook):
    root = listing(notebook)
    rows = cells(root)
    index = len(rows) - 1  # the last stretch: in episode 1, far from step 0
    episode, t = int(rows[index][1]), int(rows[index][2])
    assert t > 0
    root.locator("tbody tr").nth(index).click()
    view = root.locator(".aw-opened .agent-widget")
    view.wait_for(timeout=30_000)
    notebook.wait_for(
        "([el, t]) => el.getAttribute('data-painted-step') === String(t)",
        [view.element_handle(), t],
        what=f"the opened viewer painted at step {t}",
    )
    assert notebook.python("moments.opened.step") == t
    assert notebook.python("moments.chosen") == index
    title = f"{rows[index][0]} · episode {episode} · step {t}"
    assert notebook.python("moments.opened.title") == title
    assert "aw-chosen" in (root.locator("tbody tr").nth(index).get_attribute("class") or "")
    keys = view.locator(".aw-timeline-key").all_text_contents()
    assert any("found" in key for key in keys), keys


def test_enter_on_a_moment_opens_it_too(notebook):
    root = listing(notebook)
    row = root.locator("tbody tr").first
    row.focus()
    row.press("Enter")
    t = int(cells(root)[0][2])
    notebook.wait_until(
        lambda: notebook.python("moments.chosen") == 0, what="the first moment opened"
    )
    view = root.locator(".aw-opened .agent-widget")
    notebook.wait_for(
        "([el, t]) => el.getAttribute('data-painted-step') === String(t)",
        [view.element_handle(), t],
        what=f"the opened viewer painted at step {t}",
    )
