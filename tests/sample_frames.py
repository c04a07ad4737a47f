"""Small synthetic frames shared by the tests, and files as version 1 wrote them."""

import io
import json
import math
import zipfile
import zlib

import numpy as np

from agent_widget.format._chunk_index import (
    COUNT,
    ENCODING,
    FRAMES,
    HEIGHT,
    LENGTH,
    OFFSET,
    STREAM,
    WIDTH,
    ZLIB_RUNS,
    ZLIB_XOR,
)
from agent_widget.format._codec import ZLIB_LEVEL, decode_rows


def moving_frames(n, height=6, width=8):
    """Frames where a bright pixel walks across a fixed noisy background."""
    background = np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8)
    frames = np.repeat(background[None], n, axis=0)
    for t in range(n):
        frames[t, t % height, t % width] = 255
    return frames


def random_frames(n, height=6, width=5, seed=0):
    """Frames of uniform noise, each one different: chunks of them barely compress."""
    return np.random.default_rng(seed).integers(0, 256, (n, height, width, 3), np.uint8)


def changing_frames(n, height=6, width=8):
    """Frames whose every byte changes from one to the next, as when a camera moves: each
    change is one run of the whole frame, ``12 + H*W*3`` bytes inflated."""
    background = moving_frames(1, height, width)
    return background + np.arange(n, dtype=np.uint8)[:, None, None, None]


def deflate_deltas(rows):
    """(n, B) uint8 rows as version 1 wrote frames and observations: zlib-xor, a zlib
    stream of ``row_0, row_1 ^ row_0, ...``."""
    deltas = rows.copy()
    np.bitwise_xor(rows[1:], rows[:-1], out=deltas[1:])
    return zlib.compress(deltas.data, ZLIB_LEVEL)


def as_version_1(path):
    """Rewrite the .rollout file at ``path`` as version 1 wrote it: frame parts and
    large observations as zlib-xor.

    Everything else keeps its bytes; chunks.bin keeps its order and stores equal
    payloads once, as the writer does.
    """
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    meta = json.loads(members["meta.json"])
    table = np.load(io.BytesIO(members["chunks.index.npy"]))
    blob = members["chunks.bin"]
    row_bytes = observation_row_bytes(meta)
    offsets: dict[bytes, int] = {}
    for row in table:
        payload = blob[row[OFFSET] : row[OFFSET] + row[LENGTH]]
        if row[ENCODING] == ZLIB_RUNS:
            count = int(row[COUNT])
            size = row[HEIGHT] * row[WIDTH] * 3 if row[STREAM] == FRAMES else row_bytes[row[STREAM]]
            rows = decode_rows(payload, "zlib-runs", int(size), count, count)
            payload = deflate_deltas(rows)
            row[ENCODING] = ZLIB_XOR
        offset = offsets.setdefault(payload, sum(map(len, offsets)))
        row[OFFSET:] = offset, len(payload), zlib.crc32(payload)
    meta["version"] = 1
    meta["chunks"]["encodings"] = ["raw", "zlib-xor", "zlib-json"]
    index = io.BytesIO()
    np.save(index, table)
    members.update(
        {
            "meta.json": json.dumps(meta, indent=1).encode(),
            "chunks.index.npy": index.getvalue(),
            "chunks.bin": b"".join(offsets),
        }
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    return path


def observation_row_bytes(meta):
    """Bytes per position of each chunked observation stream, by stream number."""
    entries = (meta["observations"] or {"entries": {}})["entries"].values()
    return {
        entry["stream"]: np.dtype(entry["dtype"]).itemsize * math.prod(entry["shape"][1:])
        for entry in entries
        if "stream" in entry
    }
