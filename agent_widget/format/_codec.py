"""The chunk codec shared by the file format and the wire.

Frames are grouped in chunks of ``CHUNK_SIZE`` positions (chunk ``k`` holds
positions ``16k .. 16k+15``). A chunk is one or more :class:`Part` s, each a run of
consecutive frames of one size (where a chunk is cut into parts is the encoder's
choice, :mod:`agent_widget.format._frames`; readers take any tiling). A part of ``n`` frames
of ``B = H*W*3`` bytes has one of these payloads:

- ``"zlib-runs"``: a zlib stream (RFC 1950, what a browser's
  ``DecompressionStream("deflate")`` inflates) of the first frame's ``B`` bytes, then
  for each next frame the bytes that changed since the frame before: a u32 run
  count ``m``, ``m`` u32 pairs ``(skip, length)`` (a run starts ``skip`` bytes after
  the end of the one before, the first after offset 0) and the runs' new bytes, all
  little-endian. Consecutive RL frames differ in few bytes. Zlib over XOR deltas
  (below) spent most of its bytes, and most of the inflating, on the deltas' long
  zero stretches; coding only the changed bytes makes parts 2.5-3x smaller (384
  random-policy frames: Pong 181 -> 56 B per frame, Breakout 155 -> 61) and a frame
  costs inflating about one frame's bytes, not every frame before it in the part
  (a random Pong frame decodes in 0.25 ms instead of 1.5 ms in Python);
- ``"zlib-xor"`` (version-1 files, read only): a zlib stream of ``d_0 .. d_{n-1}``
  with ``d_0 = f_0`` and ``d_i = f_i XOR f_{i-1}``;
- ``"raw"``: the frames' RGB bytes concatenated.

The payloads are made of rows of ``B`` bytes, whatever they hold: the row coder
(:class:`RunEncoder`, :func:`decode_rows`) also encodes a ``.rollout`` file's large
observations, records of any dtype, so an observation that is the frame (Pong's)
has the frame's payload, stored once. The same payloads are stored in ``.rollout``
files and sent to the browser as they are, so nothing is decoded or re-encoded on
the way (except version-1 zlib-xor parts, re-encoded when handed out by
:mod:`agent_widget.format._lazy_columns`). Frame containers are in
:mod:`agent_widget.format._frames` and :mod:`agent_widget.format._array_frames`; the
zlib-runs records are made and read back, within bounds, in
:mod:`agent_widget.format._zlib_runs`.
"""

from __future__ import annotations

import copy
import zlib
from typing import NamedTuple

import numpy as np

from agent_widget.format._zlib_runs import inflate_runs, runs_of

CHUNK_SIZE = 16
ENCODINGS = ("zlib-runs", "raw")  # what RunEncoder produces; decode_rows reads zlib-xor too
# A frame larger than this (~64 MiB, e.g. 4600x4600 RGB) is refused: it guards
# allocations driven by sizes read from untrusted files.
MAX_FRAME_BYTES = 64 * 2**20
ZLIB_LEVEL = 6
# The most deflate inflates a byte to (1032:1, for long runs of one byte), with room for
# a stream's header on tiny payloads.
_ZLIB_RATIO = 1100


def chunk_count(positions: int) -> int:
    """How many chunks ``positions`` positions fill (the last one may be partial)."""
    return -(-positions // CHUNK_SIZE)


class Part(NamedTuple):
    """A run of ``count`` consecutive same-size frames starting at position ``start``."""

    start: int
    count: int  # type: ignore[assignment]  # the contract's name; shadows tuple.count
    height: int
    width: int
    encoding: str
    payload: bytes


def encode_part(frames: np.ndarray, start: int, encoding: str = "zlib-runs") -> Part:
    """Encode ``frames`` (n, H, W, 3) uint8, the frames of positions ``start ..``, as one part.

    One part however large; :func:`agent_widget.format._array_frames.encode_chunk` cuts a chunk into
    parts as the viewer and the file hold them.
    """
    if not isinstance(frames, np.ndarray) or frames.dtype != np.uint8 or frames.ndim != 4:
        raise ValueError("encode_part expects an (n, H, W, 3) uint8 array")
    count, height, width, channels = frames.shape
    if channels != 3 or not 0 < count <= CHUNK_SIZE:
        raise ValueError(f"encode_part expects 1..{CHUNK_SIZE} RGB frames, got {frames.shape}")
    payload = encode_rows(np.ascontiguousarray(frames).reshape(count, -1), encoding)
    return Part(start, count, height, width, encoding, payload)


def decode_part(part: Part, stop: int | None = None) -> np.ndarray:
    """Decode the first ``stop`` frames of ``part`` (all by default) as (stop, H, W, 3) uint8.

    Raises ValueError when the payload does not hold what the part's header says.
    """
    stop = part.count if stop is None else stop
    rows = _rows(part, stop, every=True)
    return rows.reshape(stop, part.height, part.width, 3)


def decode_frame(part: Part, i: int) -> np.ndarray:
    """Frame ``i`` of ``part`` as (H, W, 3) uint8, inflating the stream little further than it.

    This is what makes random access cheap: a zlib-runs part inflates its first frame
    and the changes up to frame ``i``, a small part of the frames' bytes.
    """
    if not 0 <= i < part.count:
        raise IndexError(f"frame {i} out of range for a part of {part.count} frames")
    return _rows(part, i + 1, every=False)[-1].reshape(part.height, part.width, 3)


def _rows(part: Part, stop: int, every: bool) -> np.ndarray:
    """The first ``stop`` frames as (stop, B) rows, or only the last, (1, B), unless ``every``."""
    count, height, width = part.count, part.height, part.width
    missing = height == width == 0 and part.encoding == "raw"  # frames that were not there
    if not (0 < count <= CHUNK_SIZE and ((height > 0 and width > 0) or missing)):
        raise ValueError(f"invalid part header: {count} frames of {height}x{width}")
    if height * width * 3 > MAX_FRAME_BYTES:
        raise ValueError(f"invalid part header: {height}x{width} frames are too large")
    if not 0 < stop <= count:
        raise ValueError(f"cannot decode {stop} frames of a part holding {count}")
    return decode_rows(part.payload, part.encoding, height * width * 3, count, stop, every)


def decode_rows(
    payload: bytes, encoding: str, row_bytes: int, count: int, stop: int, every: bool = True
) -> np.ndarray:
    """The first ``stop`` of the ``count`` rows of ``row_bytes`` bytes a payload holds, as
    (stop, B) uint8, or only the last of them, (1, B), unless ``every``.

    Frames (their RGB bytes) and large observations (their records) alike; ``encoding``
    is any of :data:`ENCODINGS` or ``"zlib-xor"``. Raises ValueError when the payload
    does not hold what the caller says.
    """
    if encoding in ("zlib-runs", "zlib-xor") and row_bytes > _ZLIB_RATIO * len(payload):
        # Checked before allocating for the rows: a header cannot claim more than its
        # payload can possibly inflate to.
        raise ValueError(
            f"a payload of {len(payload)} bytes cannot hold a frame of {row_bytes} bytes"
        )
    if encoding == "zlib-runs":
        return inflate_runs(payload, row_bytes, count, stop, every)
    if encoding == "zlib-xor":
        deltas = inflate_deltas(payload, row_bytes, count, stop)
        return xor_accumulate(deltas) if every else xor_reduce(deltas)[None]
    if encoding != "raw":
        raise ValueError(f"unknown encoding {encoding!r}")
    if len(payload) != count * row_bytes:
        raise ValueError(f"raw payload holds {len(payload)} bytes, expected {count * row_bytes}")
    rows = np.frombuffer(payload, np.uint8, stop * row_bytes).reshape(stop, row_bytes)
    return rows if every else rows[-1:]


# --------------------------------------------------------------------------- zlib-xor


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


# --------------------------------------------------------------------------- encoding


class RunEncoder:
    """Rows of one size (a frame's RGB bytes, an observation's record) encoded one at a
    time as one payload, so that handing it out as it grows costs each row's encoding
    once instead of the whole payload's every time.

    A zlib-runs stream stays open for the rows to come. :meth:`payload` finishes a copy
    of the compressor (``compressobj.copy()``, its ~256 KiB of state): the browser's
    ``DecompressionStream`` refuses a stream that lacks its final block and checksum,
    which a sync flush alone would leave out.

    Examples:
        >>> encoder = RunEncoder()
        >>> encoder.add(np.zeros(300, np.uint8)), encoder.add(np.ones(300, np.uint8), limit=600)
        (True, False)
        >>> encoder.count, encoder.inflated
        (1, 300)
    """

    def __init__(self, encoding: str = "zlib-runs") -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown frame encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        self.encoding = encoding
        self.count = 0
        self.inflated = 0  # bytes the payload inflates to (raw: its size)
        self._compressor = zlib.compressobj(ZLIB_LEVEL) if encoding == "zlib-runs" else None
        self._out: list[bytes] = []
        self._last: np.ndarray | None = None  # the previous row, for the next runs

    @property
    def nbytes(self) -> int:
        """Bytes of payload produced so far."""
        return sum(map(len, self._out))

    def add(self, row: np.ndarray, limit: int | None = None) -> bool:
        """Add ``row`` (B,) uint8, unless it would take :attr:`inflated` past ``limit``
        bytes (the first row is always added); return whether it was added.

        What a row costs is its runs against the row before, known once they are
        computed: checking and adding in one call computes them once.
        """
        last = self._last  # None: the first row, or a raw payload's
        record = row.data if last is None else runs_of(last, row)
        size = memoryview(record).nbytes
        if limit is not None and self.count and self.inflated + size > limit:
            return False
        if self._compressor is None:
            self._out.append(row.tobytes())
        else:
            self._out.append(self._compressor.compress(record))
            self._last = row
        self.count += 1
        self.inflated += size
        return True

    def copy(self) -> RunEncoder:
        """An encoder of the same rows, to add different rows to (the payload so far is shared)."""
        other = copy.copy(self)
        other._out = list(self._out)
        if self._compressor is not None:
            other._compressor = self._compressor.copy()
        return other

    def payload(self) -> bytes:
        """The payload as it stands; more rows may follow."""
        tail = b"" if self._compressor is None else self._compressor.copy().flush()
        return b"".join([*self._out, tail])

    def finish(self) -> bytes:
        """The payload for good: no row follows."""
        tail = b"" if self._compressor is None else self._compressor.flush()
        return b"".join([*self._out, tail])


def encode_rows(rows: np.ndarray, encoding: str = "zlib-runs") -> bytes:
    """(n, B) uint8 rows, C-contiguous, as one payload: frames or observation records.

    Examples:
        >>> rows = np.zeros((3, 1000), np.uint8)
        >>> len(zlib.decompress(encode_rows(rows)))  # the first row, then 4 bytes a row
        1008
    """
    encoder = RunEncoder(encoding)
    for row in rows:
        encoder.add(row)
    return encoder.finish()
