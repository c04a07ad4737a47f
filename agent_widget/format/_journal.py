"""The journal of a ``.rollout`` file written while recording: what a killed run leaves.

A file recorded to disk (``record(..., path=...)``) is written chunk by chunk: its
``chunks.bin`` member grows as the episode does, and the small members (``meta.json``,
the per-step arrays, the chunk index) and the zip directory come only at the end. A
run killed before the end (kill -9, out of memory, a job's time limit) leaves only
``chunks.bin``, so each chunk there is framed by a journal record that says what the
end would have said about it::

    b"AWJ1" | u64 payload bytes P | u32 crc32 of those 12 bytes    (the prefix)
    P bytes: the chunk's payloads (frames, large observations, infos)
    u32 body length B | u32 crc32 of the body | B bytes of body

The body is zlib-compressed: one line of JSON (the chunk's index rows, the names,
dtypes and shapes of its per-step arrays, and for chunk 0 the episode's metadata and
layout), then the arrays' bytes. :func:`read_journal` reads the records in order and
stops at the first one that is incomplete or damaged: the episode up to the last
finished chunk. A complete file's index never points at the records, so readers of
complete files never see them.

Why records rather than rewriting the index as it grows: appending is all a killed
writer can have done, and appending needs no fsync to survive kill -9 (only to
survive a power cut). Memory stays bounded while reading a stranger's file: every
size is checked before it is used, and all bodies together inflate to at most
:data:`MAX_JOURNAL_BYTES`.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from agent_widget.format._archive import Archive, RolloutFileError
from agent_widget.format._chunk_index import COLUMNS
from agent_widget.format._codec import CHUNK_SIZE


class Record(NamedTuple):
    """A chunk's journal record made away from its writer (the recording layer's
    encoder process), for :meth:`Spool.write_record` to write as it is."""

    size: int  # the bytes of chunks.bin before it, as lent
    data: bytes  # ``journal_record``'s pieces, joined
    rows: list[list[int]]  # its index rows
    offsets: dict[bytes, int]  # the payloads it stores, by digest


MAGIC = b"AWJ1"
PREFIX = struct.Struct("<4sQI")
_TAIL = struct.Struct("<II")
MAX_BODY_BYTES = 16 * 2**20  # one chunk's record, compressed or not
MAX_JOURNAL_BYTES = 256 * 2**20  # all records' bodies, inflated
# A record's JSON line: a chunk's few index rows and array names, and in the first the
# episode's metadata. Bounded, so a crafted line never parses into gigabytes of objects.
MAX_LINE_BYTES = 64 * 2**10
MAX_FIRST_LINE_BYTES = 4 * 2**20
_KINDS = "biufcU"  # numbers, and text actions


def prefix(payload_bytes: int) -> bytes:
    """The prefix of a record whose chunk has ``payload_bytes`` of payloads."""
    head = MAGIC + struct.pack("<Q", payload_bytes)
    return head + struct.pack("<I", zlib.crc32(head))


def body(header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    """A record's length, CRC and body: ``header`` (JSON-able) and ``arrays``, as they are."""
    listed = [[name, a.dtype.str, list(a.shape)] for name, a in arrays.items()]
    line = json.dumps({**header, "arrays": listed}, separators=(",", ":")).encode()
    data = zlib.compress(b"".join([line, b"\n", *(a.tobytes() for a in arrays.values())]), 1)
    return _TAIL.pack(len(data), zlib.crc32(data)) + data


class NoRecord(RolloutFileError):
    """A chunks.bin without one whole journal record: a recording stopped before its
    first chunk was written."""


class Journal(NamedTuple):
    """What the records of a cut file hold, checked: the episode up to its last record."""

    layout: dict[str, Any]  # chunk 0's: metadata, frames, observations
    table: np.ndarray  # the chunk index rows of every record
    arrays: dict[str, np.ndarray]  # per-step and small per-position arrays, joined
    num_positions: int
    num_steps: int
    blob_size: int  # bytes of chunks.bin the records cover


def read_journal(archive: Archive, start: int) -> Journal:
    """The records of the chunks.bin whose data starts at file offset ``start``; a
    RolloutFileError when there is not one whole record."""
    source, end = archive.source, archive.source.size
    offset, inflated = 0, 0
    headers: list[dict[str, Any]] = []
    parts: dict[str, list[np.ndarray]] = {}
    while start + offset + PREFIX.size <= end:
        magic, payload_bytes, crc = PREFIX.unpack(source.read(start + offset, PREFIX.size))
        if magic != MAGIC or zlib.crc32(MAGIC + struct.pack("<Q", payload_bytes)) != crc:
            break
        tail = start + offset + PREFIX.size + payload_bytes
        if tail + _TAIL.size > end:
            break
        length, crc = _TAIL.unpack(source.read(tail, _TAIL.size))
        if length > MAX_BODY_BYTES or tail + _TAIL.size + length > end:
            break
        data = source.read(tail + _TAIL.size, length)
        if zlib.crc32(data) != crc:
            break
        inflater = zlib.decompressobj()
        text = inflater.decompress(data, min(MAX_BODY_BYTES, MAX_JOURNAL_BYTES - inflated) + 1)
        inflated += len(text)
        if inflated > MAX_JOURNAL_BYTES:
            raise archive.error(
                f"its journal inflates to over {MAX_JOURNAL_BYTES:,} bytes; not read"
            )
        record = _record(text, len(headers), offset, tail + _TAIL.size + length - start)
        if record is None:
            break
        header, arrays = record
        headers.append(header)
        for name, array in arrays.items():
            parts.setdefault(name, []).append(array)
        offset = tail + _TAIL.size + length - start
    if not headers:
        raise NoRecord(
            f"{archive.path}: not a .rollout file: it has no meta.json, and no whole chunk "
            "was recorded before the recording stopped"
        )
    return _joined(archive, headers, parts, offset)


def _record(
    text: bytes, k: int, first: int, last: int
) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """Record ``k``'s header and arrays, or None when it is not what a writer writes
    (its rows must point inside the bytes before the record's end, ``last``)."""
    line, _, data = text.partition(b"\n")
    if len(line) > (MAX_FIRST_LINE_BYTES if k == 0 else MAX_LINE_BYTES):
        return None
    try:
        header = json.loads(line)
        if not isinstance(header, dict) or header.get("chunk") != k:
            return None
        positions, steps = header["positions"], header["steps"]
        rows = np.array(header["rows"], dtype=np.int64).reshape(-1, len(COLUMNS))
        arrays: dict[str, np.ndarray] = {}
        for name, dtype, shape in header["arrays"]:
            dtype, shape = np.dtype(dtype), tuple(int(d) for d in shape)
            size = dtype.itemsize * int(np.prod(shape))
            if dtype.hasobject or dtype.kind not in _KINDS or size > len(data) or min(shape) < 0:
                return None
            arrays[str(name)] = np.frombuffer(data[:size], dtype).reshape(shape)
            data = data[size:]
    except (ValueError, TypeError, KeyError, RecursionError, OverflowError):
        return None
    counts_ok = type(positions) is int and type(steps) is int and 1 <= positions <= CHUNK_SIZE
    if not counts_ok or steps not in (positions - 1, positions) or data:
        return None
    offsets_ok = ((rows[:, 7] >= 0) & (rows[:, 7] + rows[:, 8] <= last)).all()
    if not offsets_ok or (k == 0) != isinstance(header.get("layout"), dict):
        return None
    header["rows"] = rows
    return header, arrays


def _joined(
    archive: Archive,
    headers: list[dict[str, Any]],
    parts: dict[str, list[np.ndarray]],
    blob_size: int,
) -> Journal:
    """The records as one episode: positions up to the last record, every step that led
    to one of them (so the steps are one fewer than the positions)."""
    positions = sum(h["positions"] for h in headers)
    steps = min(sum(h["steps"] for h in headers), positions - 1)
    arrays = {}
    for name, pieces in parts.items():
        try:
            joined = np.concatenate(pieces)
        except ValueError:
            raise archive.error(f"its journal's {name} change shape between chunks") from None
        length = positions if name.startswith("observations/") else steps
        if len(joined) < length:
            raise archive.error(f"its journal holds {len(joined)} {name} for {length}")
        arrays[name] = joined[:length]
    table = np.concatenate([h["rows"] for h in headers])
    return Journal(headers[0]["layout"], table, arrays, positions, steps, blob_size)
