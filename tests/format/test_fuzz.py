"""A fuzz campaign over what comes from outside: ``.rollout`` files with bits flipped or
cut short, files whose meta.json, chunk index, arrays or journal records say anything
(rewritten with valid CRCs, so the readers behind the checksums are reached), run folders whose
run.json says anything, and front-end messages of any shape. Every outcome must be
data or a clear error (``RolloutFileError``, a run listed as unreadable, an error
reply), within a memory bound.

Hypothesis runs derandomized: CI tries the same cases every time, and a failure
prints the case to keep as a regression test. ``AGENT_WIDGET_FUZZ_EXAMPLES`` sets the
cases per test (200 in CI); ``--hypothesis-show-statistics`` counts each outcome
(docs/hostile-input.md has the campaign's figures and command).
"""

from __future__ import annotations

import io
import json
import os
import tracemalloc
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_widget import EpisodeViewer, Rollout, RolloutFileError, load
from agent_widget.format._codec import Part, decode_frame, decode_part
from agent_widget.library import Leaderboard, RunLibrary
from harness.reading import read_everything

FUZZ = settings(
    derandomize=True,
    max_examples=int(os.environ.get("AGENT_WIDGET_FUZZ_EXAMPLES", "200")),
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
    event(result)
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


def rewritten(original: bytes, replace: dict[str, bytes]) -> bytes:
    """``original`` with some members' contents replaced, as a valid zip (right CRCs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, replace.get(info.filename, source.read(info)))
    return out.getvalue()


def json_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (the root too), as a path of keys and indexes."""
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += json_paths(item, (*prefix, index))
    return paths


def with_value_at(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = with_value_at(value[path[0]], path[1:], new)
    return copy


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
# Values a hostile meta.json or run.json may hold where the reader expects something else.
ODD_VALUES = (
    JSON
    | st.integers(-(2**80), 2**80)
    | st.sampled_from([-1, 0, 2**31, 2**63, "2", "<f8", "|O", "x" * 300, [2**40, 2**40], [], {}])
)


@pytest.fixture(scope="module")
def meta(original: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(original)) as archive:
        return json.loads(archive.read("meta.json"))


@FUZZ
@given(data=st.data())
def test_a_meta_json_saying_anything_gives_data_or_a_clear_error(original, meta, tmp_path, data):
    path_in_meta = data.draw(st.sampled_from(json_paths(meta)), label="where")
    new = with_value_at(meta, path_in_meta, data.draw(ODD_VALUES, label="value"))
    path = tmp_path / "meta.rollout"
    path.write_bytes(rewritten(original, {"meta.json": json.dumps(new).encode()}))
    assert outcome(path) in ("data", "error")


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 2**31), st.integers(-(2**62), 2**62)), min_size=1,
                      max_size=4))  # fmt: skip
def test_a_chunk_index_saying_anything_gives_data_or_a_clear_error(original, tmp_path, edits):
    """Cells of the chunk index set to any integer; where the row still points inside
    chunks.bin, its CRC is made right, so the payload's decoder is reached."""
    with zipfile.ZipFile(io.BytesIO(original)) as archive:
        index = np.load(io.BytesIO(archive.read("chunks.index.npy")))
        blob = archive.read("chunks.bin")
    for at, value in edits:
        row, column = divmod(at % index.size, index.shape[1])
        index[row, column] = value
        offset, length = int(index[row, -3]), int(index[row, -2])
        if 0 <= offset <= offset + length <= len(blob):
            index[row, -1] = zlib.crc32(blob[offset : offset + length])
    buffer = io.BytesIO()
    np.save(buffer, index)
    path = tmp_path / "index.rollout"
    path.write_bytes(rewritten(original, {"chunks.index.npy": buffer.getvalue()}))
    assert outcome(path) in ("data", "error")


def journal_records(original: bytes) -> tuple[bytes, list[tuple[bytes, dict, bytes]]]:
    """The file up to its first journal record, and each record as (its prefix and
    payloads, its JSON header, the arrays' bytes after it)."""
    start = original.index(b"AWJ1")
    head, records, at = original[:start], [], start
    while original[at : at + 4] == b"AWJ1":
        payload_bytes = int.from_bytes(original[at + 4 : at + 12], "little")
        tail = at + 16 + payload_bytes
        length = int.from_bytes(original[tail : tail + 4], "little")
        line, _, arrays = zlib.decompress(original[tail + 8 : tail + 8 + length]).partition(b"\n")
        records.append((original[at:tail], json.loads(line), arrays))
        at = tail + 8 + length
    return head, records


def framed(blob: bytes, header: dict, arrays: bytes) -> bytes:
    """A journal record again, with a body saying ``header`` and a valid CRC."""
    body = zlib.compress(json.dumps(header).encode() + b"\n" + arrays)
    return blob + len(body).to_bytes(4, "little") + zlib.crc32(body).to_bytes(4, "little") + body


@FUZZ
@given(data=st.data())
def test_a_journal_saying_anything_gives_data_or_a_clear_error(original, tmp_path, data):
    """A file cut after its chunks (a killed recording) whose journal records say
    anything, with valid CRCs, so the journal's reader is reached."""
    head, records = journal_records(original)
    k = data.draw(st.integers(0, len(records) - 1), label="record")
    blob, header, arrays = records[k]
    where = data.draw(st.sampled_from(json_paths(header)), label="where")
    records[k] = (blob, with_value_at(header, where, data.draw(ODD_VALUES, label="value")), arrays)
    path = tmp_path / "journal.rollout"
    path.write_bytes(head + b"".join(framed(*record) for record in records))
    assert outcome(path) in ("data", "error")


def test_the_journal_of_an_unedited_cut_file_gives_its_data(original, tmp_path):
    head, records = journal_records(original)
    path = tmp_path / "journal.rollout"
    path.write_bytes(head + b"".join(framed(*record) for record in records))
    with pytest.warns(UserWarning, match="recording stopped before the end"):
        assert load(path).num_positions == 40


def npy_header(descr: str, fortran: bool, shape: tuple[int, ...]) -> bytes:
    """A .npy version 1.0 header saying anything (numpy's layout, unchecked)."""
    text = f"{{'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape!r}, }}"
    text += " " * (-(10 + len(text) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin-1")


NPY_HEADERS = st.builds(
    npy_header,
    st.sampled_from(["<f8", "<i8", "|b1", "|u1", "|O", "<U10", "<f2", ">i4", "V8", "|S5", "<M8"]),
    st.booleans(),
    st.lists(st.integers(-1, 2**40), max_size=4).map(tuple),
) | st.binary(max_size=200)


@FUZZ
@given(member=st.sampled_from(["actions.npy", "rewards.npy", "extras/0.npy", "observations/0.npy"]),
       header=NPY_HEADERS)  # fmt: skip
def test_an_array_member_with_any_header_gives_data_or_a_clear_error(
    original, tmp_path, member, header
):
    """Any dtype (objects too: never unpickled), order and shape, or no header at all."""
    with zipfile.ZipFile(io.BytesIO(original)) as archive:
        data = archive.read(member)
    body = data[128:]  # numpy's v1 header of these arrays is 128 bytes
    path = tmp_path / "array.rollout"
    path.write_bytes(rewritten(original, {member: header + body}))
    assert outcome(path) in ("data", "error")


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
    event(" + ".join(sorted({reply["type"] for reply in sent})) or "no reply (not a request)")
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
    header=st.just((16, 12, 16))  # the stream's own: the edits decide
    | st.tuples(st.integers(-2, 20), st.integers(-2, 5000), st.integers(-2, 5000)),
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
        event("frames")
    except ValueError:
        event("ValueError")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"decoding held {peak / 2**20:.0f} MB"


@pytest.fixture
def library(tmp_path: Path) -> Any:
    """A library of a good run and a run whose run.json the test rewrites (and that
    run.json as written)."""
    library = RunLibrary(tmp_path / "runs")
    good = library.add(sample_rollout(), algorithm="dqn", run="good")
    target = library.add(sample_rollout(), algorithm="dqn", run="target")
    run_json = target.path / "run.json"
    return library, good.id, run_json, json.loads(run_json.read_bytes())


@FUZZ
@given(data=st.data())
def test_a_run_json_saying_anything_hides_that_run_alone(library, data):
    """The run is listed (its run.json still makes sense) or listed as unreadable with
    the reason; the other run, the table and the leaderboard are unaffected."""
    lib, good, run_json, written = library
    valid = written if data.draw(st.booleans()) else {}
    new = with_value_at(valid, data.draw(st.sampled_from(json_paths(valid))), data.draw(ODD_VALUES))
    run_json.write_text(json.dumps(new))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a skipped run warns; that is expected
            listed = [run.id for run in lib.runs()]
            rows = lib.table()
            for run in lib.runs():
                episodes = lib.open(run)
                if len(episodes) > 0:  # a run.json may list none of the run's files
                    episodes[0]
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"reading held {peak / 2**20:.0f} MB"
    board = Leaderboard(lib)
    assert good in listed
    assert len(rows) == len(listed) == len(board.rows)
    skipped = [error.path for error in lib.errors]
    assert len(listed) + len(skipped) == 2
    assert all(error.message for error in lib.errors)
    assert board.errors == [{"path": str(e.path), "message": e.message} for e in lib.errors]
    board.close()
    event("listed" if len(listed) == 2 else "skipped")
