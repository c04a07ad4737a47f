"""Chunks held by the encoder process, appended to a file its recording process left
(:func:`append_held`): after the last whole journal record, in order, over a record a
kill cut short, never after a gap nor to a file that is not the episode's any more; and
the hold slots they wait in."""

from __future__ import annotations

import os
import resource

import numpy as np
import pytest

from agent_widget.episodes import load
from agent_widget.format import Spool, chunk_payloads, journal_layout
from agent_widget.format._array_frames import encode_chunk
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.recording._encoder import Held
from agent_widget.recording._encoder._held_chunks import (
    AREA_BYTES,
    HOLD_BYTES,
    HOLDS,
    KEPT,
    HeldChunks,
    hold_area,
)
from agent_widget.recording._encoder._held_records import append_held
from tests.sample_frames import moving_frames

FRAMES = list(moving_frames(4 * CHUNK_SIZE, 24, 32))
LAYOUT = journal_layout({"env_id": "Moving"}, True, None)


def arrays(k):
    steps = range(k * CHUNK_SIZE, (k + 1) * CHUNK_SIZE)
    return {
        "actions": np.array([t % 3 for t in steps]),
        "rewards": np.array([t / 2 for t in steps]),
        "terminated": np.zeros(CHUNK_SIZE, bool),
        "truncated": np.zeros(CHUNK_SIZE, bool),
    }


def infos(k):
    return [{"t": t} for t in range(k * CHUNK_SIZE, (k + 1) * CHUNK_SIZE)]


def parts(k):
    start = k * CHUNK_SIZE
    return encode_chunk(FRAMES[start : start + CHUNK_SIZE], start)


def held(spool, k, with_parts=True):
    layout = LAYOUT if k == 0 else None
    chunk = Held.of(spool.identity, layout, arrays(k), [], infos(k))
    return chunk._replace(parts=parts(k)) if with_parts else chunk


def recorded(tmp_path, chunks=1):
    """A file being recorded, its first ``chunks`` chunks written (then killed)."""
    spool = Spool.to_path(tmp_path / "ep.rollout")
    for k in range(chunks):
        start = k * CHUNK_SIZE
        payloads = chunk_payloads(start, start + CHUNK_SIZE, parts(k), {}, infos(k))
        spool.write(payloads, arrays(k), LAYOUT)
    return spool


def loaded(spool):
    with pytest.warns(UserWarning, match="recording stopped before the end"):
        return load(spool.path)


def assert_first_chunks(rollout, chunks):
    n = chunks * CHUNK_SIZE
    assert rollout.num_positions == n
    for t in range(n):
        np.testing.assert_array_equal(rollout.frames[t], FRAMES[t], err_msg=f"frame {t}")
        assert rollout.infos[t] == {"t": t}
    np.testing.assert_array_equal(rollout.actions, [t % 3 for t in range(n - 1)])


def test_the_chunks_after_the_last_record_are_appended_in_order(tmp_path):
    spool = recorded(tmp_path, chunks=2)
    chunks = {k: held(spool, k) for k in (1, 2, 3)}  # chunk 1 written by the recorder
    assert append_held(chunks) == 2
    assert_first_chunks(loaded(spool), 4)


def test_a_record_cut_short_is_written_over(tmp_path):
    spool = recorded(tmp_path)
    torn = os.path.getsize(spool.path)
    with open(spool.path, "ab") as file:  # a kill in the middle of chunk 1's write
        file.write(b"AWJ1" + bytes(300_000))
    assert append_held({1: held(spool, 1)}) == 1
    assert_first_chunks(loaded(spool), 2)
    assert os.path.getsize(spool.path) < torn + 300_000  # the torn bytes are gone


def test_a_recorder_killed_before_its_first_chunk_has_them_from_chunk_0(tmp_path):
    spool = recorded(tmp_path, chunks=0)  # its zip header alone
    assert append_held({0: held(spool, 0), 1: held(spool, 1)}) == 2
    assert_first_chunks(loaded(spool), 2)


def test_nothing_follows_a_gap(tmp_path):
    spool = recorded(tmp_path)
    size = os.path.getsize(spool.path)
    assert append_held({2: held(spool, 2), 3: held(spool, 3)}) == 0
    assert os.path.getsize(spool.path) == size
    assert_first_chunks(loaded(spool), 1)


def test_a_file_that_is_not_the_episodes_any_more_is_left_alone(tmp_path):
    spool = recorded(tmp_path)
    chunks = {1: held(spool, 1)}
    other = recorded(tmp_path)  # a new recording to the same path replaced the part
    size = os.path.getsize(other.path)
    assert append_held(chunks) == 0
    assert os.path.getsize(other.path) == size


def test_the_encoder_holds_chunks_with_the_parts_it_made(tmp_path):
    spool = recorded(tmp_path)
    store = HeldChunks()
    for k in range(1, 1 + KEPT + 1):
        store.encoded(stream=7, k=k, parts=parts(k % 4))
    store.hold(7, 1, held(spool, 1, with_parts=False))  # encoded long ago: not kept
    store.hold(7, 3, held(spool, 3, with_parts=False))  # the encoder's parts
    store.hold(7, 2, held(spool, 2))  # its own parts
    (chunks,) = store.held()
    assert sorted(chunks) == [2, 3]
    assert chunks[3].parts == parts(3)
    assert chunks[2].parts == parts(2)


def test_a_full_disk_stops_at_the_last_whole_record(tmp_path):
    (tmp_path / "two").mkdir()
    room = os.path.getsize(recorded(tmp_path / "two", chunks=2).path)  # chunk 1 fits, not 2
    spool = recorded(tmp_path)
    chunks = {k: held(spool, k) for k in (1, 2)}
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    # Writing past it fails with EFBIG (Python ignores SIGXFSZ), as a full disk fails.
    resource.setrlimit(resource.RLIMIT_FSIZE, (room + 100, limit[1]))
    try:
        assert append_held(chunks) == 1
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    assert_first_chunks(loaded(spool), 2)


def test_hold_slots_keep_whole_chunks_not_yet_written(tmp_path):
    spool = recorded(tmp_path)
    area = hold_area(bytearray(AREA_BYTES), 0)
    assert area.put(1, 1, held(spool, 1, with_parts=False))
    assert area.put(2, 1, held(spool, 2))
    # Chunk 1 + HOLDS would take chunk 1's slot while chunk 1 is not written yet.
    later = held(spool, 1, with_parts=False)
    assert not area.put(1 + HOLDS, 1, later)
    assert area.put(1 + HOLDS, 2, later)  # chunk 1 written: it may
    area.slots[2 % HOLDS, 40] ^= 0xFF  # a write a kill cut short: not read
    assert [(k, chunk) for k, chunk in area.held()] == [(1 + HOLDS, later)]
    assert area.get(1 + HOLDS) == later
    assert area.get(1) is None  # its slot holds another chunk now
    assert area.get(2) is None  # cut short
    large = held(spool, 3)._replace(streams=[(5, bytes(HOLD_BYTES))])
    assert not area.put(3, 1, large)  # too large for a slot: not held
    area.clear()
    assert area.held() == []
