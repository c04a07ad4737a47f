"""A checkpoint's observation statistics: saved beside its weights as safetensors, read
back without pickle, and used to evaluate and to show that checkpoint."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from torch import nn

from agent_widget.checkpoints import (
    CheckpointRecorder,
    Checkpoints,
    CheckpointViewer,
    WeightsFileError,
    save_weights,
)
from agent_widget.checkpoints._obs_statistics import read_statistics, save_statistics
from agent_widget.library import RunLibrary
from agent_widget.recording import ObservationStatistics
from agent_widget.torch import QValues
from tests.cartpole import cartpole

RUN = "CartPole-v1/torch/loop"


def statistics(shift: float) -> ObservationStatistics:
    return ObservationStatistics(np.full(4, shift), np.array([1.0, 4.0, 0.25, 9.0]), 5.0, 1e-8)


def test_statistics_saved_and_read_are_the_same_numbers(tmp_path):
    saved = statistics(0.3)
    kept = read_statistics(save_statistics(saved, tmp_path / "s.safetensors"))
    np.testing.assert_array_equal(kept.mean, saved.mean)
    np.testing.assert_array_equal(kept.var, saved.var)
    assert (kept.clip_obs, kept.epsilon) == (5.0, 1e-8)


def test_a_pickle_in_their_place_is_refused_unread(tmp_path):
    path = tmp_path / "s.safetensors"
    path.write_bytes(pickle.dumps({"mean": np.zeros(4)}))
    with pytest.raises(WeightsFileError, match="is a pickle"):
        read_statistics(path)


def test_a_file_of_other_tensors_says_what_it_holds(tmp_path):
    path = save_weights(nn.Linear(4, 2).state_dict(), tmp_path / "w.safetensors")
    with pytest.raises(WeightsFileError, match=r"holds \{'bias': \(2,\), 'weight': \(2, 4\)\}"):
        read_statistics(path)


def test_a_torch_loop_gives_normalize_and_each_checkpoint_keeps_its_own(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="loop")
    seen = []

    def policy(obs):
        seen.append(obs)
        return 0

    net = nn.Linear(4, 2)
    for step, shift in ((1, 0.0), (2, 0.5)):
        recorder.record(step, policy, network=net, normalize=statistics(shift))
        episode = Checkpoints(library, RUN).recorded(step, 0)
        fed = np.stack(seen[-episode.num_steps :])
        np.testing.assert_allclose(fed, statistics(shift).normalize_obs(episode.observations[:-1]))
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.statistics(2).mean.tolist() == [0.5] * 4
    assert checkpoints.statistics(1).mean.tolist() == [0.0] * 4


def test_a_checkpoint_without_statistics_has_none_and_a_lost_file_says_so(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="loop")
    recorder.record(1, lambda obs: 0, network=nn.Linear(4, 2))
    recorder.record(2, lambda obs: 0, network=nn.Linear(4, 2), normalize=statistics(0.0))
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.statistics(1) is None
    (checkpoints.folder / "checkpoint-0000000002.obs-statistics.safetensors").unlink()
    with pytest.raises(WeightsFileError, match=r"obs-statistics\.safetensors: cannot be read"):
        checkpoints.statistics(2)


def test_the_viewer_feeds_a_torch_loops_networks_their_own_statistics(tmp_path):
    library = RunLibrary(tmp_path)
    recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0], library=library, run="loop")
    torch.manual_seed(0)
    net = nn.Linear(4, 2)
    for step, shift in ((1, 0.0), (2, 0.5)):
        recorder.record(step, lambda obs: 0, network=net, normalize=statistics(shift))
    viewer = CheckpointViewer(library, RUN, model=nn.Linear(4, 2), ahead=False)
    viewer.add_panel("Q", QValues)
    try:
        for index, (step, shift) in enumerate(((1, 0.0), (2, 0.5))):
            viewer.checkpoint = index
            card = viewer.episode._panels.card_now("Q", 2)[1]
            raw = Checkpoints(library, RUN).recorded(step, 0).observations[2]
            obs = statistics(shift).normalize_obs(raw)
            with torch.no_grad():
                expected = net(torch.as_tensor(obs)).numpy()
            np.testing.assert_allclose(np.frombuffer(card.buffers[0], "<f8"), expected, rtol=1e-6)
    finally:
        viewer.close()
