"""Frame validation and the chunk codec shared by the file format and the wire.

Frames are grouped in chunks of ``CHUNK_SIZE`` positions (chunk ``k`` holds
positions ``16k .. 16k+15``). A chunk is one or more :class:`Part` s, each a run of
consecutive frames of one size. A part's payload is either

- ``"zlib-xor"``: a zlib stream (RFC 1950, what a browser's
  ``DecompressionStream("deflate")`` inflates) of ``d_0 .. d_{n-1}`` with
  ``d_0 = f_0`` and ``d_i = f_i XOR f_{i-1}``. Consecutive RL frames differ in few
  pixels, so the deltas are mostly zeros and deflate to ~180 B per Pong frame; or
- ``"raw"``: the frames' RGB bytes concatenated.

The same payloads are stored in ``.rollout`` files and sent to the browser as they
are, so nothing is decoded or re-encoded on the way.
"""

from __future__ import annotations

import operator
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

CHUNK_SIZE = 16
ENCODINGS = ("zlib-xor", "raw")
# A frame larger than this (~64 MiB, e.g. 4600x4600 RGB) is refused: it guards
# allocations driven by sizes read from untrusted files.
MAX_FRAME_BYTES = 64 * 2**20
_ZLIB_LEVEL = 6


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


def normalize_frame(frame: Any, t: int) -> np.ndarray:
    """Return ``frame`` as a C-contiguous HxWx3 uint8 array, or raise ValueError naming step ``t``.

    Accepted: uint8 HxWx3 (returned without a copy when already contiguous), grayscale
    HxW or HxWx1, HxWx4 (alpha dropped), floats in [0, 1] (scaled by 255 and rounded)
    and integers in [0, 255].

    Example:
        >>> normalize_frame(np.zeros((2, 3)), t=0).shape
        (2, 3, 3)
    """
    array = np.asarray(frame)
    where = f"frame at step {t}"
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    elif array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ValueError(
            f"{where}: expected an HxWx3 RGB, HxWx4 RGBA or HxW grayscale image, "
            f"got shape {array.shape}"
        )
    array = array[:, :, :3]
    height, width = array.shape[:2]
    if height == 0 or width == 0:
        raise ValueError(f"{where}: the image is empty (shape {array.shape})")
    if height * width * 3 > MAX_FRAME_BYTES:
        raise ValueError(
            f"{where}: {height}x{width} is too large (at most {MAX_FRAME_BYTES} bytes)"
        )
    return np.ascontiguousarray(_to_uint8(array, where))


def _to_uint8(array: np.ndarray, where: str) -> np.ndarray:
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f":
        if not np.isfinite(array).all():
            raise ValueError(f"{where}: contains NaN or infinite values")
        low, high = float(array.min()), float(array.max())
        if low < 0.0 or high > 1.0:
            raise ValueError(
                f"{where}: float images must lie in [0, 1], got values in [{low:g}, {high:g}]"
            )
        return np.rint(array * 255.0).astype(np.uint8)
    if array.dtype.kind in "iu":
        low, high = int(array.min()), int(array.max())
        if low < 0 or high > 255:
            raise ValueError(
                f"{where}: integer images must lie in [0, 255], got values in [{low}, {high}]"
            )
        return array.astype(np.uint8)
    raise ValueError(f"{where}: unsupported dtype {array.dtype} (use uint8 or float in [0, 1])")


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
    return zlib.compress(deltas.data, _ZLIB_LEVEL)


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


def position(index: Any, length: int, what: str) -> int:
    """``index`` (negative counts from the end) as a position in 0..length-1, else IndexError."""
    t = operator.index(index)
    if not -length <= t < length:
        raise IndexError(f"index {index} out of range for {length} {what}")
    return t % length


class Frames(ABC):
    """A sequence of HxWx3 uint8 frames that also hands out its encoded chunks."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _frame(self, t: int) -> np.ndarray:
        """Frame ``t``, with ``0 <= t < len(self)`` already checked."""

    @abstractmethod
    def _encode_chunk(self, k: int) -> list[Part]:
        """The parts of chunk ``k``, with ``0 <= k < num_chunks`` already checked."""

    def __getitem__(self, t: int) -> np.ndarray:
        return self._frame(position(t, len(self), "frames"))

    def __iter__(self) -> Iterator[np.ndarray]:
        for k in range(self.num_chunks):
            for part in self.chunk(k):
                yield from self._decode(part)

    def _decode(self, part: Part, stop: int | None = None) -> np.ndarray:
        """:func:`decode_part`; subclasses may say more about where a failure comes from."""
        return decode_part(part, stop)

    @property
    def num_chunks(self) -> int:
        return chunk_count(len(self))

    def chunk(self, k: int) -> list[Part]:
        """The encoded parts of chunk ``k`` (positions ``16k .. 16k+15``)."""
        k = operator.index(k)
        if not 0 <= k < self.num_chunks:
            raise IndexError(f"chunk {k} out of range for {self.num_chunks} chunks")
        return self._encode_chunk(k)


class ArrayFrames(Frames):
    """Frames held in memory, validated on entry and encoded once per chunk.

    Args:
        frames: a 4-D array (n, H, W, C) or a sequence of images, each accepted by
            :func:`normalize_frame`. uint8 RGB input is kept without a copy: do not
            modify it afterwards.
        allow_resize: accept frames whose size changes mid-episode (each run of one
            size becomes its own part).
        encoding: how chunks are encoded, ``"zlib-xor"`` or ``"raw"``.

    Example:
        >>> frames = ArrayFrames(np.zeros((20, 4, 6, 3), np.uint8))
        >>> len(frames), frames.num_chunks, frames[-1].shape
        (20, 2, (4, 6, 3))
    """

    def __init__(
        self,
        frames: Sequence[Any] | np.ndarray = (),
        *,
        allow_resize: bool = False,
        encoding: str = "zlib-xor",
    ) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown frame encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        self.allow_resize = allow_resize
        self.encoding = encoding
        self._frames: list[np.ndarray] = []
        self._chunks: dict[int, list[Part]] = {}
        for frame in frames:
            self.append(frame)

    def append(self, frame: Any) -> None:
        """Add the frame of the next position (live growth while recording or viewing)."""
        t = len(self._frames)
        array = normalize_frame(frame, t)
        if self._frames and not self.allow_resize and array.shape != self._frames[0].shape:
            raise ValueError(
                f"frame at step {t}: size changed from {self._frames[0].shape[:2]} to "
                f"{array.shape[:2]}; pass allow_resize=True to accept frames of varying size"
            )
        array.flags.writeable = False
        self._frames.append(array)
        self._chunks.pop(t // CHUNK_SIZE, None)

    def __len__(self) -> int:
        return len(self._frames)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._frames)

    def _frame(self, t: int) -> np.ndarray:
        return self._frames[t]

    def _encode_chunk(self, k: int) -> list[Part]:
        parts = self._chunks.get(k)
        if parts is None:
            parts = self._chunks[k] = self._encode_runs(k * CHUNK_SIZE)
        return parts

    def _encode_runs(self, start: int) -> list[Part]:
        frames = self._frames[start : start + CHUNK_SIZE]
        parts = []
        run = 0
        for i in range(1, len(frames) + 1):
            if i == len(frames) or frames[i].shape != frames[run].shape:
                parts.append(encode_part(np.stack(frames[run:i]), start + run, self.encoding))
                run = i
        return parts
