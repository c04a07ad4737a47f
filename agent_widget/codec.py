"""The chunk codec shared by the file format and the wire.

Frames are grouped in chunks of ``CHUNK_SIZE`` positions (chunk ``k`` holds
positions ``16k .. 16k+15``). A chunk is one or more :class:`Part` s, each a run of
consecutive frames of one size, of at most ``PART_BYTES`` of frames (one frame at
least; see :func:`frames_per_part`). A part's payload is either

- ``"zlib-xor"``: a zlib stream (RFC 1950, what a browser's
  ``DecompressionStream("deflate")`` inflates) of ``d_0 .. d_{n-1}`` with
  ``d_0 = f_0`` and ``d_i = f_i XOR f_{i-1}``. Consecutive RL frames differ in few
  pixels, so the deltas are mostly zeros and deflate to ~180 B per Pong frame; or
- ``"raw"``: the frames' RGB bytes concatenated.

The same payloads are stored in ``.rollout`` files and sent to the browser as they
are, so nothing is decoded or re-encoded on the way. Frame containers are in
:mod:`agent_widget.frames`.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np

CHUNK_SIZE = 16
ENCODINGS = ("zlib-xor", "raw")
# A frame larger than this (~64 MiB, e.g. 4600x4600 RGB) is refused: it guards
# allocations driven by sizes read from untrusted files.
MAX_FRAME_BYTES = 64 * 2**20
ZLIB_LEVEL = 6
# A part holds at most this many bytes of frames (one frame at least). The browser
# inflates a part as far as the frame it shows, so a random 480x480 frame costs at
# most ~2 MiB of inflating instead of half a 16-frame chain (~5.5 MB, 30-40 ms);
# frames up to 1/16 of it (Pong's 100 KB) keep one part per chunk, since each part
# starts over from a whole frame.
PART_BYTES = 2 * 2**20


def chunk_count(positions: int) -> int:
    """How many chunks ``positions`` positions fill (the last one may be partial)."""
    return -(-positions // CHUNK_SIZE)


def frames_per_part(height: int, width: int) -> int:
    """How many consecutive frames of this size one part holds at most.

    Example:
        >>> frames_per_part(210, 160), frames_per_part(480, 480)
        (16, 3)
    """
    return max(1, min(CHUNK_SIZE, PART_BYTES // (height * width * 3)))


class Part(NamedTuple):
    """A run of ``count`` consecutive same-size frames starting at position ``start``."""

    start: int
    count: int  # type: ignore[assignment]  # the contract's name; shadows tuple.count
    height: int
    width: int
    encoding: str
    payload: bytes


def encode_part(frames: np.ndarray, start: int, encoding: str = "zlib-xor") -> Part:
    """Encode ``frames`` (n, H, W, 3) uint8, the frames of positions ``start ..``, as one part."""
    if not isinstance(frames, np.ndarray) or frames.dtype != np.uint8 or frames.ndim != 4:
        raise ValueError("encode_part expects an (n, H, W, 3) uint8 array")
    count, height, width, channels = frames.shape
    if channels != 3 or not 0 < count <= CHUNK_SIZE:
        raise ValueError(f"encode_part expects 1..{CHUNK_SIZE} RGB frames, got {frames.shape}")
    rows = np.ascontiguousarray(frames).reshape(count, -1)
    if encoding == "raw":
        payload = rows.tobytes()
    elif encoding == "zlib-xor":
        payload = deflate_deltas(rows)
    else:
        raise ValueError(f"unknown frame encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
    return Part(start, count, height, width, encoding, payload)


def decode_part(part: Part, stop: int | None = None) -> np.ndarray:
    """Decode the first ``stop`` frames of ``part`` (all by default) as (stop, H, W, 3) uint8.

    Raises ValueError when the payload does not hold what the part's header says.
    """
    stop = part.count if stop is None else stop
    rows = _payload_rows(part, stop)
    if part.encoding == "zlib-xor":
        rows = xor_accumulate(rows)
    return rows.reshape(stop, part.height, part.width, 3)


def decode_frame(part: Part, i: int) -> np.ndarray:
    """Frame ``i`` of ``part`` as (H, W, 3) uint8, inflating the stream no further than it.

    This is what makes random access cheap: on average half a chunk is inflated.
    """
    if not 0 <= i < part.count:
        raise IndexError(f"frame {i} out of range for a part of {part.count} frames")
    rows = _payload_rows(part, i + 1)
    row = xor_reduce(rows) if part.encoding == "zlib-xor" else rows[i]
    return row.reshape(part.height, part.width, 3)


def _payload_rows(part: Part, stop: int) -> np.ndarray:
    """The first ``stop`` rows the payload holds: frames (raw) or deltas (zlib-xor)."""
    count, height, width = part.count, part.height, part.width
    if not (0 < count <= CHUNK_SIZE and height > 0 and width > 0):
        raise ValueError(f"invalid part header: {count} frames of {height}x{width}")
    if height * width * 3 > MAX_FRAME_BYTES:
        raise ValueError(f"invalid part header: {height}x{width} frames are too large")
    if not 0 < stop <= count:
        raise ValueError(f"cannot decode {stop} frames of a part holding {count}")
    row_bytes = height * width * 3
    if part.encoding == "zlib-xor":
        return inflate_deltas(part.payload, row_bytes, count, stop)
    if part.encoding != "raw":
        raise ValueError(f"unknown frame encoding {part.encoding!r}")
    if len(part.payload) != count * row_bytes:
        raise ValueError(f"raw part holds {len(part.payload)} bytes, expected {count * row_bytes}")
    return np.frombuffer(part.payload, np.uint8, stop * row_bytes).reshape(stop, row_bytes)


def deflate_deltas(rows: np.ndarray) -> bytes:
    """Deflate (n, B) uint8 rows as ``row_0, row_1 ^ row_0, ...``, the zlib-xor payload.

    Works for any fixed-size record (frames, image observations): XOR over raw bytes.
    """
    deltas = rows.copy()
    np.bitwise_xor(rows[1:], rows[:-1], out=deltas[1:])
    return zlib.compress(deltas.data, ZLIB_LEVEL)


def inflate_deltas(payload: bytes, row_bytes: int, count: int, stop: int) -> np.ndarray:
    """The first ``stop`` of the ``count`` delta rows in a zlib-xor payload, (stop, B) uint8.

    Inflates no more than needed (and never more than the header promises, which
    defuses zip bombs); a full decode also checks the stream's end and checksum.
    Undo the deltas with :func:`xor_accumulate` or :func:`xor_reduce`.
    """
    wanted = stop * row_bytes
    inflater = zlib.decompressobj()
    try:
        # One byte more than expected reveals a stream longer than its header says.
        data = inflater.decompress(payload, wanted + (stop == count))
    except zlib.error as error:
        raise ValueError(f"corrupt zlib-xor payload: {error}") from None
    if len(data) != wanted or (stop == count and not inflater.eof):
        problem = "longer than" if len(data) > wanted else "cut short of"
        raise ValueError(
            f"corrupt zlib-xor payload: the stream is {problem} {count} rows of {row_bytes} bytes"
        )
    return np.frombuffer(data, np.uint8).reshape(stop, row_bytes)


def xor_accumulate(deltas: np.ndarray) -> np.ndarray:
    """Rows from their (n, B) uint8 deltas: row_i = d_0 ^ ... ^ d_i."""
    rows = _wide(deltas).copy()
    # Row by row: np.bitwise_xor.accumulate along axis 0 is several times slower.
    for i in range(1, len(rows)):
        np.bitwise_xor(rows[i - 1], rows[i], out=rows[i])
    return rows.view(np.uint8)


def xor_reduce(deltas: np.ndarray) -> np.ndarray:
    """The last row only, (B,) uint8: cheaper than accumulating every row."""
    return np.bitwise_xor.reduce(_wide(deltas), axis=0).view(np.uint8)


def _wide(rows: np.ndarray) -> np.ndarray:
    """XOR eight bytes at a time when the row length allows it; same result, fewer operations."""
    return rows.view(np.uint64) if rows.shape[1] % 8 == 0 else rows


class RunEncoder:
    """One part encoded a frame at a time, so that handing it out as it grows costs each
    frame's compression once instead of the whole part's every time.

    A zlib-xor part's stream stays open for the frames to come. :meth:`part` finishes a
    copy of the compressor (``compressobj.copy()``, its ~256 KiB of state): the browser's
    ``DecompressionStream`` refuses a stream that lacks its final block and checksum,
    which a sync flush alone would leave out.
    """

    def __init__(self, start: int, shape: tuple[int, ...], encoding: str) -> None:
        self.start, self.count, self.shape = start, 0, shape
        self._encoding = encoding
        self._compressor = zlib.compressobj(ZLIB_LEVEL) if encoding == "zlib-xor" else None
        self._out: list[bytes] = []
        self._last: np.ndarray | None = None  # the previous frame's bytes, for the next delta

    @property
    def nbytes(self) -> int:
        return sum(map(len, self._out))

    def add(self, frame: np.ndarray) -> None:
        row = frame.reshape(-1)  # a view: frames are C-contiguous (normalize_frame)
        if self._compressor is None:
            self._out.append(row.tobytes())
        else:
            delta = row if self._last is None else np.bitwise_xor(row, self._last)
            self._out.append(self._compressor.compress(delta.data))
            self._last = row
        self.count += 1

    def part(self) -> Part:
        """The part as it stands; more frames may follow."""
        tail = b"" if self._compressor is None else self._compressor.copy().flush()
        return self._part(tail)

    def finish(self) -> Part:
        """The part for good: no frame follows."""
        tail = b"" if self._compressor is None else self._compressor.flush()
        return self._part(tail)

    def _part(self, tail: bytes) -> Part:
        height, width = self.shape[:2]
        payload = b"".join([*self._out, tail])
        return Part(self.start, self.count, height, width, self._encoding, payload)
