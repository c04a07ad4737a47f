"""A fuzz campaign over what comes from outside: ``.rollout`` files with bits flipped or
cut short, and front-end messages of any shape. Every outcome must be data or a clear
error (``RolloutFileError``; an error reply), within a memory bound.

Hypothesis runs derandomized: CI tries the same cases every time, and a failure
prints the case to keep as a regression test.
"""

from __future__ import annotations

import tracemalloc
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_widget import EpisodeViewer, Rollout, RolloutFileError, load
from agent_widget.episodes._codec import Part, decode_frame, decode_part

FUZZ = settings(
    derandomize=True,
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# A file this small may not make a reader hold more than this (the bound for any file of
# at most 1 MB is 512 MB).
MEMORY_BOUND = 64 * 2**20


def sample_rollout() -> Rollout:
    n = 40
    t = np.arange(n)
    frames = np.zeros((n, 12, 16, 3), np.uint8)
    frames[t, t % 12, t % 16] = 255
    return Rollout.from_arrays(
        frames=frames,
        observations=frames[:, ::2, ::2].copy(),  # large enough to be stored in chunks
        actions=t[:-1] % 3,
        rewards=np.linspace(-1, 1, n - 1),
        infos=[{"t": int(i), "lives": 3 - int(i) // 20, "note": "x" * (i % 5)} for i in t],
        extras={"q": np.linspace(0, 1, n - 1)},
        metadata={"env_id": "Fuzz-v0", "seed": 7},
    )


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return sample_rollout().save(tmp_path_factory.mktemp("fuzz") / "sample.rollout").read_bytes()


def read_everything(path: Path) -> None:
    """Open the file and read every part of it, as a viewer and a user might."""
    rollout = load(path)
    if rollout.frames is not None:
        for k in range(rollout.frames.num_chunks):
            rollout.frames.chunk(k)
        for _ in rollout.frames:
            pass
    list(rollout.infos or [])
    if rollout.observations is not None:
        np.asarray(rollout.observations)
    for values in (rollout.actions, rollout.rewards, rollout.extras.get("q")):
        np.asarray(values)
    EpisodeViewer(rollout).to_html(progress=False)


def outcome(path: Path) -> str:
    """ "data" or "error" (a RolloutFileError), within the memory bound; anything else fails."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a recovered file warns; that is fine
            read_everything(path)
        result = "data"
    except RolloutFileError:
        result = "error"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"reading held {peak / 2**20:.0f} MB"
    return result


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 7)), min_size=1, max_size=6))
def test_a_file_with_flipped_bits_gives_its_data_or_a_clear_error(original, tmp_path, flips):
    data = bytearray(original)
    for at, bit in flips:
        data[at % len(data)] ^= 1 << bit
    path = tmp_path / "flipped.rollout"
    path.write_bytes(bytes(data))
    assert outcome(path) in ("data", "error")


@FUZZ
@given(cut=st.integers(0, 2**31))
def test_a_file_cut_short_gives_what_survived_or_a_clear_error(original, tmp_path, cut):
    path = tmp_path / "cut.rollout"
    path.write_bytes(original[: cut % len(original)])
    assert outcome(path) in ("data", "error")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
MESSAGES = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["chunks", "panel", "other"])},
        optional={
            "id": st.integers(-(2**70), 2**70) | JSON,
            "chunks": st.lists(st.integers(-5, 2**40), max_size=300) | JSON,
            "step": st.integers(-(2**70), 2**70) | JSON,
            "names": st.lists(st.sampled_from(["notes", "gone", ""]), max_size=3) | JSON,
        },
    ),
)
REPLY_TYPES = {"chunks", "error", "panel", "panel-error", "panel-queued"}


@pytest.fixture(scope="module")
def viewer() -> Any:
    viewer = EpisodeViewer(sample_rollout())
    viewer.add_panel("notes", lambda step: f"t = {step.t}")
    yield viewer
    viewer.close()


@FUZZ
@given(content=MESSAGES)
def test_any_front_end_message_is_answered_or_refused_never_raised(viewer, content):
    sent: list[dict] = []
    viewer.send = lambda content, buffers=None: sent.append(content)  # no comm here
    viewer._on_message(viewer, content, [])
    for reply in sent:
        assert reply["type"] in REPLY_TYPES, reply
    if isinstance(content, dict) and content.get("type") == "chunks":
        assert len(sent) == 1
        assert sent[0]["type"] in ("chunks", "error")


@pytest.fixture(scope="module")
def stream() -> bytes:
    """A valid zlib-runs stream, inflated: 16 frames of 12x16 where a dot moves."""
    frames = sample_rollout().frames
    (part,) = frames.chunk(0)
    return zlib.decompress(part.payload)


@FUZZ
@given(
    edits=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 255)), max_size=6),
    cut=st.integers(0, 2**31),
    header=st.tuples(st.integers(-2, 20), st.integers(-2, 5000), st.integers(-2, 5000)),
)
def test_a_zlib_runs_stream_of_any_content_decodes_or_is_refused(stream, edits, cut, header):
    """Behind the file's CRCs: any bytes in the stream, any header, decode to frames of the
    declared shape or raise ValueError, within the memory bound."""
    data = bytearray(stream[: len(stream) - cut % 64])
    for at, value in edits:
        if data:
            data[at % len(data)] = value
    count, height, width = header
    part = Part(0, count, height, width, "zlib-runs", zlib.compress(bytes(data)))
    tracemalloc.start()
    try:
        frames = decode_part(part)
        assert frames.shape == (count, height, width, 3)
        np.testing.assert_array_equal(decode_frame(part, count - 1), frames[-1])
    except ValueError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"decoding held {peak / 2**20:.0f} MB"
