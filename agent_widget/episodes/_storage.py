"""The ``.rollout`` file format: :func:`save` and :func:`load`.

A ``.rollout`` file is a zip archive whose members are all stored uncompressed
(``ZIP_STORED``), so any byte range is one seek away and ordinary zip tools can list
and extract it. Members, in this order:

``meta.json``
    format name and version, episode lengths, the user's metadata, and the dtype and
    shape of every array below: the table of contents.
``actions.npy``, ``rewards.npy``, ``terminated.npy``, ``truncated.npy``, ``extras/<i>.npy``
    per-step arrays in numpy's ``.npy`` format (read with ``allow_pickle=False``).
``observations/<i>.npy``
    observations of under 1 KiB per position (vectors), also ``.npy``
    (:data:`~agent_widget.episodes._encoded_array.LARGE_ROW_BYTES`).
``chunks.index.npy``
    int64 table, one row per payload in ``chunks.bin``: ``stream, chunk, start, count,
    height, width, encoding, offset, length, crc32``. Streams: 0 frames, 1 infos,
    2 + i the i-th large observation entry. Encodings: 0 raw, 1 zlib-xor, 2 zlib-json,
    3 zlib-runs.
``chunks.bin``
    the payloads, chunk by chunk (chunk k = positions 16k..16k+15): the frame parts
    of chunk k exactly as the browser receives them (zlib-runs or raw, see
    :mod:`agent_widget.episodes._codec`), its large observations (zlib-runs over their raw
    bytes, any dtype, one payload a chunk), and its infos (a zlib-compressed JSON
    list). Identical payloads are stored once: an observation that is the frame
    (Pong's) has the frame part's payload when the chunk is one part.

Version 2 (this one) stores frames and large observations as zlib-runs; version 1
stored them as zlib-xor. Version-1 files still load: their frames and observations
decode as they are, and their frame chunks are re-encoded as zlib-runs when handed
out (:mod:`agent_widget.episodes._stored`), so saving one again writes version 2.

Why this layout:

- Opening reads only the central directory, ``meta.json``, the per-step arrays and
  the index (a few bytes per step); frames, large observations and infos are read
  on demand, a chunk at a time.
- One frame costs one read of its part and inflating the stream up to that frame.
- Damage stays local. Small members come first and every payload carries its own
  CRC, so a file cut short keeps every chunk before the cut: when the zip central
  directory is lost, the local headers are scanned instead. A corrupted payload
  raises only when its chunk is read.
- Nothing is pickled or evaluated, and every size and shape read from a file is
  checked before it is used, so opening a stranger's file is safe.
- :func:`save` writes a temporary file in the same folder, fsyncs it and renames it
  over the target: a crash mid-save leaves the previous file untouched.

Reading is layered: :mod:`agent_widget.episodes._archive` reads the zip members (recovering
them from a cut file), :mod:`agent_widget.episodes._chunk_index` checks the index, and
:mod:`agent_widget.episodes._stored` holds the lazy frames, observations and infos.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from agent_widget.episodes._archive import Archive, RolloutFileError
from agent_widget.episodes._atomic import atomic_write
from agent_widget.episodes._chunk_index import (
    BLOB,
    COLUMNS,
    ENCODINGS,
    FRAMES,
    INDEX,
    INFOS,
    OBSERVATIONS,
    ZLIB_JSON,
    ZLIB_RUNS,
    ChunkIndex,
)
from agent_widget.episodes._codec import CHUNK_SIZE, Part, chunk_count, encode_rows
from agent_widget.episodes._codec import ENCODINGS as FRAME_ENCODINGS
from agent_widget.episodes._encoded_array import LARGE_ROW_BYTES, ChunkedRows
from agent_widget.episodes._frames import Frames
from agent_widget.episodes._rollout import ACTION_KINDS, Rollout
from agent_widget.episodes._stored import MAX_INFO_BYTES, StoredArray, StoredFrames, StoredInfos

__all__ = ["RolloutFileError", "load", "save"]

FORMAT = "agent-widget.rollout"
VERSION = 2  # 2: frames and observations as zlib-runs (version 1: zlib-xor, still read)

_META = "meta.json"
_PER_STEP = ("actions", "rewards", "terminated", "truncated")
_MAX_META_BYTES = 64 * 2**20
_MAX_STEPS = 2**40
_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so equal rollouts give equal files


# --------------------------------------------------------------------------- saving


def save(rollout: Rollout, path: str | os.PathLike[str]) -> Path:
    """Write ``rollout`` to ``path`` atomically, in the format described above.

    Examples:
        >>> rollout.save("pong.rollout")  # doctest: +SKIP
        >>> load("pong.rollout").frames[1234]  # doctest: +SKIP
    """
    path = Path(path)
    members, payloads = _serialize(rollout)
    with atomic_write(path) as file:
        _write_zip(file, members, payloads)
    return path


def _write_zip(file: BinaryIO, members: list[tuple[str, bytes]], payloads: list[bytes]) -> None:
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, _DATE), data)
        info = zipfile.ZipInfo(BLOB, _DATE)
        info.file_size = sum(map(len, payloads))  # lets zipfile pick zip64 up front
        with archive.open(info, "w") as blob:
            for payload in payloads:
                blob.write(payload)


class _Writer:
    """Turns a rollout into zip members and chunks.bin payloads (equal payloads stored once)."""

    def __init__(self) -> None:
        self.members: list[tuple[str, bytes]] = []
        self.payloads: list[bytes] = []
        self.rows: list[tuple[int, ...]] = []
        self._offsets: dict[bytes, int] = {}
        self._size = 0

    def npy(self, member: str, value: Any, what: str, kinds: str = "biufc") -> dict[str, Any]:
        """Add a .npy member; returns its meta.json entry."""
        array = np.asarray(value)
        if array.dtype.kind not in kinds:
            raise ValueError(f"cannot save {what}: dtype {array.dtype} is not numeric")
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        self.members.append((member, buffer.getvalue()))
        return {"member": member, "dtype": array.dtype.str, "shape": list(array.shape)}

    def payload(
        self,
        payload: bytes,
        stream: int,
        part: tuple[int, int],
        encoding: int,
        size: tuple[int, int] = (0, 0),
    ) -> None:
        """Add one payload of ``stream`` covering positions ``part = (start, count)``."""
        offset = self._offsets.get(payload)
        if offset is None:
            offset = self._offsets[payload] = self._size
            self.payloads.append(payload)
            self._size += len(payload)
        start, count = part
        crc = zlib.crc32(payload)
        row = (
            stream,
            start // CHUNK_SIZE,
            start,
            count,
            *size,
            encoding,
            offset,
            len(payload),
            crc,
        )
        self.rows.append(row)

    def index(self) -> np.ndarray:
        return np.array(self.rows, np.int64).reshape(-1, len(COLUMNS))


def _serialize(rollout: Rollout) -> tuple[list[tuple[str, bytes]], list[bytes]]:
    """All members but chunks.bin (meta.json first), and the chunks.bin payloads."""
    writer = _Writer()
    arrays = {
        name: writer.npy(
            f"{name}.npy",
            getattr(rollout, name),
            name,
            ACTION_KINDS if name == "actions" else "biufc",
        )
        for name in _PER_STEP
    }
    extras = {
        name: writer.npy(f"extras/{i}.npy", value, f"extras[{name!r}]")
        for i, (name, value) in enumerate(rollout.extras.items())
    }
    observations, chunked = _add_observations(writer, rollout.observations)
    for k in range(chunk_count(rollout.num_positions)):
        _add_chunk(writer, rollout, k, chunked)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "num_steps": rollout.num_steps,
        "num_positions": rollout.num_positions,
        "metadata": rollout.metadata,
        "arrays": arrays,
        "extras": extras,
        "observations": observations,
        "frames": None if rollout.frames is None else {"stream": FRAMES},
        "infos": {"stream": INFOS},
        "chunks": {
            "member": BLOB,
            "index": INDEX,
            "chunk_size": CHUNK_SIZE,
            "columns": list(COLUMNS),
            "encodings": list(ENCODINGS),
        },
    }
    meta_bytes = _json_text(meta, "metadata", indent=1).encode()
    writer.npy(INDEX, writer.index(), "the chunk index")
    return [(_META, meta_bytes), *writer.members], writer.payloads


def _add_observations(writer: _Writer, observations: Any) -> tuple[Any, dict[int, Any]]:
    """Small observations become .npy members, large ones chunked streams (returned by id)."""
    if observations is None:
        return None, {}
    is_dict = isinstance(observations, dict)
    entries = observations if is_dict else {"": observations}
    specs, chunked = {}, {}
    for i, (key, value) in enumerate(entries.items()):
        dtype, shape = np.dtype(value.dtype), tuple(value.shape)
        if dtype.kind not in "biufc":
            raise ValueError(f"cannot save observations {key!r}: dtype {dtype} is not numeric")
        if dtype.itemsize * math.prod(shape[1:]) < LARGE_ROW_BYTES:
            specs[key] = writer.npy(f"observations/{i}.npy", value, f"observations {key!r}")
        else:
            chunked[OBSERVATIONS + i] = value
            specs[key] = {"stream": OBSERVATIONS + i, "dtype": dtype.str, "shape": list(shape)}
    return {"dict": is_dict, "entries": specs}, chunked


def _add_chunk(writer: _Writer, rollout: Rollout, k: int, chunked: dict[int, Any]) -> None:
    """Chunk k's payloads, kept together on disk: its frames, large observations, infos."""
    start = k * CHUNK_SIZE
    stop = min(start + CHUNK_SIZE, rollout.num_positions)
    parts = [] if rollout.frames is None else _checked_parts(rollout.frames, k, stop)
    for part in parts:
        encoding = ENCODINGS.index(part.encoding)
        size = (part.height, part.width)
        writer.payload(part.payload, FRAMES, (part.start, part.count), encoding, size)
    for stream, value in chunked.items():
        if isinstance(value, ChunkedRows):  # recorded: already encoded
            payload = value.payload(k)
        else:
            rows = np.ascontiguousarray(value[start:stop]).reshape(stop - start, -1)
            payload = encode_rows(rows.view(np.uint8))
        writer.payload(payload, stream, (start, stop - start), ZLIB_RUNS)
    infos = [rollout.infos[t] for t in range(start, stop)] if rollout.infos is not None else []
    text = _json_text(infos, f"the infos of positions {start}..{stop - 1}").encode()
    if len(text) > (stop - start) * MAX_INFO_BYTES:
        raise ValueError(
            f"cannot save the infos of positions {start}..{stop - 1}: {len(text):,} bytes of "
            f"JSON, over {MAX_INFO_BYTES:,} a position; keep infos small (per-step arrays "
            "belong in extras)"
        )
    writer.payload(zlib.compress(text, 6), INFOS, (start, stop - start), ZLIB_JSON)


def _checked_parts(frames: Frames, k: int, stop: int) -> list[Part]:
    """Chunk k's parts, checked to tile its positions: a file must never be unreadable."""
    parts = frames.chunk(k)
    covered = k * CHUNK_SIZE
    for part in parts:
        if part.start != covered or part.count < 1 or part.encoding not in FRAME_ENCODINGS:
            raise ValueError(f"cannot save frames: chunk {k} has a bad part {part[:5]}")
        covered += part.count
    if covered != stop:
        raise ValueError(f"cannot save frames: chunk {k} ends at {covered}, not at {stop}")
    return parts


def _json_text(value: Any, what: str, indent: int | None = None) -> str:
    try:
        separators = None if indent else (",", ":")
        return json.dumps(value, indent=indent, separators=separators, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"cannot save {what}: not JSON-able ({error})") from None


# --------------------------------------------------------------------------- loading


def load(path: str | os.PathLike[str]) -> Rollout:
    """Open a ``.rollout`` file lazily: O(1) in episode length for frames, infos, observations.

    Raises RolloutFileError (a ValueError) naming the file and the problem when it is
    not a readable ``.rollout`` file. A file whose end was cut off still opens (with
    a warning) as long as its small members survived; frames past the cut raise when
    read.

    Examples:
        >>> again = load("pong.rollout")  # doctest: +SKIP
        >>> again.frames[1234].shape  # doctest: +SKIP
        (210, 160, 3)
    """
    archive = Archive(Path(path))
    meta = _read_meta(archive)
    steps, n = meta["num_steps"], meta["num_positions"]
    arrays = {
        name: archive.npy(
            spec, f"arrays.{name}", steps, ACTION_KINDS if name == "actions" else "biufc"
        )
        for name, spec in _field(archive, meta, "arrays", dict).items()
        if name in _PER_STEP
    }
    missing = set(_PER_STEP) - set(arrays)
    if missing:
        raise archive.error(f"meta.json lists no {', '.join(sorted(missing))}")
    extras = {
        str(name): archive.npy(spec, f"extras.{name}", steps)
        for name, spec in _field(archive, meta, "extras", dict).items()
    }
    index = ChunkIndex(archive, _field(archive, meta, "chunks", dict), n)
    frames = None
    if meta.get("frames") is not None:
        frames = StoredFrames(index, index.rows(FRAMES, "frames"))
    return Rollout(
        frames=frames,
        observations=_load_observations(archive, index, meta, n),
        actions=arrays["actions"],
        rewards=arrays["rewards"],
        terminated=arrays["terminated"],
        truncated=arrays["truncated"],
        infos=StoredInfos(index, index.one_row_per_chunk(INFOS, "infos")),
        extras=extras,
        metadata=_field(archive, meta, "metadata", dict),
    )


def _read_meta(archive: Archive) -> dict[str, Any]:
    if _META not in archive.members:
        raise archive.error("not a .rollout file: it is a zip archive without meta.json")
    try:
        meta = json.loads(archive.read(_META, _MAX_META_BYTES))
    # ValueError: not UTF-8, not JSON, an integer of thousands of digits; RecursionError:
    # arrays nested thousands deep.
    except (ValueError, RecursionError) as error:
        raise archive.error(
            f"meta.json is not valid JSON ({type(error).__name__}: {error!s:.200})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise archive.error(f"meta.json does not describe an {FORMAT} file")
    version = meta.get("version")
    if type(version) is not int or version < 1:
        raise archive.error(f"meta.json has no format version (1 to {VERSION}): {version!r:.50}")
    if version > VERSION:
        raise archive.error(
            f"format version {version} is newer than this agent-widget reads ({VERSION}); "
            "upgrade agent-widget"
        )
    steps = _field(archive, meta, "num_steps", int)
    n = _field(archive, meta, "num_positions", int)
    if not 0 <= steps <= _MAX_STEPS or n not in (steps, steps + 1):
        raise archive.error(f"meta.json has impossible lengths: {steps} steps, {n} positions")
    return meta


def _field(archive: Archive, meta: dict[str, Any], key: str, kind: type) -> Any:
    value = meta.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise archive.error(f"meta.json: {key!r} is missing or not a {kind.__name__}")
    return value


def _load_observations(archive: Archive, index: ChunkIndex, meta: dict[str, Any], n: int) -> Any:
    spec = meta.get("observations")
    if spec is None:
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get("entries"), dict):
        raise archive.error("meta.json: 'observations' is malformed")
    entries: dict[str, Any] = {}
    for key, entry in spec["entries"].items():
        what = f"observations {key!r}"
        if isinstance(entry, dict) and "member" in entry:
            entries[key] = archive.npy(entry, what, n)
        else:
            entries[key] = StoredArray(index, entry, what)
    if spec.get("dict"):
        return entries
    if set(entries) != {""}:
        raise archive.error("meta.json: 'observations' is malformed")
    return entries[""]
