"""A notebook of a few viewers, executed and saved with its widget state as nbconvert
does, stays well under 1 MB by default, and each viewer still carries its first frames
(benchmarks/notebook_size.py measures the same notebook's parts)."""

from __future__ import annotations

import base64
import json

import nbclient
import nbformat

from agent_widget.viewer._page import DEFAULT_EMBED_BYTES, FIRST_CHUNK_BYTES

# bytes: under 1 MB. Most of it is the widgets' bundles, one per viewer model (anywidget's
# _esm): since the TrainingViewer is an anywidget of its own (#36), its model carries
# training.js (~0.1 MB) beside its timeline's widget.js, and this notebook saves 0.91 MB
# (0.81 MB before the charts' hover, bands and legend toggles joined the bundles).
BOUND = 1_000_000
CELLS = [
    """import ale_py, gymnasium as gym
from agent_widget import CompareViewer, EpisodeViewer
from agent_widget.agents import QLearning
from agent_widget.recording import record
from agent_widget.gridworld import TrainingViewer
gym.register_envs(ale_py)

def pong(seed, steps):
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.action_space.seed(seed)
    rollout = record(env, lambda _obs: env.action_space.sample(), seed=seed, max_steps=steps)
    env.close()
    return rollout""",
    "EpisodeViewer(pong(1, 1_000))",
    'CompareViewer({"seed 1": pong(1, 300), "seed 2": pong(2, 300)})',
    """env = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(env, interval=0)
QLearning(env, seed=0).train(300, callback=training.snapshot)
training""",
]


def test_a_notebook_of_a_viewer_a_comparison_and_a_training_viewer_stays_small(tmp_path):
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in CELLS],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    client = nbclient.NotebookClient(
        notebook, timeout=600, store_widget_state=True, resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    saved = nbformat.writes(notebook).encode()
    assert len(saved) < BOUND
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    viewers = [m for m in state.values() if "embedded" in m["state"]]
    assert len(viewers) == 4  # the viewer, the comparison's two, the training viewer's
    for model in viewers:
        embedded = [b for b in model.get("buffers", []) if b["path"][0] == "embedded"]
        size = sum(len(base64.b64decode(b["data"])) for b in embedded)
        assert embedded  # the first chunk at least: a saved notebook shows its first frames
        assert size <= max(DEFAULT_EMBED_BYTES, FIRST_CHUNK_BYTES)
    outputs = [json.dumps(cell.outputs) for cell in notebook.cells[1:]]
    assert all("image/png" in output for output in outputs[:2])  # and a picture each
