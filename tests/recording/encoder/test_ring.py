"""Frames encoded by the encoder process (OffloadedFrames()): the same bytes as
encoding them here, a ring that makes the appender wait instead of growing, and a
chunk handed out while it fills or copied for a branch read from the ring's frames."""

from __future__ import annotations

import os
import signal
import threading
from multiprocessing.connection import Connection

import numpy as np
import pytest

from agent_widget.format import CHUNK_SIZE, ArrayFrames
from agent_widget.format._frames import MISSING
from agent_widget.recording._encoder import OffloadedFrames
from agent_widget.recording._encoder import _ring as frame_ring
from agent_widget.recording._encoder._held_chunks import AREA_BYTES
from agent_widget.recording._encoder._process import cores
from agent_widget.recording._encoder._ring import SLOTS, RemoteChunk
from agent_widget.recording._encoder._worker import NICE, main
from tests.sample_frames import changing_frames, moving_frames
from tests.waiting import LIMIT, wait_until

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")


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


def test_frames_encoded_by_the_process_are_the_bytes_encoded_here(encoder):
    frames = OffloadedFrames(allow_resize=True)
    remote = set()
    for frame in episode():
        frames.append(frame)
        remote |= {k for k, chunk in frames._open.items() if isinstance(chunk, RemoteChunk)}
    frames.finish_encoding()
    assert remote == {1, 2, 3, 4, 5, 6}  # every chunk but the first (and the last, partial)
    assert chunks(frames) == chunks(ArrayFrames(episode(), allow_resize=True))
    assert all(np.array_equal(a, b) for a, b in zip(frames, episode(), strict=True))


def test_a_chunk_read_while_it_fills_or_copied_is_encoded_from_the_ring(encoder):
    frames = OffloadedFrames(allow_resize=True)
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


def test_a_full_ring_makes_the_appender_wait_for_the_encoder(encoder):
    frames = OffloadedFrames()
    stream = list(moving_frames(CHUNK_SIZE + SLOTS + CHUNK_SIZE, 24, 32))
    for frame in stream[: CHUNK_SIZE + 1]:  # the ring opens with the second chunk
        frames.append(frame)
    os.kill(encoder.process.pid, signal.SIGSTOP)
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
        os.kill(encoder.process.pid, signal.SIGCONT)
    appender.join(LIMIT)
    frames.finish_encoding()
    assert chunks(frames) == chunks(ArrayFrames(stream))


def test_rings_past_their_budget_are_encoded_inline_the_same_bytes(encoder, monkeypatch):
    room = SLOTS * 24 * 32 * 3 + AREA_BYTES  # one ring: its frame slots and hold slots
    monkeypatch.setattr(frame_ring, "RINGS_BYTES", encoder.rings_bytes + room)
    first, second = OffloadedFrames(), OffloadedFrames()
    stream = moving_frames(3 * CHUNK_SIZE, 24, 32)
    for t, frame in enumerate(stream):
        first.append(frame)
        second.append(frame)
        if t == 2 * CHUNK_SIZE:  # chunk 2 open in each
            assert isinstance(first._open[2], RemoteChunk)  # the first took the room left
            assert not isinstance(second._open[2], RemoteChunk)
    first.finish_encoding()
    assert chunks(first) == chunks(second) == chunks(ArrayFrames(stream))


def test_the_next_episode_reuses_the_ring_from_its_first_chunk(encoder):
    stream = list(moving_frames(3 * CHUNK_SIZE, 24, 32))
    first = OffloadedFrames()
    for frame in stream:
        first.append(frame)
    ring = first._ring
    first.finish_encoding()
    assert frame_ring._idle == [ring]  # kept, its stream open in the encoder process
    rings_bytes = encoder.rings_bytes

    second = OffloadedFrames()
    second.append(stream[0])
    assert isinstance(second._open[0], RemoteChunk)
    assert second._ring is ring
    assert encoder.rings_bytes == rings_bytes
    assert frame_ring._idle == []
    for frame in stream[1:]:
        second.append(frame)
    other_size = OffloadedFrames()  # another ring: not taken from the first chunk
    other_size.append(moving_frames(1, 12, 16)[0])
    assert not isinstance(other_size._open[0], RemoteChunk)
    second.finish_encoding()
    assert chunks(second) == chunks(first) == chunks(ArrayFrames(stream))


@pytest.mark.parametrize("unlinked", [False, True], ids=["kept", "unlinked"])
def test_a_ring_whose_encoder_died_is_not_kept(encoder, unlinked):
    frames = OffloadedFrames()
    stream = list(moving_frames(3 * CHUNK_SIZE, 24, 32))
    for frame in stream[: 2 * CHUNK_SIZE]:
        frames.append(frame)
    os.kill(encoder.process.pid, signal.SIGKILL)
    if unlinked:
        # A killed encoder's resource tracker may unlink a ring's memory it was attaching
        # to (a race: done by hand here); the episode ends all the same, its frames whole.
        os.unlink(f"/dev/shm/{frames._ring._memory.name.lstrip('/')}")
    for frame in stream[2 * CHUNK_SIZE :]:
        frames.append(frame)
    frames.finish_encoding()
    assert frame_ring._idle == []
    assert chunks(frames) == chunks(ArrayFrames(stream))


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux's scheduling policies")
def test_the_encoder_runs_below_the_recorder_and_never_preempts_it_on_waking(encoder):
    pid = encoder.process.pid
    assert os.sched_getscheduler(pid) == os.SCHED_BATCH
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(ours + NICE, 19)


def test_an_encoder_whose_recorder_exited_as_it_started_ends_without_a_traceback():
    # A short script exits (closing its end of the pipes) before the encoder process
    # has imported what it needs: its "ready" finds no reader.
    replies_read, replies = os.pipe()
    os.close(replies_read)
    messages, messages_written = os.pipe()
    recorder = Connection(messages_written, readable=False)
    recorder.send(("exit",))
    recorder.close()
    main(Connection(messages, writable=False), Connection(replies, readable=False))


@pytest.mark.parametrize("offload", [False, True])
def test_frames_an_env_renders_into_one_buffer_are_kept_and_it_may_go_on(offload):
    frames = moving_frames(3 * CHUNK_SIZE + 5, 8, 8)
    screen = np.empty_like(frames[0])  # its own array (no base), written at every render
    stored = OffloadedFrames(offload=offload)
    for frame in frames:
        screen[...] = frame  # would raise if a frame appended before had frozen it
        stored.append(screen)
    stored.finish_encoding()
    assert screen.flags.writeable
    np.testing.assert_array_equal(np.stack(list(stored)), frames)
