"""agent-widget's nbconvert template (agent_widget_server/nbconvert/agent-widget) in
Chromium: an export of a notebook saved with widget state shows each widget's saved
copy offline (a picture, a leaderboard's table), and the widget where the widget
manager loads.

Issue #53: nbconvert renders such an output as the widget manager's script, which a
page opened offline never loads, so every widget's output was empty. The notebook here
is executed by a real kernel and exported by ``jupyter nbconvert --execute --to html
--template agent-widget``, as users run it; the template is found in a Jupyter data
folder (``JUPYTER_PATH``) laid out as the wheel installs it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anywidget
import nbformat
import numpy as np
import pytest
from PIL import Image

from harness.lab import View, new_notebook
from tests.e2e.test_nbconvert_html import ExportedPage, serve
from tests.e2e.test_page_in_browser import OpenedPage

pytestmark = pytest.mark.e2e

E2E = Path(__file__).parent
TEMPLATE = E2E.parents[1] / "agent_widget_server" / "nbconvert" / "agent-widget"
CELLS = [
    f"""import sys
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode
from agent_widget import CompareViewer, EpisodeViewer""",
    "EpisodeViewer(synthetic_episode(40), title='viewer')",
    """CompareViewer({"a": synthetic_episode(30), "b": synthetic_episode(20)}, title='compare')""",
    """import tempfile
from agent_widget import RunLibrary
lib = RunLibrary(tempfile.mkdtemp())
lib.add(synthetic_episode(30), algorithm="dqn", run="<b>fast</b>")
lib.leaderboard()""",
]


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    """The folder holding the executed notebook and its export ``notebook.html``."""
    folder = tmp_path_factory.mktemp("template")
    templates = folder / "share" / "jupyter" / "nbconvert" / "templates"
    templates.mkdir(parents=True)
    (templates / "agent-widget").symlink_to(TEMPLATE)
    nbformat.write(new_notebook(CELLS), folder / "notebook.ipynb")
    env = {**os.environ, "JUPYTER_PATH": str(folder / "share" / "jupyter")}
    nbconvert = [sys.executable, "-m", "jupyter", "nbconvert"]
    # Executed and saved with its widget state (nbconvert's default), then exported.
    for options in [
        ["--execute", "--to", "notebook", "--inplace"],
        ["--to", "html", "--template", "agent-widget"],
    ]:
        subprocess.run([*nbconvert, *options, "notebook.ipynb"], cwd=folder, env=env,
                       check=True, capture_output=True, timeout=300)  # fmt: skip
    shutil.copy(
        Path(anywidget.__file__).parent / "nbextension" / "index.js", folder / "anywidget.js"
    )
    return folder


def saved_copies(folder: Path) -> list[dict]:
    """The data of each widget output holding a saved copy, in the notebook's order."""
    notebook = json.loads((folder / "notebook.ipynb").read_text())
    assert "application/vnd.jupyter.widget-state+json" in notebook["metadata"]["widgets"]
    return [
        output["data"]
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if output.get("metadata", {}).get("agent_widget", {}).get("saved_copy")
    ]


def saved_pictures(folder: Path) -> list[np.ndarray]:
    """The RGB pixels of each saved picture, in the notebook's order."""
    return [
        np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))))[..., :3]
        for data in saved_copies(folder)
        if "image/png" in data
    ]


def test_offline_each_widget_shows_its_saved_picture(new_page, export):
    expected = saved_pictures(export)
    assert len(expected) == 2  # the viewer and the comparison
    page = new_page()
    try:
        opened = OpenedPage(page, (export / "notebook.html").as_uri())
        pictures = page.locator("img.aw-saved-copy")
        pictures.nth(1).wait_for()
        opened.wait_for(
            "() => [...document.images].every((img) => img.complete && img.naturalWidth > 0)",
            what="the pictures to be decoded",
        )
        assert pictures.count() == 2
        for i, saved in enumerate(expected):
            assert len(np.unique(saved.reshape(-1, 3), axis=0)) > 16  # a picture, not blank
            shot = Image.open(io.BytesIO(pictures.nth(i).screenshot()))
            painted = np.asarray(shot.convert("RGB"))
            assert painted.shape == saved.shape
            assert np.array_equal(painted, saved), f"picture {i} is not painted as saved"
        assert opened.refused  # the widget manager was asked for, and refused
        assert page.locator(".widget-subarea").count() == 0
    finally:
        page.close()


def test_offline_a_leaderboard_shows_its_saved_table(new_page, export):
    # A notebook file holds a string as a list of its lines.
    (html,) = [
        "".join(data["text/html"]) for data in saved_copies(export) if "image/png" not in data
    ]
    page = new_page()
    try:
        OpenedPage(page, (export / "notebook.html").as_uri())
        table = page.locator("div.aw-saved-copy table")
        table.wait_for()
        assert table.is_visible()
        assert "<b>fast</b>" in table.inner_text()  # the run's name, as text
        assert page.locator("div.aw-saved-copy b").count() == 0
        assert page.locator("div.aw-saved-copy").inner_html().count("<tr") == html.count("<tr")
    finally:
        page.close()


def test_online_each_widget_is_drawn_in_place_of_its_saved_copy(new_page, export):
    page = new_page()
    try:
        with serve(export) as site:
            exported = ExportedPage(page, f"{site}/notebook.html")
            view = View(exported, page.locator("div.agent-widget").first)  # type: ignore[arg-type]
            view.wait_painted(0, timeout=30)
            page.locator(".aw-compare").wait_for()
            page.locator(".aw-leaderboard").wait_for()
            copies = page.locator(".aw-saved-copy")
            assert copies.count() == 3
            for i in range(3):
                assert copies.nth(i).is_hidden()
    finally:
        page.close()
