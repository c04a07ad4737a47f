"""A notebook executed elsewhere (nbclient, as ``nbconvert --execute``) and saved WITHOUT
its widget state, as JupyterLab saves by default: each widget's output still shows its
saved copy, a picture of the viewer's frame (or the leaderboard's table) and a sentence.

Exported by ``nbconvert --to html`` and opened with every request refused, the page
shows an ``<img>`` of each viewer holding its frame at the step shown; opened
untrusted in JupyterLab (an unsigned notebook is), each output is that picture, never
``<agent_widget... object at 0x...>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbclient
import nbformat
import pytest
from nbconvert import HTMLExporter
from playwright.sync_api import Locator, Page

from agent_widget.viewer._saved_copy import shown_frame
from harness.appearance import horizontal_overflow
from harness.lab import Notebook, Server, new_notebook, opened
from harness.pictures import holds, shown_pixels
from tests.e2e.episodes import synthetic_frames
from tests.e2e.test_page_in_browser import OpenedPage

pytestmark = pytest.mark.e2e

E2E = Path(__file__).parent
HOSTILE = "<img src=x onerror='window.__awInjected=1'>"
VIEWER, COMPARE, BOARD = 1, 2, 3  # cell indices
CELLS = [
    f"""import sys, tempfile
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode
from agent_widget import CompareViewer, EpisodeViewer
from agent_widget.library import RunLibrary
lib = RunLibrary(tempfile.mkdtemp())
lib.add([synthetic_episode(10)], algorithm="dqn", run={HOSTILE!r})""",
    "viewer = EpisodeViewer(synthetic_episode(40))\nviewer.step = 7\nviewer",
    """compare = CompareViewer({"long": synthetic_episode(40), "short": synthetic_episode(20)})
compare.step = 30
compare""",
    "lib",
]
# What each viewer's picture holds: its frame (each column's) at the step shown.
FRAMES = {
    VIEWER: [synthetic_frames(40)[7]],
    COMPARE: [synthetic_frames(40)[30], synthetic_frames(20)[19]],  # "short" has ended
}


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    notebook = new_notebook(CELLS)
    nbclient.NotebookClient(notebook, timeout=120, store_widget_state=False).execute()
    assert "widgets" not in notebook.metadata  # as JupyterLab saves by default
    return notebook


def cell(page: Page, index: int) -> Locator:
    return page.locator(".jp-Cell").nth(index)


def shows_the_saved_copies(page: Page) -> None:
    """Each viewer's output is a picture holding its frames; the leaderboard's a table
    whose hostile run name is text; no output is a repr."""
    for index, frames in FRAMES.items():
        pixels = shown_pixels(cell(page, index).locator(".jp-OutputArea-output img"))
        for frame in frames:
            assert holds(pixels, shown_frame(frame)), f"cell {index}: the picture lacks a frame"
    table = cell(page, BOARD).locator(".aw-saved-leaderboard")
    assert HOSTILE in table.locator("tbody td").all_text_contents()
    assert page.evaluate("window.__awInjected") is None
    outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert not any("object at 0x" in text for text in outputs)
    assert "run the cell to sort, filter and open them" in table.locator("p").inner_text()


def test_an_nbconvert_page_offline_shows_each_viewers_frame(executed, new_page, tmp_path):
    html, _ = HTMLExporter().from_notebook_node(executed)
    path = tmp_path / "saved.html"
    path.write_text(html)
    page = new_page()
    try:
        OpenedPage(page, path.as_uri())  # every request but the file's is refused
        shows_the_saved_copies(page)
    finally:
        page.close()


@pytest.fixture
def untrusted(server: Server, new_page, executed) -> Iterator[Notebook]:
    with opened(server, new_page(), "unsaved-state.ipynb", executed, run=False) as notebook:
        yield notebook


def test_an_untrusted_notebook_in_jupyterlab_shows_the_pictures(untrusted):
    trusted = untrusted.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.model.cells.get(1).trusted"
    )
    assert trusted is False  # an unsigned notebook: only safe renderers draw its outputs
    shows_the_saved_copies(untrusted.page)
    # The leaderboard's sentence wraps within its cell, whatever the table's width.
    fit = horizontal_overflow(cell(untrusted.page, BOARD).locator(".aw-saved-leaderboard p"))
    assert fit["width"] <= fit["cell"], fit


@pytest.fixture(scope="module")
def stock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("stock"), stock=True)
    yield server
    server.stop()


@pytest.mark.parametrize("extension", [True, False], ids=["our-server", "stock-server"])
def test_a_notebook_saved_in_jupyterlab_without_widget_state_opens_to_its_pictures(
    extension, server, stock_server, new_page
):
    """Run, saved from JupyterLab (no widget state, its default), opened again trusted:
    with agent-widget's server extension each viewer shows its picture; a stock server
    keeps the widget view, which reads "model not found"."""
    lab = server if extension else stock_server
    name = f"saved-in-lab-{extension}.ipynb"
    with opened(lab, new_page(), name, CELLS[:2]) as notebook:
        notebook.page.evaluate(
            "async () => await window.jupyterapp.commands.execute('docmanager:save')"
        )
    saved = nbformat.read(lab.notebooks / name, as_version=4)
    assert "widgets" not in saved.metadata
    with opened(lab, new_page(), name, saved, run=False) as again:
        trusted = again.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.model.cells.get(1).trusted"
        )
        assert trusted is True  # signed by the server as it saved the notebook
        output = cell(again.page, VIEWER).locator(".jp-OutputArea-output")
        if extension:
            pixels = shown_pixels(output.locator("img"))
            assert holds(pixels, shown_frame(FRAMES[VIEWER][0]))
            assert "model not found" not in output.inner_text()
        else:
            again.wait_for(
                "() => document.body.innerText.includes('model not found')",
                what="the stock server's widget view to fail",
            )
