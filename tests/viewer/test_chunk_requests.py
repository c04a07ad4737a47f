"""EpisodeViewer's answers to a front end's chunk requests: the exact frames, in the
encoding they are stored in; the frame a paint waits for, sent ahead of a big chunk;
error replies; and the first chunks its state carries, for a view that opens before
it asks.

Messages go in through the widget's comm message handler, as ipywidgets delivers
them; replies are captured from ``send``. Everything else is the real thing.
"""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from agent_widget.episodes import Rollout, load
from agent_widget.format import Frames
from agent_widget.format._codec import CHUNK_SIZE, Part, decode_part
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import chunk_reply
from tests.sample_frames import as_version_1, random_frames
from tests.viewer.front_end import (
    decoded,
    exchange,
    index,
    parts,
    readouts,
    request,
)

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


def test_a_chunk_asked_for_twice_in_a_request_is_sent_once(monkeypatch):
    viewer = EpisodeViewer(random_frames(40))
    [(reply, buffers)] = exchange(
        viewer, {"type": "chunks", "id": 5, "chunks": [1, 0, 1, 1]}, monkeypatch
    )
    assert reply == {"type": "chunks", "id": 5}
    assert index(buffers)["chunks"] == [1, 0]


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


class BrokenFrames(Frames):
    """Frames whose chunks cannot be read, like a damaged file."""

    def __len__(self) -> int:
        return 20

    def _frame(self, t: int) -> np.ndarray:
        raise ValueError(f"frame {t} is damaged")

    def _encode_chunk(self, k: int) -> list[Part]:
        raise ValueError(f"chunk {k} is damaged")


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


# The chunks the state carries


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
