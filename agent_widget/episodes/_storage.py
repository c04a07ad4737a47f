"""The ``.rollout`` file format: :func:`save` and :func:`load`.

A ``.rollout`` file is a zip archive whose members are all stored uncompressed
(``ZIP_STORED``), so any byte range is one seek away and ordinary zip tools can list
and extract it. Members, in this order:

``chunks.bin``
    the payloads, chunk by chunk (chunk k = positions 16k..16k+15): the frame parts
    of chunk k exactly as the browser receives them (zlib-runs or raw, see
    :mod:`agent_widget.episodes._codec`), its large observations (zlib-runs over their raw
    bytes, any dtype, one payload a chunk), and its infos (a zlib-compressed JSON
    list). Identical payloads are stored once: an observation that is the frame
    (Pong's) has the frame part's payload when the chunk is one part. Each chunk's
    payloads are framed by a journal record (:mod:`agent_widget.episodes._journal`):
    what the members below say of that chunk, so a file cut anywhere keeps every
    chunk before the cut.
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

Version 2 (this one) stores frames and large observations as zlib-runs; version 1
stored them as zlib-xor. Version-1 files still load: their frames and observations
decode as they are, and their frame chunks are re-encoded as zlib-runs when handed
out (:mod:`agent_widget.episodes._stored`), so saving one again writes version 2.

Why this layout:

- Opening reads only the central directory, ``meta.json``, the per-step arrays and
  the index (a few bytes per step); frames, large observations and infos are read
  on demand, a chunk at a time.
- One frame costs one read of its part and inflating the stream up to that frame.
- Chunks come first, so a file can be written as it is recorded (``record(...,
  path=...)``) and a writer killed at any moment leaves the chunks it finished.
- Damage stays local. Every payload carries its own CRC, and every chunk its
  journal record, so a file cut short keeps every chunk before the cut: when the zip
  central directory is lost, the local headers are scanned instead, and when the
  small members are lost too the journal stands in for them. A corrupted payload
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

import hashlib
import io
import json
import math
import os
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np

from agent_widget.episodes import _journal as journal
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
from agent_widget.episodes._filesystems import is_url
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

    Chunk payloads go to the file as they are read, so saving a loaded episode of any
    length holds one chunk at a time.

    Examples:
        >>> rollout.save("pong.rollout")  # doctest: +SKIP
        >>> load("pong.rollout").frames[1234]  # doctest: +SKIP
    """
    path = Path(path)
    with atomic_write(path) as file, RolloutWriter(file) as writer:
        members = Members()
        observations, chunked = members.observations(rollout.observations)
        steps = {name: getattr(rollout, name) for name in _PER_STEP}
        per_step = {**steps, **{f"extras/{k}": v for k, v in rollout.extras.items()}}
        small = _small_observations(rollout.observations, chunked)
        layout = journal_layout(rollout.metadata, rollout.frames is not None, observations)
        for k in range(chunk_count(rollout.num_positions)):
            start = k * CHUNK_SIZE
            stop = min(start + CHUNK_SIZE, rollout.num_positions)
            parts = None if rollout.frames is None else _checked_parts(rollout.frames, k, stop)
            streams = {s: _stream_payload(value, k, start, stop) for s, value in chunked.items()}
            infos = [rollout.infos[t] for t in range(start, stop)] if rollout.infos else []
            arrays = {name: np.asarray(v[start:stop]) for name, v in per_step.items()}
            arrays |= {name: np.asarray(v[start:stop]) for name, v in small.items()}
            writer.chunk(chunk_payloads(start, stop, parts, streams, infos), arrays, layout)
        writer.finish(
            members.meta(
                steps,
                rollout.extras,
                observations,
                num_positions=rollout.num_positions,
                metadata=rollout.metadata,
                frames=rollout.frames is not None,
            )
        )
    return path


class Payload(NamedTuple):
    """One payload of chunks.bin and what its index row says of it but its place."""

    data: bytes
    stream: int
    start: int
    positions: int  # how many, from start
    encoding: int
    size: tuple[int, int] = (0, 0)

    def row(self, offset: int) -> list[int]:
        return [
            self.stream,
            self.start // CHUNK_SIZE,
            self.start,
            self.positions,
            *self.size,
            self.encoding,
            offset,
            len(self.data),
            zlib.crc32(self.data),
        ]


def chunk_payloads(
    start: int,
    stop: int,
    parts: list[Part] | None,
    streams: dict[int, bytes],
    infos: list[Any],
) -> list[Payload]:
    """Positions ``start..stop-1`` (one chunk) as payloads: frame parts, large
    observations (one zlib-runs payload a stream), infos (JSON)."""
    payloads = [
        Payload(p.payload, FRAMES, p.start, p.count, ENCODINGS.index(p.encoding), p[2:4])
        for p in parts or []
    ]
    payloads += [Payload(data, s, start, stop - start, ZLIB_RUNS) for s, data in streams.items()]
    text = _json_text(infos, f"the infos of positions {start}..{stop - 1}").encode()
    if len(text) > (stop - start) * MAX_INFO_BYTES:
        raise ValueError(
            f"cannot save the infos of positions {start}..{stop - 1}: {len(text):,} bytes of "
            f"JSON, over {MAX_INFO_BYTES:,} a position; keep infos small (per-step arrays "
            "belong in extras)"
        )
    payloads.append(Payload(zlib.compress(text, 6), INFOS, start, stop - start, ZLIB_JSON))
    return payloads


def journal_layout(metadata: dict[str, Any], frames: bool, observations: Any) -> dict[str, Any]:
    """What a journal's first record says of the episode: its metadata, whether it has
    frames, its observations as :meth:`Members.observations` describes them (a large
    entry's shape without its length, which grows)."""
    _json_text(metadata, "metadata")
    if observations is not None:
        entries = {
            key: {**spec, "shape": spec["shape"][1:]} if "stream" in spec else {}
            for key, spec in observations["entries"].items()
        }
        observations = {"dict": observations["dict"], "entries": entries}
    return {"metadata": metadata, "frames": frames, "observations": observations}


def _small_observations(observations: Any, chunked: dict[int, Any]) -> dict[str, Any]:
    """The observation entries stored as .npy members, by their journal names."""
    if observations is None:
        return {}
    entries = observations if isinstance(observations, dict) else {"": observations}
    return {
        f"observations/{key}": value
        for i, (key, value) in enumerate(entries.items())
        if OBSERVATIONS + i not in chunked
    }


def _stream_payload(value: Any, k: int, start: int, stop: int) -> bytes:
    if isinstance(value, ChunkedRows):  # recorded: already encoded
        return value.payload(k)
    rows = np.ascontiguousarray(value[start:stop]).reshape(stop - start, -1)
    return encode_rows(rows.view(np.uint8))


class RolloutWriter:
    """Writes a ``.rollout`` zip to an open file: chunks.bin first, chunk by chunk, then
    the small members and the zip directory (:meth:`finish`).

    Equal payloads are stored once. Each chunk is framed by a journal record and flushed
    to the OS, so a writer killed at any moment leaves a file that :func:`load` reads up
    to its last whole chunk (:mod:`agent_widget.episodes._journal`).
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._zip = zipfile.ZipFile(file, "w", zipfile.ZIP_STORED)
        # Its size is unknown until the end: zip64 sizes, filled in when it is closed.
        self._blob = self._zip.open(zipfile.ZipInfo(BLOB, _DATE), "w", force_zip64=True)
        self.data_start = file.tell()  # where chunks.bin's bytes start in the file
        self._rows: list[list[int]] = []
        self._offsets: dict[bytes, int] = {}  # by payload digest
        self._size = 0
        self.chunks = 0

    def __enter__(self) -> RolloutWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        if kind is not None:
            self.abandon()

    def abandon(self) -> None:
        """Close the zip unfinished, chunks.bin its one member: read back through its
        journal, as a killed writer's file is (the file itself stays open)."""
        try:
            self._blob.close()
            self._zip.close()
        except (OSError, ValueError):
            pass  # a write failed (a full disk): the journal ends before it

    def chunk(
        self, payloads: list[Payload], arrays: dict[str, np.ndarray], layout: dict[str, Any]
    ) -> np.ndarray:
        """Add the next chunk: its payloads (the infos' last) and, for its journal record,
        its per-step arrays (``actions`` ..., ``extras/<name>``) and small observations
        (``observations/<key>``), and the episode's ``layout`` (:func:`journal_layout`).
        Returns the chunk's index rows."""
        first = self._size + journal.PREFIX.size
        new: list[bytes] = []
        rows = []
        for payload in payloads:
            key = hashlib.blake2b(payload.data, digest_size=16).digest()
            offset = self._offsets.get(key)
            if offset is None:
                offset = self._offsets[key] = first + sum(map(len, new))
                new.append(payload.data)
            rows.append(payload.row(offset))
        header = {
            "chunk": self.chunks,
            "positions": payloads[-1].positions,
            "steps": len(arrays["actions"]),
            "rows": rows,
            **({"layout": layout} if self.chunks == 0 else {}),
        }
        record = journal.body(header, arrays)
        for piece in [journal.prefix(sum(map(len, new))), *new, record]:
            self._blob.write(piece)
            self._size += len(piece)
        self._file.flush()  # in the OS's hands: a kill -9 from now on loses none of it
        self._rows.extend(rows)
        self.chunks += 1
        return np.array(rows, np.int64)

    def finish(self, members: list[tuple[str, bytes]]) -> None:
        """Close chunks.bin and add ``members`` (meta.json first) and the chunk index."""
        self._blob.close()
        index = np.array(self._rows, np.int64).reshape(-1, len(COLUMNS))
        for name, data in [*members, (INDEX, _npy_bytes(index))]:
            self._zip.writestr(zipfile.ZipInfo(name, _DATE), data)
        self._zip.close()


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


class Members:
    """The small members: per-step arrays, extras, small observations, as .npy."""

    def __init__(self) -> None:
        self.members: list[tuple[str, bytes]] = []

    def npy(self, member: str, value: Any, what: str, kinds: str = "biufc") -> dict[str, Any]:
        """Add a .npy member; returns its meta.json entry."""
        array = np.asarray(value)
        if array.dtype.kind not in kinds:
            raise ValueError(f"cannot save {what}: dtype {array.dtype} is not numeric")
        self.members.append((member, _npy_bytes(array)))
        return {"member": member, "dtype": array.dtype.str, "shape": list(array.shape)}

    def observations(self, observations: Any) -> tuple[Any, dict[int, Any]]:
        """Small observations become .npy members, large ones chunked streams (returned
        by id); a large entry needs only a dtype and shape (recorded ones are on disk)."""
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
                specs[key] = self.npy(f"observations/{i}.npy", value, f"observations {key!r}")
            else:
                chunked[OBSERVATIONS + i] = value
                specs[key] = {"stream": OBSERVATIONS + i, "dtype": dtype.str, "shape": list(shape)}
        return {"dict": is_dict, "entries": specs}, chunked

    def meta(
        self,
        steps: Mapping[str, Any],
        extras: Mapping[str, Any],
        observations: Any,
        *,
        num_positions: int,
        metadata: dict[str, Any],
        frames: bool,
    ) -> list[tuple[str, bytes]]:
        """meta.json, then the members: ``steps`` holds the per-step arrays (actions,
        rewards, terminated, truncated), ``observations`` is what :meth:`observations`
        returned."""
        arrays = {
            name: self.npy(
                f"{name}.npy", steps[name], name, ACTION_KINDS if name == "actions" else "biufc"
            )
            for name in _PER_STEP
        }
        extras = {
            name: self.npy(f"extras/{i}.npy", value, f"extras[{name!r}]")
            for i, (name, value) in enumerate(extras.items())
        }
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "num_steps": len(steps["actions"]),
            "num_positions": num_positions,
            "metadata": metadata,
            "arrays": arrays,
            "extras": extras,
            "observations": observations,
            "frames": {"stream": FRAMES} if frames else None,
            "infos": {"stream": INFOS},
            "chunks": {
                "member": BLOB,
                "index": INDEX,
                "chunk_size": CHUNK_SIZE,
                "columns": list(COLUMNS),
                "encodings": list(ENCODINGS),
            },
        }
        text = _json_text(meta, "metadata", indent=1).encode()
        return [(_META, text), *self.members]


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


def load(path: str | os.PathLike[str], *, storage_options: dict[str, Any] | None = None) -> Rollout:
    """Open a ``.rollout`` file lazily: O(1) in episode length for frames, infos, observations.

    Raises RolloutFileError (a ValueError) naming the file and the problem when it is
    not a readable ``.rollout`` file. A file whose end was cut off still opens (with
    a warning) with every chunk it holds whole.

    ``path`` may be a URL of any fsspec filesystem (``s3://bucket/pong.rollout``, with
    its package installed, e.g. s3fs): opening reads the zip directory and the small
    members, and each chunk a view needs is one ranged request for its bytes.
    ``storage_options`` go to the filesystem (credentials, ``client_kwargs``).

    Examples:
        >>> again = load("pong.rollout")  # doctest: +SKIP
        >>> again.frames[1234].shape  # doctest: +SKIP
        (210, 160, 3)
        >>> far = load("s3://runs/pong.rollout", storage_options={"anon": True})  # doctest: +SKIP
    """
    archive = Archive(path if is_url(path) else Path(path), storage_options)
    if _META not in archive.members and BLOB in archive.members:
        return _recover(archive)
    archive.warn_if_recovered()
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
    index = ChunkIndex.read(archive, _field(archive, meta, "chunks", dict), n)
    return _rollout(
        index,
        arrays,
        extras,
        _load_observations(archive, index, meta, n),
        _field(archive, meta, "metadata", dict),
        frames=meta.get("frames") is not None,
    )


def _rollout(
    index: ChunkIndex,
    arrays: dict[str, np.ndarray],
    extras: dict[str, np.ndarray],
    observations: Any,
    metadata: dict[str, Any],
    *,
    frames: bool,
) -> Rollout:
    return Rollout(
        frames=StoredFrames(index, index.rows(FRAMES, "frames")) if frames else None,
        observations=observations,
        actions=arrays["actions"],
        rewards=arrays["rewards"],
        terminated=arrays["terminated"],
        truncated=arrays["truncated"],
        infos=StoredInfos(index, index.one_row_per_chunk(INFOS, "infos")),
        extras=extras,
        metadata=metadata,
    )


def _recover(archive: Archive) -> Rollout:
    """The episode of a file whose recording stopped before its end, from its journal:
    every position up to its last whole chunk, and the steps between them (the last one
    marked truncated)."""
    found = journal.read_journal(archive, archive.data_start(archive.members[BLOB]))
    layout, arrays, n = found.layout, dict(found.arrays), found.num_positions
    index = ChunkIndex(archive, found.table, n, found.blob_size)
    missing = [name for name in _PER_STEP if name not in arrays]
    metadata, spec = layout.get("metadata"), layout.get("observations")
    if missing or not isinstance(metadata, dict) or not isinstance(spec, (dict, type(None))):
        raise archive.error("its journal is malformed")
    if found.num_steps:
        arrays["truncated"] = arrays["truncated"].copy()
        arrays["truncated"][-1] = True
    extras = {k.removeprefix("extras/"): v for k, v in arrays.items() if k.startswith("extras/")}
    observations = None
    if spec is not None:
        observations = _recovered_observations(archive, index, spec, arrays)
    warnings.warn(
        f"{archive.path}: its recording stopped before the end; read the {n} positions "
        "of the chunks it finished",
        stacklevel=3,
    )
    note = f"the recording stopped after position {n - 1}, before the episode ended"
    return _rollout(
        index,
        arrays,
        extras,
        observations,
        {**metadata, "recovered": note},
        frames=bool(layout.get("frames")),
    )


def _recovered_observations(
    archive: Archive, index: ChunkIndex, spec: dict[str, Any], arrays: dict[str, np.ndarray]
) -> Any:
    entries = spec.get("entries")
    if not isinstance(entries, dict):
        raise archive.error("its journal is malformed")
    observations: dict[str, Any] = {}
    for key, entry in entries.items():
        what = f"observations {key!r}"
        if isinstance(entry, dict) and "stream" in entry:
            shape = entry.get("shape")
            if not isinstance(shape, list):
                raise archive.error(f"its journal's entry for {what} is malformed")
            full = {**entry, "shape": [index.num_positions, *shape]}
            observations[key] = StoredArray(index, full, what)
        elif f"observations/{key}" in arrays:
            observations[key] = arrays[f"observations/{key}"]
        else:
            raise archive.error(f"its journal holds no {what}")
    return observations if spec.get("dict") else observations.get("")


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
