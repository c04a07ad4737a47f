"""EpisodeViewer and its wire protocol, driven the way a front end drives them.

Messages go in through the widget's comm message handler, as ipywidgets delivers
them; replies are captured from ``send``. Everything else is the real thing.
"""

from __future__ import annotations

import itertools
import json
import tracemalloc
import zlib

import numpy as np
import pytest
import traitlets

from agent_widget.episodes import Rollout, load
from agent_widget.format import Frames
from agent_widget.format import _codec as codec_module
from agent_widget.format._codec import CHUNK_SIZE, Part, decode_part
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import (
    PUSH_CHUNKS,
    chunk_reply,
    info_columns,
    pack_series,
    unpack_series,
)
from tests.sample_frames import as_version_1
from tests.waiting import wait_for_trait


def random_frames(n: int, height: int = 6, width: int = 5, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, height, width, 3), np.uint8)


def exchange(viewer: EpisodeViewer, content: object, monkeypatch) -> list[tuple[dict, list]]:
    """Deliver ``content`` as a custom comm message; return what the widget sent back."""
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: sent.append((content, buffers or []))
    )
    viewer._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )
    return sent


def request(viewer: EpisodeViewer, chunks: list, monkeypatch, request_id: int = 7):
    [(reply, buffers)] = exchange(
        viewer, {"type": "chunks", "id": request_id, "chunks": chunks}, monkeypatch
    )
    return reply, buffers


def index(buffers: list) -> dict:
    """A chunk message's last buffer: its part headers, chunks and readout data."""
    return json.loads(zlib.decompress(bytes(buffers[-1])))


def parts(buffers: list) -> list[dict]:
    return index(buffers)["parts"]


def decoded(reply: dict, buffers: list) -> dict[int, np.ndarray]:
    """Position -> frame, from a chunk message's part headers and buffers."""
    assert set(reply) <= {"type", "id", "push"}
    frames = {}
    for header, payload in zip(parts(buffers), buffers[:-1], strict=True):
        part = Part(
            header["start"],
            header["count"],
            header["height"],
            header["width"],
            header["encoding"],
            bytes(payload),
        )
        for i, frame in enumerate(decode_part(part)):
            frames[header["start"] + i] = frame
    return frames


def unpacked(column: list | dict) -> list:
    """An info column's values, as js/frames/info-columns.ts sums up ``{"delta": ...}``."""
    return list(itertools.accumulate(column["delta"])) if isinstance(column, dict) else column


def readouts(buffers: list) -> dict[str, dict]:
    """Position -> {"info"} (and "action" where the kernel sends its text), from a
    chunk message's index, infos rebuilt from their columns as js/frames/info-columns.ts does."""
    table = index(buffers)
    infos = table["infos"]
    columns = {key: iter(unpacked(values)) for key, values in infos["columns"].items()}
    rows = [{key: next(columns[key]) for key in infos["keys"][s]} for s in infos["key_set"]]
    positions = [
        t
        for k, count in zip(table["chunks"], table["counts"], strict=True)
        for t in range(k * CHUNK_SIZE, k * CHUNK_SIZE + count)
    ]
    assert len(positions) == len(rows)
    out = {str(t): {"info": info} for t, info in zip(positions, rows, strict=True)}
    for t, text in zip(positions, table.get("actions", []), strict=False):
        out[str(t)]["action"] = text
    return out


def pushes(viewer: EpisodeViewer, monkeypatch) -> list[tuple[dict, list]]:
    """The messages the widget sends unasked from now on (its growth pushes), as they go."""
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: sent.append((content, buffers or []))
    )
    return sent


def pushed_chunks(buffers: list) -> list[int]:
    return index(buffers)["chunks"]


def series(viewer: EpisodeViewer, name: str) -> np.ndarray:
    return unpack_series(viewer.series[name])


def returns(viewer: EpisodeViewer) -> np.ndarray:
    """The return before each position, as the front end sums it from the rewards."""
    return np.concatenate([[0.0], np.cumsum(series(viewer, "rewards"))])[: viewer.length]


class BrokenFrames(Frames):
    """Frames whose chunks cannot be read, like a damaged file."""

    def __len__(self) -> int:
        return 20

    def _frame(self, t: int) -> np.ndarray:
        raise ValueError(f"frame {t} is damaged")

    def _encode_chunk(self, k: int) -> list[Part]:
        raise ValueError(f"chunk {k} is damaged")


# Frames on the wire


def test_requested_chunks_decode_to_the_exact_frames(monkeypatch):
    frames = random_frames(40)
    reply, buffers = request(EpisodeViewer(frames), [0, 2], monkeypatch)
    got = decoded(reply, buffers)
    assert sorted(got) == [*range(16), *range(32, 40)]
    for t, frame in got.items():
        np.testing.assert_array_equal(frame, frames[t])


def test_reply_names_the_chunk_of_each_part_and_echoes_the_id(monkeypatch):
    reply, buffers = request(EpisodeViewer(random_frames(40)), [2, 1], monkeypatch, 41)
    assert reply["type"] == "chunks"
    assert reply["id"] == 41
    assert [(p["chunk"], p["start"], p["count"]) for p in parts(buffers)] == [
        (2, 32, 8),
        (1, 16, 16),
    ]
    assert all(
        p["encoding"] == "zlib-runs" and (p["height"], p["width"]) == (6, 5) for p in parts(buffers)
    )
    assert len(buffers) == 3  # a payload per part, then the readout data


def test_raw_encoding_sends_the_frames_rgb_bytes(monkeypatch):
    frames = random_frames(20)
    _reply, buffers = request(EpisodeViewer(frames, encoding="raw"), [1], monkeypatch)
    assert parts(buffers)[0]["encoding"] == "raw"
    assert bytes(buffers[0]) == frames[16:20].tobytes()


def test_encoding_override_applies_to_a_rollouts_in_memory_frames(monkeypatch):
    frames = random_frames(3)
    viewer = EpisodeViewer(Rollout.from_arrays(frames=frames), encoding="raw")
    _reply, buffers = request(viewer, [0], monkeypatch)
    assert parts(buffers)[0]["encoding"] == "raw"
    assert bytes(buffers[0]) == frames.tobytes()


def test_stored_frames_travel_as_stored(monkeypatch, tmp_path):
    Rollout.from_arrays(frames=random_frames(40), actions=np.zeros(39, int)).save(
        tmp_path / "a.rollout"
    )
    stored = load(tmp_path / "a.rollout")
    _reply, buffers = request(EpisodeViewer(stored, encoding="raw"), [0, 2], monkeypatch)
    assert [bytes(b) for b in buffers[:-1]] == [
        p.payload for k in (0, 2) for p in stored.frames.chunk(k)
    ]
    assert {p["encoding"] for p in parts(buffers)} == {"zlib-runs"}


def test_a_version_1_files_frames_travel_as_zlib_runs(monkeypatch, tmp_path):
    frames = random_frames(40)
    path = Rollout.from_arrays(frames=frames, actions=np.zeros(39, int)).save(
        tmp_path / "a.rollout"
    )
    reply, buffers = request(EpisodeViewer(load(as_version_1(path))), [0, 2], monkeypatch)
    assert {p["encoding"] for p in parts(buffers)} == {"zlib-runs"}
    got = decoded(reply, buffers)
    assert sorted(got) == [*range(16), *range(32, 40)]
    for t, frame in got.items():
        np.testing.assert_array_equal(frame, frames[t])


def test_grayscale_frames_are_sent_as_rgb(monkeypatch):
    gray = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    got = decoded(*request(EpisodeViewer(gray), [0], monkeypatch))
    np.testing.assert_array_equal(got[1], np.repeat(gray[1][:, :, None], 3, axis=2))


def test_image_observations_are_shown_when_there_are_no_frames(monkeypatch):
    observations = random_frames(5, 8, 8)[..., :1]  # (n, H, W, 1), like a grayscale Atari obs
    viewer = EpisodeViewer(Rollout.from_arrays(observations=observations, actions=[0, 1, 0, 1]))
    got = decoded(*request(viewer, [0], monkeypatch))
    assert viewer.has_frames
    np.testing.assert_array_equal(got[4], np.repeat(observations[4], 3, axis=2))


def test_vector_observations_leave_the_viewer_without_frames(monkeypatch):
    viewer = EpisodeViewer(Rollout.from_arrays(observations=np.zeros((3, 4)), actions=[0, 1]))
    _reply, buffers = request(viewer, [0], monkeypatch)
    assert not viewer.has_frames
    assert (parts(buffers), len(buffers)) == ([], 1)
    assert sorted(readouts(buffers)) == ["0", "1", "2"]


# Step readout data


def test_steps_cover_every_position_of_the_requested_chunks(monkeypatch):
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(20), actions=np.zeros(19, int)))
    _, buffers = request(viewer, [1], monkeypatch)
    assert sorted(readouts(buffers), key=int) == [str(t) for t in range(16, 20)]


def test_scalar_actions_reach_the_readout_as_a_series_with_names_not_as_text(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[2, 0],
        metadata={"action_names": ["NOOP", "FIRE", "RIGHT"]},
    )
    viewer = EpisodeViewer(rollout)
    _, buffers = request(viewer, [0], monkeypatch)
    assert (series(viewer, "actions").tolist(), viewer.action_names) == (
        [2, 0],
        ["NOOP", "FIRE", "RIGHT"],
    )
    assert "actions" not in index(buffers)
    assert [readouts(buffers)[t] for t in "012"] == [{"info": {}}] * 3


def test_action_names_given_to_the_viewer_win_over_the_metadata(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(2), actions=[1], metadata={"action_names": ["a", "b"]}
    )
    viewer = EpisodeViewer(rollout, action_names=["LEFT", "RIGHT"])
    assert viewer.action_names == ["LEFT", "RIGHT"]


def test_vector_actions_read_as_lists(monkeypatch):
    rollout = Rollout.from_arrays(
        frames=random_frames(2), actions=np.array([[0.1, -0.3]], np.float32)
    )
    _, buffers = request(EpisodeViewer(rollout), [0], monkeypatch)
    assert [readouts(buffers)[t]["action"] for t in "01"] == ["[0.1, -0.3]", ""]


def test_part_headers_and_infos_travel_in_one_zlib_compressed_index_per_reply(monkeypatch):
    infos = [{"lives": 3, "episode_frame_number": 4 * t} for t in range(40)]
    infos[33]["seed"] = 7
    rollout = Rollout.from_arrays(frames=random_frames(40), actions=np.zeros(39, int), infos=infos)
    reply, buffers = request(EpisodeViewer(rollout, action_names=["NOOP"]), [0, 2], monkeypatch)
    assert reply == {"type": "chunks", "id": 7}
    table = index(buffers)
    assert (table["chunks"], table["counts"], len(table["parts"])) == ([0, 2], [16, 8], 2)
    assert table["infos"]["keys"] == [
        ["lives", "episode_frame_number"],
        ["lives", "episode_frame_number", "seed"],
    ]
    assert table["infos"]["columns"]["seed"] == [7]
    got = readouts(buffers)
    assert [got[str(t)]["info"] for t in [*range(16), *range(32, 40)]] == infos[:16] + infos[32:]
    as_rows = json.dumps([table["parts"], infos[:16] + infos[32:]])
    assert len(buffers[-1]) < 0.25 * len(as_rows)


def test_with_one_frame_per_action_the_last_position_has_an_action():
    rollout = Rollout.from_arrays(frames=random_frames(3), actions=[5, 6, 7])
    assert series(EpisodeViewer(rollout), "actions").tolist() == [5, 6, 7]


def test_infos_are_sent_as_data_never_as_markup(monkeypatch):
    infos = [{}, {"note": "<script>alert(1)</script>", "lives": 3}]
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(2), actions=[0], infos=infos))
    _, buffers = request(viewer, [0], monkeypatch)
    assert readouts(buffers)["1"]["info"] == {"note": "<script>alert(1)</script>", "lives": 3}


# The frame a paint waits for, sent ahead of a big chunk


def test_a_paints_frame_goes_alone_ahead_of_a_big_chunk_and_decodes_to_the_exact_frame(
    monkeypatch,
):
    frames = random_frames(40, 64, 64)  # noise: ~190 KB a chunk, far past PREVIEW_BYTES
    viewer = EpisodeViewer(frames)
    sent = exchange(viewer, {"type": "chunks", "id": 4, "chunks": [1, 2], "frame": 21}, monkeypatch)
    [(preview, [payload, meta]), (reply, buffers)] = sent
    assert preview == {
        "type": "frame",
        "id": 4,
        "part": {
            "chunk": 1,
            "start": 21,
            "count": 1,
            "height": 64,
            "width": 64,
            "encoding": "zlib-runs",
        },
    }
    assert zlib.decompress(payload) == frames[21].tobytes()
    part = Part(21, 1, 64, 64, "zlib-runs", payload)
    assert np.array_equal(decode_part(part)[0], frames[21])
    assert reply["type"] == "chunks"
    assert index(buffers)["chunks"] == [1, 2]
    # The readout data of the frame's chunk come with it: its index, without parts.
    alone = index(chunk_reply({"chunks": [1], "id": 0}, viewer._episode)[1])
    assert index([meta]) == {**alone, "parts": []}


@pytest.mark.parametrize(
    "content",
    [
        {"type": "chunks", "id": 4, "chunks": [1], "frame": 3},  # not in the first chunk
        {"type": "chunks", "id": 4, "chunks": [2, 1], "frame": 21},
        {"type": "chunks", "id": 4, "chunks": [1], "frame": 21.0},
        {"type": "chunks", "id": 4, "chunks": [1], "frame": True},
        {"type": "chunks", "id": 4, "chunks": [9], "frame": 150},  # past the end: an error reply
        {"type": "chunks", "id": "4", "chunks": [1], "frame": 21},
        {"type": "chunks", "id": 4, "chunks": "1", "frame": 21},
    ],
)
def test_a_request_naming_no_frame_of_its_first_chunk_gets_no_preview(content, monkeypatch):
    sent = exchange(EpisodeViewer(random_frames(40, 64, 64)), content, monkeypatch)
    assert [message["type"] for message, _ in sent] in (["chunks"], ["error"])


def test_only_a_chunk_of_more_than_preview_bytes_is_preceded_by_its_frame(monkeypatch):
    frames = random_frames(40, 32, 32)  # noise: ~49 KB a chunk
    small = EpisodeViewer(np.zeros((40, 32, 32, 3), np.uint8))  # a few hundred bytes a chunk
    content = {"type": "chunks", "id": 1, "chunks": [0], "frame": 5}
    assert [m["type"] for m, _ in exchange(small, content, monkeypatch)] == ["chunks"]
    assert [m["type"] for m, _ in exchange(EpisodeViewer(frames), content, monkeypatch)] == [
        "frame",
        "chunks",
    ]


# Errors


def test_a_chunk_past_the_end_gets_an_error_reply(monkeypatch):
    [(reply, buffers)] = exchange(
        EpisodeViewer(random_frames(20)), {"type": "chunks", "id": 3, "chunks": [2]}, monkeypatch
    )
    assert reply["type"] == "error"
    assert reply["id"] == 3
    assert "chunk 2 is out of range: the episode has 2 chunks (20 positions)" in reply["message"]
    assert buffers == []


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"type": "chunks", "id": 1, "chunks": "0"}, "'chunks' must be a list"),
        ({"type": "chunks", "id": 1, "chunks": [0.5]}, "is not an integer"),
        ({"type": "chunks", "id": 1, "chunks": [-1]}, "out of range"),
        ({"type": "chunks", "id": 1, "chunks": [0] * 100_000}, "at most 256 a request"),
        ({"type": "frames", "id": 1}, "unknown message type 'frames'"),
        ({"type": "chunks", "chunks": [0]}, "no integer 'id'"),
        (["not", "a", "dict"], "no integer 'id'"),
    ],
)
def test_a_malformed_request_gets_an_error_reply(monkeypatch, content, problem):
    [(reply, _)] = exchange(EpisodeViewer(random_frames(3)), content, monkeypatch)
    assert reply["type"] == "error"
    assert problem in reply["message"]


@pytest.mark.parametrize("frame", [{}, {"frame": 17}])  # with a frame asked ahead: none goes
def test_frames_that_fail_to_load_give_an_error_reply_not_an_exception(frame, monkeypatch):
    viewer = EpisodeViewer(
        Rollout(
            frames=BrokenFrames(),
            actions=np.zeros(19),
            rewards=np.zeros(19),
            terminated=np.zeros(19, bool),
            truncated=np.zeros(19, bool),
        )
    )
    content = {"type": "chunks", "id": 9, "chunks": [1], **frame}
    [(reply, _)] = exchange(viewer, content, monkeypatch)
    assert reply == {"type": "error", "id": 9, "message": "ValueError: chunk 1 is damaged"}


# The timeline's series


def test_series_hold_the_rewards_flags_and_scalar_actions():
    rollout = Rollout.from_arrays(
        frames=random_frames(4),
        actions=[1, 0, 1],
        rewards=[1.0, -0.5, 2.0],
        terminated=[False, False, True],
        truncated=[False, True, False],
    )
    viewer = EpisodeViewer(rollout)
    assert sorted(viewer.series) == ["actions", "rewards", "terminated", "truncated"]
    assert series(viewer, "rewards").tolist() == [1.0, -0.5, 2.0]
    assert returns(viewer).tolist() == [0.0, 1.0, 0.5, 2.5]
    assert series(viewer, "terminated").tolist() == [0, 0, 1]
    assert series(viewer, "truncated").tolist() == [0, 1, 0]
    assert series(viewer, "actions").tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("values", "header"),
    [
        ([True, False], b"|u1 "),
        ([-1.0, 0.0, 1.0], b"|i1 "),  # Atari rewards
        ([0, 300], b"<u2 "),
        ([-70_000, 1], b"<i4 "),
        ([0.5, -0.25], b"<f4 "),
        (np.array([0.1], np.float32), b"<f4 "),
        ([0.1], b"<f8 "),  # not exact in float32
        ([1e300], b"<f8 "),
        ([2.0**40 + 1], b"<f8 "),  # integral, beyond int32 and float32
        ([np.nan, 1.5], b"<f4 "),
        ([], b"|u1 "),
    ],
)
def test_a_series_travels_in_the_narrowest_dtype_that_holds_it_exactly(values, header):
    packed = pack_series(values)
    assert packed[:4] == header
    unpacked = unpack_series(packed)
    assert unpacked.dtype.str == header.decode().strip()
    np.testing.assert_array_equal(unpacked.astype(np.float64), np.asarray(values, np.float64))


def pong_like(steps: int) -> Rollout:
    rng = np.random.default_rng(0)
    return Rollout.from_arrays(
        actions=rng.integers(6, size=steps),
        rewards=rng.choice([-1.0, 0.0, 1.0], steps, p=[0.01, 0.98, 0.01]),
        terminated=np.arange(steps) == steps - 1,
        infos=[{}] * (steps + 1),
    )


def test_100000_pong_steps_of_series_take_about_400_kb():
    steps = 100_000
    viewer = EpisodeViewer(pong_like(steps), full_series=True)
    assert sum(map(len, viewer.series.values())) == 4 * (steps + 4)  # was 4 MB as float64
    assert viewer.summary == {}


# A long episode's timeline summary (agent_widget/viewer/_summary.py)


def summary_of(viewer: EpisodeViewer, name: str) -> np.ndarray:
    return unpack_series(zlib.decompress(viewer.summary[name])).astype(np.float64)


def test_past_4096_steps_the_state_carries_a_summary_of_a_size_independent_of_the_length():
    assert EpisodeViewer(pong_like(4096)).series != {}
    sizes = []
    for steps in (4097, 100_000, 421_968):
        viewer = EpisodeViewer(pong_like(steps))
        assert viewer.series == {}
        assert summary_of(viewer, "returns.max").size == 2048
        sizes.append(sum(map(len, viewer.summary.values())))
    assert max(sizes) < 20_000, sizes  # the series of 421,968 steps: 1.7 MB


def test_the_summary_holds_each_columns_min_and_max_and_marks():
    steps = 10_000
    rollout = pong_like(steps)
    rewards = np.asarray(rollout.rewards)
    rewards[123] = np.nan
    rollout.extras["value"] = np.linspace(-1, 1, steps)
    viewer = EpisodeViewer(rollout, extras=["value"])
    n = steps + 1
    starts = np.arange(2048) * n // 2048
    returns = np.concatenate([[0], np.cumsum(np.nan_to_num(rewards, nan=0.0))])
    ends = [*starts[1:], n]
    column = [returns[a:b] for a, b in zip(starts, ends, strict=True)]
    np.testing.assert_array_equal(summary_of(viewer, "returns.min"), [c.min() for c in column])
    np.testing.assert_array_equal(summary_of(viewer, "returns.max"), [c.max() for c in column])
    nan_column = np.searchsorted(starts, 123, side="right") - 1
    assert np.flatnonzero(summary_of(viewer, "nonfinite")).tolist() == [nan_column]
    assert np.flatnonzero(summary_of(viewer, "terminated")).tolist() == [2047]
    assert summary_of(viewer, "extra:value.min")[0] == -1
    assert summary_of(viewer, "extra:value.max")[-1] == np.float32(1)
    # The column holding only the last position (no action) has no reward.
    assert np.isnan(summary_of(viewer, "rewards.min")).sum() == 0


def test_a_long_episodes_chunks_carry_the_readout_values_the_series_would_have():
    rollout = pong_like(5000)
    viewer = EpisodeViewer(rollout)
    values = index(chunk_reply({"id": 1, "chunks": [312]}, viewer._episode)[1])["values"]
    positions = range(312 * 16, 5001)  # 4992 .. 5000: the last chunk
    rewards = np.asarray(rollout.rewards)
    assert values["steps"] == 5000
    assert values["reward"] == [*rewards[positions.start :].tolist(), None]
    assert values["return"] == [float(rewards[:t].sum()) for t in positions]
    assert values["terminated"] == [False] * 7 + [True, True]  # the last position: the last step's
    assert values["action"] == [*np.asarray(rollout.actions)[positions.start :].tolist(), None]
    short = index(chunk_reply({"id": 1, "chunks": [0]}, EpisodeViewer(pong_like(50))._episode)[1])
    assert "values" not in short


def test_readout_values_keep_non_finite_and_fractional_rewards_and_vector_actions_apart():
    rewards = np.zeros(5000)
    rewards[[10, 11, 12, 13]] = [np.nan, np.inf, -np.inf, 0.5]
    rollout = Rollout.from_arrays(rewards=rewards, actions=np.ones((5000, 2)))
    viewer = EpisodeViewer(rollout)
    values = index(chunk_reply({"id": 1, "chunks": [0]}, viewer._episode)[1])["values"]
    assert values["reward"][9:15] == [0.0, "NaN", "Infinity", "-Infinity", 0.5, 0.0]
    assert "action" not in values  # vectors go as texts
    whole = index(chunk_reply({"id": 1, "chunks": [1]}, viewer._episode)[1])["values"]
    assert whole["reward"][:2] == [0, 0]
    assert type(whole["reward"][0]) is int


def test_info_columns_send_counters_as_differences_and_anything_else_as_it_is():
    infos = [{"frame": 4 * t, "flag": t % 2 == 0, "big": 2**60 + t} for t in range(3)]
    infos.append({"frame": 12, "flag": False, "big": 1, "note": "x"})
    columns = info_columns(infos)
    assert columns["keys"] == [["frame", "flag", "big"], ["frame", "flag", "big", "note"]]
    assert columns["key_set"] == [0, 0, 0, 1]
    assert columns["columns"]["frame"] == {"delta": [0, 4, 4, 4]}
    assert columns["columns"]["flag"] == [True, False, True, False]  # booleans are not counters
    assert columns["columns"]["big"] == [2**60, 2**60 + 1, 2**60 + 2, 1]  # past 2**52
    assert columns["columns"]["note"] == ["x"]


def test_a_zoomed_timeline_gets_a_range_in_finer_columns(monkeypatch):
    rollout = pong_like(100_000)
    viewer = EpisodeViewer(rollout)
    request = {"type": "timeline", "id": 9, "start": 40_000, "stop": 40_800, "columns": 400}
    [(reply, buffers)] = exchange(viewer, request, monkeypatch)
    assert (reply["type"], reply["id"], reply["start"], reply["stop"]) == (
        "timeline",
        9,
        40_000,
        40_800,
    )
    got = {
        key: unpack_series(zlib.decompress(bytes(b)))
        for key, b in zip(reply["keys"], buffers, strict=True)
    }
    returns = np.concatenate([[0], np.cumsum(rollout.rewards)])[40_000:40_800].reshape(400, 2)
    np.testing.assert_array_equal(got["returns.min"], returns.min(axis=1))
    np.testing.assert_array_equal(got["returns.max"], returns.max(axis=1))
    rewards = np.asarray(rollout.rewards)[40_000:40_800].reshape(400, 2)
    np.testing.assert_array_equal(got["rewards.max"], rewards.max(axis=1))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"stop": 100_002}, "not within the episode's 100001"),
        ({"start": 500, "stop": 500}, "positions 500 to 500"),
        ({"columns": 0}, "0 columns: take 1 to 8192"),
        ({"columns": 10**9}, "take 1 to 8192"),
        ({"start": "0"}, "needs an integer 'start'"),
        ({"columns": True}, "needs an integer 'columns'"),
    ],
)
def test_a_bad_timeline_request_gets_a_timeline_error(change, problem, monkeypatch):
    viewer = EpisodeViewer(pong_like(100_000))
    request = {"type": "timeline", "id": 3, "start": 0, "stop": 100, "columns": 10, **change}
    [(reply, buffers)] = exchange(viewer, request, monkeypatch)
    assert (reply["type"], reply["id"], buffers) == ("timeline-error", 3, [])
    assert problem in reply["message"]


def test_an_episode_growing_past_4096_steps_turns_to_a_summary():
    viewer = EpisodeViewer(pong_like(4090))
    assert viewer.summary == {}
    viewer.extend(pong_like(20))
    viewer._sync()
    assert viewer.series == {}
    assert summary_of(viewer, "returns.max").size == 2048


def test_vector_actions_have_no_actions_series():
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(2), actions=[[0.1, 0.2]]))
    assert "actions" not in viewer.series


def test_named_scalar_extras_go_on_the_timeline():
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[0, 1],
        extras={"value": [0.5, 0.25], "q": [[1, 2], [3, 4]]},
    )
    viewer = EpisodeViewer(rollout, extras=["value"])
    assert series(viewer, "extra:value").tolist() == [0.5, 0.25]
    assert "extra:q" not in viewer.series


def test_a_vector_extra_is_drawn_as_one_line_per_component():
    means = np.arange(12, dtype=np.float32).reshape(2, 6) / 10  # HalfCheetah's 6 dimensions
    rollout = Rollout.from_arrays(frames=random_frames(3), actions=means, extras={"mean": means})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    for i in range(6):
        np.testing.assert_array_equal(series(viewer, f"extra:mean[{i}]"), means[:, i])
    assert "extra:mean" not in viewer.series


def test_a_long_episodes_vector_extra_is_summarized_per_component():
    steps = 20_000
    means = np.stack([np.linspace(-1, 1, steps), np.linspace(2, 3, steps)], axis=1)
    rollout = Rollout.from_arrays(actions=means, extras={"mean": means})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    assert summary_of(viewer, "extra:mean[0].min")[0] == -1
    assert summary_of(viewer, "extra:mean[1].max")[-1] == 3


def test_a_vector_extra_grows_with_the_episode(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    rollout = Rollout.from_arrays(frames=random_frames(2), actions=[0], extras={"mean": [[1, 2]]})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    viewer.append(frame=random_frames(1)[0], action=1, extras={"mean": [3, 4]})
    assert series(viewer, "extra:mean[1]").tolist() == [2, 4]
    with pytest.raises(ValueError, match=r"mean at step 3: got int64 of shape \(3,\)"):
        viewer.append(frame=random_frames(1)[0], action=1, extras={"mean": [5, 6, 7]})


def test_an_unknown_or_undrawable_extra_is_refused():
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[0, 1],
        extras={"q": [[1, 2], [3, 4]], "wide": np.zeros((2, 9)), "image": np.zeros((2, 3, 3))},
    )
    with pytest.raises(ValueError, match="no extra 'value' \\(it has: image, q, wide\\)"):
        EpisodeViewer(rollout, extras=["value"])
    for name in ("wide", "image"):
        with pytest.raises(ValueError, match=r"\(T, k\) as k lines \(k <= 8\)"):
            EpisodeViewer(rollout, extras=[name])


# Input


def test_a_list_of_frames_is_an_episode():
    viewer = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)] * 3)
    assert (viewer.length, viewer.has_frames, viewer.chunk_size) == (3, True, CHUNK_SIZE)


def test_the_title_defaults_to_the_env_id_algorithm_and_agent():
    rollout = Rollout.from_arrays(frames=random_frames(2), metadata={"env_id": "Pong-v5"})
    assert EpisodeViewer(rollout).title == "Pong-v5"
    assert EpisodeViewer(rollout, title="mine").title == "mine"
    named = {"env_id": "Pong-v5", "algorithm": "dqn", "agent": "mine", "seed": 3}
    rollout = Rollout.from_arrays(frames=random_frames(2), metadata=named)
    assert EpisodeViewer(rollout).title == "Pong-v5 · dqn · mine"


@pytest.mark.parametrize(
    ("episode", "problem"),
    [
        (np.zeros((0, 4, 4, 3), np.uint8), "the episode is empty"),
        ([], "the episode is empty"),
        (np.zeros((5, 4)), "expected an array \\(N, H, W, 3\\)"),
        (np.zeros((3, 4, 4, 2)), "expected an array"),
        (np.zeros((210, 160, 3), np.uint8), "looks like a single frame"),
        ([np.zeros((4, 4, 3)), np.zeros((5, 4, 3))], "frame at step 1: size changed"),
        ([np.zeros((4, 4, 3)), np.full((4, 4, 3), 2.0)], "frame at step 1: float images"),
    ],
)
def test_bad_frames_are_refused_with_a_clear_message(episode, problem):
    with pytest.raises(ValueError, match=problem):
        EpisodeViewer(episode)


def test_an_unknown_encoding_is_refused():
    with pytest.raises(ValueError, match="unknown encoding 'png'"):
        EpisodeViewer(random_frames(2), encoding="png")


def test_something_that_is_not_an_episode_is_refused():
    with pytest.raises(TypeError, match="takes a Rollout, an array of frames or a list"):
        EpisodeViewer("frames.npy")


# Traits


def test_step_is_clamped_to_the_episode():
    viewer = EpisodeViewer(random_frames(10))
    viewer.step = 25
    assert viewer.step == 9
    viewer.step = -3
    assert viewer.step == 0


def test_the_front_end_moving_the_step_reaches_python():
    viewer = EpisodeViewer(random_frames(10))
    seen = []
    viewer.observe(lambda change: seen.append(change["new"]), "step")
    viewer._handle_msg(
        {"content": {"data": {"method": "update", "state": {"step": 6}}}, "buffers": []}
    )
    assert (viewer.step, seen) == (6, [6])


def test_fps_must_be_positive_and_sizes_not_negative():
    with pytest.raises(traitlets.TraitError, match="fps must be a positive number"):
        EpisodeViewer(random_frames(2), fps=0)
    with pytest.raises(traitlets.TraitError, match="height must be >= 0"):
        EpisodeViewer(random_frames(2), height=-1)


def test_every_synced_trait_documents_itself():
    viewer = EpisodeViewer(random_frames(2))
    ours = [
        "step",
        "length",
        "chunk_size",
        "has_frames",
        "series",
        "action_names",
        "fps",
        "loop",
        "height",
        "scale",
        "title",
    ]
    for name in ours:
        trait = viewer.traits()[name]
        assert trait.metadata.get("sync"), name
        assert len(trait.help) > 20, name


# Live growth


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


# Live growth: the kernel pushes the newest chunks (it cannot answer while a cell runs)


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


def test_the_state_carries_the_first_chunks_within_embed_bytes():
    frames = np.random.default_rng(3).integers(0, 255, (100, 8, 8, 3), dtype=np.uint8)
    whole = EpisodeViewer(frames, embed_bytes=2**20).embedded
    assert len(whole) == 7  # every chunk of 100 positions
    for k, buffers in enumerate(whole):
        index = json.loads(zlib.decompress(buffers[-1]))
        assert index["chunks"] == [k]
    sizes = np.cumsum([sum(map(len, buffers)) for buffers in whole])
    cut = EpisodeViewer(frames, embed_bytes=int(sizes[2])).embedded
    assert cut == whole[:3]  # as many chunks as fit, from the first
    assert EpisodeViewer(frames, embed_bytes=0).embedded == []
    first = EpisodeViewer(frames, embed_bytes=1).embedded  # the first chunk up to 256 KiB
    assert first == whole[:1]
    with pytest.raises(ValueError, match="embed_bytes must be >= 0"):
        EpisodeViewer(frames, embed_bytes=-1)


def test_an_embedded_chunk_that_grows_is_embedded_again_whole(monkeypatch):
    """A view opened after the growth takes the embedded chunk for all of it."""
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    frames = random_frames(CHUNK_SIZE + 4)
    viewer = EpisodeViewer(frames[:3])
    for frame in frames[3:]:
        viewer.append(frame=frame)
    first, *others = viewer.embedded
    assert first == EpisodeViewer(frames).embedded[0]  # every position of chunk 0
    assert others == []  # chunk 1 came later: asked for, not embedded


def test_a_chunk_asked_for_twice_in_a_request_is_sent_once(monkeypatch):
    viewer = EpisodeViewer(random_frames(40))
    [(reply, buffers)] = exchange(
        viewer, {"type": "chunks", "id": 5, "chunks": [1, 0, 1, 1]}, monkeypatch
    )
    assert reply == {"type": "chunks", "id": 5}
    assert index(buffers)["chunks"] == [1, 0]


def test_a_front_end_cannot_set_the_traits_the_kernel_owns(caplog):
    viewer = EpisodeViewer(random_frames(40))
    panels = viewer.panels
    viewer.set_state({"length": 10**9, "panels": [{"name": "x"}], "step": 12, "fps": 5.0})
    assert (viewer.length, viewer.panels, viewer.step, viewer.fps) == (40, panels, 12, 5.0)
    assert "tried to set read-only ['length', 'panels']" in caplog.text
    viewer.set_state({"step": 10**8})
    assert viewer.step == 39  # clamped, as ever


def test_a_stored_episode_of_image_observations_opens_without_reading_them_all(tmp_path):
    n = 1000
    observations = np.zeros((n, 120, 120, 3), np.uint8)  # 43 MB: a dot moving on black
    observations[np.arange(n), np.arange(n) % 120, np.arange(n) // 120 % 120] = 255
    rollout = Rollout.from_arrays(observations=observations, actions=np.zeros(n - 1, int))
    path = rollout.save(tmp_path / "observations.rollout")
    tracemalloc.start()
    try:
        viewer = EpisodeViewer(load(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert viewer.has_frames
    assert peak < 8 * 2**20, peak  # taking them into ArrayFrames read all 43 MB at once
    stored = load(path)
    np.testing.assert_array_equal(viewer._episode.frames[777], stored.observations[777])


def test_the_readout_is_an_env_steps_unless_told_to_show_infos_alone():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    assert EpisodeViewer(frames).readout == "step"
    assert EpisodeViewer(frames, readout="info").readout == "info"
    with pytest.raises(traitlets.TraitError, match="readout"):
        EpisodeViewer(frames, readout="infos")


def test_the_timeline_names_only_the_rewards_return_and_steps():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    assert EpisodeViewer(frames).timeline_names == {}
    names = {"reward": "episode returns", "return": "total return"}
    assert EpisodeViewer(frames, timeline_names=names).timeline_names == names
    with pytest.raises(traitlets.TraitError):
        EpisodeViewer(frames, timeline_names={"rewards": "typo"})
    with pytest.raises(traitlets.TraitError):
        EpisodeViewer(frames, timeline_names={"reward": 3})


def test_the_timeline_draws_declared_rates_on_0_to_1_and_smooths_only_when_asked():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    plain = EpisodeViewer(frames)
    assert plain.timeline_rates == []
    assert plain.timeline_smoothing is None
    curves = EpisodeViewer(frames, timeline_rates=["success rate"], timeline_smoothing=0.6)
    assert curves.timeline_rates == ["success rate"]
    assert curves.timeline_smoothing == 0.6
    for weight in (-0.1, 1.0):
        with pytest.raises(traitlets.TraitError):
            EpisodeViewer(frames, timeline_smoothing=weight)
