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
:mod:`agent_widget.format._frames` and :mod:`agent_widget.format._array_frames`.
"""

from __future__ import annotations

import copy
import zlib
from typing import NamedTuple

import numpy as np

CHUNK_SIZE = 16
ENCODINGS = ("zlib-runs", "raw")  # what RunEncoder produces; decode_rows reads zlib-xor too
# A frame larger than this (~64 MiB, e.g. 4600x4600 RGB) is refused: it guards
# allocations driven by sizes read from untrusted files.
MAX_FRAME_BYTES = 64 * 2**20
ZLIB_LEVEL = 6
# Changed bytes at most this many unchanged bytes apart are sent as one run: the
# unchanged bytes cost less than another run's 8-byte header.
GAP = 8
# The most deflate inflates a byte to (1032:1, for long runs of one byte), with room for
# a stream's header on tiny payloads.
_ZLIB_RATIO = 1100
# Frames of more runs than this are patched with one index array, the others run by run.
_FEW_RUNS = 32
# Runs applied at once, and the most bytes of them patched through one index array (an
# int64 per byte): bounds the memory a frame of many runs takes on top of the frame.
_RUN_BATCH = 2**16
_INDEXED_BYTES = 2**20


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


# --------------------------------------------------------------------------- zlib-runs


def runs_of(previous: np.ndarray, row: np.ndarray) -> bytes:
    """The change from ``previous`` to ``row`` (B,) uint8 as a zlib-runs record, uncompressed.

    Runs are the changed bytes, two of them merged when at most :data:`GAP` unchanged
    bytes lie between.
    """
    changed = np.flatnonzero(previous != row)
    if changed.size == 0:
        return bytes(4)
    cuts = np.flatnonzero(np.diff(changed) > GAP + 1)  # more than GAP unchanged bytes between
    starts = changed[np.concatenate([[0], cuts + 1])]
    ends = changed[np.concatenate([cuts, [-1]])] + 1
    header = np.empty(1 + 2 * len(starts), "<u4")
    header[0] = len(starts)
    header[1::2] = starts - np.concatenate([[0], ends[:-1]])
    header[2::2] = ends - starts
    return header.tobytes() + row[_run_indices(starts, ends - starts)].tobytes()


def _run_indices(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The offsets the runs cover, in order, to gather or scatter all their bytes at once."""
    before = np.cumsum(lengths) - lengths  # where each run's bytes begin among all runs' bytes
    return np.repeat(starts - before, lengths) + np.arange(int(lengths.sum()))


def inflate_runs(
    payload: bytes, row_bytes: int, count: int, stop: int, every: bool = True
) -> np.ndarray:
    """The first ``stop`` of the ``count`` frames of a zlib-runs payload as (stop, B) uint8 rows
    (or only the last of them, (1, B), unless ``every``).

    Inflates little past frame ``stop - 1`` (64 KiB at most), and never more than
    ``count`` frames can take (:func:`runs_bound`), which defuses zip bombs; a full
    decode also checks the stream's end and checksum. Every run is checked to lie
    within the frame.
    """
    stream = _Inflater(payload, runs_bound(row_bytes, count))
    rows = np.empty((stop if every else 1, row_bytes), np.uint8)
    rows[0] = np.frombuffer(stream.read(row_bytes, "frame 0"), np.uint8)
    for i in range(1, stop):
        if every:
            rows[i] = rows[i - 1]
        _apply_runs(stream, rows[i if every else 0], i)
    if stop == count:
        stream.end(f"{count} frames of {row_bytes} bytes")
    return rows


def runs_bound(row_bytes: int, count: int) -> int:
    """The most a valid zlib-runs stream of ``count`` frames inflates to, in bytes.

    The first frame, then for each next one a run count, one run header and twice the
    frame's bytes. Runs merged across gaps of at most :data:`GAP` bytes take at most
    ``12 + B`` bytes a frame, so this leaves room; ``4 + 2B`` would refuse a changed
    frame of one or two pixels. The browser's decoder checks the same bound.
    """
    return row_bytes + (count - 1) * (12 + 2 * row_bytes)


def _apply_runs(stream: _Inflater, row: np.ndarray, i: int) -> None:
    """Read frame ``i``'s runs from ``stream`` and write their bytes into ``row`` in place.

    A frame's record is at most ``12 + 2B`` bytes (:func:`runs_bound`), so it holds at
    most ``(2B + 8) // 9`` runs (8 bytes of header and a byte each): checked before
    reading them, so a crafted count cannot claim the whole part's budget for one
    frame. The runs are applied in batches, so the arrays built per run or per byte
    stay small whatever the frame's size.
    """
    row_bytes = len(row)
    runs = int.from_bytes(stream.read(4, f"frame {i}'s run count"), "little")
    if runs > (2 * row_bytes + 8) // 9:
        raise ValueError(
            f"corrupt zlib-runs payload: frame {i} has {runs} runs in {row_bytes} bytes"
        )
    pairs = np.frombuffer(stream.read(8 * runs, f"frame {i}'s runs"), "<u4").reshape(runs, 2)
    end = 0  # where the run before ended
    for first in range(0, runs, _RUN_BATCH):
        batch = pairs[first : first + _RUN_BATCH].astype(np.int64)
        skips, lengths = batch[:, 0], batch[:, 1]
        ends = end + np.cumsum(skips + lengths)
        if lengths.min() < 1 or ends[-1] > row_bytes:
            raise ValueError(
                f"corrupt zlib-runs payload: frame {i}'s runs are empty or leave its "
                f"{row_bytes} bytes"
            )
        size = int(lengths.sum())
        data = np.frombuffer(stream.read(size, f"frame {i}'s run bytes"), np.uint8)
        starts = ends - lengths
        if len(lengths) > _FEW_RUNS and size <= _INDEXED_BYTES:
            row[_run_indices(starts, lengths)] = data
        else:
            # Few runs, or long ones (a frame that changes everywhere is one long run):
            # copying slices spares building an index per byte.
            at = 0
            for start, stop in zip(starts.tolist(), ends.tolist(), strict=True):
                row[start:stop] = data[at : at + stop - start]
                at += stop - start
        end = int(ends[-1])


class _Inflater:
    """Exact byte counts read from a zlib stream, never inflating past ``limit`` bytes in all.

    Both ways it goes :data:`_STEP` bytes at a time: it inflates that much ahead, so a
    frame's small reads cost no call, and feeds the payload in slices that long, since
    each call copies the input it leaves (a whole 1.6 MB payload, every call, cost more
    than inflating it).
    """

    _STEP = 2**16

    def __init__(self, payload: bytes, limit: int) -> None:
        self._inflater = zlib.decompressobj()
        self._payload, self._fed = memoryview(payload), 0
        self._input: bytes | memoryview = b""  # fed, not inflated yet
        self._limit, self._inflated = limit, 0  # bytes inflated so far, read or not
        self._buffer, self._at = b"", 0  # bytes inflated not read yet start at _at

    def read(self, size: int, what: str) -> memoryview:
        """The next ``size`` bytes, as a view: a frame's bytes are not copied again."""
        end = self._at + size
        if end > len(self._buffer):
            if self._inflated - len(self._buffer) + end > self._limit:
                raise ValueError(
                    f"corrupt zlib-runs payload: {what} would inflate it past {self._limit} "
                    "bytes, the most its frames can take"
                )
            wanted = max(end - len(self._buffer), self._STEP)
            more = self._inflate(min(wanted, self._limit - self._inflated))
            left = self._buffer[self._at :]
            self._buffer, self._at, end = (left + more if left else more), 0, size
            if end > len(self._buffer):
                raise ValueError(f"corrupt zlib-runs payload: the stream ends inside {what}")
        data = memoryview(self._buffer)[self._at : end]
        self._at = end
        return data

    def end(self, what: str) -> None:
        """Check that the stream ends here, checksum included, and nothing follows it."""
        # One byte more than expected reveals a stream longer than its header says.
        if self._at < len(self._buffer) or self._inflate(1):
            raise ValueError(f"corrupt zlib-runs payload: the stream is longer than {what}")
        if not self._inflater.eof:
            raise ValueError("corrupt zlib-runs payload: the stream is cut short before its end")
        if self._inflater.unused_data or self._fed < len(self._payload):
            raise ValueError("corrupt zlib-runs payload: bytes follow the end of the stream")

    def _inflate(self, most: int) -> bytes:
        """Up to ``most`` more bytes; fewer only where the stream ends or is cut short."""
        pieces = []
        while most > 0 and not self._inflater.eof:
            if not self._input:
                if self._fed == len(self._payload):
                    break
                self._input = self._payload[self._fed : self._fed + self._STEP]
                self._fed += len(self._input)
            try:
                data = self._inflater.decompress(self._input, most)
            except zlib.error as error:
                raise ValueError(f"corrupt zlib-runs payload: {error}") from None
            # Each call inflates ``most`` bytes or uses up its input.
            self._input = self._inflater.unconsumed_tail
            pieces.append(data)
            most -= len(data)
        self._inflated += sum(map(len, pieces))
        return b"".join(pieces)


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
