"""CheckpointViewer while training goes on: new checkpoints appear in an open viewer,
and one whose weights file is not written yet is held back until it is."""

from __future__ import annotations

import shutil
import threading

import numpy as np
import torch

from agent_widget.checkpoints import Checkpoints, CheckpointViewer
from agent_widget.library import RunLibrary
from agent_widget.recording import render_frames
from agent_widget.sb3 import RecordCheckpoints
from agent_widget.torch import QValues
from harness.dqn_run import RUN, RUN_NAME, dqn, train
from tests.waiting import wait_for_trait


def test_checkpoints_a_training_thread_writes_appear_in_the_open_viewer(tmp_path):
    model = dqn()
    record = RecordCheckpoints("CartPole-v1", every=1000, seeds=[0], library=tmp_path, run=RUN_NAME)
    model.learn(1000, callback=record)
    viewer = CheckpointViewer(tmp_path, RUN, model=dqn(), poll=0.05)
    viewer.add_panel("Q", QValues)
    assert viewer.training_steps == [1000]
    folder = viewer.checkpoints.folder
    # Each list of checkpoints shown, with whether each one's weights were there then.
    shown: list[list[tuple[int, bool]]] = []
    viewer.observe(
        lambda change: shown.append(
            [(s, (folder / f"checkpoint-{s:010d}.safetensors").exists()) for s in change["new"]]
        ),
        "training_steps",
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        learning = threading.Thread(
            target=model.learn,
            args=(3000,),
            kwargs={"callback": record, "reset_num_timesteps": False},
        )
        learning.start()
        wait_for_trait(viewer, "training_steps", lambda steps: steps == [1000, 2000, 3000, 4000])
        learning.join()
    finally:
        torch.set_num_threads(threads)
        viewer.close()
    assert shown[-1] == [(s, True) for s in (1000, 2000, 3000, 4000)]
    assert all(there for steps in shown for _, there in steps)  # never a checkpoint half written
    assert viewer.training_step == 4000  # it followed the newest, as it was on the newest
    card = viewer.episode._panels.card_now("Q", 0)[1]
    assert card.kind == "bars"


def test_a_checkpoint_whose_weights_are_not_written_yet_waits_for_them(tmp_path):
    train(tmp_path / "runs", steps=3000)
    weights = tmp_path / "runs" / RUN / "checkpoint-0000003000.safetensors"
    aside = tmp_path / "aside.safetensors"
    shutil.move(weights, aside)  # as between the recorder's episodes and its weights
    newest = CheckpointViewer(tmp_path / "runs", RUN, model=dqn())
    back = CheckpointViewer(tmp_path / "runs", RUN, model=dqn(), checkpoint=0)
    assert newest.training_steps == [1000, 2000]
    assert newest.training_step == 2000
    assert newest.refresh() == []
    shutil.move(aside, weights)
    assert newest.refresh() == [3000]
    assert newest.training_steps == [1000, 2000, 3000]
    assert newest.training_step == 3000  # it was on the newest: it follows
    assert back.refresh() == [3000]
    assert back.training_step == 1000  # scrolled back: it stays


def test_a_viewer_opened_before_the_first_checkpoint_shows_it_when_it_is_written(tmp_path):
    """The researcher's order: training started, the viewer opened in the next cell,
    before the run exists. It says there is no checkpoint yet, then, polling on its own,
    shows the first checkpoint (its first seed) and follows those after it."""
    viewer = CheckpointViewer(tmp_path, RUN, model=dqn())
    viewer.add_panel("Q", QValues)
    try:
        assert viewer.training_steps == []
        assert viewer.episode is None
        assert viewer.training_step is None
        assert viewer.message == f"no checkpoint yet in run {RUN}: looking every 1 s"
        assert viewer._saved_text().startswith(
            "CheckpointViewer: DQN on CartPole-v1 · run dqn, no checkpoint yet."
        )
        model = dqn()
        record = RecordCheckpoints(
            "CartPole-v1", every=1000, seeds=[3, 4], library=tmp_path, run=RUN_NAME
        )
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            learning = threading.Thread(
                target=model.learn, args=(2000,), kwargs={"callback": record}
            )
            learning.start()
            first = wait_for_trait(viewer, "training_steps", bool)
            wait_for_trait(viewer, "training_steps", lambda steps: steps == [1000, 2000])
            learning.join()
        finally:
            torch.set_num_threads(threads)
        assert first[0] == 1000
        # On the newest from the start, it follows; no seed was asked for, and seed 0
        # was never evaluated: the first seed evaluated.
        title = "training step 2,000 · seed 3"
        wait_for_trait(viewer, "episode", lambda episode: getattr(episode, "title", "") == title)
        assert (viewer.training_step, viewer.seed, viewer.message) == (2000, 3, "")
        expected = render_frames(viewer.checkpoints.recorded(2000, 3)).frames
        frames = viewer.episode._episode.frames
        assert frames is not None
        assert len(frames) == len(expected)
        for t in (0, len(expected) - 1):
            assert np.asarray(frames[t]).shape == (400, 600, 3)
            np.testing.assert_array_equal(frames[t], expected[t])
        assert np.asarray(frames[0]).std() > 0  # a painted cart, not a blank picture
        assert viewer.episode._panels.card_now("Q", 0)[1].kind == "bars"
    finally:
        viewer.close()


def test_a_run_never_written_is_empty_and_read_again_without_raising(tmp_path):
    checkpoints = Checkpoints(RunLibrary(tmp_path), RUN)
    assert checkpoints.steps == []
    assert checkpoints.returns() == {}
    assert checkpoints.refresh() == []
    assert checkpoints.folder == tmp_path / RUN
    train(tmp_path, steps=1000)
    assert checkpoints.refresh() == [1000]
    assert checkpoints.seeds(1000) == [0, 1]


def test_an_asked_for_poll_stands_and_no_poll_is_added_to_a_run_with_checkpoints(tmp_path):
    empty = CheckpointViewer(tmp_path, RUN, poll=0.25)
    empty.close()
    assert empty.message == f"no checkpoint yet in run {RUN}: looking every 0.25 s"
    train(tmp_path, steps=1000)
    viewer = CheckpointViewer(tmp_path, RUN)
    viewer.close()
    assert viewer._poll is None
    assert viewer.training_steps == [1000]
