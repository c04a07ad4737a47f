"""``chunks.index.npy``: where each payload of ``chunks.bin`` lies and what it holds.

The index is an int64 table, one row per payload, with the columns in
:data:`COLUMNS`. Rows belong to streams: :data:`FRAMES`, :data:`INFOS`, and
``OBSERVATIONS + i`` for the i-th large observation entry. Payload encodings are
numbered by their place in :data:`ENCODINGS`. :mod:`agent_widget.format._writer` writes the
table; :class:`ChunkIndex` reads it back and checks it before anything trusts it.
"""

from __future__ import annotations

import zipfile
import zlib
from typing import Any

import numpy as np

from agent_widget.format._archive import Archive
from agent_widget.format._codec import CHUNK_SIZE, chunk_count

INDEX, BLOB = "chunks.index.npy", "chunks.bin"
COLUMNS = (
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
STREAM, CHUNK, START, COUNT, HEIGHT, WIDTH, ENCODING, OFFSET, LENGTH, CRC = range(len(COLUMNS))
# Appended to, never reordered: a file's numbers keep their meaning.
ENCODINGS = ("raw", "zlib-xor", "zlib-json", "zlib-runs")
RAW, ZLIB_XOR, ZLIB_JSON, ZLIB_RUNS = range(len(ENCODINGS))
FRAMES, INFOS, OBSERVATIONS = 0, 1, 2


class ChunkIndex:
    """chunks.index.npy and the bytes of chunks.bin it points into."""

    def __init__(self, archive: Archive, table: np.ndarray, n: int, recorded: int = 0) -> None:
        """``table``: the index's rows; ``recorded``: for a file whose recording stopped
        before its end (no directory, chunks.bin's size unknown), the bytes its journal
        covers."""
        if table.dtype != np.int64 or table.ndim != 2 or table.shape[1] != len(COLUMNS):
            raise archive.error(f"{INDEX} has shape {table.shape}, dtype {table.dtype}")
        self.archive, self.path, self.num_positions, self.table = archive, archive.path, n, table
        blob = archive.members.get(BLOB)
        if blob is None or blob.method != zipfile.ZIP_STORED:
            raise archive.error(f"{BLOB} is missing or compressed")
        self.start = archive.data_start(blob)
        self.size = recorded or blob.size
        # A truncated file holds only part of the blob; the rest raises when read.
        self.available = min(self.size, archive.source.size - self.start)

    @classmethod
    def read(cls, archive: Archive, chunks: dict[str, Any], n: int) -> ChunkIndex:
        """The index meta.json's ``chunks`` entry describes."""
        if chunks.get("columns") != list(COLUMNS) or chunks.get("chunk_size") != CHUNK_SIZE:
            raise archive.error("meta.json: unsupported chunk index layout")
        return cls(archive, archive.npy({"member": INDEX}, "the chunk index", None), n)

    def rows(self, stream: int, what: str) -> np.ndarray:
        """The rows of one stream, checked to tile positions 0..n-1 and to lie in the blob."""
        rows = self.table[self.table[:, STREAM] == stream]
        starts, counts, chunks = rows[:, START], rows[:, COUNT], rows[:, CHUNK]
        offsets, lengths, crcs = rows[:, OFFSET], rows[:, LENGTH], rows[:, CRC]
        # Counts are checked in the same expression as the sums: an overflowed sum fails there.
        bounds = np.concatenate([[0], starts + counts])
        tiles = np.array_equal(starts, bounds[:-1]) and bounds[-1] == self.num_positions
        in_chunks = (counts >= 1) & (counts <= CHUNK_SIZE) & (chunks == starts // CHUNK_SIZE)
        in_chunks &= chunks == (starts + counts - 1) // CHUNK_SIZE
        in_blob = (offsets >= 0) & (offsets <= self.size) & (lengths >= 0)
        in_blob &= (lengths <= self.size - offsets) & (crcs >= 0) & (crcs < 2**32)
        if not (tiles and in_chunks.all() and in_blob.all()):
            raise self.archive.error(f"{INDEX}: the {what} rows are inconsistent")
        return rows

    def one_row_per_chunk(self, stream: int, what: str) -> np.ndarray:
        """Rows of a stream whose chunks are never split (observations, infos): row k is chunk k."""
        rows = self.rows(stream, what)
        if len(rows) != chunk_count(self.num_positions):
            raise self.archive.error(f"{INDEX}: the {what} rows are inconsistent")
        return rows

    def payload(self, row: np.ndarray, what: str) -> bytes:
        """The payload ``row`` points to, checked against its CRC; ``what`` names it in errors."""
        offset, length = int(row[OFFSET]), int(row[LENGTH])
        if offset + length > self.available:
            raise self.archive.error(f"{what} is lost (the file is truncated)")
        data = self.archive.source.read(self.start + offset, length)
        if zlib.crc32(data) != row[CRC]:
            raise self.archive.error(f"{what} is corrupted (CRC mismatch)")
        return data
