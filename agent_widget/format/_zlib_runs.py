"""The ``"zlib-runs"`` payload's records: the bytes that changed from one row to the next.

A row (a frame's RGB bytes, an observation's record) after the first is coded as the
runs of bytes that changed since the row before (:func:`runs_of`, what
:class:`~agent_widget.format._codec.RunEncoder` compresses), and read back by
:func:`inflate_runs`. The layout is :mod:`agent_widget.format._codec`'s to describe;
this module is the one place that makes and reads it. Reading is most of it: a
payload may come from an untrusted file, so it inflates no more than a part's frames
can take (:func:`runs_bound`, which the browser's decoder checks too), checks every run
against the row, and patches rows in batches whose memory stays bounded.
"""

from __future__ import annotations

import zlib

import numpy as np

# Changed bytes at most this many unchanged bytes apart are sent as one run: the
# unchanged bytes cost less than another run's 8-byte header.
GAP = 8
# Frames of more runs than this are patched with one index array, the others run by run.
_FEW_RUNS = 32
# Runs applied at once, and the most bytes of them patched through one index array (an
# int64 per byte): bounds the memory a frame of many runs takes on top of the frame.
_RUN_BATCH = 2**16
_INDEXED_BYTES = 2**20


def runs_of(previous: np.ndarray, row: np.ndarray) -> bytes:
    """The change from ``previous`` to ``row`` (B,) uint8 as a zlib-runs record, uncompressed.

    Runs are the changed bytes, two of them merged when at most :data:`GAP` unchanged
    bytes lie between.
    """
    firsts, lasts = _changed_spans(previous, row)
    if firsts.size == 0:
        return bytes(4)
    # Where runs end: between spans more than GAP unchanged bytes apart, and at the last.
    cut = np.empty(len(firsts) + 1, bool)
    cut[0] = cut[-1] = True
    np.greater(firsts[1:] - lasts[:-1], GAP + 1, out=cut[1:-1])
    starts, ends = firsts[cut[:-1]], lasts[cut[1:]] + 1
    header = np.empty(1 + 2 * len(starts), "<u4")
    header[0] = len(starts)
    header[1] = starts[0]
    header[3::2] = starts[1:] - ends[:-1]  # the unchanged bytes since the run before
    header[2::2] = ends - starts
    return header.tobytes() + _gather(row, starts, ends)


def _changed_spans(previous: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and last changed byte of each 8-byte word that changed, in order (and
    each changed byte of a last part word, as its own span).

    Comparing words, not bytes, makes the arrays 8 times shorter, and a word's changed
    bytes lie at most 6 apart, less than :data:`GAP`: runs never split inside one.
    """
    whole = len(row) - len(row) % 8
    before, after = previous[:whole].view(np.uint64), row[:whole].view(np.uint64)
    words = np.flatnonzero(before != after)
    # A changed word's bytes in memory order, which is the row's, whatever the byte order.
    changed = (before[words] ^ after[words]).view(np.uint8).reshape(-1, 8) != 0
    offsets = 8 * words
    firsts = offsets + changed.argmax(axis=1)
    lasts = offsets + 7 - changed[:, ::-1].argmax(axis=1)
    if whole < len(row):
        tail = np.flatnonzero(previous[whole:] != row[whole:]) + whole
        firsts, lasts = np.concatenate([firsts, tail]), np.concatenate([lasts, tail])
    return firsts, lasts


def _gather(row: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The bytes of ``row`` the runs cover, in order."""
    if len(starts) > _FEW_RUNS:
        return row[_run_indices(starts, ends - starts)].tobytes()
    # Few runs (a frame that changes everywhere is one long run): slices spare an index per byte.
    spans = zip(starts.tolist(), ends.tolist(), strict=True)
    return b"".join(row[start:end].tobytes() for start, end in spans)


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
