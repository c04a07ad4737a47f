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
    observations of under 1 KiB per position (vectors), also ``.npy``.
``chunks.index.npy``
    int64 table, one row per payload in ``chunks.bin``: ``stream, chunk, start, count,
    height, width, encoding, offset, length, crc32``. Streams: 0 frames, 1 infos,
    2 + i the i-th large observation entry. Encodings: 0 raw, 1 zlib-xor, 2 zlib-json.
``chunks.bin``
    the payloads, chunk by chunk (chunk k = positions 16k..16k+15): the frame parts
    of chunk k exactly as the browser receives them (see :mod:`agent_widget.frames`),
    its large observations (zlib-xor over their raw bytes, any dtype), and its infos
    (a zlib-compressed JSON list). Identical payloads are stored once, so Atari
    observations that equal the rendered frames cost nothing.

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
"""

from __future__ import annotations

import io
import json
import math
import os
import secrets
import struct
import threading
import warnings
import weakref
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agent_widget.frames import (
    CHUNK_SIZE,
    MAX_FRAME_BYTES,
    Frames,
    Part,
    decode_frame,
    decode_part,
    deflate_deltas,
    inflate_deltas,
    position,
    xor_accumulate,
    xor_reduce,
)
from agent_widget.rollout import Rollout

FORMAT = "agent-widget.rollout"
VERSION = 1

_META, _INDEX, _BLOB = "meta.json", "chunks.index.npy", "chunks.bin"
_COLUMNS = (
    "stream",
    "chunk",
    "start",
    "count",
    "height",
    "width",
    "encoding",
    "offset",
    "length",
    "crc32",
)
_STREAM, _CHUNK, _START, _COUNT, _HEIGHT, _WIDTH, _ENCODING, _OFFSET, _LENGTH, _CRC = range(10)
_ENCODINGS = ("raw", "zlib-xor", "zlib-json")
_ZLIB_XOR, _ZLIB_JSON = 1, 2
_FRAMES, _INFOS, _OBSERVATIONS = 0, 1, 2
_PER_STEP = ("actions", "rewards", "terminated", "truncated")
_SMALL_OBSERVATION_BYTES = 1024  # below this per position, observations are a plain .npy
_MAX_META_BYTES = 64 * 2**20
_MAX_INFO_CHUNK_BYTES = 64 * 2**20
_MAX_STEPS = 2**40
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"


class RolloutFileError(ValueError):
    """A file that is not a readable ``.rollout`` file, or a damaged part of one."""


# --------------------------------------------------------------------------- saving


def save(rollout: Rollout, path: str | os.PathLike[str]) -> Path:
    """Write ``rollout`` to ``path`` atomically, in the format described above.

    Example:
        >>> rollout.save("pong.rollout")  # doctest: +SKIP
        >>> load("pong.rollout").frames[1234]  # doctest: +SKIP
    """
    path = Path(path)
    members, payloads = _serialize(rollout)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with open(fd, "wb") as file:
            _write_zip(file, members, payloads)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)
    return path


def _write_zip(
    file: io.BufferedWriter, members: list[tuple[str, bytes]], payloads: list[bytes]
) -> None:
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, _DATE), data)
        info = zipfile.ZipInfo(_BLOB, _DATE)
        info.file_size = sum(map(len, payloads))  # lets zipfile pick zip64 up front
        with archive.open(info, "w") as blob:
            for payload in payloads:
                blob.write(payload)


_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so equal rollouts give equal files


def _fsync_directory(folder: Path) -> None:
    """Make the rename durable; not possible (nor needed) on Windows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _Writer:
    """Turns a rollout into zip members and chunks.bin payloads (equal payloads stored once)."""

    def __init__(self) -> None:
        self.members: list[tuple[str, bytes]] = []
        self.payloads: list[bytes] = []
        self.rows: list[tuple[int, ...]] = []
        self._offsets: dict[bytes, int] = {}
        self._size = 0

    def npy(self, member: str, value: Any, what: str) -> dict[str, Any]:
        """Add a .npy member; returns its meta.json entry."""
        array = np.asarray(value)
        if array.dtype.kind not in "biufc":
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
        return np.array(self.rows, np.int64).reshape(-1, len(_COLUMNS))


def _serialize(rollout: Rollout) -> tuple[list[tuple[str, bytes]], list[bytes]]:
    """All members but chunks.bin (meta.json first), and the chunks.bin payloads."""
    writer = _Writer()
    arrays = {name: writer.npy(f"{name}.npy", getattr(rollout, name), name) for name in _PER_STEP}
    extras = {
        name: writer.npy(f"extras/{i}.npy", value, f"extras[{name!r}]")
        for i, (name, value) in enumerate(rollout.extras.items())
    }
    observations, chunked = _add_observations(writer, rollout.observations)
    for k in range(-(-rollout.num_positions // CHUNK_SIZE)):
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
        "frames": None if rollout.frames is None else {"stream": _FRAMES},
        "infos": {"stream": _INFOS},
        "chunks": {
            "member": _BLOB,
            "index": _INDEX,
            "chunk_size": CHUNK_SIZE,
            "columns": list(_COLUMNS),
            "encodings": list(_ENCODINGS),
        },
    }
    meta_bytes = _json_text(meta, "metadata", indent=1).encode()
    writer.npy(_INDEX, writer.index(), "the chunk index")
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
        if dtype.itemsize * math.prod(shape[1:]) < _SMALL_OBSERVATION_BYTES:
            specs[key] = writer.npy(f"observations/{i}.npy", value, f"observations {key!r}")
        else:
            chunked[_OBSERVATIONS + i] = value
            specs[key] = {"stream": _OBSERVATIONS + i, "dtype": dtype.str, "shape": list(shape)}
    return {"dict": is_dict, "entries": specs}, chunked


def _add_chunk(writer: _Writer, rollout: Rollout, k: int, chunked: dict[int, Any]) -> None:
    """Chunk k's payloads, kept together on disk: its frames, large observations, infos."""
    start = k * CHUNK_SIZE
    stop = min(start + CHUNK_SIZE, rollout.num_positions)
    parts = [] if rollout.frames is None else _checked_parts(rollout.frames, k, stop)
    for part in parts:
        encoding = _ENCODINGS.index(part.encoding)
        size = (part.height, part.width)
        writer.payload(part.payload, _FRAMES, (part.start, part.count), encoding, size)
    for stream, value in chunked.items():
        rows = np.ascontiguousarray(value[start:stop]).reshape(stop - start, -1).view(np.uint8)
        writer.payload(deflate_deltas(rows), stream, (start, stop - start), _ZLIB_XOR)
    infos = [rollout.infos[t] for t in range(start, stop)] if rollout.infos is not None else []
    text = _json_text(infos, f"the infos of positions {start}..{stop - 1}")
    writer.payload(zlib.compress(text.encode(), 6), _INFOS, (start, stop - start), _ZLIB_JSON)


def _checked_parts(frames: Frames, k: int, stop: int) -> list[Part]:
    """Chunk k's parts, checked to tile its positions: a file must never be unreadable."""
    parts = frames.chunk(k)
    covered = k * CHUNK_SIZE
    for part in parts:
        if part.start != covered or part.count < 1 or part.encoding not in ("raw", "zlib-xor"):
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

    Example:
        >>> again = load("pong.rollout")  # doctest: +SKIP
        >>> again.frames[1234].shape  # doctest: +SKIP
        (210, 160, 3)
    """
    archive = _Archive(Path(path))
    meta = _read_meta(archive)
    steps, n = meta["num_steps"], meta["num_positions"]
    arrays = {
        name: archive.npy(spec, f"arrays.{name}", steps)
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
    index = _Index(archive, meta, n)
    frames = None
    if meta.get("frames") is not None:
        frames = StoredFrames(index, index.rows(_FRAMES, "frames"))
    return Rollout(
        frames=frames,
        observations=_load_observations(archive, index, meta, n),
        actions=arrays["actions"],
        rewards=arrays["rewards"],
        terminated=arrays["terminated"],
        truncated=arrays["truncated"],
        infos=StoredInfos(index, index.one_row_per_chunk(_INFOS, "infos")),
        extras=extras,
        metadata=_field(archive, meta, "metadata", dict),
    )


def _read_meta(archive: _Archive) -> dict[str, Any]:
    try:
        meta = json.loads(archive.read(_META, _MAX_META_BYTES))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise archive.error(f"meta.json is not valid JSON ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise archive.error(f"meta.json does not describe an {FORMAT} file")
    version = meta.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise archive.error(
            f"format version {version!r} is newer than this agent-widget reads ({VERSION}); "
            "upgrade agent-widget"
        )
    steps = _field(archive, meta, "num_steps", int)
    n = _field(archive, meta, "num_positions", int)
    if not 0 <= steps <= _MAX_STEPS or n not in (steps, steps + 1):
        raise archive.error(f"meta.json has impossible lengths: {steps} steps, {n} positions")
    return meta


def _field(archive: _Archive, meta: dict[str, Any], key: str, kind: type) -> Any:
    value = meta.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise archive.error(f"meta.json: {key!r} is missing or not a {kind.__name__}")
    return value


def _load_observations(archive: _Archive, index: _Index, meta: dict[str, Any], n: int) -> Any:
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


class _Source:
    """An open file read by absolute offsets; closed when nothing refers to it any more.

    Holding the descriptor (rather than reopening the path) keeps a loaded rollout
    valid even after the file is overwritten by a new save.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        weakref.finalize(self, os.close, self._fd)
        self.size = os.fstat(self._fd).st_size
        self._lock = threading.Lock()

    def read(self, offset: int, length: int) -> bytes:
        if hasattr(os, "pread"):
            data = os.pread(self._fd, length, offset)
        else:  # Windows: no pread
            with self._lock:
                os.lseek(self._fd, offset, os.SEEK_SET)
                data = os.read(self._fd, length)
        if len(data) != length:
            raise RolloutFileError(f"{self.path}: unexpected end of file at byte {offset}")
        return data

    def central_directory(self) -> list[zipfile.ZipInfo]:
        with open(self._fd, "rb", closefd=False) as file:
            return zipfile.ZipFile(file).infolist()


class _Member(NamedTuple):
    name: str
    header_offset: int
    method: int
    compressed_size: int
    size: int
    crc: int


class _Archive:
    """A zip file's members, from its central directory or, when that is lost, its local headers."""

    def __init__(self, path: Path) -> None:
        try:
            self.source = _Source(path)
        except OSError as error:
            raise RolloutFileError(f"{path}: cannot open ({error.strerror})") from None
        self.path = path
        head = self.source.read(0, min(4, self.source.size))
        if head != _LOCAL_SIGNATURE:
            raise self.error(
                f"not a .rollout file: it does not start with a zip header (starts with {head!r})"
            )
        self.recovered = False
        try:
            infos = self.source.central_directory()
            members = [
                _Member(
                    i.filename,
                    i.header_offset,
                    i.compress_type,
                    i.compress_size,
                    i.file_size,
                    i.CRC,
                )
                for i in infos
            ]
        except (zipfile.BadZipFile, ValueError, EOFError, OSError, struct.error):
            members = self._scan_local_headers()
            self.recovered = True
            warnings.warn(
                f"{path}: the zip directory is missing or damaged (is the file truncated?); "
                f"recovered {len(members)} members from their local headers",
                stacklevel=3,
            )
        self.members = {m.name: m for m in members}
        if _META not in self.members:
            raise self.error("not a .rollout file: it is a zip archive without meta.json")

    def error(self, problem: str) -> RolloutFileError:
        return RolloutFileError(f"{self.path}: {problem}")

    def _scan_local_headers(self) -> list[_Member]:
        members = []
        offset = 0
        while offset + _LOCAL_HEADER.size <= self.source.size:
            fields = _LOCAL_HEADER.unpack(self.source.read(offset, _LOCAL_HEADER.size))
            signature, _, flags, method, _, _, crc, csize, size, name_length, extra_length = fields
            variable_end = offset + _LOCAL_HEADER.size + name_length + extra_length
            # 0x08: sizes only after the data, which a header scan cannot skip.
            if signature != _LOCAL_SIGNATURE or flags & 0x08 or variable_end > self.source.size:
                break
            variable = self.source.read(offset + _LOCAL_HEADER.size, name_length + extra_length)
            if 0xFFFFFFFF in (csize, size):
                size, csize = _zip64_sizes(variable[name_length:], size, csize)
            name = variable[:name_length].decode("utf-8", "replace")
            members.append(_Member(name, offset, method, csize, size, crc))
            offset += _LOCAL_HEADER.size + name_length + extra_length + csize
        return members

    def data_start(self, member: _Member) -> int:
        header = self.source.read(member.header_offset, _LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != _LOCAL_SIGNATURE:
            raise self.error(f"{member.name}: its zip header is damaged")
        return member.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]

    def read(self, name: str, limit: int) -> bytes:
        """Member ``name``, checked against its CRC and against ``limit`` bytes."""
        member = self.members.get(name)
        if member is None:
            lost = " (lost: the file is truncated)" if self.recovered else ""
            raise self.error(f"member {name} is missing{lost}")
        if member.size > limit or member.compressed_size > limit:
            raise self.error(f"{name} is implausibly large ({member.size} bytes)")
        start = self.data_start(member)
        if start + member.compressed_size > self.source.size:
            raise self.error(f"{name} is cut off: the file is truncated")
        data = self.source.read(start, member.compressed_size)
        if member.method == zipfile.ZIP_DEFLATED:  # a zip tool may have recompressed it
            data = zlib.decompressobj(-15).decompress(data, member.size + 1)
        elif member.method != zipfile.ZIP_STORED:
            raise self.error(f"{name} uses unsupported zip compression method {member.method}")
        if len(data) != member.size or zlib.crc32(data) != member.crc:
            raise self.error(f"{name} is corrupted (CRC mismatch)")
        return data

    def npy(self, spec: Any, what: str, length: int | None) -> np.ndarray:
        """The .npy member described by ``spec``, refusing anything that is not plain numbers."""
        if not isinstance(spec, dict) or not isinstance(spec.get("member"), str):
            raise self.error(f"meta.json: the entry for {what} is malformed")
        name = spec["member"]
        data = self.read(name, self.source.size)
        stream = io.BytesIO(data)
        try:
            major, _ = np.lib.format.read_magic(stream)
            read_header = (
                np.lib.format.read_array_header_1_0
                if major == 1
                else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read_header(stream)
        except ValueError as error:
            raise self.error(f"{name} is not a valid .npy array ({error})") from None
        if dtype.hasobject or dtype.kind not in "biufc":
            raise self.error(
                f"{name} holds dtype {dtype}; only plain numbers are loaded (no pickles)"
            )
        if length is not None and (not shape or shape[0] != length):
            raise self.error(f"{name} has shape {shape}, expected {length} entries for {what}")
        if len(data) - stream.tell() != dtype.itemsize * math.prod(shape):
            raise self.error(f"{name}: shape {shape} does not match its size ({len(data)} bytes)")
        stream.seek(0)
        return np.load(stream, allow_pickle=False)


def _zip64_sizes(extra: bytes, size: int, csize: int) -> tuple[int, int]:
    """Sizes from the zip64 extra field (id 1) of a local header."""
    while len(extra) >= 4:
        tag, length = struct.unpack_from("<2H", extra)
        if tag == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, 4))
            size = next(values) if size == 0xFFFFFFFF else size
            csize = next(values) if csize == 0xFFFFFFFF else csize
            break
        extra = extra[4 + length :]
    return size, csize


class _Index:
    """chunks.index.npy and the bytes of chunks.bin it points into."""

    def __init__(self, archive: _Archive, meta: dict[str, Any], n: int) -> None:
        chunks = _field(archive, meta, "chunks", dict)
        if chunks.get("columns") != list(_COLUMNS) or chunks.get("chunk_size") != CHUNK_SIZE:
            raise archive.error("meta.json: unsupported chunk index layout")
        self.archive, self.path, self.num_positions = archive, archive.path, n
        self.table = archive.npy({"member": _INDEX}, "the chunk index", None)
        if (
            self.table.dtype != np.int64
            or self.table.ndim != 2
            or self.table.shape[1] != len(_COLUMNS)
        ):
            raise archive.error(f"{_INDEX} has shape {self.table.shape}, dtype {self.table.dtype}")
        blob = archive.members.get(_BLOB)
        if blob is None or blob.method != zipfile.ZIP_STORED:
            raise archive.error(f"{_BLOB} is missing or compressed")
        self.start = archive.data_start(blob)
        self.size = blob.size
        # A truncated file holds only part of the blob; the rest raises when read.
        self.available = min(blob.size, archive.source.size - self.start)

    def rows(self, stream: int, what: str) -> np.ndarray:
        """The rows of one stream, checked to tile positions 0..n-1 and to lie in the blob."""
        rows = self.table[self.table[:, _STREAM] == stream]
        starts, counts, chunks = rows[:, _START], rows[:, _COUNT], rows[:, _CHUNK]
        offsets, lengths, crcs = rows[:, _OFFSET], rows[:, _LENGTH], rows[:, _CRC]
        # Counts are checked in the same expression as the sums: an overflowed sum fails there.
        bounds = np.concatenate([[0], starts + counts])
        tiles = np.array_equal(starts, bounds[:-1]) and bounds[-1] == self.num_positions
        in_chunks = (counts >= 1) & (counts <= CHUNK_SIZE) & (chunks == starts // CHUNK_SIZE)
        in_chunks &= chunks == (starts + counts - 1) // CHUNK_SIZE
        in_blob = (offsets >= 0) & (offsets <= self.size) & (lengths >= 0)
        in_blob &= (lengths <= self.size - offsets) & (crcs >= 0) & (crcs < 2**32)
        if not (tiles and in_chunks.all() and in_blob.all()):
            raise self.archive.error(f"{_INDEX}: the {what} rows are inconsistent")
        return rows

    def payload(self, row: np.ndarray, what: str) -> bytes:
        offset, length = int(row[_OFFSET]), int(row[_LENGTH])
        if offset + length > self.available:
            raise RolloutFileError(f"{self.path}: {what} is lost (the file is truncated)")
        data = self.archive.source.read(self.start + offset, length)
        if zlib.crc32(data) != row[_CRC]:
            raise RolloutFileError(f"{self.path}: {what} is corrupted (CRC mismatch)")
        return data

    def one_row_per_chunk(self, stream: int, what: str) -> np.ndarray:
        """Rows of a stream whose chunks are never split (observations, infos): row k is chunk k."""
        rows = self.rows(stream, what)
        if len(rows) != -(-self.num_positions // CHUNK_SIZE):
            raise self.archive.error(f"{_INDEX}: the {what} rows are inconsistent")
        return rows


class StoredFrames(Frames):
    """Frames read from a ``.rollout`` file on demand; chunks are handed out as stored."""

    def __init__(self, index: _Index, rows: np.ndarray) -> None:
        heights, widths = rows[:, _HEIGHT], rows[:, _WIDTH]
        valid = (heights >= 1) & (heights <= 2**16) & (widths >= 1) & (widths <= 2**16)
        valid &= heights * widths * 3 <= MAX_FRAME_BYTES
        valid &= (rows[:, _ENCODING] == 0) | (rows[:, _ENCODING] == _ZLIB_XOR)
        if not valid.all():
            raise index.archive.error(f"{_INDEX}: frame sizes or encodings are invalid")
        self._index, self._rows = index, rows
        self._bounds = np.searchsorted(
            rows[:, _CHUNK], np.arange(-(-index.num_positions // CHUNK_SIZE) + 1)
        )

    def __len__(self) -> int:
        return self._index.num_positions

    def _frame(self, t: int) -> np.ndarray:
        i = int(np.searchsorted(self._rows[:, _START], t, side="right")) - 1
        part = self._part(self._rows[i])
        with self._errors_name(part):
            return decode_frame(part, t - part.start)

    def _encode_chunk(self, k: int) -> list[Part]:
        return [self._part(row) for row in self._rows[self._bounds[k] : self._bounds[k + 1]]]

    def _part(self, row: np.ndarray) -> Part:
        start, count, height, width, encoding = (
            int(v) for v in row[[_START, _COUNT, _HEIGHT, _WIDTH, _ENCODING]]
        )
        payload = self._index.payload(row, f"frame chunk {int(row[_CHUNK])}")
        return Part(start, count, height, width, _ENCODINGS[encoding], payload)

    @contextmanager
    def _errors_name(self, part: Part) -> Iterator[None]:
        """Decoding errors name the file and the chunk."""
        try:
            yield
        except ValueError as error:
            chunk = part.start // CHUNK_SIZE
            raise RolloutFileError(f"{self._index.path}: frame chunk {chunk}: {error}") from None

    def __iter__(self) -> Iterator[np.ndarray]:
        for k in range(self.num_chunks):
            for part in self.chunk(k):
                with self._errors_name(part):
                    frames = decode_part(part)
                yield from frames


class StoredArray:
    """A lazily read (n, ...) array of large observations, decoded a chunk at a time.

    Indexing with an int or a slice reads only the chunks involved;
    ``np.asarray(stored)`` reads everything.
    """

    def __init__(self, index: _Index, spec: Any, what: str) -> None:
        try:
            self.dtype = np.dtype(spec["dtype"])
            self.shape = tuple(int(d) for d in spec["shape"])
            stream = int(spec["stream"])
        except (KeyError, TypeError, ValueError):
            raise index.archive.error(f"meta.json: the entry for {what} is malformed") from None
        self._row_bytes = self.dtype.itemsize * math.prod(self.shape[1:])
        if (
            self.dtype.kind not in "biufc"
            or not self.shape
            or self.shape[0] != index.num_positions
            or min(self.shape) < 0
            or not 0 < self._row_bytes <= MAX_FRAME_BYTES
        ):
            raise index.archive.error(
                f"meta.json: {what} has dtype {self.dtype}, shape {self.shape}"
            )
        self._index, self._what = index, what
        self._rows = index.one_row_per_chunk(stream, what)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index: Any) -> np.ndarray:
        if isinstance(index, slice):
            positions = range(*index.indices(len(self)))
            chunks = {k: self._decode(k) for k in {t // CHUNK_SIZE for t in positions}}
            rows = [chunks[t // CHUNK_SIZE][t % CHUNK_SIZE] for t in positions]
            return np.stack(rows) if rows else np.empty((0, *self.shape[1:]), self.dtype)
        k, i = divmod(position(index, len(self), self._what), CHUNK_SIZE)
        return self._decode(k, i)

    def __iter__(self) -> Iterator[np.ndarray]:
        for k in range(len(self._rows)):
            yield from self._decode(k)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        chunks = [self._decode(k) for k in range(len(self._rows))]
        array = np.concatenate(chunks) if chunks else np.empty(self.shape, self.dtype)
        return array if dtype is None else array.astype(dtype)

    def _decode(self, k: int, i: int | None = None) -> np.ndarray:
        """Row i of chunk k, or all of the chunk's rows when i is None."""
        row = self._rows[k]
        payload = self._index.payload(row, f"{self._what}, chunk {k}")
        count = int(row[_COUNT])
        try:
            deltas = inflate_deltas(payload, self._row_bytes, count, count if i is None else i + 1)
        except ValueError as error:
            what = f"{self._what}, chunk {k}"
            raise RolloutFileError(f"{self._index.path}: {what}: {error}") from None
        if i is None:
            return xor_accumulate(deltas).view(self.dtype).reshape(count, *self.shape[1:])
        return xor_reduce(deltas).view(self.dtype).reshape(self.shape[1:])


class StoredInfos(Sequence[dict[str, Any]]):
    """Per-position info dicts read from the file a chunk at a time (recent chunks cached)."""

    _CACHED_CHUNKS = 64

    def __init__(self, index: _Index, rows: np.ndarray) -> None:
        self._index, self._rows = index, rows
        self._cache: dict[int, list[dict[str, Any]]] = {}

    def __len__(self) -> int:
        return self._index.num_positions

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[t] for t in range(*index.indices(len(self)))]
        k, i = divmod(position(index, len(self), "infos"), CHUNK_SIZE)
        return self._chunk(k)[i]

    def _chunk(self, k: int) -> list[dict[str, Any]]:
        infos = self._cache.get(k)
        if infos is None:
            infos = self._decode(k)
            if len(self._cache) >= self._CACHED_CHUNKS:
                del self._cache[next(iter(self._cache))]
            self._cache[k] = infos
        return infos

    def _decode(self, k: int) -> list[dict[str, Any]]:
        row = self._rows[k]
        what = f"infos of chunk {k}"
        payload = self._index.payload(row, what)
        try:
            inflater = zlib.decompressobj()
            text = inflater.decompress(payload, _MAX_INFO_CHUNK_BYTES)
            infos = json.loads(text) if inflater.eof else None
        except (zlib.error, UnicodeDecodeError, json.JSONDecodeError):
            infos = None
        if not (
            isinstance(infos, list)
            and len(infos) == row[_COUNT]
            and all(isinstance(info, dict) for info in infos)
        ):
            raise RolloutFileError(f"{self._index.path}: {what} are malformed")
        return infos
