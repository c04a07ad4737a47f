"""Growth while a cell runs, when the kernel cannot answer requests: it pushes the
newest chunks unasked, within a byte budget, ahead of the new length."""

from __future__ import annotations

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import PUSH_CHUNKS
from tests.sample_frames import random_frames
from tests.viewer.front_end import (
    decoded,
    parts,
    pushed_chunks,
    pushes,
    readouts,
)


def test_growth_pushes_the_chunk_of_the_newest_frame_unasked(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(18)
    viewer = EpisodeViewer(Rollout.from_arrays(frames=frames[:17], actions=np.zeros(16, int)))
    sent = pushes(viewer, monkeypatch)
    viewer.append(frame=frames[17], action=1, info={"t": 17})
    [(push, buffers)] = sent
    assert (push["type"], push["id"], push["push"]) == ("chunks", None, True)
    got = decoded(push, buffers)
    assert sorted(got) == [16, 17]
    for t, frame in got.items():
        np.testing.assert_array_equal(frame, frames[t])
    assert readouts(buffers) == {"16": {"info": {}}, "17": {"info": {"t": 17}}}


def test_every_push_of_the_growing_chunk_decodes_to_the_exact_frames(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(2 * CHUNK_SIZE + 3)
    viewer = EpisodeViewer(frames[:1])
    sent = pushes(viewer, monkeypatch)
    for t in range(1, len(frames)):
        viewer.append(frame=frames[t])
        got = decoded(*sent[-1])
        assert max(got) == t
        for s, frame in got.items():
            np.testing.assert_array_equal(frame, frames[s])
    assert len(sent) == len(frames) - 1


def test_a_push_carries_every_chunk_changed_since_the_last_push(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(41)
    viewer = EpisodeViewer(frames[:10])
    sent = pushes(viewer, monkeypatch)
    viewer.extend(Rollout.from_arrays(frames=frames[10:40], actions=np.zeros((30, 0))))
    viewer.append(frame=frames[40])
    [(first, first_buffers), (second, second_buffers)] = sent
    assert (pushed_chunks(first_buffers), pushed_chunks(second_buffers)) == ([0, 1, 2], [2])
    got = decoded(first, first_buffers)
    assert sorted(got) == list(range(40))
    got.update(decoded(second, second_buffers))
    for t in range(41):
        np.testing.assert_array_equal(got[t], frames[t])


def test_a_push_holds_only_the_newest_chunks_however_much_grew(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(200)
    viewer = EpisodeViewer(frames[:1])
    sent = pushes(viewer, monkeypatch)
    viewer.extend(Rollout.from_arrays(frames=frames[1:], actions=np.zeros((199, 0))))
    [(push, buffers)] = sent
    newest = list(range(12 - PUSH_CHUNKS + 1, 13))
    assert pushed_chunks(buffers) == newest
    got = decoded(push, buffers)
    assert sorted(got) == list(range(newest[0] * CHUNK_SIZE, 200))
    np.testing.assert_array_equal(got[199], frames[199])


def test_a_push_keeps_to_its_byte_budget_but_always_carries_the_newest_chunk(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    monkeypatch.setattr("agent_widget.viewer._transport.PUSH_BYTES", 1)
    frames = random_frames(40)
    viewer = EpisodeViewer(frames[:10], encoding="raw")
    sent = pushes(viewer, monkeypatch)
    viewer.extend(Rollout.from_arrays(frames=frames[10:], actions=np.zeros((30, 0))))
    [(_, buffers)] = sent
    assert pushed_chunks(buffers) == [2]
    assert [bytes(b) for b in buffers[:-1]] == [frames[32:40].tobytes()]


def test_the_push_goes_out_before_the_new_length(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    viewer = EpisodeViewer(random_frames(3))
    lengths_when_pushed = []
    monkeypatch.setattr(viewer, "send", lambda *_: lengths_when_pushed.append(viewer.length))
    viewer.append(frame=random_frames(1)[0])
    assert (lengths_when_pushed, viewer.length) == ([3], 4)


def test_a_viewer_without_frames_pushes_the_readout_of_new_steps(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    viewer = EpisodeViewer(Rollout.from_arrays(observations=np.zeros((2, 4)), actions=[0]))
    sent = pushes(viewer, monkeypatch)
    viewer.append(obs=np.ones(4), action=1, info={"lives": 2})
    [(_push, buffers)] = sent
    assert (parts(buffers), len(buffers)) == ([], 1)
    assert readouts(buffers)["1"] == {"info": {}}
    assert readouts(buffers)["2"] == {"info": {"lives": 2}}
