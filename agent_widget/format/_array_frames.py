"""Frames held in memory (:class:`ArrayFrames`) or made on demand from images
(:class:`ImageFrames`), encoded a chunk at a time as the file stores them.

Where a chunk is cut into parts is decided here (:func:`encode_chunk`): a part ends
where the frame size changes, or where the next frame's change would take the changes
after the part's first frame past :data:`CHANGE_BYTES`; the next part starts with that
frame whole.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from agent_widget.format._codec import CHUNK_SIZE, ENCODINGS, Part, RunEncoder
from agent_widget.format._frames import MISSING, DecodedPart, Frames, held, normalize_frame

# A part inflates to its first frame plus at most this many bytes of changes. The browser
# inflates a whole part to show any of its frames, so this caps what showing one costs
# beyond the frame itself, whatever the frame's size; each part starting over from a
# whole frame costs bytes. Frames that change little (Pong) fill a chunk with one part;
# the 480x480 benchmark scene (two balls moving over a still background) gets two a
# chunk (11 + 5 frames, 911 KB inflated on average instead of 1.16 MB in one part: a
# random frame after the fill painted in 6.1 ms instead of 7.4 in the browser, medians
# of 50 paired jumps, for 9.6 KB a position instead of 8.8); frames that change
# everywhere (a moving camera) a part each, stored whole. Bounding the whole part
# instead (2 MiB) left frames of over 2 MiB one to a part, stored whole however little
# they changed.
CHANGE_BYTES = 320 * 2**10


def encode_chunk(
    frames: Iterable[np.ndarray], start: int, encoding: str = "zlib-runs"
) -> list[Part]:
    """The parts of one chunk's frames (C-contiguous HxWx3 uint8), positions ``start ..``,
    cut as :class:`ArrayFrames` cuts them (see the module's docstring).

    Examples:
        >>> [p.count for p in encode_chunk(np.zeros((16, 4, 6, 3), np.uint8), start=0)]
        [16]
    """
    chunk = _OpenChunk(start, encoding)
    for frame in frames:
        chunk.append(frame)
    return chunk.seal()


class OpenChunk(Protocol):
    """A chunk being filled: encoded here (:class:`_OpenChunk`), or elsewhere (the
    recording layer's chunks encoded by its encoder process)."""

    count: int
    # Whether it copies the frames it is given (else it holds them: they are given as
    # :func:`held` makes them).
    copies_frames: bool

    @property
    def newest(self) -> tuple[int, np.ndarray] | None: ...
    @property
    def full(self) -> bool: ...
    @property
    def ready(self) -> bool: ...

    def append(self, frame: np.ndarray) -> None: ...
    def parts(self) -> list[Part]: ...
    def seal(self) -> list[Part]: ...
    def copy(self) -> OpenChunk: ...
    @property
    def nbytes(self) -> int: ...


class _Run(NamedTuple):
    """The part being encoded: consecutive frames of one size from position ``start``."""

    start: int
    shape: tuple[int, ...]
    encoder: RunEncoder

    def part(self, payload: bytes) -> Part:
        height, width = self.shape[:2]
        return Part(self.start, self.encoder.count, height, width, self.encoder.encoding, payload)


class _OpenChunk:
    """A chunk still filling: each frame is encoded as it comes, and only the newest one
    is held as it is (the next frame's changes are found against it).

    Encoding a frame while it is fresh in the CPU's caches, and letting it go, is what
    keeps recording cheap for large frames: encoding a chunk's 16 frames when it filled
    made record() on CartPole (400x600) take 1.86x the bare step+render loop, against
    1.28x this way (``benchmarks.recording``; Pong's 210x160 frames alike either way).
    The other frames of the chunk are read back by decoding its parts. Each run of one
    frame size is a part, or several when its frames change too much to stay within
    :data:`CHANGE_BYTES`. A lock keeps the parts whole for a reader on another thread.
    """

    def __init__(self, start: int, encoding: str) -> None:
        self.start, self.encoding = start, encoding
        self.count = 0
        self.newest: tuple[int, np.ndarray] | None = None  # (position, frame), read at once
        self._ended: list[Part] = []  # runs followed by a frame they could not take
        self._run: _Run | None = None  # the last run, open
        self._parts: list[Part] | None = None  # handed out last; good until the next frame
        self._sealed: list[Part] | None = None
        self._lock = threading.Lock()

    @property
    def full(self) -> bool:
        return self.count == CHUNK_SIZE

    ready = True  # its parts are always at hand (a chunk encoded elsewhere's may be on their way)
    copies_frames = False

    @property
    def nbytes(self) -> int:
        # The parts handed out share the ended runs' payloads; only the last one is its own.
        held = [*self._ended, *self._parts[-1:]] if self._parts else self._ended
        encoding = 0 if self._run is None else self._run.encoder.nbytes
        newest = 0 if self.newest is None else self.newest[1].nbytes
        return newest + sum(len(p.payload) for p in held) + encoding

    def append(self, frame: np.ndarray) -> None:
        with self._lock:
            t, run = self.start + self.count, self._run
            row = frame.reshape(-1)  # a view: frames are C-contiguous (normalize_frame)
            if not (
                run is not None
                and frame.shape == run.shape
                and run.encoder.add(row, limit=row.nbytes + CHANGE_BYTES)
            ):
                if run is not None:  # the frame's size changed, or its change did not fit
                    self._ended.append(run.part(run.encoder.finish()))
                # Missing frames (0x0) are a raw part: an empty payload.
                encoder = RunEncoder(self.encoding if frame.size else "raw")
                run = self._run = _Run(t, frame.shape, encoder)
                run.encoder.add(row)
            self.count += 1
            self.newest, self._parts = (t, frame), None

    def parts(self) -> list[Part]:
        """The parts as they stand; more frames may follow."""
        with self._lock:
            if self._sealed is not None:
                return self._sealed
            if self._parts is None:
                run = self._run
                assert run is not None  # an open chunk holds a frame at least
                self._parts = [*self._ended, run.part(run.encoder.payload())]
            return self._parts

    def seal(self) -> list[Part]:
        """The parts for good: no frame follows."""
        with self._lock:
            if self._sealed is None:
                run = self._run
                assert run is not None
                self._sealed = [*self._ended, run.part(run.encoder.finish())]
            return self._sealed

    def copy(self) -> _OpenChunk:
        """The same frames, to grow apart (the encoder's state copied, nothing encoded again)."""
        other = _OpenChunk(self.start, self.encoding)
        with self._lock:
            other.count, other.newest, other._ended = self.count, self.newest, list(self._ended)
            if self._run is not None:
                other._run = self._run._replace(encoder=self._run.encoder.copy())
        return other


class ImageFrames(Frames):
    """Frames made on demand from a sequence of images, such as a rollout's image
    observations: nothing is read, converted or held before it is asked for.

    A stored episode's observations stay in the file, and only the chunks asked for
    are converted and encoded (then kept encoded), so showing a long episode of image
    observations costs what showing its frames would. (Taking them into an
    :class:`ArrayFrames` read every observation at once: a 65 KB file held 2.96 GB.)
    Only the first image is checked up front; a later one that is not an image fails
    when its chunk is encoded.

    Examples:
        >>> frames = ImageFrames(np.zeros((20, 4, 6), np.uint8))  # grayscale
        >>> len(frames), frames[19].shape, [p.count for p in frames.chunk(1)]
        (20, (4, 6, 3), [4])
    """

    def __init__(self, images: Sequence[Any] | np.ndarray, *, encoding: str = "zlib-runs") -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown frame encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        if len(images) == 0:
            raise ValueError("there are no images to show")
        normalize_frame(images[0], 0)  # not images at all: say so now
        self._images, self.encoding = images, encoding
        self._encoded: dict[int, list[Part]] = {}

    def __len__(self) -> int:
        return len(self._images)

    def _frame(self, t: int) -> np.ndarray:
        return normalize_frame(self._images[t], t)

    def _encode_chunk(self, k: int) -> list[Part]:
        parts = self._encoded.get(k)
        if parts is None:
            start = k * CHUNK_SIZE
            frames = (self._frame(t) for t in range(start, min(start + CHUNK_SIZE, len(self))))
            parts = self._encoded[k] = encode_chunk(frames, start, self.encoding)
        return parts


class ArrayFrames(Frames):
    """Frames held in memory, validated on entry and encoded as they come.

    Each frame is encoded as it is added, given at construction or appended while the
    episode grows (:meth:`append`): the newest chunk's stream stays open, so each frame
    is compressed once however often the growing chunk is handed out, a full chunk is
    encoded for good, and the newest frame is the only one held as it is. Memory per
    position stays near the encoded size (a 397x321 value map of 382 KB is ~4 KB
    encoded). Reading a frame decodes it (the frames decoded last are cached, see
    :class:`DecodedPart`).

    Reading frames is safe while another thread appends; appending and handing out
    chunks are for one thread at a time (the viewer does both under its lock).

    Args:
        frames: a 4-D array (n, H, W, C) or a sequence of images, each accepted by
            :func:`normalize_frame`. The newest uint8 RGB frame is held without a
            copy (the next frame's changes are found against it): do not modify it.
        allow_resize: accept frames whose size changes mid-episode (each run of one
            size becomes its own part).
        encoding: how chunks are encoded, ``"zlib-runs"`` or ``"raw"``.

    A recording has its frames encoded in another process instead: the recording
    layer's subclass (``agent_widget.recording._encoder.OffloadedFrames``) makes its
    chunks there (:meth:`_new_chunk`).

    Examples:
        >>> frames = ArrayFrames(np.zeros((20, 4, 6, 3), np.uint8))
        >>> len(frames), frames.num_chunks, frames[-1].shape
        (20, 2, (4, 6, 3))
    """

    def __init__(
        self,
        frames: Sequence[Any] | np.ndarray = (),
        *,
        allow_resize: bool = False,
        encoding: str = "zlib-runs",
    ) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown frame encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        self.allow_resize = allow_resize
        self.encoding = encoding
        self._length = 0
        self._shape: tuple[int, ...] | None = None  # the first frame's
        self._sealed: dict[int, list[Part]] = {}  # chunks encoded for good, frames let go
        # The others: every frame is in one of the two.
        self._open: dict[int, OpenChunk] = {}
        self._decoded = DecodedPart()
        # Frames this one continues (see :meth:`after`): its first full chunks, as they are.
        self._base: Frames | None = None
        self._base_chunks = 0
        # Chunks written to a file and let go, and how to read them back (:meth:`release`).
        self._released = 0
        self._read_back: Callable[[int], list[Part]] | None = None
        for frame in frames:  # an iterator too: one frame raw at a time, never all of them
            self.append(frame)

    @classmethod
    def after(cls, base: Frames, *, encoding: str = "zlib-runs") -> ArrayFrames:
        """``base``'s frames, to append to without copying or decoding them.

        The full chunks of ``base`` are handed out as they are (a loaded file's stay on
        disk, encoded); only the frames of its last, partial chunk are read, to encode
        that chunk again with the frames appended to it. Appended frames must keep the
        size of ``base``'s last frame.

        Examples:
            >>> frames = ArrayFrames.after(ArrayFrames(np.zeros((20, 4, 6, 3), np.uint8)))
            >>> frames.append(np.ones((4, 6, 3), np.uint8))
            >>> len(frames), int(frames[20].max())
            (21, 1)
        """
        frames = cls(encoding=encoding)
        frames._base, frames._base_chunks = base, len(base) // CHUNK_SIZE
        frames._length = frames._base_chunks * CHUNK_SIZE
        if len(base) > 0 and base[len(base) - 1].size:
            frames._shape = base[len(base) - 1].shape
        for t in range(frames._length, len(base)):
            frames._add(base[t])
        return frames

    def append(self, frame: Any) -> None:
        """Add the frame of the next position (live growth while recording or viewing).

        The frame that fills a chunk has the chunk encoded for good, its frames let go.
        """
        newest = self._add(frame)
        if len(self._open) > 1 or self._open[newest].full:  # one to seal, or waiting for parts
            for k in [k for k, chunk in self._open.items() if chunk.full and chunk.ready]:
                self._seal(k)

    def release(self, k: int, read_back: Callable[[int], list[Part]]) -> None:
        """Let go of the sealed chunks up to ``k``, written to a file while recording, so
        an episode's memory stays bounded; ``read_back(j)`` reads chunk j's parts back."""
        released, self._read_back = self._released, read_back
        # Said first: a reader that finds chunk j in neither dict then reads it back.
        self._released = max(released, k + 1)
        for j in range(released, k + 1):
            self._sealed.pop(j, None)
            if j in self._open and self._open[j].full:  # its parts came, not yet sealed
                del self._open[j]

    def copy(self) -> ArrayFrames:
        """These frames, to grow apart from them; what is held is shared (it never changes)."""
        other = ArrayFrames(allow_resize=self.allow_resize, encoding=self.encoding)  # inline
        other._length, other._shape = self._length, self._shape
        other._base, other._base_chunks = self._base, self._base_chunks
        other._released, other._read_back = self._released, self._read_back
        other._sealed = dict(self._sealed)
        other._open = {k: chunk.copy() for k, chunk in self._open.items()}
        for k in [k for k, chunk in other._open.items() if chunk.full]:
            other._seal(k)  # a chunk still encoded elsewhere: encoded in the copy
        return other

    @property
    def nbytes(self) -> int:
        """Bytes of frame data held: encoded chunks, the newest frame, frames decoded last.

        Not counted: object overheads, the state of the one zlib stream kept open, and
        the frames this one continues (:meth:`after`), which are not held here.
        """
        sealed = sum(len(p.payload) for parts in list(self._sealed.values()) for p in parts)
        unsealed = sum(chunk.nbytes for chunk in list(self._open.values()))
        return sealed + unsealed + self._decoded.nbytes

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[np.ndarray]:
        for t in range(len(self)):  # frames held are not encoded to be read
            yield self._frame(t)

    def _add(self, frame: Any) -> int:
        """Validate and hold the frame of the next position; return its chunk."""
        t = self._length
        array = normalize_frame(frame, t)
        if array is MISSING:
            pass  # missing, whatever size the others are
        elif self._shape is None:
            self._shape = array.shape
        elif not self.allow_resize and array.shape != self._shape:
            raise ValueError(
                f"frame at step {t}: size changed from {self._shape[:2]} to "
                f"{array.shape[:2]}; pass allow_resize=True to accept frames of varying size"
            )
        k = t // CHUNK_SIZE
        chunk = self._open.get(k)
        if chunk is None:
            chunk = self._open[k] = self._new_chunk(k)
        chunk.append(array if chunk.copies_frames else held(array))
        self._length = t + 1
        return k

    def _new_chunk(self, k: int) -> OpenChunk:
        """Chunk k, to fill: encoded here (a subclass may have it encoded elsewhere)."""
        return self._chunk_here(k)

    def _chunk_here(self, k: int) -> OpenChunk:
        """Chunk k, encoded here as its frames come."""
        return _OpenChunk(k * CHUNK_SIZE, self.encoding)

    def _seal(self, k: int) -> list[Part]:
        parts = self._sealed[k] = self._open[k].seal()
        # Only now that the parts are in place: a reader finds every frame in one or the other.
        del self._open[k]
        return parts

    def _frame(self, t: int) -> np.ndarray:
        k = t // CHUNK_SIZE
        if self._base is not None and k < self._base_chunks:
            return self._base[t]
        chunk = self._open.get(k)
        newest = None if chunk is None else chunk.newest
        if newest is not None and newest[0] == t:
            return newest[1]
        # The open chunk's earlier frames decode from its parts as they stand; frames do
        # not change as more are appended, so what the cache holds of a part stays true.
        parts = self._encode_chunk(k) if chunk is None else chunk.parts()
        part = next(p for p in parts if t < p.start + p.count)
        return self._decoded.frame(part.start, t - part.start, lambda: part, self._decode)

    def _encode_chunk(self, k: int) -> list[Part]:
        if self._base is not None and k < self._base_chunks:
            return self._base.chunk(k)
        parts = self._sealed.get(k)
        if parts is not None:
            return parts
        if k < self._released and self._read_back is not None:
            return self._read_back(k)
        chunk = self._open[k]
        return self._seal(k) if chunk.full else chunk.parts()
