"""A chunk of large observation rows encoded by the encoder process
(:mod:`agent_widget.recording._encoder._process`), as frames are (:class:`RemoteChunk`).

Each row is copied into a slot of a :class:`FrameRing` (the same rings and pool as
frames: a slot is raw bytes) as it comes; a full chunk goes to the encoder process in one
message, which encodes its rows with :func:`encode_rows`, the code that encodes them
here, and sends the payload back. Until then the rows are in the ring, raw: read from
there, copied out for a branch, or encoded here if the encoder dies (no row is lost,
and the bytes are those of encoding here all along).
"""

from __future__ import annotations

import numpy as np

from agent_widget.format import CHUNK_SIZE, encode_rows
from agent_widget.recording._encoder._ring import FrameRing


class RemoteRows:
    """Chunk ``k``'s rows of ``nbytes`` each: in the ring until their payload comes."""

    def __init__(self, k: int, ring: FrameRing, nbytes: int) -> None:
        self.k, self._ring, self._nbytes = k, ring, nbytes
        self._slots: list[int] = []
        self._payload: bytes | None = None  # came back, or encoded here

    @property
    def count(self) -> int:
        return CHUNK_SIZE if self._payload is not None else len(self._slots)

    @property
    def nbytes(self) -> int:
        """Bytes held for it: its payload, or its raw rows in the ring."""
        return len(self._payload) if self._payload is not None else len(self._slots) * self._nbytes

    def append(self, row: np.ndarray) -> bool:
        """Copy a row's bytes (1-D uint8) into the ring, waiting for a slot if need be,
        and send the chunk once full; False if no slot frees (the encoder died)."""
        with self._ring.process.lock:
            slot = self._ring.put(row)
            if slot is None:
                return False
            self._slots.append(slot)
            if len(self._slots) == CHUNK_SIZE:
                self._ring.send_rows(self.k, self, self._slots, self._nbytes)
            return True

    def came(self, payload: bytes, /) -> None:
        """The encoder's payload: the rows' slots are free."""
        self._payload = payload
        self._ring.free(self._slots)
        self._slots = []

    @property
    def ready(self) -> bool:
        """Whether its payload is here, without waiting (asks the pipe); encoded here if
        the encoder died."""
        with self._ring.process.lock:
            if self._payload is None:
                self._ring.process.receive(block=False)
                if self._ring.error is not None:
                    self._encode_here()
            return self._payload is not None

    def row(self, i: int) -> np.ndarray | None:
        """Row ``i``'s bytes (a copy: the slot is reused), or None once the payload is
        here (read it from there)."""
        with self._ring.process.lock:
            if self._payload is not None:
                return None
            return self._ring.frame(self._slots[i], (self._nbytes,))

    def payload(self) -> bytes:
        """The payload of a full chunk, waiting for the encoder (encoded here if it died)."""
        with self._ring.process.lock:
            while self._payload is None:
                if self._ring.error is not None:
                    self._encode_here()
                else:
                    self._ring.process.receive(block=True)
            return self._payload

    def moved_here(self) -> list[np.ndarray]:
        """The rows' bytes, out of the ring (a chunk still filling, held here from now on)."""
        with self._ring.process.lock:
            rows = [self._ring.frame(slot, (self._nbytes,)) for slot in self._slots]
            self._ring.free(self._slots)
            self._slots = []
            return rows

    def _encode_here(self) -> None:
        rows = [self._ring.frame(slot, (self._nbytes,)) for slot in self._slots]
        self.came(encode_rows(np.stack(rows)))
