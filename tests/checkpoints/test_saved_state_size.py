"""What a CheckpointViewer puts into a notebook saved with its widget state stays bounded
however many checkpoints the user steps through: the episode viewers it drops are
closed, so a front end's widget manager (JupyterLab's "Save Widget State", ipywidgets'
embed, both ``Widget.get_manager_state``) holds the CheckpointViewer and at most
``KEPT_EPISODES`` episode viewers, each with its first frames within the EpisodeViewer's
own embed bound (tests/viewer/test_saved_notebook_size.py for a single viewer)."""

from __future__ import annotations

import base64
import json

from ipywidgets import Widget
from torch import nn

from agent_widget.checkpoints import CheckpointRecorder, CheckpointViewer
from agent_widget.checkpoints._viewer import KEPT_EPISODES
from agent_widget.library import RunLibrary
from agent_widget.viewer._page import DEFAULT_EMBED_BYTES, FIRST_CHUNK_BYTES
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/torch/loop"
CHECKPOINTS = 12
SEEDS = (0, 1)
# bytes: measured 0.62 MB at most (the CheckpointViewer's model ~0.11 MB, mostly its
# bundle, and 4 episode viewers of ~0.12 MB, mostly widget.js, each with its ~9 KB of
# first CartPole frames). Were the dropped viewers left open, the 24 episodes visited
# here would weigh ~2.8 MB.
BOUND = 750_000


def saved_state(baseline: set[str]) -> dict[str, dict]:
    """The widget state a notebook would save of the widgets opened since ``baseline``
    (every open model, as a front end's manager holds them, not only those the shown
    view references: kept episode viewers are in it too)."""
    state = Widget.get_manager_state()["state"]
    return {model_id: model for model_id, model in state.items() if model_id not in baseline}


def test_stepping_through_every_checkpoint_keeps_the_saved_state_bounded(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(
        lambda: cartpole(None), seeds=list(SEEDS), library=library, run="loop"
    )
    q = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    for step in range(1, CHECKPOINTS + 1):
        recorder.record(step, lean, network=q)
    baseline = set(Widget.get_manager_state()["state"])
    viewer = CheckpointViewer(library, RUN, checkpoint=0)  # preparing ahead, as by default
    sizes = []
    for seed in SEEDS:
        viewer.seed = seed
        for index in range(CHECKPOINTS):
            viewer.checkpoint = index
            viewer._ahead.join()  # its neighbours' viewers made too
            state = saved_state(baseline)
            episodes = [m for m in state.values() if "embedded" in m["state"]]
            assert len(episodes) <= KEPT_EPISODES
            assert len(state) <= 2 * (len(episodes) + 1)  # each widget and its layout
            for model in episodes:
                embedded = [b for b in model.get("buffers", []) if b["path"][0] == "embedded"]
                size = sum(len(base64.b64decode(b["data"])) for b in embedded)
                assert 0 < size <= max(DEFAULT_EMBED_BYTES, FIRST_CHUNK_BYTES)
            sizes.append(len(json.dumps(state).encode()))
    assert max(sizes) < BOUND, sizes
    viewer.close()
    assert len(saved_state(baseline)) <= 1  # closing it closes each episode viewer it kept
