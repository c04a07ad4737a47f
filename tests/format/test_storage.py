"""The .rollout file format: round trips, laziness, damage, foreign files, atomic saves."""

import io
import json
import os
import pickle
import struct
import subprocess
import sys
import tracemalloc
import zipfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from agent_widget.episodes import Rollout, RolloutFileError, load, save
from agent_widget.format import CHUNK_SIZE, ArrayFrames
from agent_widget.format import _array_frames as frames_module
from agent_widget.format import _codec as codec_module
from agent_widget.format._chunk_index import (
    ENCODING,
    OBSERVATIONS,
    OFFSET,
    RAW,
    ZLIB_RUNS,
    ZLIB_XOR,
)
from agent_widget.format._lazy_columns import StoredArray
from tests.sample_frames import as_version_1, changing_frames, moving_frames

N = 37  # positions: two full chunks and a partial one


def make_rollout(**overrides):
    rng = np.random.default_rng(1)
    fields = {
        "frames": moving_frames(N),
        "observations": {
            "image": rng.integers(0, 256, (N, 16, 16, 4), dtype=np.uint8),
            "position": rng.normal(size=(N, 3)).astype(np.float32),
        },
        "actions": rng.integers(0, 6, N - 1),
        "rewards": rng.normal(size=N - 1),
        "terminated": np.arange(N - 1) == N - 2,
        "truncated": np.zeros(N - 1, bool),
        "infos": [{"t": t, "lives": [3, 2], "note": "é"} for t in range(N)],
        "extras": {"q_values": rng.normal(size=(N - 1, 6)), "value": rng.normal(size=N - 1)},
        "metadata": {"env_id": "Moving-v0", "agent": "random", "seed": 7},
    }
    fields.update(overrides)
    return Rollout.from_arrays(**fields)


@pytest.fixture
def saved(tmp_path):
    rollout = make_rollout()
    path = rollout.save(tmp_path / "episode.rollout")
    return rollout, path


def rewrite(path, **members):
    """Rebuild the zip at ``path`` with some members replaced (bytes) or removed (None)."""
    with zipfile.ZipFile(path) as archive:
        entries = [(i.filename, archive.read(i)) for i in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            key = name.replace(".", "_").replace("/", "_")
            data = members.get(key, data)
            if data is not None:
                archive.writestr(name, data)


def blob_start(path):
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("chunks.bin")
    with open(path, "rb") as file:
        file.seek(info.header_offset)
        header = file.read(30)
    name_length, extra_length = struct.unpack("<2H", header[26:30])
    return info.header_offset + 30 + name_length + extra_length


def index_rows(path, stream):
    with zipfile.ZipFile(path) as archive:
        table = np.load(io.BytesIO(archive.read("chunks.index.npy")))
    return table[table[:, 0] == stream]


def flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def count_inflated_rows(monkeypatch, inflater="inflate_runs"):
    """From now on, how many frames each inflate of a part goes through (its cost)."""
    inflated = []
    inflate = getattr(codec_module, inflater)

    def counting(payload, row_bytes, count, stop, *more):
        inflated.append(stop)
        return inflate(payload, row_bytes, count, stop, *more)

    monkeypatch.setattr(codec_module, inflater, counting)
    return inflated


# ----------------------------------------------------------------- round trips


def test_frames_round_trip(saved):
    rollout, path = saved
    loaded = load(path)
    assert len(loaded.frames) == N
    for t in range(N):
        np.testing.assert_array_equal(loaded.frames[t], rollout.frames[t])
    np.testing.assert_array_equal(loaded.frames[-1], rollout.frames[N - 1])


def test_a_frame_inflates_its_chunk_no_further_than_itself(saved, monkeypatch):
    _, path = saved
    frames = load(path).frames
    inflated = count_inflated_rows(monkeypatch)

    np.testing.assert_array_equal(frames[CHUNK_SIZE + 3], moving_frames(N)[CHUNK_SIZE + 3])

    assert inflated == [4]


def test_reading_frames_in_order_inflates_each_chunk_about_once(saved, monkeypatch):
    _, path = saved
    frames = load(path).frames
    inflated = count_inflated_rows(monkeypatch)

    for t, expected in enumerate(moving_frames(N)):
        np.testing.assert_array_equal(frames[t], expected)

    # One row for a chunk's first frame, then the whole chunk once (not 1 + 2 + ... + 16 rows).
    assert sum(inflated) == N + frames.num_chunks


def test_a_frame_read_is_the_callers_own_copy(saved):
    _, path = saved
    frames = load(path).frames
    frames[0][:] = 0
    frames[1][:] = 0

    np.testing.assert_array_equal(frames[1], moving_frames(N)[1])
    np.testing.assert_array_equal(frames[2], moving_frames(N)[2])


def test_frames_read_from_several_threads_are_exact(saved):
    _, path = saved
    frames = load(path).frames
    orders = [np.random.default_rng(seed).permutation(N) for seed in range(8)]

    def read(order):
        return [(t, frames[t]) for t in order]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = [pair for pairs in pool.map(read, orders) for pair in pairs]

    expected = moving_frames(N)
    for t, frame in results:
        np.testing.assert_array_equal(frame, expected[t])


def test_stored_chunks_are_handed_out_as_saved(saved):
    rollout, path = saved
    loaded = load(path)
    for k in range(rollout.frames.num_chunks):
        assert loaded.frames.chunk(k) == rollout.frames.chunk(k)


def test_per_step_arrays_round_trip_with_their_dtypes(saved):
    rollout, path = saved
    loaded = load(path)
    for name in ("actions", "rewards", "terminated", "truncated"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(rollout, name))
        assert getattr(loaded, name).dtype == getattr(rollout, name).dtype


def test_extras_round_trip(saved):
    rollout, path = saved
    loaded = load(path)
    assert loaded.extras.keys() == rollout.extras.keys()
    for name, value in rollout.extras.items():
        np.testing.assert_array_equal(loaded.extras[name], value)


def test_dict_observations_round_trip(saved):
    rollout, path = saved
    loaded = load(path)
    for key in ("image", "position"):
        np.testing.assert_array_equal(
            np.asarray(loaded.observations[key]), rollout.observations[key]
        )


def test_large_observations_are_read_lazily_by_index_and_slice(saved):
    rollout, path = saved
    image = load(path).observations["image"]
    assert isinstance(image, StoredArray)
    assert image.shape == (N, 16, 16, 4)
    np.testing.assert_array_equal(image[20], rollout.observations["image"][20])
    np.testing.assert_array_equal(image[-1], rollout.observations["image"][-1])
    np.testing.assert_array_equal(image[10:30:3], rollout.observations["image"][10:30:3])


def test_large_observations_are_stored_as_zlib_runs(saved):
    _, path = saved
    assert set(index_rows(path, stream=OBSERVATIONS)[:, ENCODING]) == {ZLIB_RUNS}


def test_an_observation_that_is_the_frame_is_stored_once(tmp_path):
    frames = moving_frames(N, 30, 40)  # 3,600 bytes: a large observation
    path = make_rollout(frames=frames, observations=frames).save(tmp_path / "pong.rollout")
    observation_offsets = index_rows(path, stream=OBSERVATIONS)[:, OFFSET]
    assert observation_offsets.tolist() == index_rows(path, stream=0)[:, OFFSET].tolist()
    np.testing.assert_array_equal(np.asarray(load(path).observations), frames)


def test_observation_rows_of_an_unknown_encoding_are_refused(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        table = np.load(io.BytesIO(archive.read("chunks.index.npy")))
    table[table[:, 0] == OBSERVATIONS, ENCODING] = RAW
    buffer = io.BytesIO()
    np.save(buffer, table)
    rewrite(path, chunks_index_npy=buffer.getvalue())
    with pytest.raises(RolloutFileError, match=r"observations 'image' rows have unknown enc"):
        load(path)


def test_array_observations_of_any_dtype_round_trip(tmp_path):
    observations = np.random.default_rng(2).normal(size=(N, 20, 20)).astype(np.float64)
    rollout = make_rollout(observations=observations)
    loaded = load(rollout.save(tmp_path / "a.rollout"))
    np.testing.assert_array_equal(np.asarray(loaded.observations), observations)


def test_infos_round_trip(saved):
    rollout, path = saved
    assert list(load(path).infos) == list(rollout.infos)


def test_metadata_round_trips(saved):
    rollout, path = saved
    assert load(path).metadata == rollout.metadata


def test_rollout_without_frames_or_observations_round_trips(tmp_path):
    rollout = Rollout.from_arrays(actions=[1, 2, 3], rewards=[0.5, 0.0, 1.0])
    loaded = load(rollout.save(tmp_path / "bare.rollout"))
    assert loaded.frames is None
    assert loaded.observations is None
    assert loaded.returns.tolist() == [0.0, 0.5, 0.5, 1.5]


def test_one_frame_per_action_round_trips(tmp_path):
    rollout = Rollout.from_arrays(frames=moving_frames(5), actions=[0, 1, 2, 3, 4])
    loaded = load(rollout.save(tmp_path / "n_eq_t.rollout"))
    assert (loaded.num_steps, loaded.num_positions) == (5, 5)


def test_empty_episode_round_trips(tmp_path):
    rollout = Rollout.from_arrays(frames=moving_frames(1), actions=np.zeros(0, int))
    loaded = load(rollout.save(tmp_path / "empty.rollout"))
    assert loaded.num_steps == 0
    np.testing.assert_array_equal(loaded.frames[0], moving_frames(1)[0])


def test_resized_frames_round_trip(tmp_path):
    frames = [*moving_frames(5, 4, 4), *moving_frames(30, 6, 8)]
    rollout = Rollout.from_arrays(frames=frames, allow_resize=True)
    loaded = load(rollout.save(tmp_path / "resized.rollout"))
    for t in (0, 4, 5, 34):
        np.testing.assert_array_equal(loaded.frames[t], frames[t])


def test_chunks_of_several_parts_of_one_size_round_trip_as_saved(tmp_path, monkeypatch):
    # A 6x8 frame and two changes of all its bytes a part.
    monkeypatch.setattr(frames_module, "CHANGE_BYTES", 2 * (12 + 144))
    frames = changing_frames(N)
    saved_frames = Rollout.from_arrays(frames=frames).frames
    loaded = load(Rollout.from_arrays(frames=frames).save(tmp_path / "parts.rollout")).frames
    assert [(p.start, p.count) for p in loaded.chunk(1)] == [
        (16, 3),
        (19, 3),
        (22, 3),
        (25, 3),
        (28, 3),
        (31, 1),
    ]
    assert loaded.chunk(1) == saved_frames.chunk(1)
    np.testing.assert_array_equal(np.stack(list(loaded)), frames)
    for t in (0, 20, 21, 31, N - 1):
        np.testing.assert_array_equal(loaded[t], frames[t])


def test_raw_encoded_frames_round_trip(tmp_path):
    rollout = Rollout.from_arrays(frames=ArrayFrames(moving_frames(N), encoding="raw"))
    loaded = load(rollout.save(tmp_path / "raw.rollout"))
    np.testing.assert_array_equal(np.stack(list(loaded.frames)), moving_frames(N))


def test_a_loaded_rollout_saves_again_identically(saved, tmp_path):
    rollout, path = saved
    again = load(load(path).save(tmp_path / "again.rollout"))
    np.testing.assert_array_equal(np.stack(list(again.frames)), moving_frames(N))
    assert list(again.infos) == list(rollout.infos)
    np.testing.assert_array_equal(
        np.asarray(again.observations["image"]), rollout.observations["image"]
    )


def test_a_loaded_rollout_stays_readable_after_its_file_is_overwritten(saved):
    _, path = saved
    loaded = load(path)
    Rollout.from_arrays(frames=np.zeros((3, 2, 2, 3), np.uint8)).save(path)
    np.testing.assert_array_equal(loaded.frames[N - 1], moving_frames(N)[N - 1])


# ----------------------------------------------------------------- the format


def test_file_is_a_zip_of_stored_members_chunks_first_then_meta(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        meta = json.loads(archive.read("meta.json"))
    assert [i.filename for i in infos[:2]] == ["chunks.bin", "meta.json"]
    assert infos[-1].filename == "chunks.index.npy"
    assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
    assert meta["format"] == "agent-widget.rollout"
    assert meta["metadata"]["env_id"] == "Moving-v0"
    assert meta["arrays"]["rewards"] == {"member": "rewards.npy", "dtype": "<f8", "shape": [N - 1]}


def test_per_step_arrays_are_plain_npy_members(saved):
    rollout, path = saved
    with zipfile.ZipFile(path) as archive:
        rewards = np.load(io.BytesIO(archive.read("rewards.npy")), allow_pickle=False)
    np.testing.assert_array_equal(rewards, rollout.rewards)


def test_frame_payloads_sit_in_chunks_bin_at_their_index_offsets(saved):
    rollout, path = saved
    start, data = blob_start(path), path.read_bytes()
    for row in index_rows(path, stream=0):
        chunk, offset, length = row[1], row[7], row[8]
        payload = data[start + offset : start + offset + length]
        assert payload == rollout.frames.chunk(int(chunk))[0].payload


def test_equal_payloads_are_stored_once(tmp_path):
    still = np.repeat(moving_frames(1, 30, 30), 3 * CHUNK_SIZE, axis=0)
    path = Rollout.from_arrays(frames=still).save(tmp_path / "still.rollout")
    rows = index_rows(path, stream=0)
    assert len(set(rows[:, 7])) == 1  # three chunks, one payload
    np.testing.assert_array_equal(np.stack(list(load(path).frames)), still)


def test_saving_twice_gives_identical_bytes(saved, tmp_path):
    rollout, path = saved
    assert rollout.save(tmp_path / "copy.rollout").read_bytes() == path.read_bytes()


def test_rollout_save_and_storage_save_agree(saved, tmp_path):
    rollout, path = saved
    assert save(rollout, tmp_path / "other.rollout").read_bytes() == path.read_bytes()


# ----------------------------------------------------------------- versions


def test_files_are_written_as_version_2_with_zlib_runs_frame_parts(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    assert meta["version"] == 2
    assert meta["chunks"]["encodings"] == ["raw", "zlib-xor", "zlib-json", "zlib-runs"]
    assert set(index_rows(path, stream=0)[:, ENCODING]) == {ZLIB_RUNS}


@pytest.fixture
def version_1(saved):
    rollout, path = saved
    return rollout, as_version_1(path)


def test_a_version_1_file_loads_with_its_frames_exact(version_1):
    rollout, path = version_1
    loaded = load(path)
    np.testing.assert_array_equal(np.stack(list(loaded.frames)), moving_frames(N))
    for t in (0, 17, N - 1):
        np.testing.assert_array_equal(loaded.frames[t], moving_frames(N)[t])
    assert list(loaded.infos) == list(rollout.infos)


def test_a_version_1_files_zlib_xor_observations_read_exact(version_1):
    rollout, path = version_1
    assert set(index_rows(path, stream=OBSERVATIONS)[:, ENCODING]) == {ZLIB_XOR}
    image = load(path).observations["image"]
    np.testing.assert_array_equal(np.asarray(image), rollout.observations["image"])
    np.testing.assert_array_equal(image[20], rollout.observations["image"][20])


def test_a_version_1_file_reads_a_frame_inflating_its_zlib_xor_part_no_further(
    version_1, monkeypatch
):
    _, path = version_1
    frames = load(path).frames
    inflated = count_inflated_rows(monkeypatch, "inflate_deltas")
    np.testing.assert_array_equal(frames[CHUNK_SIZE + 3], moving_frames(N)[CHUNK_SIZE + 3])
    assert inflated == [4]


def test_iterating_a_version_1_file_decodes_its_parts_as_stored(version_1, monkeypatch):
    _, path = version_1
    frames = load(path).frames
    runs = count_inflated_rows(monkeypatch)
    xor = count_inflated_rows(monkeypatch, "inflate_deltas")
    np.testing.assert_array_equal(np.stack(list(frames)), moving_frames(N))
    assert (xor, runs) == ([16, 16, 5], [])


def test_a_version_1_files_chunks_are_handed_out_as_zlib_runs(version_1):
    rollout, path = version_1
    loaded = load(path)
    for k in range(loaded.frames.num_chunks):
        parts = loaded.frames.chunk(k)
        assert {p.encoding for p in parts} == {"zlib-runs"}
        assert parts == rollout.frames.chunk(k)  # as if encoded from the frames today


def test_a_version_1_chunk_of_several_parts_is_handed_out_cut_as_chunks_are_now(
    tmp_path, monkeypatch
):
    with monkeypatch.context() as patch:
        patch.setattr(frames_module, "CHANGE_BYTES", 0)  # a part a frame
        path = Rollout.from_arrays(frames=moving_frames(N)).save(tmp_path / "v1.rollout")
    assert len(index_rows(as_version_1(path), stream=0)) == N
    parts = load(path).frames.chunk(1)
    assert [(p.start, p.count) for p in parts] == [(CHUNK_SIZE, CHUNK_SIZE)]
    assert parts == ArrayFrames(moving_frames(N)).chunk(1)


def test_handing_out_a_version_1_chunk_decodes_that_chunk_once(version_1, monkeypatch):
    _, path = version_1
    frames = load(path).frames
    inflated = count_inflated_rows(monkeypatch, "inflate_deltas")
    first = frames.chunk(1)
    assert frames.chunk(1) is first
    assert inflated == [CHUNK_SIZE]


def test_a_version_1_file_saved_again_is_the_version_2_file(saved, tmp_path):
    _, path = saved
    version_2 = path.read_bytes()
    again = load(as_version_1(path)).save(tmp_path / "again.rollout")
    assert again.read_bytes() == version_2


# ----------------------------------------------------------------- damaged and foreign files


def test_a_png_renamed_rollout_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "picture.rollout"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    with pytest.raises(RolloutFileError, match=r"picture\.rollout: not a \.rollout file"):
        load(path)


def test_an_empty_file_is_refused(tmp_path):
    path = tmp_path / "empty.rollout"
    path.write_bytes(b"")
    with pytest.raises(RolloutFileError, match=r"empty.rollout: not a .rollout file"):
        load(path)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(RolloutFileError, match=r"nowhere.rollout: cannot open"):
        load(tmp_path / "nowhere.rollout")


def test_a_zip_without_meta_json_is_refused(tmp_path):
    path = tmp_path / "other.rollout"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(RolloutFileError, match=r"zip archive without meta.json"):
        load(path)


def test_meta_json_of_another_format_is_refused(saved):
    _, path = saved
    rewrite(path, meta_json=json.dumps({"format": "something-else"}).encode())
    with pytest.raises(RolloutFileError, match=r"does not describe an agent-widget.rollout"):
        load(path)


def test_a_newer_format_version_asks_for_an_upgrade(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    rewrite(path, meta_json=json.dumps({**meta, "version": 99}).encode())
    with pytest.raises(RolloutFileError, match=r"version 99 is newer.*upgrade"):
        load(path)


def test_meta_json_that_is_not_json_is_refused(saved):
    _, path = saved
    rewrite(path, meta_json=b"{not json")
    with pytest.raises(RolloutFileError, match=r"meta.json is not valid JSON"):
        load(path)


def test_a_missing_member_is_named(saved):
    _, path = saved
    rewrite(path, rewards_npy=None)
    with pytest.raises(RolloutFileError, match=r"member rewards.npy is missing"):
        load(path)


def test_a_corrupted_array_fails_its_crc(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("rewards.npy")
    flip_byte(path, info.header_offset + 30 + len("rewards.npy") + info.file_size - 1)
    with pytest.raises(RolloutFileError, match=r"episode\.rollout: rewards\.npy is corrupted"):
        load(path)


def test_an_array_whose_shape_disagrees_with_meta_is_refused(saved):
    _, path = saved
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    rewrite(path, rewards_npy=buffer.getvalue())
    with pytest.raises(RolloutFileError, match=r"rewards.npy has shape \(3,\), expected 36"):
        load(path)


def test_a_corrupted_frame_chunk_raises_only_when_that_chunk_is_read(saved):
    _, path = saved
    row = index_rows(path, stream=0)[1]
    flip_byte(path, blob_start(path) + int(row[7]) + 10)
    loaded = load(path)
    np.testing.assert_array_equal(loaded.frames[0], moving_frames(N)[0])
    np.testing.assert_array_equal(loaded.frames[CHUNK_SIZE * 2], moving_frames(N)[32])
    with pytest.raises(RolloutFileError, match=r"episode\.rollout: frame chunk 1 is corrupted"):
        loaded.frames[CHUNK_SIZE + 3]
    with pytest.raises(RolloutFileError, match=r"frame chunk 1 is corrupted"):
        loaded.frames.chunk(1)


def test_a_corrupted_infos_chunk_raises_only_for_its_positions(saved):
    _, path = saved
    row = index_rows(path, stream=1)[0]
    flip_byte(path, blob_start(path) + int(row[7]) + 3)
    loaded = load(path)
    assert loaded.infos[20]["t"] == 20
    with pytest.raises(RolloutFileError, match=r"infos of chunk 0 is corrupted"):
        loaded.infos[2]


def test_a_truncated_file_keeps_the_chunks_before_the_cut(saved):
    _, path = saved
    frame_rows = index_rows(path, stream=0)
    cut = blob_start(path) + int(frame_rows[2][7]) + 5  # inside chunk 2's frames
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.warns(UserWarning, match=r"read the 32 positions of the chunks it finished"):
        loaded = load(path)
    assert (loaded.num_positions, loaded.num_steps) == (32, 31)
    np.testing.assert_array_equal(loaded.frames[31], moving_frames(N)[31])
    assert loaded.infos[31]["t"] == 31
    assert loaded.truncated.nonzero()[0].tolist() == [30]  # the last step, alone
    assert "stopped after position 31" in loaded.metadata["recovered"]


def test_a_file_cut_inside_its_arrays_names_what_is_lost(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        cut = archive.getinfo("truncated.npy").header_offset + 40
    path.write_bytes(path.read_bytes()[:cut])
    with (
        pytest.warns(UserWarning, match="zip directory"),
        pytest.raises(RolloutFileError, match=r"truncated\.npy"),
    ):
        load(path)


def test_an_index_pointing_outside_the_blob_is_refused(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        table = np.load(io.BytesIO(archive.read("chunks.index.npy")))
    table[0, 7] = 10**12
    buffer = io.BytesIO()
    np.save(buffer, table)
    rewrite(path, chunks_index_npy=buffer.getvalue())
    with pytest.raises(
        RolloutFileError, match=r"chunks.index.npy: the frames rows are inconsistent"
    ):
        load(path)


def test_implausible_frame_sizes_are_refused_before_allocating(saved):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        table = np.load(io.BytesIO(archive.read("chunks.index.npy")))
    table[table[:, 0] == 0, 4:6] = 50_000  # 7.5 GB per frame
    buffer = io.BytesIO()
    np.save(buffer, table)
    rewrite(path, chunks_index_npy=buffer.getvalue())
    with pytest.raises(RolloutFileError, match=r"frame sizes or encodings are invalid"):
        load(path)


# ----------------------------------------------------------------- loading never runs code


class _CreatesFileWhenUnpickled:
    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_pickled_object_array_is_refused_and_never_unpickled(saved, tmp_path):
    _, path = saved
    marker = tmp_path / "pwned"
    evil = np.empty(N - 1, dtype=object)
    evil[:] = [_CreatesFileWhenUnpickled(marker)] * (N - 1)
    buffer = io.BytesIO()
    np.save(buffer, evil, allow_pickle=True)
    rewrite(path, actions_npy=buffer.getvalue())
    with pytest.raises(RolloutFileError, match=r"actions.npy holds dtype object.*no pickles"):
        load(path)
    assert not marker.exists()


def test_a_raw_pickle_in_place_of_an_array_is_refused(saved, tmp_path):
    _, path = saved
    marker = tmp_path / "pwned"
    rewrite(path, rewards_npy=pickle.dumps(_CreatesFileWhenUnpickled(marker)))
    with pytest.raises(RolloutFileError, match=r"rewards.npy is not a valid .npy array"):
        load(path)
    assert not marker.exists()


# ----------------------------------------------------------------- atomic saves


class _FailingFrames(ArrayFrames):
    def _encode_chunk(self, k):
        if k == 1:
            raise KeyboardInterrupt
        return super()._encode_chunk(k)


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_an_interrupted_save_leaves_the_old_file_in_place(saved):
    _, path = saved
    before = path.read_bytes()
    broken = Rollout.from_arrays(frames=_FailingFrames(moving_frames(N)))
    with pytest.raises(KeyboardInterrupt):
        broken.save(path)
    assert path.read_bytes() == before
    assert leftovers(path.parent) == []


def test_a_failure_while_writing_leaves_the_old_file_in_place(saved, monkeypatch):
    _, path = saved
    before = path.read_bytes()

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match=r"No space left"):
        make_rollout(metadata={"env_id": "Other-v0"}).save(path)
    assert path.read_bytes() == before
    assert leftovers(path.parent) == []


def test_what_a_killed_save_left_is_removed_by_the_next_save_in_its_folder(saved):
    """kill -9 in the middle of a save leaves its temporary file (nothing can remove it
    then); the next save into that folder, of any file, removes it."""
    _, path = saved
    script = f"""import signal
from agent_widget.episodes import Rollout
from agent_widget.format import _writer
def stuck(self, members):  # the chunks written, then killed
    self._file.flush()
    print("writing", flush=True)
    signal.pause()  # until the kill
_writer.RolloutWriter.finish = stuck
Rollout.from_arrays(actions=[0, 1, 2]).save({str(path)!r})"""
    writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "writing\n"
    finally:
        writer.kill()
        writer.wait()
    [left] = leftovers(path.parent)
    assert left.startswith(f".{path.name}.")
    Rollout.from_arrays(actions=[1]).save(path.parent / "another.rollout")
    assert leftovers(path.parent) == []
    assert load(path).num_positions == N  # the file the killed save was replacing


def test_saving_over_an_existing_file_replaces_it(saved):
    _, path = saved
    Rollout.from_arrays(actions=[1, 2]).save(path)
    assert load(path).actions.tolist() == [1, 2]
    assert leftovers(path.parent) == []


def test_non_json_metadata_set_directly_fails_the_save_not_the_load(tmp_path):
    rollout = Rollout(
        actions=np.zeros(1),
        rewards=np.zeros(1),
        terminated=np.zeros(1, bool),
        truncated=np.zeros(1, bool),
        metadata={"bad": object()},
    )
    with pytest.raises(ValueError, match=r"cannot save metadata: not JSON-able"):
        rollout.save(tmp_path / "x.rollout")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------- a real Atari episode


def test_pong_frames_round_trip_in_under_300_bytes_each(tmp_path):
    gym = pytest.importorskip("gymnasium")
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.action_space.seed(0)
    observation, _ = env.reset(seed=0)
    frames, observations, actions = [env.render()], [observation], []
    for _ in range(150):
        action = env.action_space.sample()
        observation, *_ = env.step(action)
        frames.append(env.render())
        observations.append(observation)
        actions.append(action)
    env.close()
    rollout = Rollout.from_arrays(
        frames=frames, observations=np.stack(observations), actions=actions
    )
    path = rollout.save(tmp_path / "pong.rollout")
    assert path.stat().st_size / len(frames) < 300
    loaded = load(path)
    for t in (0, 17, 150):
        np.testing.assert_array_equal(loaded.frames[t], frames[t])
        np.testing.assert_array_equal(loaded.observations[t], observations[t])


def test_a_folder_or_a_fifo_is_refused_without_reading_it(tmp_path):
    (tmp_path / "folder.rollout").mkdir()
    with pytest.raises(RolloutFileError, match=r"folder.rollout: a folder, not a .rollout file"):
        load(tmp_path / "folder.rollout")
    os.mkfifo(tmp_path / "pipe.rollout")  # opening it to read would wait for a writer
    with pytest.raises(RolloutFileError, match=r"pipe.rollout: not a regular file"):
        load(tmp_path / "pipe.rollout")


@pytest.mark.parametrize("version", ["2", -5, 0, True, None, 2.0])
def test_a_version_that_is_not_a_positive_integer_is_refused(saved, version):
    _, path = saved
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    rewrite(path, meta_json=json.dumps({**meta, "version": version}).encode())
    with pytest.raises(RolloutFileError, match=r"meta.json has no format version \(1 to 4\)"):
        load(path)


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"format": "agent-widget.rollout", "x": ' + "9" * 5000 + "}"],
)
def test_meta_json_nested_too_deep_or_with_a_huge_number_is_a_clear_error(saved, text):
    _, path = saved
    rewrite(path, meta_json=text.encode())
    with pytest.raises(RolloutFileError, match=r"episode.rollout: meta.json is not valid JSON"):
        load(path)


def test_a_name_as_long_as_a_file_system_takes_saves_and_a_longer_one_is_refused(tmp_path):
    rollout = make_rollout()
    name = "e" * (255 - len(".rollout")) + ".rollout"
    assert load(rollout.save(tmp_path / name)).num_steps == rollout.num_steps
    with pytest.raises(ValueError, match=r"is 300 bytes in UTF-8; file systems take at most 255"):
        rollout.save(tmp_path / ("e" * 292 + ".rollout"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_small_file_of_huge_frames_is_read_in_bounded_memory(tmp_path):
    """16 black 2896x2896 frames (24 MB each) store in a few KB; reading the last one, or
    them all in order, must hold a few frames at a time, not the 400 MB part."""
    frame_bytes = 2896 * 2896 * 3
    black = np.broadcast_to(np.zeros((1, 2896, 2896, 3), np.uint8), (16, 2896, 2896, 3))
    path = Rollout.from_arrays(frames=black).save(tmp_path / "huge.rollout")
    assert path.stat().st_size < 200_000
    stored = load(path)
    tracemalloc.start()
    try:
        assert not stored.frames[15].any()
        reading_one = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        assert sum(1 for frame in stored.frames) == 16
        reading_all = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert reading_one < 6 * frame_bytes, reading_one
    assert reading_all < 6 * frame_bytes, reading_all


def test_infos_over_their_bound_are_refused_when_saved_and_when_read(tmp_path, monkeypatch):
    big = "0" * (2 * 2**20)  # 2 MiB of JSON a position: over the 1 MiB bound
    rollout = Rollout.from_arrays(observations=np.zeros((4, 1)), infos=[{"log": big}] * 4)
    with pytest.raises(ValueError, match=r"the info of position 0: 2,097,162 bytes of JSON"):
        rollout.save(tmp_path / "refused.rollout")
    assert list(tmp_path.iterdir()) == []
    # As a hostile writer would: the file is written past the bound, then read back.
    monkeypatch.setattr("agent_widget.format._payloads.MAX_INFO_BYTES", 2**30)
    path = rollout.save(tmp_path / "bomb.rollout")
    assert path.stat().st_size < 100_000
    loaded = load(path)
    tracemalloc.start()
    try:
        with pytest.raises(RolloutFileError, match=r"infos of chunk 0 are malformed"):
            loaded.infos[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak  # inflated to the bound (4 MiB), never to 8


def test_the_info_size_cap_holds_one_byte_past_it_and_not_at_it(tmp_path):
    from agent_widget.format._lazy_columns import MAX_INFO_BYTES

    def with_info_of(size: int) -> Rollout:  # the chunk's infos as JSON: size bytes
        return Rollout.from_arrays(actions=np.zeros((0,), int), infos=[{"x": "a" * (size - 10)}])

    assert len(load(with_info_of(MAX_INFO_BYTES).save(tmp_path / "at.rollout")).infos[0]["x"]) > 0
    with pytest.raises(ValueError, match=r"1,048,577 bytes of JSON, over 1,048,576 a position"):
        with_info_of(MAX_INFO_BYTES + 1).save(tmp_path / "past.rollout")
    assert not (tmp_path / "past.rollout").exists()


def test_one_position_cannot_take_the_info_room_of_its_whole_chunk(tmp_path):
    from agent_widget.format._lazy_columns import MAX_INFO_BYTES

    infos = [{} for _ in range(16)]
    infos[3] = {"x": "a" * (15 * MAX_INFO_BYTES)}  # 15 MiB: under the chunk's 16 in all
    rollout = Rollout.from_arrays(actions=np.zeros(15, int), infos=infos)
    with pytest.raises(ValueError, match=r"the info of position 3: 15,728,648 bytes of JSON"):
        rollout.save(tmp_path / "big.rollout")
    assert not (tmp_path / "big.rollout").exists()
