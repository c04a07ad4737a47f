"""Journal records made in the encoder process from the chunks held for a live recorder
(:class:`RecordMaker`): in order, each once it is held, the bytes the recorder would
have written itself, a payload it stored already not stored again."""

from __future__ import annotations

import numpy as np

from agent_widget.format import chunk_payloads
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.recording._encoder._held_chunks import AREA_BYTES, hold_area
from agent_widget.recording._encoder._held_records import RecordMaker
from tests.recording.encoder.test_held_chunks import (
    FRAMES,
    LAYOUT,
    arrays,
    held,
    infos,
    loaded,
    parts,
    recorded,
)


def chunk_3_again_1s_frames(spool, k):
    """Chunk k held; chunk 3 with chunk 1's frames (equal payloads: stored once)."""
    chunk = held(spool, k)
    if k == 3:
        chunk = chunk._replace(parts=[p._replace(start=p.start + 2 * CHUNK_SIZE) for p in parts(1)])
    return chunk


def test_records_are_made_in_order_once_held_as_the_recorder_writes_them(tmp_path):
    (tmp_path / "here").mkdir()
    here = recorded(tmp_path / "here")
    for k in (1, 2, 3):
        chunk = chunk_3_again_1s_frames(here, k)
        start = k * CHUNK_SIZE
        payloads = chunk_payloads(start, start + CHUNK_SIZE, chunk.parts, {}, infos(k))
        here.write(payloads, arrays(k), LAYOUT)

    spool = recorded(tmp_path)  # chunk 0 written by the recorder, then lent
    k, size, offsets = spool.state
    maker = RecordMaker(9, k, size, dict(offsets))  # a copy, as the pipe makes
    area = hold_area(bytearray(AREA_BYTES), 0)
    made_here = {2: parts(2)}  # chunk 2 held without its parts: those the encoder made

    def made():
        return list(maker.made(area, made_here.get))

    assert made() == []
    area.put(1, 1, chunk_3_again_1s_frames(spool, 1))
    area.put(3, 1, chunk_3_again_1s_frames(spool, 3))
    (first,) = made()  # chunk 2 is not held yet: nor is 3 made
    assert first[:3] == ("record", 9, 1)
    spool.write_record(first[3])
    area.put(2, 2, chunk_3_again_1s_frames(spool, 2)._replace(parts=None))
    second, third = made()
    assert [second[2], third[2]] == [2, 3]
    assert len(third[3].offsets) == 1  # its infos alone: its frames are chunk 1's, stored
    spool.write_record(second[3])
    spool.write_record(third[3])
    assert spool.path.read_bytes() == here.path.read_bytes()
    rollout = loaded(spool)
    assert rollout.num_positions == 4 * CHUNK_SIZE
    for t in range(4 * CHUNK_SIZE):
        want = FRAMES[t - 2 * CHUNK_SIZE if t >= 3 * CHUNK_SIZE else t]
        np.testing.assert_array_equal(rollout.frames[t], want, err_msg=f"frame {t}")
        assert rollout.infos[t] == {"t": t}
