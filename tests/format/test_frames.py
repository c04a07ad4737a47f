"""Frame validation/normalization, the frame containers and the chunk codec
(agent_widget.format._frames, _array_frames, _codec, _zlib_runs)."""

import itertools
import struct
import sys
import threading
import tracemalloc
import zlib

import numpy as np
import pytest

from agent_widget.format import _array_frames as frames_module
from agent_widget.format._array_frames import ArrayFrames, encode_chunk
from agent_widget.format._codec import (
    CHUNK_SIZE,
    MAX_FRAME_BYTES,
    Part,
    RunEncoder,
    decode_frame,
    decode_part,
    decode_rows,
    encode_part,
    encode_rows,
)
from agent_widget.format._frames import normalize_frame
from agent_widget.format._zlib_runs import GAP, runs_bound, runs_of
from tests.sample_frames import changing_frames, deflate_deltas, moving_frames

# ----------------------------------------------------------------- normalize_frame


def test_uint8_rgb_is_kept_without_copy():
    frame = moving_frames(1)[0]
    out = normalize_frame(frame, 0)
    assert out.dtype == np.uint8
    assert out.shape == frame.shape
    assert np.shares_memory(out, frame)


def test_non_contiguous_rgb_becomes_contiguous():
    frame = moving_frames(1, 6, 16)[0][:, ::2]
    out = normalize_frame(frame, 0)
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, frame)


def test_grayscale_hw_is_replicated_to_three_channels():
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = normalize_frame(gray, 0)
    assert out.shape == (3, 4, 3)
    for channel in range(3):
        np.testing.assert_array_equal(out[:, :, channel], gray)


def test_grayscale_hw1_is_replicated_to_three_channels():
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    out = normalize_frame(gray, 0)
    np.testing.assert_array_equal(out, np.repeat(gray, 3, axis=2))


def test_rgba_drops_alpha():
    rgba = np.random.default_rng(1).integers(0, 256, (3, 4, 4), dtype=np.uint8)
    np.testing.assert_array_equal(normalize_frame(rgba, 0), rgba[:, :, :3])


def test_float_in_unit_range_is_scaled_and_rounded():
    frame = np.array([[[0.0, 0.2, 1.0]]], dtype=np.float32)
    assert normalize_frame(frame, 0).tolist() == [[[0, 51, 255]]]


def test_integers_in_byte_range_are_accepted():
    frame = np.array([[[0, 128, 255]]], dtype=np.int64)
    out = normalize_frame(frame, 0)
    assert out.dtype == np.uint8
    assert out.tolist() == [[[0, 128, 255]]]


def test_nan_is_rejected_naming_the_step():
    frame = np.zeros((2, 2, 3))
    frame[1, 1, 1] = np.nan
    with pytest.raises(ValueError, match=r"step 7.*NaN"):
        normalize_frame(frame, 7)


def test_float_out_of_range_is_rejected_with_the_range_found():
    with pytest.raises(ValueError, match=r"step 3.*\[0, 1\].*\[0, 255\]"):
        normalize_frame(np.linspace(0.0, 255.0, 12).reshape(2, 2, 3), 3)


def test_integers_out_of_byte_range_are_rejected():
    with pytest.raises(ValueError, match=r"step 2.*\[0, 1000\]"):
        normalize_frame(np.linspace(0, 1000, 12).astype(np.int32).reshape(2, 2, 3), 2)


@pytest.mark.parametrize("shape", [(5,), (2, 2, 3, 1), (2, 2, 2), (2, 2, 5)])
def test_wrong_rank_or_channel_count_is_rejected(shape):
    with pytest.raises(ValueError, match=rf"step 4.*shape \({shape[0]},"):
        normalize_frame(np.zeros(shape, np.uint8), 4)


def test_empty_image_is_rejected():
    with pytest.raises(ValueError, match=r"step 0.*empty"):
        normalize_frame(np.zeros((0, 4, 3), np.uint8), 0)


@pytest.mark.parametrize("dtype", [bool, object, "U1"])
def test_other_dtypes_are_rejected(dtype):
    with pytest.raises(ValueError, match=r"step 1.*dtype"):
        normalize_frame(np.zeros((2, 2, 3), dtype=dtype), 1)


# ----------------------------------------------------------------- encode/decode


def runs_record(*runs, data):
    """A frame's change as the spec lays it out: run count, (skip, length) pairs, new bytes."""
    pairs = [value for run in runs for value in run]
    return struct.pack(f"<{1 + len(pairs)}I", len(runs), *pairs) + bytes(data)


def runs_part(first, *records, count=None, height=1, width=4):
    """A zlib-runs part of 1x4 frames (12 bytes) deflated from the given stream contents."""
    count = 1 + len(records) if count is None else count
    payload = zlib.compress(bytes(first) + b"".join(records))
    return Part(0, count, height, width, "zlib-runs", payload)


def test_zlib_runs_payload_is_the_first_frame_then_each_frames_changed_bytes():
    frames = np.zeros((3, 1, 8, 3), np.uint8)  # 24 bytes a frame
    frames[1:, 0, 0, 1] = 7  # byte 1
    frames[1:, 0, 6, 2] = 9  # byte 20: 18 unchanged bytes from byte 1, two runs
    part = encode_part(frames, start=32)
    expected = frames[0].tobytes() + runs_record((1, 1), (18, 1), data=[7, 9]) + bytes(4)
    assert zlib.decompress(part.payload) == expected
    assert part[:5] == (32, 3, 1, 8, "zlib-runs")


def test_changed_bytes_at_most_gap_unchanged_bytes_apart_make_one_run():
    before = np.zeros(40, np.uint8)
    after = before.copy()
    after[[3, 3 + GAP + 1]] = 1  # GAP unchanged bytes between them
    assert runs_of(before, after) == runs_record((3, GAP + 2), data=after[3 : 3 + GAP + 2])


def test_changed_bytes_more_than_gap_unchanged_bytes_apart_make_two_runs():
    before = np.zeros(40, np.uint8)
    after = before.copy()
    after[[3, 3 + GAP + 2]] = 1  # GAP + 1 unchanged bytes between them
    assert runs_of(before, after) == runs_record((3, 1), (GAP + 1, 1), data=[1, 1])


def test_a_frame_that_changes_nothing_is_a_zero_run_count():
    frame = moving_frames(1)[0].reshape(-1)
    assert runs_of(frame, frame.copy()) == bytes(4)


def test_raw_payload_is_the_concatenated_rgb_bytes():
    frames = moving_frames(3)
    assert encode_part(frames, 0, "raw").payload == frames.tobytes()


def still_frames(n, height, width):
    return np.repeat(moving_frames(1, height, width), n, axis=0)


def noise_frames(n, height, width):
    return np.random.default_rng(n).integers(0, 256, (n, height, width, 3), dtype=np.uint8)


def sparse_frames(n, height, width):
    """Frames whose every 13th byte changes: a run each, 277 runs a frame at 30x40."""
    frames = still_frames(n, height, width).reshape(n, -1)
    frames[:, ::13] += np.arange(n, dtype=np.uint8)[:, None]
    return frames.reshape(n, height, width, 3)


@pytest.mark.parametrize("encoding", ["zlib-runs", "raw"])
@pytest.mark.parametrize("make", [moving_frames, still_frames, noise_frames, sparse_frames])
@pytest.mark.parametrize(("n", "height", "width"), [(1, 6, 8), (16, 1, 1), (7, 3, 5), (16, 60, 70)])
def test_decode_part_round_trips(encoding, make, n, height, width):
    frames = make(n, height, width)
    np.testing.assert_array_equal(decode_part(encode_part(frames, 0, encoding)), frames)


def test_a_part_of_frames_that_all_change_stays_within_the_readers_bound():
    frames = noise_frames(16, 6, 8)
    inflated = len(zlib.decompress(encode_part(frames, 0).payload))
    assert inflated <= runs_bound(6 * 8 * 3, 16)


@pytest.mark.parametrize("encoding", ["zlib-runs", "raw"])
def test_decode_part_can_stop_early(encoding):
    frames = moving_frames(10)
    np.testing.assert_array_equal(decode_part(encode_part(frames, 0, encoding), 4), frames[:4])


@pytest.mark.parametrize("encoding", ["zlib-runs", "raw"])
def test_decode_frame_returns_each_frame(encoding):
    frames = sparse_frames(10, 30, 40)
    part = encode_part(frames, 0, encoding)
    for i in range(10):
        np.testing.assert_array_equal(decode_frame(part, i), frames[i])


def zlib_xor_part(frames):
    """A part as version-1 files hold them."""
    rows = frames.reshape(len(frames), -1)
    return Part(0, len(frames), *frames.shape[1:3], "zlib-xor", deflate_deltas(rows))


def test_zlib_xor_parts_of_version_1_files_still_decode():
    frames = moving_frames(10)
    part = zlib_xor_part(frames)
    np.testing.assert_array_equal(decode_part(part), frames)
    np.testing.assert_array_equal(decode_part(part, 3), frames[:3])
    np.testing.assert_array_equal(decode_frame(part, 6), frames[6])


def test_zlib_xor_is_no_longer_produced():
    with pytest.raises(ValueError, match=r"unknown frame encoding 'zlib-xor'"):
        encode_part(moving_frames(1), 0, "zlib-xor")


def test_unknown_encoding_is_rejected():
    with pytest.raises(ValueError, match=r"unknown frame encoding 'png'"):
        encode_part(moving_frames(1), 0, "png")


def test_truncated_zlib_runs_payload_is_rejected():
    part = encode_part(moving_frames(4), 0)
    with pytest.raises(ValueError, match=r"corrupt zlib-runs payload"):
        decode_part(part._replace(payload=part.payload[:-6]))


def test_a_stream_one_byte_longer_than_its_frames_is_rejected():
    part = runs_part(range(12), runs_record((2, 1), data=[0]) + b"\x00")
    with pytest.raises(ValueError, match=r"longer than 2 frames of 12 bytes"):
        decode_part(part)


def test_a_stream_one_byte_short_of_its_frames_is_rejected():
    part = runs_part(range(12), runs_record((2, 2), data=[0]))
    with pytest.raises(ValueError, match=r"ends inside frame 1's run bytes"):
        decode_part(part)


def test_a_part_with_more_frames_than_its_stream_is_rejected():
    part = encode_part(moving_frames(4), 0)
    with pytest.raises(ValueError, match=r"ends inside frame 4's run count"):
        decode_part(part._replace(count=5))


@pytest.mark.parametrize(
    "record",
    [
        runs_record((12, 1), data=[0]),  # starts past the end
        runs_record((10, 3), data=[0, 0, 0]),  # ends past the end
        runs_record((4, 1), (2**32 - 1, 1), data=[0, 0]),  # a skip that would wrap a u32 sum
        runs_record((4, 0), data=[]),  # empty
    ],
)
def test_a_run_outside_its_frame_or_empty_is_rejected(record):
    with pytest.raises(ValueError, match=r"frame 1's runs are empty or leave its 12 bytes"):
        decode_part(runs_part(range(12), record))


def test_more_runs_than_bytes_are_rejected_before_reading_them():
    part = runs_part(range(12), struct.pack("<I", 13))
    with pytest.raises(ValueError, match=r"frame 1 has 13 runs in 12 bytes"):
        decode_part(part)


def test_runs_that_would_inflate_past_the_bound_are_rejected_before_inflating_them():
    # 7 one-byte runs take 7 * 8 + 7 bytes, more than the 12 + 2 * 12 a frame may.
    part = runs_part(range(12), runs_record(*[(0, 1)] * 7, data=range(7)))
    with pytest.raises(ValueError, match=r"frame 1 has 7 runs in 12 bytes"):
        decode_part(part)


def test_a_zip_bomb_is_refused_without_inflating_it():
    compressor = zlib.compressobj()
    zeros = bytes(2**20)
    payload = b"".join(compressor.compress(zeros) for _ in range(64)) + compressor.flush()
    part = Part(0, 16, 20, 20, "zlib-runs", payload)  # 64 MiB of zeros: frames without change
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"longer than 16 frames of 1200 bytes"):
        decode_part(part)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2**20


def test_bytes_after_the_end_of_the_stream_are_rejected():
    part = encode_part(moving_frames(4), 0)
    with pytest.raises(ValueError, match=r"bytes follow the end of the stream"):
        decode_part(part._replace(payload=part.payload + b"\x00"))


def test_garbage_payload_is_rejected():
    part = Part(0, 1, 2, 2, "zlib-runs", b"not zlib at all")
    with pytest.raises(ValueError, match=r"corrupt zlib-runs payload"):
        decode_part(part)


def test_corrupt_zlib_xor_payload_is_rejected():
    part = zlib_xor_part(moving_frames(4))
    with pytest.raises(ValueError, match=r"corrupt zlib-xor payload"):
        decode_part(part._replace(payload=part.payload[:-6]))


def test_raw_payload_of_wrong_length_is_rejected():
    with pytest.raises(ValueError, match=r"raw payload holds 5 bytes, expected 12"):
        decode_part(Part(0, 1, 2, 2, "raw", b"12345"))


def test_implausible_part_header_is_rejected_before_allocating():
    with pytest.raises(ValueError, match=r"too large"):
        decode_part(Part(0, 1, 100_000, 100_000, "raw", b""))


# One row of a frame exactly at the size cap, and one pixel past it.
AT_CAP = MAX_FRAME_BYTES // 3


def test_the_frame_size_cap_holds_one_pixel_past_it_and_not_at_it():
    with pytest.raises(ValueError, match=r"1x\d+ frames are too large"):
        decode_part(Part(0, 1, 1, AT_CAP + 1, "raw", b""))
    with pytest.raises(ValueError, match=r"raw payload holds 0 bytes"):  # past the cap check
        decode_part(Part(0, 1, 1, AT_CAP, "raw", b""))
    part = encode_part(np.zeros((1, 1, AT_CAP, 3), np.uint8), start=0)
    assert len(part.payload) < 2**20  # a small file can declare a frame at the cap
    assert decode_frame(part, 0).shape == (1, AT_CAP, 3)
    with pytest.raises(ValueError, match=r"too large"):
        normalize_frame(np.zeros((1, AT_CAP + 1, 3), np.uint8), t=0)
    assert normalize_frame(np.zeros((1, AT_CAP, 3), np.uint8), t=0).shape == (1, AT_CAP, 3)


@pytest.mark.parametrize("encoding", ["zlib-runs", "raw"])
def test_a_payload_encoded_a_row_at_a_time_is_the_payload_encoded_at_once(encoding):
    rows = sparse_frames(CHUNK_SIZE, 6, 8).reshape(CHUNK_SIZE, -1)
    encoder = RunEncoder(encoding)
    for n, row in enumerate(rows, 1):
        encoder.add(row)
        assert encoder.payload() == encode_rows(rows[:n], encoding)
    assert encoder.finish() == encode_rows(rows, encoding)


def test_rows_of_any_record_size_round_trip_as_zlib_runs():
    records = np.random.default_rng(3).normal(size=(5, 7)).cumsum(axis=0)  # 56 bytes each
    rows = records.view(np.uint8)
    payload = encode_rows(rows)
    np.testing.assert_array_equal(decode_rows(payload, "zlib-runs", 56, 5, 5), rows)
    np.testing.assert_array_equal(
        decode_rows(payload, "zlib-runs", 56, 5, 3, every=False), rows[2:3]
    )


def test_a_frame_is_refused_when_its_change_would_inflate_the_payload_past_the_limit():
    rows = changing_frames(3).reshape(3, -1)  # 144 bytes, then 12 + 144 a change
    encoder = RunEncoder()
    assert [encoder.add(row, limit=144 + 156) for row in rows] == [True, True, False]
    assert (encoder.count, encoder.inflated) == (2, 300)


def test_the_first_row_is_added_whatever_the_limit():
    encoder = RunEncoder()
    assert encoder.add(moving_frames(1).reshape(-1), limit=10)
    assert encoder.count == 1


# ----------------------------------------------------------------- ArrayFrames


def test_array_frames_index_like_a_sequence():
    frames = moving_frames(20)
    stored = ArrayFrames(frames)
    assert len(stored) == 20
    np.testing.assert_array_equal(stored[3], frames[3])
    np.testing.assert_array_equal(stored[-1], frames[19])
    with pytest.raises(IndexError):
        stored[20]


def test_array_frames_normalize_every_frame():
    stored = ArrayFrames([np.zeros((2, 3)), np.ones((2, 3, 4))])
    assert stored[0].shape == stored[1].shape == (2, 3, 3)
    assert stored[1].tolist()[0][0] == [255, 255, 255]


def test_bad_frame_in_a_list_names_its_step():
    frames = [np.zeros((2, 2, 3))] * 5 + [np.full((2, 2, 3), np.nan)]
    with pytest.raises(ValueError, match=r"step 5"):
        ArrayFrames(frames)


def test_size_change_is_rejected_without_allow_resize():
    frames = [np.zeros((4, 4, 3), np.uint8)] * 3 + [np.zeros((5, 4, 3), np.uint8)]
    with pytest.raises(ValueError, match=r"step 3: size changed from \(4, 4\) to \(5, 4\)"):
        ArrayFrames(frames)


def test_chunks_cover_sixteen_positions_each():
    frames = moving_frames(40)
    stored = ArrayFrames(frames)
    assert stored.num_chunks == 3
    assert [(p.start, p.count) for k in range(3) for p in stored.chunk(k)] == [
        (0, 16),
        (16, 16),
        (32, 8),
    ]
    np.testing.assert_array_equal(decode_part(stored.chunk(2)[0]), frames[32:])


def test_size_change_with_allow_resize_splits_the_chunk_into_parts():
    small, large = moving_frames(5, 4, 4), moving_frames(4, 6, 8)
    stored = ArrayFrames([*small, *large], allow_resize=True)
    parts = stored.chunk(0)
    assert [(p.start, p.count, p.height, p.width) for p in parts] == [(0, 5, 4, 4), (5, 4, 6, 8)]
    np.testing.assert_array_equal(decode_part(parts[1]), large)


# Two changes of all of a 6x8 frame's 144 bytes (12 + 144 bytes each).
SMALL_CHANGE_BYTES = 2 * 156


def spans(parts):
    return [(p.start, p.count) for p in parts]


def test_frames_that_change_everywhere_are_split_and_frames_that_stay_still_are_not(
    monkeypatch,
):
    monkeypatch.setattr(frames_module, "CHANGE_BYTES", SMALL_CHANGE_BYTES)
    dense = ArrayFrames(changing_frames(CHUNK_SIZE)).chunk(0)
    still = ArrayFrames(still_frames(CHUNK_SIZE, 6, 8)).chunk(0)
    assert spans(dense) == [(0, 3), (3, 3), (6, 3), (9, 3), (12, 3), (15, 1)]
    assert spans(still) == [(0, CHUNK_SIZE)]


def test_a_part_ends_where_the_next_change_would_take_its_changes_past_change_bytes(
    monkeypatch,
):
    monkeypatch.setattr(frames_module, "CHANGE_BYTES", SMALL_CHANGE_BYTES)
    frames = changing_frames(CHUNK_SIZE)
    frames[9:] = frames[8]  # still from frame 8 on: 4 bytes a frame
    parts = ArrayFrames(frames).chunk(0)
    # Frame 9 costs 4 bytes, but its part of 3 frames is full: it starts the next one whole.
    assert spans(parts) == [(0, 3), (3, 3), (6, 3), (9, 7)]
    for p in parts:
        assert len(zlib.decompress(p.payload)) <= 144 + SMALL_CHANGE_BYTES
        np.testing.assert_array_equal(decode_part(p), frames[p.start : p.start + p.count])


def test_frames_larger_than_change_bytes_still_share_a_part_when_they_change_little(
    monkeypatch,
):
    monkeypatch.setattr(frames_module, "CHANGE_BYTES", 100)
    assert spans(ArrayFrames(still_frames(3, 6, 8)).chunk(0)) == [(0, 3)]


def test_480x480_frames_take_a_part_each_when_they_change_everywhere_and_one_when_still():
    assert spans(encode_chunk(changing_frames(3, 480, 480), 0)) == [(0, 1), (1, 1), (2, 1)]
    assert spans(encode_chunk(still_frames(CHUNK_SIZE, 480, 480), 0)) == [(0, CHUNK_SIZE)]
    big = still_frames(CHUNK_SIZE, 1080, 1920)  # 6.2 MB a frame
    assert spans(encode_chunk(big, 0)) == [(0, CHUNK_SIZE)]


def test_a_growing_chunk_is_handed_out_in_the_parts_it_is_saved_in(monkeypatch):
    monkeypatch.setattr(frames_module, "CHANGE_BYTES", SMALL_CHANGE_BYTES)
    frames = changing_frames(12)
    stored = ArrayFrames()
    handed_out = []
    for frame in frames:
        stored.append(frame)
        handed_out.append(stored.chunk(0))
    parts = stored.chunk(0)
    assert spans(parts) == [(0, 3), (3, 3), (6, 3), (9, 3)]
    assert handed_out[5][:1] == parts[:1]  # a part once ended is handed out as it stays
    assert parts == encode_chunk(frames, 0)
    np.testing.assert_array_equal(np.concatenate([decode_part(p) for p in parts]), frames)


def test_chunks_are_encoded_once():
    stored = ArrayFrames(moving_frames(20))
    assert stored.chunk(1) is stored.chunk(1)


def test_append_invalidates_only_the_growing_chunk():
    frames = moving_frames(21)
    stored = ArrayFrames(frames[:20])
    first, last = stored.chunk(0), stored.chunk(1)
    stored.append(frames[20])
    assert stored.chunk(0) is first
    assert stored.chunk(1) is not last
    np.testing.assert_array_equal(decode_part(stored.chunk(1)[0]), frames[16:21])


def test_chunk_out_of_range_is_an_index_error():
    with pytest.raises(IndexError, match=r"chunk 2"):
        ArrayFrames(moving_frames(20)).chunk(2)


def test_stored_frames_are_read_only():
    stored = ArrayFrames(moving_frames(2))
    with pytest.raises(ValueError, match=r"read-only"):
        stored[0][0, 0, 0] = 1


def test_iteration_yields_every_frame():
    frames = moving_frames(18)
    np.testing.assert_array_equal(np.stack(list(ArrayFrames(frames))), frames)


# ------------------------------------------------- ArrayFrames: memory and CPU of live growth


def grown(frames, **options) -> ArrayFrames:
    """ArrayFrames given ``frames`` one append at a time, as a live episode gets them."""
    stored = ArrayFrames(**options)
    for frame in frames:
        stored.append(frame)
    return stored


def held_payloads(stored: ArrayFrames, chunks) -> int:
    return sum(len(part.payload) for k in chunks for part in stored.chunk(k))


def test_memory_per_appended_position_stays_near_the_encoded_size():
    frames = moving_frames(40 * CHUNK_SIZE + 3, 32, 32)
    stored = grown(frames)
    # Full chunks are held as their payloads only; the unfinished one as its newest frame
    # and the stream its three frames are encoded into so far (most of it still in zlib).
    unfinished = stored.nbytes - held_payloads(stored, range(40))
    assert frames[0].nbytes <= unfinished < 2 * frames[0].nbytes
    assert stored.nbytes < frames.nbytes / 10


def test_appended_frames_read_back_exactly_once_encoded():
    frames = moving_frames(3 * CHUNK_SIZE + 5, 8, 8)
    stored = grown(frames)
    for t in (40, 3, 17, 16, 0, 52, 49, -1):  # 48..52: the unfinished chunk
        np.testing.assert_array_equal(stored[t], frames[t])
    np.testing.assert_array_equal(np.stack(list(stored)), frames)


def test_a_frame_read_from_an_encoded_chunk_is_read_only():
    stored = grown(moving_frames(CHUNK_SIZE))
    with pytest.raises(ValueError, match=r"read-only"):
        stored[3][0, 0, 0] = 1


def test_reading_encoded_frames_keeps_one_decoded_chunk_at_most():
    frames = moving_frames(4 * CHUNK_SIZE, 8, 8)
    stored = grown(frames)
    encoded = stored.nbytes
    for t in range(len(frames)):
        stored[t]
    assert stored.nbytes == encoded + CHUNK_SIZE * frames[0].nbytes


@pytest.mark.parametrize("encoding", ["zlib-runs", "raw"])
def test_the_growing_chunk_handed_out_after_each_append_decodes_to_its_frames(encoding):
    frames = moving_frames(2 * CHUNK_SIZE + 3)
    stored = ArrayFrames(encoding=encoding)
    for t, frame in enumerate(frames):
        stored.append(frame)
        k = t // CHUNK_SIZE
        [part] = stored.chunk(k)
        np.testing.assert_array_equal(decode_part(part), frames[k * CHUNK_SIZE : t + 1])


def test_each_growing_part_is_a_whole_zlib_stream():
    # The browser's DecompressionStream("deflate") refuses a stream without its end.
    stored = ArrayFrames()
    for frame in moving_frames(5):
        stored.append(frame)
        inflater = zlib.decompressobj()
        inflater.decompress(stored.chunk(0)[0].payload)
        assert (inflater.eof, inflater.unused_data) == (True, b"")


def test_handing_out_the_growing_chunk_compresses_each_frame_once(monkeypatch):
    fed = []
    compressobj = zlib.compressobj

    class CountingCompressor:
        def __init__(self, *args):
            self._compressor = compressobj(*args)

        def compress(self, data):
            fed.append(memoryview(data).nbytes)
            return self._compressor.compress(data)

        def copy(self):
            return self._compressor.copy()

        def flush(self, *args):
            return self._compressor.flush(*args)

    monkeypatch.setattr(zlib, "compressobj", CountingCompressor)
    frames = moving_frames(CHUNK_SIZE + 4)
    stored = ArrayFrames()
    for t, frame in enumerate(frames):
        stored.append(frame)
        stored.chunk(t // CHUNK_SIZE)
    # What was compressed is what the parts inflate to: no frame's runs twice.
    parts = [part for k in range(2) for part in stored.chunk(k)]
    assert sum(fed) == sum(len(zlib.decompress(part.payload)) for part in parts)
    assert len(fed) == len(frames)


def test_a_growing_chunk_whose_frame_size_changes_is_handed_out_in_parts():
    small, large = moving_frames(5, 4, 4), moving_frames(4, 6, 8)
    stored = ArrayFrames(allow_resize=True)
    for frame in [*small, *large]:
        stored.append(frame)
        stored.chunk(0)
    parts = stored.chunk(0)
    assert [(p.start, p.count, p.height, p.width) for p in parts] == [(0, 5, 4, 4), (5, 4, 6, 8)]
    np.testing.assert_array_equal(decode_part(parts[0]), small)
    np.testing.assert_array_equal(decode_part(parts[1]), large)


def test_frames_given_at_construction_are_encoded_a_chunk_at_a_time_as_they_come():
    frames = moving_frames(3 * CHUNK_SIZE + 2, 8, 8)
    stored = ArrayFrames(iter(frames))  # an iterator: never held whole
    # The full chunks encoded, and of the last one only the newest frame raw.
    unfinished = stored.nbytes - held_payloads(stored, [0, 1, 2])
    assert frames[0].nbytes <= unfinished < 2 * frames[0].nbytes
    np.testing.assert_array_equal(stored[20], frames[20])


def test_raw_encoding_holds_a_full_chunk_once_as_its_payload():
    frames = moving_frames(CHUNK_SIZE)
    stored = grown(frames, encoding="raw")
    assert stored.nbytes == frames.nbytes
    assert stored.chunk(0)[0].payload == frames.tobytes()


def test_a_copy_grows_apart_sharing_the_encoded_chunks():
    frames = moving_frames(CHUNK_SIZE + 2)
    stored = grown(frames[:-1])
    copy = stored.copy()
    copy.append(frames[-1])
    assert (len(stored), len(copy)) == (CHUNK_SIZE + 1, CHUNK_SIZE + 2)
    assert copy.chunk(0) is stored.chunk(0)
    np.testing.assert_array_equal(decode_part(copy.chunk(1)[0]), frames[CHUNK_SIZE:])
    np.testing.assert_array_equal(decode_part(stored.chunk(1)[0]), frames[CHUNK_SIZE:-1])


def test_copies_of_a_part_half_encoded_grow_apart_each_with_its_own_frames():
    frames, other = moving_frames(CHUNK_SIZE), 255 - moving_frames(CHUNK_SIZE)
    stored = grown(frames[:6])
    copy = stored.copy()
    for t in range(6, CHUNK_SIZE):
        stored.append(frames[t])
        copy.append(other[t])
    np.testing.assert_array_equal(decode_part(stored.chunk(0)[0]), frames)
    np.testing.assert_array_equal(decode_part(copy.chunk(0)[0]), [*frames[:6], *other[6:]])


def test_frames_of_the_growing_chunk_read_from_another_thread_while_frames_are_appended():
    frames = moving_frames(30 * CHUNK_SIZE, 24, 32)
    stored = ArrayFrames()
    stored.append(frames[0])
    wrong: list[int] = []

    def read() -> None:
        for back in itertools.cycle(range(5)):  # the newest frame, or one just before it
            if len(stored) == len(frames):
                return
            t = max(0, len(stored) - 1 - back)
            try:
                if not np.array_equal(stored[t], frames[t]):
                    wrong.append(f"{t}: other pixels")
            except Exception as error:  # a stream read half-written
                wrong.append(f"{t}: {error!r}")

    reader = threading.Thread(target=read)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns as often as they can
    try:
        reader.start()
        for frame in frames[1:]:
            stored.append(frame)
        reader.join()
    finally:
        sys.setswitchinterval(switch)
    assert wrong == []


def test_frames_after_others_hand_out_the_others_full_chunks_as_they_are():
    base = ArrayFrames(moving_frames(40))
    frames = ArrayFrames.after(base)
    frames.append(moving_frames(41)[40])
    assert frames.chunk(0) is base.chunk(0)
    assert frames.chunk(1) is base.chunk(1)
    assert [p.start for p in frames.chunk(2)] == [32]
    np.testing.assert_array_equal(np.stack(list(frames)), moving_frames(41))


def test_frames_after_others_keep_the_size_of_their_last_frame():
    frames = ArrayFrames.after(ArrayFrames(moving_frames(16)))
    with pytest.raises(ValueError, match="size changed"):
        frames.append(np.zeros((3, 3, 3), np.uint8))


def test_a_run_count_beyond_one_frames_share_is_refused_before_reading_the_runs():
    """A part's bound covers all its frames; a crafted frame must not spend it alone: 16
    frames of 1 MB allow 30 MB of records, but frame 1 may hold (2B + 8) // 9 runs."""
    height, width = 512, 683
    frame_bytes = height * width * 3
    runs = (4 * frame_bytes) // 9  # twice a frame's share, within the part's bound
    compressor = zlib.compressobj(9)
    pairs = np.ones((runs, 2), "<u4").tobytes()
    payload = compressor.compress(bytes(frame_bytes) + np.uint32(runs).tobytes() + pairs)
    payload += compressor.compress(bytes(runs)) + compressor.flush()
    part = Part(0, 16, height, width, "zlib-runs", payload)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"frame 1 has {runs} runs in {frame_bytes} bytes"):
            decode_frame(part, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * frame_bytes, peak  # reading the runs, headers alone, would be 3.6x more


def test_many_runs_are_applied_in_bounded_batches():
    """A frame of the most runs allowed decodes exactly, in batches."""
    frame_bytes = 12 * 1000 * 3
    runs = (2 * frame_bytes + 8) // 9
    compressor = zlib.compressobj()
    pairs = np.zeros((runs, 2), "<u4")
    pairs[:, 1] = 1
    data = (np.arange(runs) % 251).astype(np.uint8)
    payload = compressor.compress(bytes(frame_bytes) + np.uint32(runs).tobytes())
    payload += compressor.compress(pairs.tobytes() + data.tobytes()) + compressor.flush()
    frame = decode_frame(Part(0, 2, 12, 1000, "zlib-runs", payload), 1).reshape(-1)
    np.testing.assert_array_equal(frame[:runs], data)
    assert not frame[runs:].any()
