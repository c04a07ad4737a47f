"""Frames encoded by the encoder process (ArrayFrames(offload=True)): the same bytes as
encoding them here, a ring that makes the appender wait instead of growing, and a
chunk handed out while it fills or copied for a branch read from the ring's frames."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

from agent_widget.format import _frame_ring as frame_ring
from agent_widget.format._array_frames import ArrayFrames
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.format._encoder_process import cores, encoder_process
from agent_widget.format._frame_ring import SLOTS, RemoteChunk
from agent_widget.format._frames import MISSING
from agent_widget.format._held_chunks import AREA_BYTES
from tests.sample_frames import changing_frames, moving_frames
from tests.waiting import LIMIT, wait_until

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")


@pytest.fixture
def process():
    """The encoder process, started."""
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    return process


def chunks(frames):
    return [frames.chunk(k) for k in range(frames.num_chunks)]


def episode(n=100):
    """Frames that move a little, change size mid-episode, and miss one (the first n)."""
    frames = list(moving_frames(100, 24, 32))
    frames[40:60] = changing_frames(20, 24, 32)  # a part each
    frames[70:80] = moving_frames(10, 12, 16)  # smaller: fit a slot
    frames[85:90] = moving_frames(5, 30, 40)  # larger: encoded here
    frames[95] = MISSING
    return frames[:n]


def test_frames_encoded_by_the_process_are_the_bytes_encoded_here(process):
    frames = ArrayFrames(allow_resize=True, offload=True)
    remote = set()
    for frame in episode():
        frames.append(frame)
        remote |= {k for k, chunk in frames._open.items() if isinstance(chunk, RemoteChunk)}
    frames.finish_encoding()
    assert remote == {1, 2, 3, 4, 5, 6}  # every chunk but the first (and the last, partial)
    assert chunks(frames) == chunks(ArrayFrames(episode(), allow_resize=True))
    assert all(np.array_equal(a, b) for a, b in zip(frames, episode(), strict=True))


def test_a_chunk_read_while_it_fills_or_copied_is_encoded_from_the_ring(process):
    frames = ArrayFrames(allow_resize=True, offload=True)
    inline = ArrayFrames(allow_resize=True)
    for t, frame in enumerate(episode(40)):
        frames.append(frame)
        inline.append(frame)
        if t in (20, 31, 39):  # chunk 1 filling, full, chunk 2 filling
            assert frames.chunk(t // CHUNK_SIZE) == inline.chunk(t // CHUNK_SIZE)
            assert np.array_equal(frames[t - 1], inline[t - 1])
    branch = frames.copy()
    more = list(moving_frames(20, 24, 32))
    for frame in more:
        branch.append(frame)
        inline.append(frame)
    frames.finish_encoding()
    assert chunks(branch) == chunks(inline)
    assert chunks(frames) == chunks(ArrayFrames(episode(40), allow_resize=True))


def test_a_full_ring_makes_the_appender_wait_for_the_encoder(process):
    frames = ArrayFrames(offload=True)
    stream = list(moving_frames(CHUNK_SIZE + SLOTS + CHUNK_SIZE, 24, 32))
    for frame in stream[: CHUNK_SIZE + 1]:  # the ring opens with the second chunk
        frames.append(frame)
    os.kill(process.process.pid, signal.SIGSTOP)
    try:
        appender = threading.Thread(
            target=lambda: [frames.append(f) for f in stream[CHUNK_SIZE + 1 :]]
        )
        appender.start()
        wait_until(lambda: len(frames) == CHUNK_SIZE + SLOTS, "the ring filled")
        appender.join(timeout=0.5)  # a stopped encoder: no slot frees
        assert appender.is_alive()
        assert len(frames) == CHUNK_SIZE + SLOTS
    finally:
        os.kill(process.process.pid, signal.SIGCONT)
    appender.join(LIMIT)
    frames.finish_encoding()
    assert chunks(frames) == chunks(ArrayFrames(stream))


def test_rings_past_their_budget_are_encoded_inline_the_same_bytes(process, monkeypatch):
    room = SLOTS * 24 * 32 * 3 + AREA_BYTES  # one ring: its frame slots and hold slots
    monkeypatch.setattr(frame_ring, "RINGS_BYTES", process.rings_bytes + room)
    first, second = ArrayFrames(offload=True), ArrayFrames(offload=True)
    stream = moving_frames(3 * CHUNK_SIZE, 24, 32)
    for t, frame in enumerate(stream):
        first.append(frame)
        second.append(frame)
        if t == 2 * CHUNK_SIZE:  # chunk 2 open in each
            assert isinstance(first._open[2], RemoteChunk)  # the first took the room left
            assert not isinstance(second._open[2], RemoteChunk)
    first.finish_encoding()
    assert chunks(first) == chunks(second) == chunks(ArrayFrames(stream))
