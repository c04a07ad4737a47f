"""Large observations held encoded while an episode is recorded.

Image observations cost what frames cost raw (Pong's: 100 KB a step), so holding them
as they come limits a recording to what fits in memory. Two lazy arrays hold them:

- :class:`EncodedArray` holds each full chunk of rows as one zlib-runs payload, the
  form the ``.rollout`` file stores (saving copies it as it is), and only the chunk
  being filled as arrays. Reading decodes a chunk (the last one decoded is kept, so
  reading in order decodes each chunk once).
- :class:`FrameRows` are observations that are the frames (Atari's screen): they hold
  nothing of their own, and are read and stored as the frames are (the file keeps
  equal payloads once).

Both have the lazy-array surface a :class:`Rollout` accepts for observations:
``dtype``, ``shape``, ``len``, int and slice indexing, ``np.asarray``, and ``payload(k)``
for the file.
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np

from agent_widget.format._codec import CHUNK_SIZE, Part, decode_part, decode_rows, encode_rows
from agent_widget.format._frames import Frames, position

# Observations of at least this many bytes a position are held and stored encoded by the
# chunk; smaller ones (vectors) are plain arrays.
LARGE_ROW_BYTES = 1024


class ChunkedRows(ABC):
    """Rows of one dtype and shape, read one at a time, stored a chunk at a time."""

    dtype: np.dtype
    _row_shape: tuple[int, ...]

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _row(self, t: int) -> np.ndarray:
        """Row ``t``, within range."""

    @abstractmethod
    def payload(self, k: int) -> bytes:
        """Chunk ``k``'s rows as one zlib-runs payload."""

    @property
    def shape(self) -> tuple[int, ...]:
        return (len(self), *self._row_shape)

    @property
    def ndim(self) -> int:
        return 1 + len(self._row_shape)

    def __getitem__(self, index: Any) -> np.ndarray:
        if isinstance(index, slice):
            rows = [self._row(t) for t in range(*index.indices(len(self)))]
            return np.stack(rows) if rows else np.empty((0, *self._row_shape), self.dtype)
        return self._row(position(index, len(self), "observations"))

    def __iter__(self) -> Iterator[np.ndarray]:
        for t in range(len(self)):
            yield self._row(t)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self[:]
        return array if dtype is None else array.astype(dtype)


class RowsElsewhere(Protocol):
    """A chunk of rows encoded elsewhere (the recording layer's encoder process): its
    rows readable there until its payload comes."""

    @property
    def count(self) -> int: ...
    @property
    def nbytes(self) -> int: ...

    def append(self, row: np.ndarray) -> bool:
        """Take the next row (1-D uint8); False if it cannot (the chunk is moved here)."""

    def row(self, i: int) -> np.ndarray | None:
        """Row ``i`` as raw bytes while it is there, else None: read the payload."""

    def payload(self) -> bytes: ...
    def moved_here(self) -> list[np.ndarray]: ...


class EncodedArray(ChunkedRows):
    """Rows appended one at a time, held encoded by the chunk.

    A recording has its chunks encoded elsewhere (:meth:`_rows_elsewhere`: the
    recording layer's ``agent_widget.recording._encoder.OffloadedRows``): the same bytes,
    off the thread that appends.

    Examples:
        >>> rows = EncodedArray(np.uint8, (84, 84))
        >>> for t in range(20):
        ...     rows.append(np.full((84, 84), t, np.uint8))
        >>> rows.shape, int(rows[17][0, 0]), rows.nbytes < 20 * 84 * 84
        ((20, 84, 84), 17, True)
    """

    def __init__(self, dtype: Any, row_shape: tuple[int, ...]) -> None:
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in "biufc":
            raise ValueError(f"observations of dtype {self.dtype} are not numeric")
        self._row_shape = tuple(row_shape)
        self._row_bytes = self.dtype.itemsize * math.prod(self._row_shape)
        # One per full chunk: its payload, or its rows encoded elsewhere.
        self._sealed: list[bytes | RowsElsewhere] = []
        # Chunks written to a file and let go, and how to read them back (:meth:`release`).
        self._released = 0
        self._read_back: Callable[[int], bytes] | None = None
        # The chunk being filled: its rows held here, or elsewhere (``_filling``).
        self._open: list[np.ndarray] = []
        self._filling: RowsElsewhere | None = None
        self._decoded: tuple[int, np.ndarray] | None = None  # the chunk decoded last

    @property
    def nbytes(self) -> int:
        """Bytes held: the encoded chunks (or their rows elsewhere), the rows of the
        open one, the chunk decoded last."""
        decoded = 0 if self._decoded is None else self._decoded[1].nbytes
        sealed = sum(len(c) if isinstance(c, bytes) else c.nbytes for c in list(self._sealed))
        filling = self._filling
        open_rows = len(self._open) * self._row_bytes
        return sealed + open_rows + (0 if filling is None else filling.nbytes) + decoded

    def __len__(self) -> int:
        filling = self._filling
        held = len(self._open) if filling is None else filling.count
        return len(self._sealed) * CHUNK_SIZE + held

    def append(self, row: Any) -> None:
        """Add the next row (copied); ValueError if its dtype or shape differs."""
        array = np.asarray(row)
        if array.dtype != self.dtype or array.shape != self._row_shape:
            raise ValueError(
                f"observation {len(self)} has dtype {array.dtype} and shape {array.shape}; "
                f"the earlier ones {self.dtype} and {self._row_shape}"
            )
        if self._filling is None and not self._open:
            self._filling = self._rows_elsewhere(len(self._sealed))
        filling = self._filling
        if filling is not None:
            if filling.append(np.ascontiguousarray(array).reshape(-1).view(np.uint8)):
                if filling.count == CHUNK_SIZE:  # sent on its way
                    self._sealed.append(filling)
                    self._filling = None
                return
            # It could not take the row (its encoder died): its rows are held here from now on.
            self._open, self._filling = self._rows(filling.moved_here()), None
        self._open.append(np.array(array, order="C"))  # a copy: envs reuse their buffers
        if len(self._open) == CHUNK_SIZE:
            self._sealed.append(self.payload(len(self._sealed)))
            self._open = []

    def _rows_elsewhere(self, k: int) -> RowsElsewhere | None:
        """Chunk k, to fill elsewhere, or None: encoded here (a subclass may say otherwise)."""
        return None

    def _rows(self, raw: list[np.ndarray]) -> list[np.ndarray]:
        return [row.view(self.dtype).reshape(self._row_shape) for row in raw]

    def payload(self, k: int) -> bytes:
        if k < self._released and self._read_back is not None:
            return self._read_back(k)
        if k < len(self._sealed):
            chunk = self._sealed[k]
            if not isinstance(chunk, bytes):
                chunk = self._sealed[k] = chunk.payload()
            return chunk
        rows = np.stack(self._held())
        return encode_rows(rows.reshape(len(rows), -1).view(np.uint8))

    def _held(self) -> list[np.ndarray]:
        """The rows of the chunk being filled (copies of those in the ring)."""
        filling, start = self._filling, len(self._sealed) * CHUNK_SIZE
        if filling is None:
            return list(self._open)
        return [self._row(start + i) for i in range(filling.count)]

    def release(self, k: int, read_back: Callable[[int], bytes]) -> None:
        """Let go of the sealed chunks up to ``k``, written to a file while recording;
        ``read_back(j)`` reads chunk j's payload back (as ``ArrayFrames.release``)."""
        for j in range(self._released, min(k + 1, len(self._sealed))):
            self._sealed[j] = b""
        self._released, self._read_back = max(self._released, k + 1), read_back

    def copy(self) -> EncodedArray:
        """These rows, to grow apart from them (encoded here): the full chunks are shared
        (one encoded elsewhere too: its payload never changes), the rows of the
        one being filled copied."""
        other = EncodedArray(self.dtype, self._row_shape)
        other._open = self._held()
        other._sealed = list(self._sealed)
        other._released, other._read_back = self._released, self._read_back
        return other

    def _row(self, t: int) -> np.ndarray:
        # The chunk being filled first: once full it is sealed, then let go.
        filling, held = self._filling, self._open
        k, i = divmod(t, CHUNK_SIZE)
        chunk = (filling or held) if k == len(self._sealed) else self._sealed[k]
        if isinstance(chunk, list):
            return chunk[i]
        if not isinstance(chunk, bytes):
            if (raw := chunk.row(i)) is not None:
                row = raw.view(self.dtype).reshape(self._row_shape)
                row.flags.writeable = False
                return row
            payload = chunk.payload
        else:
            payload = functools.partial(self.payload, k)
        if self._decoded is None or self._decoded[0] != k:
            rows = decode_rows(payload(), "zlib-runs", self._row_bytes, CHUNK_SIZE, CHUNK_SIZE)
            values = rows.view(self.dtype).reshape(CHUNK_SIZE, *self._row_shape)
            values.flags.writeable = False
            self._decoded = (k, values)
        return self._decoded[1][i]


class FrameRows(ChunkedRows):
    """The first ``length`` frames of ``frames``, as observations (read-only)."""

    def __init__(self, frames: Frames, length: int) -> None:
        self._frames, self._length = frames, length
        self.dtype = np.dtype(np.uint8)

    @functools.cached_property
    def _row_shape(self) -> tuple[int, ...]:  # type: ignore[override]
        """The last frame's shape (the frames are the observations: one size), read only
        when asked for: the recorder asks each written chunk's payload of rows made anew;
        its newest frame is at hand, where the first may be on disk or with the encoder
        process (waiting for it took 2.3 ms of a 1,000-step Pong episode)."""
        return self._frames[self._length - 1].shape if self._length else (0, 0, 3)

    def __len__(self) -> int:
        return self._length

    def _row(self, t: int) -> np.ndarray:
        return self._frames[t]

    def payload(self, k: int) -> bytes:
        start = k * CHUNK_SIZE
        return frame_rows_payload(self._frames.chunk(k), min(CHUNK_SIZE, self._length - start))


def frame_rows_payload(parts: list[Part], count: int) -> bytes:
    """The first ``count`` frames of a chunk's ``parts`` as a large observation entry's
    payload (the frames as observations)."""
    part = parts[0]
    if len(parts) == 1 and part.encoding == "zlib-runs" and part.count == count:
        return part.payload  # the same bytes: the file stores them once
    rows = np.concatenate([decode_part(p) for p in parts])[:count]
    return encode_rows(rows.reshape(count, -1))
