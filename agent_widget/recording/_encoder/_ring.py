"""One episode's frames on their way to the encoder process
(:mod:`agent_widget.recording._encoder._process`): a ring of raw frame slots in shared
memory, and the chunks (:class:`RemoteChunk`) whose frames are in it.

A frame's slot is reused once its chunk's parts have come back, so the ring bounds the
raw frames held: :data:`SLOTS` of them (4.8 MB for Pong, 35 MB for CartPole's 400x600
frames; and 512 KB of hold slots after them, :mod:`agent_widget.recording._encoder._held_chunks`).
When every slot waits on the encoder, the next frame waits for a chunk to come back
(back-pressure) instead of memory growing. Until its parts come back, a chunk's
frames are all in the ring, raw: whatever happens to the encoder process (killed,
exited), the chunk is encoded here from them, so no frame is lost and the bytes are
those of encoding here all along (the same encoder, fed the same frames).

A slot is raw bytes: an episode's large observations have rings of their own, from the
same pool, their chunks sent as rows (:mod:`agent_widget.recording._encoder._remote_rows`).
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Protocol

import numpy as np

from agent_widget.format import CHUNK_SIZE, OpenChunk, Part, held
from agent_widget.recording._encoder._held_chunks import AREA_BYTES, Held, hold_area
from agent_widget.recording._encoder._process import EncoderDied, EncoderProcess, encoder_process
from agent_widget.recording._encoder._remote_records import RemoteRecords

# Three chunks: the encoder works on one while the loop fills the next, and a third
# absorbs the wait for the encoder's answer (a chunk is sent only once full).
SLOTS = 3 * CHUNK_SIZE
# Shared memory for all the rings of a process at most (record_vector records one
# episode a sub-env at once; 16 CartPole rings would take 550 MB): beyond it, and beyond
# half of what /dev/shm has free (writing past a full one is a SIGBUS, not an error), an
# episode's frames are encoded inline.
RINGS_BYTES = 256 * 2**20
SHARED_MEMORY = "/dev/shm"
# Rings kept for the next episodes once theirs ended, at most this many bytes: making
# one (35 MB of new shared memory for CartPole, each page faulted in by its first
# frame) cost every episode ~20 µs a step, and an episode without one encoded its
# first chunk here (CartPole: 16 frames of ~1 ms each). One CartPole ring, 13 Pong ones.
IDLE_BYTES = 64 * 2**20
_idle: list[FrameRing] = []


def room_for(process: EncoderProcess, nbytes: int) -> bool:
    """Whether a ring of ``nbytes`` of frame slots (and its hold slots) may be made now."""
    nbytes += AREA_BYTES
    try:
        stat = os.statvfs(SHARED_MEMORY)
        free = stat.f_bavail * stat.f_frsize
    except OSError:  # no /dev/shm: SharedMemory says why, if it cannot make one
        free = nbytes * 2
    return process.rings_bytes + nbytes <= RINGS_BYTES and nbytes <= free // 2


def episode_ring(slot_bytes: int, encoding: str, k: int) -> tuple[FrameRing | None, bool]:
    """The ring for an episode's chunk ``k`` if it gets one: from its first chunk a ring
    an episode left, from the second a new one (an episode of one chunk is not worth
    making one); and whether to ask again at its next chunk (not if a new one was
    refused: the episode is encoded here)."""
    process = encoder_process()
    if process is None or not process.is_ready():
        return None, True
    ring = FrameRing.take(process, slot_bytes, encoding, new=k > 0)
    return ring, ring is not None or k == 0


class Waiting(Protocol):
    """A chunk sent to the encoder process, waiting for what it sends back."""

    def came(self, result: Any, /) -> None: ...


class FrameRing:
    """The slots of one episode's frames, and its stream in the encoder process.

    Frames larger than the first one (their size changed mid-episode) do not fit a slot:
    their chunk is encoded here (:meth:`fits`). An episode takes a ring (:meth:`take`)
    and gives it back when its frames are encoded (:meth:`close`): the next episode of
    frames of that size reuses it, its stream in the encoder process still open."""

    @classmethod
    def take(
        cls, process: EncoderProcess, slot_bytes: int, encoding: str, *, new: bool
    ) -> FrameRing | None:
        """A ring an episode left, or (``new``) a new one if there is room; None if not."""
        with process.lock:
            for ring in _idle:
                if (ring.process, ring.slot_bytes, ring.encoding) == (
                    process,
                    slot_bytes,
                    encoding,
                ):
                    _idle.remove(ring)
                    return ring
            if not new:
                return None
            while _idle and not room_for(process, SLOTS * slot_bytes):
                _idle.pop(0)._release()  # the oldest idle ring makes room
            if not room_for(process, SLOTS * slot_bytes):
                return None
            try:
                return cls(process, slot_bytes, encoding)
            except OSError:  # no room for it after all (a file size limit)
                return None

    def __init__(self, process: EncoderProcess, slot_bytes: int, encoding: str) -> None:
        self.process, self.slot_bytes, self.encoding = process, slot_bytes, encoding
        self._memory = SharedMemory(create=True, size=SLOTS * slot_bytes + AREA_BYTES)
        process.rings_bytes += self._memory.size
        self._slots = np.ndarray((SLOTS, slot_bytes), np.uint8, buffer=self._memory.buf)
        self._holds = hold_area(self._memory.buf, SLOTS * slot_bytes)
        self._free = list(range(SLOTS))[::-1]
        self._error_said = False
        self._waiting: dict[int, Waiting] = {}  # chunk number -> chunk, parts to come
        self._stream = process.open(self._memory.name, SLOTS, slot_bytes, encoding, self._came)
        # An episode dropped unfinished (an exception) lets its memory go all the same.
        self._release = weakref.finalize(
            self, _release, process, self._stream, self._memory, os.getpid()
        )

    def fits(self, frame: np.ndarray) -> bool:
        return frame.nbytes <= self.slot_bytes

    @property
    def error(self) -> EncoderDied | None:
        return self.process.error

    def take_error(self) -> EncoderDied | None:
        """The encoder process's death, once: said to the episode's recorder once, its
        frames or rows encoded in this process since."""
        if self.process.error is None or self._error_said:
            return None
        self._error_said = True
        return self.process.error

    def put(self, frame: np.ndarray) -> int | None:
        """Copy the frame into a free slot, waiting for one if need be; the slot, or
        None if none frees (the encoder died)."""
        with self.process.lock:
            while not self._free and self.error is None:
                self.process.receive(block=True)
            if not self._free:
                return None
            slot = self._free.pop()
            self._slots[slot, : frame.nbytes] = frame.reshape(-1)
            return slot

    def send(self, chunk: RemoteChunk, slots: list[tuple[int, tuple[int, ...]]]) -> None:
        """Send a full chunk's frames (slot, shape) to be encoded: one message a chunk,
        as each wakes the encoder process (a message a frame cost ~250 µs a frame when
        the machine's other core was busy)."""
        with self.process.lock:
            self._waiting[chunk.start // CHUNK_SIZE] = chunk
            self.process.send(("chunk", self._stream, chunk.start, slots))

    def hold(self, k: int, written: int, held: Held) -> bool:
        """Give the encoder process chunk ``k`` to append to the episode's file should
        this process die before writing it, in the hold slots if it fits (``written``:
        the chunks in the file now; :mod:`agent_widget.recording._encoder._held_chunks`); whether
        it was held."""
        return self._holds.put(k, written, held)

    def records(self, state: tuple[int, int, dict[bytes, int]]) -> RemoteRecords:
        """The encoder process makes the journal records of the chunks held from
        ``state``'s on (:mod:`agent_widget.recording._encoder._remote_records`)."""
        return RemoteRecords(self.process, self._stream, state)

    def drop_held(self) -> None:
        """The encoder process forgets the chunks held (the file failed)."""
        self._holds.clear()

    def frame(self, slot: int, shape: tuple[int, ...]) -> np.ndarray:
        """A copy of the frame in ``slot`` (the slot is reused)."""
        size = int(np.prod(shape))
        return self._slots[slot, :size].reshape(shape).copy()

    def free(self, slots: list[int]) -> None:
        self._free.extend(slots)

    def send_rows(self, k: int, rows: Waiting, slots: list[int], nbytes: int) -> None:
        """Send chunk ``k`` of observation rows (``nbytes`` each) to be encoded
        (:mod:`agent_widget.recording._encoder._remote_rows`), one message a chunk as frames."""
        with self.process.lock:
            self._waiting[k] = rows
            self.process.send(("rows", self._stream, k, slots, nbytes))

    def _came(self, k: int, parts: list[Part]) -> None:
        chunk = self._waiting.pop(k, None)
        if chunk is not None:
            chunk.came(parts)

    def close(self) -> None:
        """The episode's frames are encoded: keep the ring for the next episode (nothing
        held for this one's file, here or in the encoder process), or let its memory and
        stream go."""
        with self.process.lock:
            if self.error is None and not self._waiting and len(self._free) == SLOTS:
                self._holds.clear()
                self.process.send(("reset", self._stream))
                _idle.append(self)
                while sum(ring._memory.size for ring in _idle) > IDLE_BYTES:
                    _idle.pop(0)._release()  # the oldest
                return
        del self._slots, self._holds  # the memory's only views here
        self._release()


def _release(process: EncoderProcess, stream: int, memory: SharedMemory, owner: int) -> None:
    if os.getpid() != owner:  # a forked child's copy: the memory is its parent's
        return
    with process.lock:
        process.close(stream)
        process.rings_bytes -= memory.size
    memory.close()
    # Its name may be gone already: an encoder process killed while it attached to the
    # memory (between Python registering it with that process's resource tracker and
    # this module's worker unregistering it) has the tracker unlink it at its death.
    with contextlib.suppress(FileNotFoundError):
        memory.unlink()


class RemoteChunk:
    """A chunk encoded by the encoder process: its frames in the ring until its parts
    come back, then the parts. Encoded here (``inline()``, fed its frames) when asked
    for before they came (a chunk still filling, a copy for a branch) or if the
    encoder dies; its answer is then not needed."""

    copies_frames = True  # into the ring (or held, when encoded here)

    def __init__(self, start: int, ring: FrameRing, inline: Callable[[], OpenChunk]) -> None:
        self.start, self._ring, self._inline_chunk = start, ring, inline
        self.count = 0
        self._slots: list[tuple[int, tuple[int, ...]]] = []  # (slot, shape) a frame
        self._parts: list[Part] | None = None  # came back from the encoder
        self._inline: OpenChunk | None = None  # encoding here instead

    @property
    def full(self) -> bool:
        return self.count == CHUNK_SIZE

    @property
    def ready(self) -> bool:
        """Whether its parts are here for good, without waiting (asks the pipe)."""
        with self._ring.process.lock:
            if self._parts is None and self._inline is None:
                self._ring.process.receive(block=False)
                if self._ring.error is not None:
                    self._encode_here()
        return self._parts is not None or (self._inline is not None and self.full)

    @property
    def error(self) -> EncoderDied | None:
        return self._ring.error

    @property
    def nbytes(self) -> int:
        if self._inline is not None:
            return self._inline.nbytes
        if self._parts is not None:
            return sum(len(p.payload) for p in self._parts)
        return sum(int(np.prod(shape)) for _, shape in self._slots)

    @property
    def newest(self) -> tuple[int, np.ndarray] | None:
        """The newest frame and its position while it is at hand (a copy from its slot,
        made only when asked for: the frame itself is not held)."""
        with self._ring.process.lock:
            if self._inline is not None:
                return self._inline.newest
            if not self._slots:
                return None  # its parts came back: read from them
            slot, shape = self._slots[-1]
            return self.start + self.count - 1, self._ring.frame(slot, shape)

    def append(self, frame: np.ndarray) -> None:
        """Copy the frame into the ring (the caller's array is not held)."""
        with self._ring.process.lock:
            slot = None
            if self._inline is None and self._ring.fits(frame):
                slot = self._ring.put(frame)
            if slot is None:
                self._encode_here()
                assert self._inline is not None
                self._inline.append(held(frame))
            else:
                self._slots.append((slot, frame.shape))
            self.count += 1
            if self.full and self._inline is None:
                self._ring.send(self, self._slots)

    def came(self, parts: list[Part]) -> None:
        """The encoder's parts: the frames' slots are free."""
        self._parts = parts
        self._ring.free([slot for slot, _ in self._slots])
        self._slots = []

    def parts(self) -> list[Part]:
        """The parts as they stand: while the chunk fills, its frames encoded here
        (and still sent to the encoder)."""
        with self._ring.process.lock:
            if self._parts is not None:
                return self._parts
            if self.full:
                return self.seal()
            return self._encoded_here().parts()

    def seal(self) -> list[Part]:
        """The parts for good, waiting for the encoder if they are on their way."""
        with self._ring.process.lock:
            while self._parts is None and self._inline is None:
                self._ring.process.receive(block=True)
                if self._ring.error is not None:
                    self._encode_here()
            if self._parts is not None:
                return self._parts
            assert self._inline is not None
            return self._inline.seal()

    def copy(self) -> OpenChunk:
        """The same frames, encoded here, to grow apart (itself once its parts came:
        they never change, and a full chunk takes no frame)."""
        with self._ring.process.lock:
            return self if self._parts is not None else self._encoded_here()

    def moved_here(self) -> OpenChunk:
        """The chunk encoded here from now on, its frames out of the ring (the episode
        ends: the ring goes to the next one)."""
        with self._ring.process.lock:
            self._encode_here()
            return self if self._inline is None else self._inline

    def _encoded_here(self) -> OpenChunk:
        """A chunk encoded here, of the frames so far."""
        if self._inline is not None:
            return self._inline.copy()
        chunk = self._inline_chunk()
        for slot, shape in self._slots:
            chunk.append(self._ring.frame(slot, shape))
        return chunk

    def _encode_here(self) -> None:
        """Encode the frames here from now on (the encoder died, or a frame does not fit
        a slot): those in the ring first."""
        if self._inline is not None or self._parts is not None:
            return
        self._inline = self._encoded_here()
        self._ring.free([slot for slot, _ in self._slots])
        self._slots = []
