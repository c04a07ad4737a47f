"""What an executed notebook with viewers weighs once saved, as nbconvert --execute saves it.

A notebook of three viewers, executed by nbclient with ``store_widget_state=True``
(what ``jupyter nbconvert --execute --to notebook`` does) in a kernel started in a
temporary folder, then written with nbformat as JupyterLab would save it:

- an ``EpisodeViewer`` of 1,000 steps of ALE/Pong-v5 (``scenes.pong``, 210x160);
- a ``CompareViewer`` of two Pong episodes of 500 steps (seeds 1 and 2);
- a ``TrainingViewer`` of Q-learning on FrozenLake 4x4, 2,000 episodes.

The notebook's bytes are split into the widget state (``metadata.widgets``: each
model's state, the ``embedded`` frames among it) and the cells' outputs (the widget
view reference, the saved copy's picture and sentence). The kernel imports
agent_widget from ``PYTHONPATH``, so another checkout can be measured with the same
script (``PYTHONPATH=/path/to/other:. .venv/bin/python -m benchmarks.notebook_size``).

    .venv/bin/python -m benchmarks.notebook_size   # ~1 min; prints and updates RESULTS.md
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import nbclient
import nbformat

from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Notebook size with viewers"
SETUP = """import sys
from benchmarks import scenes
from agent_widget import CompareViewer, EpisodeViewer
from agent_widget.agents import QLearning
from agent_widget.episodes import record
from agent_widget.gridworld import TrainingViewer
import ale_py, gymnasium as gym
gym.register_envs(ale_py)

def pong(seed, steps):
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.action_space.seed(seed)
    rollout = record(env, lambda _obs: env.action_space.sample(), seed=seed, max_steps=steps)
    env.close()
    return rollout"""
CELLS = {
    "EpisodeViewer, Pong 1,000 steps": "EpisodeViewer(scenes.pong(1_000))",
    "CompareViewer, 2 x Pong 500 steps": (
        'CompareViewer({"seed 1": pong(1, 500), "seed 2": pong(2, 500)})'
    ),
    "TrainingViewer, FrozenLake 2,000 episodes": """env = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(env, interval=0.05)
QLearning(env, seed=0).train(2_000, callback=training.snapshot)
training""",
}


def executed() -> nbformat.NotebookNode:
    """The notebook, run by nbclient in a fresh kernel with its widget state stored."""
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in [SETUP, *CELLS.values()]],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    with tempfile.TemporaryDirectory() as folder:
        client = nbclient.NotebookClient(
            notebook,
            timeout=600,
            store_widget_state=True,
            resources={"metadata": {"path": folder}},
        )
        client.execute()
    return notebook


def sizes(notebook: nbformat.NotebookNode) -> dict[str, Any]:
    """Bytes of the saved notebook, its widget state, the ``embedded`` traits in it, and
    each measured cell's outputs."""
    state = notebook.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {"state": {}}
    )
    models = state["state"].values()
    embedded = sum(len(json.dumps(m["state"].get("embedded", []))) for m in models)
    embedded += sum(
        len(json.dumps(b)) for m in models for b in m.get("buffers", []) if "embedded" in b["path"]
    )
    return {
        "total": len(nbformat.writes(notebook).encode()),
        "state": len(json.dumps(state)),
        "bundles": sum(len(json.dumps(m["state"].get("_esm", ""))) for m in models),
        "embedded": embedded,
        "outputs": [len(json.dumps(cell.outputs)) for cell in notebook.cells[1:]],
    }


def mb(size: int) -> str:
    return f"{size / 1e6:.2f} MB"


def main() -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args()
    load = os.getloadavg()[0]
    measured = sizes(executed())
    rows = "\n".join(
        f"| {name} | {mb(size)} |" for name, size in zip(CELLS, measured["outputs"], strict=True)
    )
    head = f"`{command('benchmarks.notebook_size')}` ({today()}, code {code_version()}, "
    body = f"""{head}{machine(load)}).
{__doc__.split(chr(10) + chr(10))[1]}

| saved notebook | bytes |
|---|---:|
| whole .ipynb | {mb(measured["total"])} |
| widget state (metadata.widgets) | {mb(measured["state"])} |
| of which the widgets' bundles (`_esm`, one per viewer model) | {mb(measured["bundles"])} |
| of which the viewers' `embedded` frames | {mb(measured["embedded"])} |

| cell's outputs (view reference, saved picture, sentence) | bytes |
|---|---:|
{rows}"""
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
