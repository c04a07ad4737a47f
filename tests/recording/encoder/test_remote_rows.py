"""Large observation rows encoded by the encoder process (OffloadedRows(offload=True)):
the payloads of encoding them here, a full ring that makes the appender wait, a killed
encoder that loses no row, and a branch copied while chunks are with the encoder."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

from agent_widget.format import CHUNK_SIZE, EncodedArray
from agent_widget.recording._encoder import OffloadedRows
from agent_widget.recording._encoder import _ring as frame_ring
from agent_widget.recording._encoder._process import EncoderDied, cores
from agent_widget.recording._encoder._remote_rows import RemoteRows
from agent_widget.recording._encoder._ring import SLOTS
from tests.waiting import LIMIT, wait_until

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")


def observations(n, dtype, shape, seed=0):
    """Rows that change a little from one to the next, as an env's do."""
    rng = np.random.default_rng(seed)
    row = (rng.random(shape) * 50).astype(dtype)
    rows = []
    for t in range(n):
        row = row.copy()
        row.reshape(-1)[rng.integers(row.size, size=40)] = t % 100
        rows.append(row)
    return rows


def payloads(rows):
    return [rows.payload(k) for k in range(-(-len(rows) // CHUNK_SIZE))]


def inline(rows, dtype, shape):
    encoded = EncodedArray(dtype, shape)
    for row in rows:
        encoded.append(row)
    return encoded


def remote_chunks(encoded):
    return [k for k, chunk in enumerate(encoded._sealed) if isinstance(chunk, RemoteRows)]


STACKS = (np.uint8, (4, 84, 84))  # Atari's preprocessed, stacked screens


@pytest.mark.parametrize(
    ("dtype", "shape"),
    [STACKS, (np.float32, (3, 32, 32)), (np.int16, (40, 30)), (np.float64, (2, 16, 16))],
    ids=["uint8-stack", "float32-image", "int16", "float64"],
)
def test_rows_encoded_by_the_process_are_the_payloads_encoded_here(encoder, dtype, shape):
    rows = observations(5 * CHUNK_SIZE + 3, dtype, shape)
    encoded = OffloadedRows(dtype, shape)
    for t, row in enumerate(rows):
        encoded.append(row)
        assert np.array_equal(encoded[t], row)  # read back at once, from the ring
    assert remote_chunks(encoded) == [1, 2, 3, 4]  # the first is encoded before a ring
    assert all(np.array_equal(encoded[t], row) for t, row in enumerate(rows))
    assert payloads(encoded) == payloads(inline(rows, dtype, shape))
    encoded.finish_encoding()
    assert remote_chunks(encoded) == []
    assert payloads(encoded) == payloads(inline(rows, dtype, shape))
    assert np.array_equal(np.asarray(encoded), np.stack(rows))
    assert [ring.slot_bytes for ring in frame_ring._idle] == [rows[0].nbytes]  # kept


def test_a_full_ring_makes_the_appender_wait_for_the_encoder(encoder):
    rows = observations(CHUNK_SIZE + SLOTS + CHUNK_SIZE, *STACKS)
    encoded = OffloadedRows(*STACKS)
    for row in rows[: CHUNK_SIZE + 1]:  # the ring opens with the second chunk
        encoded.append(row)
    os.kill(encoder.process.pid, signal.SIGSTOP)
    try:
        appender = threading.Thread(
            target=lambda: [encoded.append(r) for r in rows[CHUNK_SIZE + 1 :]]
        )
        appender.start()
        wait_until(lambda: len(encoded) == CHUNK_SIZE + SLOTS, "the ring filled")
        appender.join(timeout=0.5)  # a stopped encoder: no slot frees
        assert appender.is_alive()
        assert len(encoded) == CHUNK_SIZE + SLOTS
    finally:
        os.kill(encoder.process.pid, signal.SIGCONT)
    appender.join(LIMIT)
    assert len(encoded) == len(rows)
    encoded.finish_encoding()
    assert payloads(encoded) == payloads(inline(rows, *STACKS))


def test_a_killed_encoder_keeps_every_row_and_says_so_once(encoder):
    # The encoder stopped, then killed while the appender waits on a full ring: the
    # three chunks in the ring are encoded here, and the rows after them too.
    rows = observations(CHUNK_SIZE + SLOTS + 2 * CHUNK_SIZE + 5, *STACKS)
    encoded = OffloadedRows(*STACKS)
    for row in rows[: CHUNK_SIZE + 1]:
        encoded.append(row)
    os.kill(encoder.process.pid, signal.SIGSTOP)
    appender = threading.Thread(target=lambda: [encoded.append(r) for r in rows[CHUNK_SIZE + 1 :]])
    appender.start()
    wait_until(lambda: len(encoded) == CHUNK_SIZE + SLOTS, "the ring filled")
    assert encoded.take_error() is None
    os.kill(encoder.process.pid, signal.SIGKILL)
    appender.join(LIMIT)
    assert len(encoded) == len(rows)
    assert remote_chunks(encoded) == [1, 2, 3]  # their rows still in the ring
    error = encoded.take_error()
    assert isinstance(error, EncoderDied)
    assert f"pid {encoder.process.pid}" in str(error)
    assert encoded.take_error() is None  # once
    assert all(np.array_equal(encoded[t], row) for t, row in enumerate(rows))
    assert payloads(encoded) == payloads(inline(rows, *STACKS))
    encoded.finish_encoding()
    assert frame_ring._idle == []  # a dead encoder's ring is not kept
    assert payloads(encoded) == payloads(inline(rows, *STACKS))


def test_a_copy_made_while_chunks_are_with_the_encoder_grows_apart(encoder):
    rows = observations(3 * CHUNK_SIZE + 7, *STACKS)
    more = observations(2 * CHUNK_SIZE, *STACKS, seed=1)
    encoded = OffloadedRows(*STACKS)
    for row in rows[: CHUNK_SIZE + 1]:
        encoded.append(row)
    os.kill(encoder.process.pid, signal.SIGSTOP)
    try:
        for row in rows[CHUNK_SIZE + 1 :]:  # chunks 1 and 2 sent, 3 filling: all in the ring
            encoded.append(row)
        assert remote_chunks(encoded) == [1, 2]
        assert not encoded.ready(1)
        branch = encoded.copy()
        for row in more:
            branch.append(row)
        # The branch reads the rows still with the encoder from the ring, waiting for none.
        assert all(np.array_equal(branch[t], row) for t, row in enumerate(rows + more))
    finally:
        os.kill(encoder.process.pid, signal.SIGCONT)
    assert payloads(branch) == payloads(inline(rows + more, *STACKS))
    encoded.finish_encoding()
    assert payloads(encoded) == payloads(inline(rows, *STACKS))


def test_rows_with_no_room_for_a_ring_are_encoded_here_the_same_bytes(encoder, monkeypatch):
    monkeypatch.setattr(frame_ring, "RINGS_BYTES", encoder.rings_bytes)  # no room left
    rows = observations(3 * CHUNK_SIZE + 2, *STACKS)
    encoded = OffloadedRows(*STACKS)
    for row in rows:
        encoded.append(row)
    assert encoded._ring is None
    assert remote_chunks(encoded) == []
    assert payloads(encoded) == payloads(inline(rows, *STACKS))
