"""Lazy views of a ``.rollout`` file's chunked streams: frames, large observations, infos.

Each reads only the chunks it is asked for, through a :class:`ChunkIndex`, so
opening a file costs nothing per frame. Decoding errors name the file and chunk.
"""

from __future__ import annotations

import json
import math
import threading
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from agent_widget.format._array_frames import encode_chunk
from agent_widget.format._chunk_index import (
    CHUNK,
    COUNT,
    ENCODING,
    ENCODINGS,
    HEIGHT,
    INDEX,
    LENGTH,
    RAW,
    START,
    WIDTH,
    ZLIB_RUNS,
    ZLIB_XOR,
    ChunkIndex,
)
from agent_widget.format._codec import (
    CHUNK_SIZE,
    MAX_FRAME_BYTES,
    Part,
    chunk_count,
    decode_rows,
)
from agent_widget.format._frames import DecodedPart, Frames, position

# JSON bytes a position's info may take, on average over its chunk: infos are small
# dicts (lives, counters, flags). The bound keeps a small hostile file from inflating
# into a JSON list of millions of items (31M zeros took 2.2 GB to parse); save()
# refuses infos over it, so every file written can be read back.
MAX_INFO_BYTES = 2**20


class StoredFrames(Frames):
    """Frames read from a ``.rollout`` file on demand; chunks are handed out as stored.

    Version-1 files' zlib-xor parts excepted: their chunk is re-encoded as zlib-runs
    (and cut into parts as new chunks are) when handed out, so the browser has one
    compressed encoding to decode (the chunk re-encoded last is kept, for a request
    repeated). Frames are read through a :class:`DecodedPart`, so reading in order
    inflates each part about once.
    """

    def __init__(self, index: ChunkIndex, rows: np.ndarray) -> None:
        heights, widths = rows[:, HEIGHT], rows[:, WIDTH]
        valid = (heights >= 1) & (heights <= 2**16) & (widths >= 1) & (widths <= 2**16)
        valid &= heights * widths * 3 <= MAX_FRAME_BYTES
        valid &= np.isin(rows[:, ENCODING], [RAW, ZLIB_XOR, ZLIB_RUNS])
        # Missing frames: 0x0, raw, nothing stored.
        valid |= (
            (heights == 0) & (widths == 0) & (rows[:, ENCODING] == RAW) & (rows[:, LENGTH] == 0)
        )
        if not valid.all():
            raise index.archive.error(f"{INDEX}: frame sizes or encodings are invalid")
        self._index, self._rows = index, rows
        self._bounds = np.searchsorted(rows[:, CHUNK], np.arange(chunk_count(len(self)) + 1))
        self._decoded = DecodedPart()
        self._transcoded: tuple[int, list[Part]] | None = None  # (chunk, its parts as zlib-runs)

    def __len__(self) -> int:
        return self._index.num_positions

    def _frame(self, t: int) -> np.ndarray:
        r = int(np.searchsorted(self._rows[:, START], t, side="right")) - 1
        row = self._rows[r]
        frame = self._decoded.frame(r, t - int(row[START]), lambda: self._part(row), self._decode)
        return frame.copy()  # the caller's own: changing it cannot touch the cache

    def __iter__(self) -> Iterator[np.ndarray]:
        for row in self._rows:  # parts as stored: reading a version-1 file re-encodes nothing
            yield from self._part_frames(self._part(row))

    def _encode_chunk(self, k: int) -> list[Part]:
        rows = self._rows[self._bounds[k] : self._bounds[k + 1]]
        if not (rows[:, ENCODING] == ZLIB_XOR).any():
            return [self._part(row) for row in rows]
        transcoded = self._transcoded
        if transcoded is None or transcoded[0] != k:
            frames = (frame for row in rows for frame in self._part_frames(self._part(row)))
            transcoded = self._transcoded = (k, encode_chunk(frames, int(rows[0, START])))
        return transcoded[1]

    def _part(self, row: np.ndarray) -> Part:
        start, count, height, width, encoding = (
            int(v) for v in row[[START, COUNT, HEIGHT, WIDTH, ENCODING]]
        )
        payload = self._index.payload(row, f"frame chunk {int(row[CHUNK])}")
        return Part(start, count, height, width, ENCODINGS[encoding], payload)

    def _decode(self, part: Part, stop: int | None = None, last_only: bool = False) -> np.ndarray:
        """Decoding errors name the file and the chunk."""
        try:
            return super()._decode(part, stop, last_only)
        except ValueError as error:
            chunk = part.start // CHUNK_SIZE
            raise self._index.archive.error(f"frame chunk {chunk}: {error}") from None


class StoredArray:
    """A lazily read (n, ...) array of large observations, decoded a chunk at a time.

    Indexing with an int or a slice reads only the chunks involved;
    ``np.asarray(stored)`` reads everything. A chunk's rows are zlib-runs (version 2)
    or zlib-xor (version 1), as its index row says.
    """

    def __init__(self, index: ChunkIndex, spec: Any, what: str) -> None:
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
        if not np.isin(self._rows[:, ENCODING], [ZLIB_XOR, ZLIB_RUNS]).all():
            raise index.archive.error(f"{INDEX}: the {what} rows have unknown encodings")

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
        what = f"{self._what}, chunk {k}"
        payload = self._index.payload(row, what)
        count, encoding = int(row[COUNT]), ENCODINGS[int(row[ENCODING])]
        stop = count if i is None else i + 1
        try:
            rows = decode_rows(payload, encoding, self._row_bytes, count, stop, every=i is None)
        except ValueError as error:
            raise self._index.archive.error(f"{what}: {error}") from None
        values = rows.view(self.dtype)
        if i is None:
            return values.reshape(count, *self.shape[1:])
        return values[0].reshape(self.shape[1:])


class StoredInfos(Sequence[dict[str, Any]]):
    """Per-position info dicts read from the file a chunk at a time (recent chunks cached)."""

    _CACHED_CHUNKS = 64

    def __init__(self, index: ChunkIndex, rows: np.ndarray) -> None:
        self._index, self._rows = index, rows
        self._cache: dict[int, list[dict[str, Any]]] = {}
        self._cache_lock = threading.Lock()  # eviction iterates the cache: no insert meanwhile

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
            with self._cache_lock:
                if k not in self._cache and len(self._cache) >= self._CACHED_CHUNKS:
                    del self._cache[next(iter(self._cache))]
                self._cache[k] = infos
        return infos

    def _decode(self, k: int) -> list[dict[str, Any]]:
        row = self._rows[k]
        what = f"infos of chunk {k}"
        infos = decode_infos(self._index.payload(row, what), int(row[COUNT]))
        if infos is None:
            raise self._index.archive.error(f"{what} are malformed")
        return infos


def decode_infos(payload: bytes, count: int) -> list[dict[str, Any]] | None:
    """A chunk's infos payload (zlib JSON) as ``count`` dicts, inflating at most
    ``count * MAX_INFO_BYTES``; None when it is anything else."""
    try:
        inflater = zlib.decompressobj()
        text = inflater.decompress(payload, count * MAX_INFO_BYTES)
        infos = json.loads(text) if inflater.eof else None
    except (zlib.error, ValueError, RecursionError):  # not JSON, or nested too deep
        return None
    if isinstance(infos, list) and len(infos) == count and all(isinstance(i, dict) for i in infos):
        return infos
    return None
