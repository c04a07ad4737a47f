"""The demo notebooks: committed clean, and they run top to bottom on a fresh kernel."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

QUICKSTART = Path(__file__).parent.parent / "notebooks" / "quickstart.ipynb"


def test_the_quickstart_is_valid_and_committed_without_outputs():
    notebook = nbformat.read(QUICKSTART, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_the_quickstart_runs_top_to_bottom(tmp_path):
    notebook = nbformat.read(QUICKSTART, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    widgets = [
        o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert len(widgets) == 1
