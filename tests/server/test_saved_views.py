"""agent_widget_server's pre-save hook, run by jupyter_server's own contents manager on
a real folder: a notebook saved without widget state keeps an agent-widget output's
saved copy but not its widget view (which would read "model not found" when opened
again); a view whose model the notebook saved, and other libraries' widgets, stay.
tests/e2e/test_saved_copies.py opens such a notebook in a real JupyterLab."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets
import nbformat
import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager

from agent_widget import EpisodeViewer
from agent_widget_server._saved_views import WIDGET_STATE, WIDGET_VIEW, without_lost_views
from tests.e2e.episodes import synthetic_episode


def output_of(widget: Any) -> nbformat.NotebookNode:
    """The display_data output a notebook front end stores for ``widget``."""
    bundle = widget._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    return nbformat.v4.new_output("display_data", data=data, metadata=metadata)


def saved(tmp_path: Path, outputs: list[nbformat.NotebookNode], state: Any = None) -> dict:
    """The notebook file written by a contents manager with the hook, as read back."""
    manager = FileContentsManager(root_dir=str(tmp_path))
    manager.register_pre_save_hook(without_lost_views)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=outputs)])
    if state is not None:
        notebook.metadata["widgets"] = {WIDGET_STATE: {"state": state, "version_major": 2}}
    manager.save({"type": "notebook", "content": notebook}, "saved.ipynb")
    return nbformat.read(tmp_path / "saved.ipynb", as_version=4)


@pytest.fixture
def viewer() -> EpisodeViewer:
    return EpisodeViewer(synthetic_episode(10))


def test_a_viewer_saved_without_its_state_keeps_its_picture_not_its_view(tmp_path, viewer):
    output = saved(tmp_path, [output_of(viewer)]).cells[0].outputs[0]
    assert WIDGET_VIEW not in output.data
    assert output.data["image/png"] == output_of(viewer).data["image/png"]
    assert "This is a saved copy" in output.data["text/plain"]


def test_a_viewer_saved_with_its_state_keeps_its_view(tmp_path, viewer):
    state = {viewer.model_id: {"model_name": "AnyModel", "state": {}}}
    output = saved(tmp_path, [output_of(viewer)], state).cells[0].outputs[0]
    assert output.data[WIDGET_VIEW]["model_id"] == viewer.model_id


def test_another_librarys_widget_is_left_as_it_was(tmp_path, viewer):
    slider = ipywidgets.IntSlider()
    outputs = saved(tmp_path, [output_of(slider), output_of(viewer)]).cells[0].outputs
    assert outputs[0].data[WIDGET_VIEW]["model_id"] == slider.model_id
    assert WIDGET_VIEW not in outputs[1].data


def test_other_files_and_odd_notebooks_are_saved_as_given():
    text = {"type": "file", "content": "{}", "format": "text"}
    without_lost_views(text)
    assert text == {"type": "file", "content": "{}", "format": "text"}
    odd = {"type": "notebook", "content": {"cells": [{"cell_type": "markdown"}]}}
    without_lost_views(odd)
    assert odd == {"type": "notebook", "content": {"cells": [{"cell_type": "markdown"}]}}
