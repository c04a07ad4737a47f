"""A TrainingViewer in a notebook executed and saved with its widget state, as
``nbconvert --execute`` does: the state is taken as the training cell ends, so it must
hold the trained table and every episode of the curve, not what timers would have
sent a moment later (issue #53: the saved copy of a 500-episode run showed "episode: 0")."""

from __future__ import annotations

import base64

import gymnasium as gym
import nbclient
import nbformat
import numpy as np

from agent_widget.agents import QLearning
from agent_widget.viewer._transport import unpack_series

EPISODES = 500
CELLS = [
    f"""import gymnasium as gym
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
lake = gym.make("FrozenLake-v1", map_name="4x4")
viewer = TrainingViewer(lake)
display(viewer)
QLearning(lake, seed=0).train({EPISODES}, callback=viewer.snapshot);"""
]


def saved_state(tmp_path) -> dict:
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in CELLS],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbclient.NotebookClient(
        notebook, timeout=300, store_widget_state=True, resources={"metadata": {"path": tmp_path}}
    ).execute()
    return notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]


def buffers(model: dict, name: str) -> dict[str, np.ndarray]:
    """The series of trait ``name`` (a dict of packed series) as the state saved them."""
    return {
        b["path"][1]: unpack_series(base64.b64decode(b["data"]))
        for b in model.get("buffers", [])
        if b["path"][0] == name
    }


def test_the_saved_state_holds_the_trained_table_and_every_episode(tmp_path):
    state = saved_state(tmp_path)
    [training] = [m for m in state.values() if "curve" in m["state"]]
    [timeline] = [m for m in state.values() if "embedded" in m["state"]]
    curve = buffers(training, "curve")
    lake = gym.make("FrozenLake-v1", map_name="4x4")
    returns = QLearning(lake, seed=0).train(EPISODES)
    assert curve["rewards"].tolist() == returns.tolist()  # a point an episode, all of them
    positions = curve["positions"].tolist()
    assert positions[-1] == EPISODES  # the last position: the table after the last episode
    # The timeline saved at that last position, every position's frame in its state.
    assert timeline["state"]["length"] == len(positions)
    assert timeline["state"]["step"] == len(positions) - 1
    assert len(timeline["state"]["embedded"]) >= -(-len(positions) // 16)
