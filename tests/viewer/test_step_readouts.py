"""The readout data a chunk reply carries for each of its positions: infos as columns
in one compressed index, scalar actions as a named series (vectors as text), and data,
never markup."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
import traitlets

from agent_widget import record
from agent_widget.episodes import Rollout
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import info_columns
from tests.sample_frames import random_frames
from tests.viewer.front_end import (
    index,
    readouts,
    request,
    series,
)


def test_steps_cover_every_position_of_the_requested_chunks(monkeypatch):
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(20), actions=np.zeros(19, int)))
    _, buffers = request(viewer, [1], monkeypatch)
    assert sorted(readouts(buffers), key=int) == [str(t) for t in range(16, 20)]


def test_scalar_actions_reach_the_readout_as_a_series_with_names_not_as_text(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[2, 0],
        metadata={"action_names": ["NOOP", "FIRE", "RIGHT"]},
    )
    viewer = EpisodeViewer(rollout)
    _, buffers = request(viewer, [0], monkeypatch)
    assert (series(viewer, "actions").tolist(), viewer.action_names) == (
        [2, 0],
        ["NOOP", "FIRE", "RIGHT"],
    )
    assert "actions" not in index(buffers)
    assert [readouts(buffers)[t] for t in "012"] == [{"info": {}}] * 3


def test_action_names_given_to_the_viewer_win_over_the_metadata(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(2), actions=[1], metadata={"action_names": ["a", "b"]}
    )
    viewer = EpisodeViewer(rollout, action_names=["LEFT", "RIGHT"])
    assert viewer.action_names == ["LEFT", "RIGHT"]


def test_vector_actions_read_as_lists(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(2), actions=np.array([[0.1, -0.3]], np.float32)
    )
    _, buffers = request(EpisodeViewer(rollout), [0], monkeypatch)
    assert [readouts(buffers)[t]["action"] for t in "01"] == ["[0.1, -0.3]", ""]


def test_a_half_cheetahs_action_reads_each_component_by_its_actuators_name(monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "egl")
    pytest.importorskip("mujoco")
    env = gym.make("HalfCheetah-v5")
    rollout = record(env, lambda obs: env.action_space.sample(), seed=0, max_steps=2)
    _, buffers = request(EpisodeViewer(rollout), [0], monkeypatch)
    first = rollout.actions[0]
    legs = ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"]
    named = ", ".join(f"{leg} {float(x):.4g}" for leg, x in zip(legs, first, strict=True))
    assert readouts(buffers)["0"]["action"] == f"[{named}]"


def test_names_given_for_a_vector_action_name_its_components(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(2), actions=np.array([[0.1, -0.3]], np.float32)
    )
    viewer = EpisodeViewer(rollout, action_names=["steer", "gas"])
    _, buffers = request(viewer, [0], monkeypatch)
    assert readouts(buffers)["0"]["action"] == "[steer 0.1, gas -0.3]"
    assert EpisodeViewer(rollout, action_names=["steer"])._episode.action_text(0) == "[0.1, -0.3]"


def test_part_headers_and_infos_travel_in_one_zlib_compressed_index_per_reply(monkeypatch):
    infos = [{"lives": 3, "episode_frame_number": 4 * t} for t in range(40)]
    infos[33]["seed"] = 7
    rollout = Rollout.from_arrays(frames=random_frames(40), actions=np.zeros(39, int), infos=infos)
    reply, buffers = request(EpisodeViewer(rollout, action_names=["NOOP"]), [0, 2], monkeypatch)
    assert reply == {"type": "chunks", "id": 7}
    table = index(buffers)
    assert (table["chunks"], table["counts"], len(table["parts"])) == ([0, 2], [16, 8], 2)
    assert table["infos"]["keys"] == [
        ["lives", "episode_frame_number"],
        ["lives", "episode_frame_number", "seed"],
    ]
    assert table["infos"]["columns"]["seed"] == [7]
    got = readouts(buffers)
    assert [got[str(t)]["info"] for t in [*range(16), *range(32, 40)]] == infos[:16] + infos[32:]
    as_rows = json.dumps([table["parts"], infos[:16] + infos[32:]])
    assert len(buffers[-1]) < 0.25 * len(as_rows)


def test_info_columns_send_counters_as_differences_and_anything_else_as_it_is():
    infos = [{"frame": 4 * t, "flag": t % 2 == 0, "big": 2**60 + t} for t in range(3)]
    infos.append({"frame": 12, "flag": False, "big": 1, "note": "x"})
    columns = info_columns(infos)
    assert columns["keys"] == [["frame", "flag", "big"], ["frame", "flag", "big", "note"]]
    assert columns["key_set"] == [0, 0, 0, 1]
    assert columns["columns"]["frame"] == {"delta": [0, 4, 4, 4]}
    assert columns["columns"]["flag"] == [True, False, True, False]  # booleans are not counters
    assert columns["columns"]["big"] == [2**60, 2**60 + 1, 2**60 + 2, 1]  # past 2**52
    assert columns["columns"]["note"] == ["x"]


def test_with_one_frame_per_action_the_last_position_has_an_action():
    rollout = Rollout.from_arrays(frames=random_frames(3), actions=[5, 6, 7])
    assert series(EpisodeViewer(rollout), "actions").tolist() == [5, 6, 7]


def test_infos_are_sent_as_data_never_as_markup(monkeypatch):
    infos = [{}, {"note": "<script>alert(1)</script>", "lives": 3}]
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(2), actions=[0], infos=infos))
    _, buffers = request(viewer, [0], monkeypatch)
    assert readouts(buffers)["1"]["info"] == {"note": "<script>alert(1)</script>", "lives": 3}


def test_the_readout_is_an_env_steps_unless_told_to_show_infos_alone():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    assert EpisodeViewer(frames).readout == "step"
    assert EpisodeViewer(frames, readout="info").readout == "info"
    with pytest.raises(traitlets.TraitError, match="readout"):
        EpisodeViewer(frames, readout="infos")
