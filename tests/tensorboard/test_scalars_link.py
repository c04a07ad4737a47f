"""A ``RecordCheckpoints`` run linked to its training's scalars in the Agent tab: SB3's
``tensorboard_log=`` writes them to a sibling of the checkpoints' run (``DQN_1``), not a
parent, so the run's episodes name that folder (``logger.dir``) and the table links to
it; a folder named outside the logdir is never linked."""

from __future__ import annotations

from pathlib import Path

import torch

from agent_widget.sb3 import RecordCheckpoints
from agent_widget.tensorboard._listing import named_scalars
from harness.dqn_run import RUN, RUN_NAME, dqn
from tests.tensorboard.apps import get, tensorboard


def test_a_checkpoints_run_links_to_its_models_tensorboard_log_scalars(tmp_path: Path):
    logdir = tmp_path / "runs"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model = dqn()
        model.tensorboard_log = str(logdir)  # as DQN(..., tensorboard_log=logdir)
        record = RecordCheckpoints(
            "CartPole-v1", every=600, seeds=[0], library=logdir, run=RUN_NAME
        )
        model.learn(600, callback=record)
    finally:
        torch.set_num_threads(threads)
    assert any((logdir / "DQN_1").glob("events.out.tfevents.*"))
    (run,) = get(tensorboard(logdir), "runs").json["runs"]
    assert run["run"] == RUN
    assert run["scalars"] == "DQN_1"  # not None: no folder above the run holds events


def test_a_scalars_folder_outside_the_logdir_or_without_events_is_not_linked(tmp_path: Path):
    logdir = tmp_path / "runs"
    (logdir / "scalars").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "events.out.tfevents.1.host").write_bytes(b"")
    assert named_scalars(logdir, str(logdir / "scalars")) is None  # no event files
    assert named_scalars(logdir, str(tmp_path / "elsewhere")) is None
    assert named_scalars(logdir, str(logdir / ".." / "elsewhere")) is None
    (logdir / "out").symlink_to(tmp_path / "elsewhere")
    assert named_scalars(logdir, str(logdir / "out")) is None  # a link out
    assert named_scalars(logdir, "scalars") is None  # not absolute
    (logdir / "scalars" / "events.out.tfevents.1.host").write_bytes(b"")
    assert named_scalars(logdir, str(logdir / "scalars")) == "scalars"
