"""A viewer that grows while it is shown: appended and extended steps are served like
any others, the step follows the newest while the user is at the end, a burst of
appends is sent at most once an interval, and a refused step changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.episodes import Rollout, load
from agent_widget.format import _codec as codec_module
from agent_widget.viewer import EpisodeViewer
from tests.sample_frames import random_frames
from tests.viewer.front_end import (
    decoded,
    pushed_chunks,
    pushes,
    readouts,
    request,
    returns,
    series,
)
from tests.waiting import wait_for_trait


def test_append_grows_the_episode_and_its_series():
    viewer = EpisodeViewer(random_frames(1))
    viewer.append(frame=random_frames(1, seed=1)[0], action=1, reward=2.0, terminated=True)
    assert viewer.length == 2
    assert series(viewer, "rewards").tolist() == [2.0]
    assert returns(viewer).tolist() == [0.0, 2.0]
    assert series(viewer, "terminated").tolist() == [1.0]


def test_appended_steps_are_served_with_their_frames_and_readout(monkeypatch):
    frames = random_frames(20)
    rollout = Rollout.from_arrays(frames=frames[:15], actions=np.zeros(14, int))
    viewer = EpisodeViewer(rollout, action_names=["L", "R"])
    request(viewer, [0], monkeypatch)  # chunk 0 is now encoded and cached
    for t in range(15, 20):
        viewer.append(frame=frames[t], action=1, info={"t": t})
    reply, buffers = request(viewer, [0, 1], monkeypatch)
    got = decoded(reply, buffers)
    assert sorted(got) == list(range(20))
    for t in range(20):
        np.testing.assert_array_equal(got[t], frames[t])
    assert readouts(buffers)["14"] == {"info": {}}
    assert readouts(buffers)["19"] == {"info": {"t": 19}}


def test_appending_to_a_loaded_episode_reads_only_its_last_partial_chunk(monkeypatch, tmp_path):
    frames = random_frames(40)
    Rollout.from_arrays(frames=frames, actions=np.zeros(39, int)).save(tmp_path / "a.rollout")
    stored = load(tmp_path / "a.rollout")
    viewer = EpisodeViewer(stored)
    inflated = []
    inflate = codec_module.inflate_runs
    monkeypatch.setattr(
        codec_module,
        "inflate_runs",
        lambda payload, *args: inflated.append(args) or inflate(payload, *args),
    )
    viewer.append(frame=random_frames(1, seed=1)[0], action=0)
    assert [args[2] for args in inflated] == [8]  # chunk 2's 8 frames, nothing before
    reply, buffers = request(viewer, [0, 1, 2], monkeypatch)
    stored_payloads = [p.payload for k in (0, 1) for p in stored.frames.chunk(k)]
    assert [bytes(b) for b in buffers[: len(stored_payloads)]] == stored_payloads
    got = decoded(reply, buffers)
    np.testing.assert_array_equal(got[39], frames[39])
    np.testing.assert_array_equal(got[40], random_frames(1, seed=1)[0])


def test_append_follows_the_newest_step_when_the_user_is_at_the_end(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    viewer = EpisodeViewer(random_frames(3), step=2)
    for _ in range(4):
        viewer.append(frame=random_frames(1)[0])
    assert (viewer.length, viewer.step) == (7, 6)


def test_append_leaves_the_step_alone_when_the_user_looks_elsewhere(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    viewer = EpisodeViewer(random_frames(3), step=1)
    viewer.append(frame=random_frames(1)[0])
    assert (viewer.length, viewer.step) == (4, 1)


def test_a_burst_of_appends_within_the_interval_is_sent_once_at_most(monkeypatch):
    # An interval longer than any burst lasts, however loaded the machine: its timer
    # never fires here, so what went out is what the appends themselves sent.
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 3600.0)
    viewer = EpisodeViewer(random_frames(1))
    sent = pushes(viewer, monkeypatch)
    lengths = []
    viewer.observe(lambda change: lengths.append(change["new"]), "length")
    for _ in range(200):
        viewer.append(frame=random_frames(1)[0], reward=1.0)
    viewer.close()  # and the update it holds back with it
    assert len(lengths) <= 1
    assert len(sent) <= 1


def test_after_a_burst_of_appends_the_last_update_and_push_carry_the_last_step(monkeypatch):
    frames = random_frames(201)
    viewer = EpisodeViewer(frames[:1])
    sent = pushes(viewer, monkeypatch)
    for t in range(1, 201):
        viewer.append(frame=frames[t], reward=1.0)
    # Sent by the viewer's timer once the interval has passed; following the newest
    # position is the last change of an update.
    wait_for_trait(viewer, "step", lambda step: step == 200)
    assert viewer.length == 201
    assert returns(viewer)[-1] == 200.0
    push, buffers = sent[-1]
    assert pushed_chunks(buffers)[-1] == 12
    np.testing.assert_array_equal(decoded(push, buffers)[200], frames[200])


def test_named_extras_grow_with_the_episode(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    rollout = Rollout.from_arrays(frames=random_frames(2), actions=[0], extras={"value": [0.5]})
    viewer = EpisodeViewer(rollout, extras=["value"])
    viewer.append(frame=random_frames(1)[0], action=1, extras={"value": 0.75})
    assert series(viewer, "extra:value").tolist() == [0.5, 0.75]
    with pytest.raises(ValueError, match="step 3: the timeline shows extra 'value'; pass"):
        viewer.append(frame=random_frames(1)[0], action=1)


def test_extend_adds_one_position_per_action(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(6)
    viewer = EpisodeViewer(Rollout.from_arrays(frames=frames[:2], actions=[0]))
    viewer.extend(
        Rollout.from_arrays(frames=frames[2:6], actions=[1, 1, 0, 1], rewards=[1, 1, 1, 1])
    )
    assert viewer.length == 6
    assert series(viewer, "actions").tolist() == [0, 1, 1, 0, 1]


def test_extend_with_a_recorded_part_does_not_repeat_the_shared_position(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(5)
    viewer = EpisodeViewer(Rollout.from_arrays(frames=frames[:2], actions=[0]))
    viewer.extend(
        Rollout.from_arrays(frames=frames[1:5], actions=[1, 1, 0])
    )  # starts at position 1
    got = decoded(*request(viewer, [0], monkeypatch))
    assert viewer.length == 5
    for t in range(5):
        np.testing.assert_array_equal(got[t], frames[t])


def test_growth_leaves_the_callers_rollout_as_it_was():
    rollout = Rollout.from_arrays(frames=random_frames(2), actions=[0], rewards=[1.0])
    viewer = EpisodeViewer(rollout)
    viewer.append(frame=random_frames(1)[0], action=1, reward=5.0)
    assert (len(rollout.frames), rollout.rewards.tolist(), rollout.num_positions) == (2, [1.0], 2)


def test_a_refused_step_leaves_the_episode_unchanged(monkeypatch):
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(2), actions=[0]))
    with pytest.raises(ValueError, match="frame at step 2: size changed"):
        viewer.append(frame=np.zeros((9, 9, 3), np.uint8), action=1)
    with pytest.raises(ValueError, match=r"action at step 2: got float64 of shape \(2,\)"):
        viewer.append(frame=random_frames(1)[0], action=[0.5, 0.5])
    with pytest.raises(ValueError, match="step 2: this viewer shows frames; pass frame="):
        viewer.append(action=1)
    reply, buffers = request(viewer, [0], monkeypatch)
    assert (viewer.length, len(decoded(reply, buffers)), sorted(readouts(buffers))) == (
        2,
        2,
        ["0", "1"],
    )


def test_image_observations_grow_from_obs(monkeypatch):
    observations = random_frames(3)
    viewer = EpisodeViewer(Rollout.from_arrays(observations=observations[:2], actions=[0]))
    viewer.append(obs=observations[2], action=1)
    got = decoded(*request(viewer, [0], monkeypatch))
    np.testing.assert_array_equal(got[2], observations[2])


def test_flush_sends_the_steps_waiting_for_the_timer_at_once(monkeypatch):
    # The timer would wait an hour.
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 3600.0)
    viewer = EpisodeViewer(random_frames(1))
    viewer.append(frame=random_frames(1, seed=1)[0], reward=1.0)  # sent at once: the first
    viewer.append(frame=random_frames(1, seed=2)[0], reward=2.0)  # waits for the timer
    assert viewer._timer is not None
    assert viewer.length == 2
    viewer.flush()
    assert viewer._timer is None
    assert viewer.length == 3
    assert viewer.step == 2  # followed, as the timer's push would have
    assert series(viewer, "rewards").tolist() == [1.0, 2.0]
