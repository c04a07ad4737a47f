"""Chunks the frame encoder process holds for a recording to a file, so that killing the
recording process loses no chunk whose steps were all known.

With ``path=`` a chunk goes to the file once its steps are all known and its frame parts
are at hand. From an episode's second chunk on the parts come back from the encoder
process (:mod:`agent_widget.recording._encoder._process`) ~1-2 ms after the chunk was sent,
so the file trails the episode by a chunk or two: a recording process killed then
(SIGKILL, the OOM killer, a job's time limit) would lose them, where encoding inline it
had written them. So for each chunk it leaves waiting on the encoder, the recording
process gives the encoder process the rest of the chunk (:class:`Held`: its per-step
arrays, large observations and infos, as its journal record takes them; built once and
written from later). It goes into the episode's shared memory, after the frame slots
(:class:`HoldArea`), not down the pipe: a message wakes the encoder process, and a
wake-up a chunk made recording slower on a busy machine, where copying ~1 KB costs
nothing. A chunk too large for its slot (over 64 KB of infos and large observations) is
not held: a kill may lose it as before (sent down the pipe instead, a large message could
block the recording process while the encoder process blocked on its answer). When its
pipe closes without the recording process having said it exits (it died), the encoder
process reads them back next to the parts it encoded (:class:`HeldChunks`) and appends
those that follow the file's last whole journal record
(:func:`agent_widget.recording._encoder._held_records.append_held`). An episode's end closes its
stream and lets its shared memory go: what was held for it goes with them. While the
recording process lives, the encoder process makes the held chunks' journal records
for it to write (:mod:`agent_widget.recording._encoder._remote_records`), so from the first chunk
it holds an episode holds every chunk, its parts with it when they are here.
"""

from __future__ import annotations

import pickle
import struct
import zlib
from typing import Any, NamedTuple

import numpy as np

from agent_widget.format import Part

# A ring's hold slots, chunk k in slot k % HOLDS: more than the chunks that can wait on the
# encoder at once (its frame slots hold three), so a slot is free again when it is reused.
HOLDS = 8
HOLD_BYTES = 64 * 2**10  # a Pong chunk's ~0.7 KB; 512 KB a ring (Pong's frames: 4.8 MB)
_HEADER = struct.Struct("<QII")  # chunk + 1 (0: empty), length, crc32 of the data


AREA_BYTES = HOLDS * HOLD_BYTES


def hold_area(buffer: Any, offset: int) -> HoldArea:
    """The hold slots in shared memory ``buffer`` from byte ``offset`` (past the frames')."""
    return HoldArea(np.ndarray((HOLDS, HOLD_BYTES), np.uint8, buffer=buffer, offset=offset))


class HoldArea:
    """The hold slots at the end of an episode's shared memory: written by the recording
    process, read by the encoder process once the recording process died (a slot whose
    write a kill cut short fails its CRC, and is not read)."""

    def __init__(self, slots: np.ndarray) -> None:
        self.slots = slots  # (HOLDS, HOLD_BYTES) uint8

    def put(self, k: int, written: int, held: Held) -> bool:
        """Hold chunk ``k``; False (not held) if it does not fit, or its slot holds a
        chunk not written yet (``written``: the chunks in the file)."""
        data = pickle.dumps(held, pickle.HIGHEST_PROTOCOL)
        slot = self.slots[k % HOLDS]
        before = _HEADER.unpack(slot[: _HEADER.size].tobytes())[0] - 1
        if _HEADER.size + len(data) > HOLD_BYTES or written <= before < k:
            return False
        slot[: _HEADER.size] = 0  # empty while it is written
        slot[_HEADER.size : _HEADER.size + len(data)] = np.frombuffer(data, np.uint8)
        header = _HEADER.pack(k + 1, len(data), zlib.crc32(data))
        slot[: _HEADER.size] = np.frombuffer(header, np.uint8)
        return True

    def clear(self) -> None:
        self.slots[:, : _HEADER.size] = 0

    def held(self) -> list[tuple[int, Held]]:
        """The chunks held, whole."""
        chunks = [chunk for slot in self.slots if (chunk := _read(slot)) is not None]
        return sorted(chunks, key=lambda chunk: chunk[0])

    def get(self, k: int) -> Held | None:
        """Chunk ``k`` if its slot holds it, whole."""
        chunk = _read(self.slots[k % HOLDS])
        return None if chunk is None or chunk[0] != k else chunk[1]


def _read(slot: np.ndarray) -> tuple[int, Held] | None:
    """The chunk a slot holds and its number, if it holds one whole."""
    number, length, crc = _HEADER.unpack(slot[: _HEADER.size].tobytes())
    if not number or length > HOLD_BYTES - _HEADER.size:
        return None
    data = slot[_HEADER.size : _HEADER.size + length].tobytes()
    return (number - 1, pickle.loads(data)) if zlib.crc32(data) == crc else None


# Encoded chunks kept a stream: the chunks not yet written are the newest sent (parts come
# back in order), three at most while their frames fill the ring; ~1 KB a Pong chunk.
KEPT = 4


# An array as name, dtype, shape and bytes: pickled in ~6 µs for a Pong chunk's four,
# where the arrays themselves took ~40 (numpy's pickling), once a chunk on the stepping thread.
Packed = tuple[str, str, tuple[int, ...], bytes]


def packed(arrays: dict[str, np.ndarray]) -> list[Packed]:
    return [(name, a.dtype.str, a.shape, a.tobytes()) for name, a in arrays.items()]


def unpacked(arrays: list[Packed]) -> dict[str, np.ndarray]:
    return {name: np.frombuffer(data, dtype).reshape(shape) for name, dtype, shape, data in arrays}


class Held(NamedTuple):
    """What the encoder process needs to append a chunk to its episode's file.

    Plain values only: it goes down the pipe, and the encoder process imports only the
    encoder until it has to write."""

    file: tuple[str, int, int]  # path, device, inode (:attr:`Spool.identity`)
    layout: dict[str, Any] | None  # chunk 0's record says it
    arrays: list[Packed]  # the journal record's per-step and small arrays (packed)
    streams: list[tuple[int, bytes | None]]  # large observations; None: the frames
    # Its infos as ``json_dicts`` made them (JSON's own types): made JSON and deflated
    # by whoever makes the record. Under a slot's size, they are under what a file
    # takes (``infos_payload``: 1 MiB of JSON a position).
    infos: list[dict[str, Any]]
    parts: list[Part] | None  # the frame parts; None: those the encoder process made

    @classmethod
    def of(
        cls,
        file: tuple[str, int, int],
        layout: dict[str, Any] | None,
        arrays: dict[str, np.ndarray],
        streams: list[tuple[int, bytes | None]],
        infos: list[dict[str, Any]],
    ) -> Held:
        """A chunk's values but its frames, packed to be sent (its parts added by
        :meth:`agent_widget.recording._encoder.OffloadedFrames.hold` where they are at hand)."""
        return cls(file, layout, packed(arrays), streams, infos, None)


class HeldChunks:
    """In the encoder process: each stream's newest encoded parts and, once the recording
    process died, the chunks it held with their parts."""

    def __init__(self) -> None:
        self._encoded: dict[int, dict[int, list[Part]]] = {}  # stream -> chunk -> parts
        self._held: dict[int, dict[int, Held]] = {}  # stream -> chunk -> held

    def encoded(self, stream: int, k: int, parts: list[Part]) -> None:
        kept = self._encoded.setdefault(stream, {})
        kept[k] = parts
        for old in [j for j in kept if j <= k - KEPT]:
            del kept[old]

    def hold(self, stream: int, k: int, held: Held) -> None:
        """Hold chunk ``k`` (read from its slot), with its parts."""
        if held.parts is None:
            parts = self.parts(stream, k)
            if parts is None:  # not encoded here (or long ago: written): nothing to append
                return
            held = held._replace(parts=parts)
        self._held.setdefault(stream, {})[k] = held

    def parts(self, stream: int, k: int) -> list[Part] | None:
        """The parts made here of the stream's chunk ``k``, if they are kept."""
        return self._encoded.get(stream, {}).get(k)

    def close(self, stream: int) -> None:
        self._encoded.pop(stream, None)

    def held(self) -> list[dict[int, Held]]:
        """Each stream's held chunks, by chunk number, for those that hold any."""
        return [chunks for chunks in self._held.values() if chunks]
