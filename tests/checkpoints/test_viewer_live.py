"""CheckpointViewer while training goes on: new checkpoints appear in an open viewer,
and one whose weights file is not written yet is held back until it is."""

from __future__ import annotations

import shutil
import threading

import torch

from agent_widget.checkpoints import CheckpointViewer
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
