"""Action names given to ``Checkpoints`` or a ``CheckpointViewer`` name every
checkpoint's episode, over the names the recording kept (CartPole's LEFT and RIGHT)."""

from __future__ import annotations

import pytest

from agent_widget.checkpoints import CheckpointRecorder, Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from tests.cartpole import cartpole, lean

RUN = "CartPole-v1/torch/lean"
NAMES = ["push cart left", "push cart right"]


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> RunLibrary:
    """A run of two checkpoints, each one episode (seed 0) of the leaning policy."""
    library = RunLibrary(tmp_path_factory.mktemp("runs"))
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="lean")
    for step in (10, 20):
        recorder.record(step, lean)
    return library


def test_names_given_to_checkpoints_name_each_episode_over_those_recorded(library):
    checkpoints = Checkpoints(library, RUN, action_names=NAMES)
    for step in checkpoints.steps:
        assert checkpoints.recorded(step, 0).metadata["action_names"] == NAMES
        assert checkpoints.episode(step, 0).metadata["action_names"] == NAMES
    assert Checkpoints(library, RUN).episode(10, 0).metadata["action_names"] == ["LEFT", "RIGHT"]


def test_names_given_to_the_viewer_name_each_checkpoints_episode(library):
    viewer = CheckpointViewer(library, RUN, action_names=NAMES)
    try:
        for checkpoint in (1, 0):
            viewer.checkpoint = checkpoint
            assert viewer.episode.action_names == NAMES
    finally:
        viewer.close()


def test_the_viewers_names_win_over_those_of_the_checkpoints_it_is_given(library):
    given = Checkpoints(library, RUN, action_names=["a", "b"])
    viewer = CheckpointViewer(given, action_names=NAMES)
    try:
        assert viewer.episode.action_names == NAMES
    finally:
        viewer.close()


def test_names_that_are_no_names_are_refused_when_the_viewer_is_made(library):
    with pytest.raises(ValueError, match="action_names must be a list of strings"):
        CheckpointViewer(library, RUN, action_names="LEFT")
