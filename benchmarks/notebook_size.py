"""What an executed notebook with viewers weighs once saved, as nbconvert --execute saves it.

A notebook of three viewers, executed by nbclient with ``store_widget_state=True``
(what ``jupyter nbconvert --execute --to notebook`` does) in a kernel started in a
temporary folder, then written with nbformat as JupyterLab would save it:

- an ``EpisodeViewer`` of 1,000 steps of ALE/Pong-v5 (``scenes.pong``, 210x160);
- a ``CompareViewer`` of two Pong episodes of 500 steps (seeds 1 and 2);
- a ``TrainingViewer`` of Q-learning on FrozenLake 4x4, 2,000 episodes.

The notebook's bytes are split into the widget state (``metadata.widgets``: each
model's state, the ``embedded`` frames among it) and the cells' outputs (the widget
view reference, the saved copy's picture and sentence). With ``--before PATH``
the same notebook is also run in a kernel importing agent_widget from the checkout at
PATH (e.g. a worktree of the commit before a change), and both are shown.

    .venv/bin/python -m benchmarks.notebook_size [--before PATH]   # ~1 min a notebook
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbclient
import nbformat

from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Notebook size with viewers"
ROOT = Path(__file__).resolve().parent.parent
SETUP = """import sys
from benchmarks import scenes
from agent_widget import CompareViewer, EpisodeViewer
from agent_widget.agents import QLearning
from agent_widget.recording import record
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


def executed(code: Path = ROOT) -> nbformat.NotebookNode:
    """The notebook, run by nbclient in a fresh kernel importing agent_widget from the
    checkout at ``code``, with its widget state stored."""
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in [SETUP, *CELLS.values()]],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    path = os.pathsep.join(map(str, dict.fromkeys([code, ROOT])))  # benchmarks from here
    with tempfile.TemporaryDirectory() as folder, _environment("PYTHONPATH", path):
        client = nbclient.NotebookClient(
            notebook,
            timeout=600,
            store_widget_state=True,
            resources={"metadata": {"path": folder}},
        )
        client.execute()
    return notebook


@contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``os.environ[name]`` set to ``value`` meanwhile (the kernel inherits it)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


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
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout measured beside this one")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    runs = {f"now ({code_version()})": sizes(executed())}
    if args.before is not None:
        runs = {f"before ({_commit(args.before)})": sizes(executed(args.before)), **runs}
    names = list(runs)
    measured = list(runs.values())

    def row(label: str, key: str, index: int | None = None) -> str:
        cells = [mb(m[key] if index is None else m[key][index]) for m in measured]
        return f"| {label} | " + " | ".join(cells) + " |"

    rows = [
        row("whole .ipynb", "total"),
        row("widget state (metadata.widgets)", "state"),
        row("of which the widgets' bundles (`_esm`, one per viewer model)", "bundles"),
        row("of which the viewers' `embedded` frames", "embedded"),
        *(row(f"outputs of the cell: {name}", "outputs", i) for i, name in enumerate(CELLS)),
    ]
    table = "\n".join(
        [
            "| saved notebook | " + " | ".join(names) + " |",
            "|---|" + "---:|" * len(names),
            *rows,
        ]
    )
    head = f"`{command('benchmarks.notebook_size')}` ({today()}, {machine(load)})."
    body = f"""{head}
{(chr(10) * 2).join(__doc__.split(chr(10) * 2)[1:3])}

{table}

A cell's outputs are the widget view's reference, the saved copy's picture
(``image/png``) and its sentence. Every viewer model's state holds the widget's
bundle (anywidget's ``_esm``): the bundles grow with the number of viewers (a
comparison holds one for itself and one per column), the frames with ``embed_bytes``
(16 KiB by default, the first chunk up to 256 KiB whatever the budget)."""
    publish(TITLE, body, not args.no_write)


def _commit(checkout: Path) -> str:
    """The short commit of the checkout at ``checkout``."""
    git = ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"]
    return subprocess.run(git, capture_output=True, text=True, check=True).stdout.strip()


if __name__ == "__main__":
    main()
