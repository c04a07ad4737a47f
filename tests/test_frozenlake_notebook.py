"""notebooks/frozenlake_training.ipynb: committed clean, and it runs top to bottom."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "frozenlake_training.ipynb"


def test_the_notebook_is_valid_and_committed_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_the_notebook_trains_both_agents_and_reports_their_success(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    text = "".join(
        output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
    )
    rates = {
        name: [float(rate) for rate in re.findall(r"([\d.]+)%", line)]
        for name in ("SARSA", "Q-learning")
        for line in text.splitlines()
        if line.startswith(name)
    }
    # Both learned something: a random policy almost never crosses slippery 8x8.
    assert all(len(found) == 2 and min(found) > 20 for found in rates.values()), rates
    assert "10,000 snapshots" in text
    widgets = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert len(widgets) == 3  # two training viewers and the played episode
