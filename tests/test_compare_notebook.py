"""notebooks/compare_agents.ipynb: committed clean, and it runs top to bottom."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "compare_agents.ipynb"


def test_the_notebook_is_valid_and_committed_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_the_notebook_compares_three_agents_and_ranks_their_runs(tmp_path):
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
    assert re.search(r"the agents first act differently at step \d+", text)
    success = {run: int(rate) for run, rate in re.findall(r"(\w+): success (\d+)%", text)}
    assert set(success) == {"greedy", "exploring", "random"}
    # The trained agent does far better than chance on slippery FrozenLake.
    assert success["greedy"] > success["random"] + 20, success
    widgets = [
        output["data"]["application/vnd.jupyter.widget-view+json"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert len(widgets) == 2  # the comparison and the leaderboard
