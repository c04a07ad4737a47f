"""Frame validation/normalization and the chunk codec (agent_widget.frames)."""

import zlib

import numpy as np
import pytest
from sample_frames import moving_frames

from agent_widget import codec as codec_module
from agent_widget.codec import (
    CHUNK_SIZE,
    Part,
    decode_frame,
    decode_part,
    encode_part,
    frames_per_part,
)
from agent_widget.frames import ArrayFrames, normalize_frame

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


def test_zlib_xor_payload_is_deflate_of_xor_deltas():
    frames = moving_frames(5)
    part = encode_part(frames, start=32)
    deltas = [frames[0]] + [frames[i] ^ frames[i - 1] for i in range(1, 5)]
    assert zlib.decompress(part.payload) == b"".join(d.tobytes() for d in deltas)
    assert part[:5] == (32, 5, 6, 8, "zlib-xor")


def test_raw_payload_is_the_concatenated_rgb_bytes():
    frames = moving_frames(3)
    assert encode_part(frames, 0, "raw").payload == frames.tobytes()


@pytest.mark.parametrize("encoding", ["zlib-xor", "raw"])
def test_decode_part_round_trips(encoding):
    frames = moving_frames(CHUNK_SIZE)
    np.testing.assert_array_equal(decode_part(encode_part(frames, 0, encoding)), frames)


@pytest.mark.parametrize("encoding", ["zlib-xor", "raw"])
def test_decode_part_can_stop_early(encoding):
    frames = moving_frames(10)
    np.testing.assert_array_equal(decode_part(encode_part(frames, 0, encoding), 4), frames[:4])


@pytest.mark.parametrize("encoding", ["zlib-xor", "raw"])
def test_decode_frame_returns_each_frame(encoding):
    frames = moving_frames(10)
    part = encode_part(frames, 0, encoding)
    for i in range(10):
        np.testing.assert_array_equal(decode_frame(part, i), frames[i])


def test_odd_row_sizes_round_trip():
    frames = moving_frames(4, height=3, width=5)  # 45 bytes per frame, not a multiple of 8
    np.testing.assert_array_equal(decode_part(encode_part(frames, 0)), frames)


def test_unknown_encoding_is_rejected():
    with pytest.raises(ValueError, match=r"unknown frame encoding 'png'"):
        encode_part(moving_frames(1), 0, "png")


def test_truncated_zlib_payload_is_rejected():
    part = encode_part(moving_frames(4), 0)
    with pytest.raises(ValueError, match=r"corrupt zlib-xor payload"):
        decode_part(part._replace(payload=part.payload[:-6]))


def test_payload_longer_than_its_header_is_rejected():
    part = encode_part(moving_frames(4), 0)
    with pytest.raises(ValueError, match=r"longer than 3 rows"):
        decode_part(part._replace(count=3))


def test_garbage_payload_is_rejected():
    part = Part(0, 1, 2, 2, "zlib-xor", b"not zlib at all")
    with pytest.raises(ValueError, match=r"corrupt zlib-xor payload"):
        decode_part(part)


def test_raw_payload_of_wrong_length_is_rejected():
    with pytest.raises(ValueError, match=r"raw part holds 5 bytes, expected 12"):
        decode_part(Part(0, 1, 2, 2, "raw", b"12345"))


def test_implausible_part_header_is_rejected_before_allocating():
    with pytest.raises(ValueError, match=r"too large"):
        decode_part(Part(0, 1, 100_000, 100_000, "raw", b""))


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


def test_a_part_holds_at_most_part_bytes_of_frames_and_one_frame_at_least():
    assert frames_per_part(210, 160) == CHUNK_SIZE  # Pong: one part per chunk
    assert frames_per_part(480, 480) == 3  # 3 x 691,200 B <= 2 MiB
    assert frames_per_part(1000, 1000) == 1


def test_a_chunk_of_large_frames_is_split_into_parts_of_the_same_size(monkeypatch):
    monkeypatch.setattr(codec_module, "PART_BYTES", 5 * 6 * 8 * 3)  # 5 frames of 6x8
    frames = moving_frames(20)
    parts = ArrayFrames(frames).chunk(0)
    assert [(p.start, p.count) for p in parts] == [(0, 5), (5, 5), (10, 5), (15, 1)]
    for p in parts:
        np.testing.assert_array_equal(decode_part(p), frames[p.start : p.start + p.count])


def test_a_growing_chunk_of_large_frames_is_handed_out_in_parts(monkeypatch):
    monkeypatch.setattr(codec_module, "PART_BYTES", 5 * 6 * 8 * 3)
    frames = moving_frames(12)
    stored = ArrayFrames()
    for frame in frames:
        stored.append(frame)
        stored.chunk(0)
    parts = stored.chunk(0)
    assert [(p.start, p.count) for p in parts] == [(0, 5), (5, 5), (10, 2)]
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
    # Full chunks are held as their payloads only; the unfinished one as its frames.
    assert stored.nbytes == held_payloads(stored, range(40)) + 3 * frames[0].nbytes
    assert stored.nbytes < frames.nbytes / 10


def test_appended_frames_read_back_exactly_once_encoded():
    frames = moving_frames(3 * CHUNK_SIZE + 5, 8, 8)
    stored = grown(frames)
    for t in (40, 3, 17, 16, 0, 52, -1):
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


@pytest.mark.parametrize("encoding", ["zlib-xor", "raw"])
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
    assert sum(fed) == frames.nbytes


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


def test_frames_given_at_construction_are_encoded_when_their_chunk_is_asked_for():
    frames = moving_frames(3 * CHUNK_SIZE, 8, 8)
    stored = ArrayFrames(frames)
    assert stored.nbytes == frames.nbytes
    stored.chunk(1)
    assert stored.nbytes == held_payloads(stored, [1]) + 2 * CHUNK_SIZE * frames[0].nbytes
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
