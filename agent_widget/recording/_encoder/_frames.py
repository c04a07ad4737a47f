"""An episode's frames as it is recorded: encoded by the encoder process.

:class:`OffloadedFrames` is the file format's :class:`~agent_widget.format.ArrayFrames`
whose chunks, from the second on, are filled in a ring of shared memory and encoded by
the encoder process (:mod:`agent_widget.recording._encoder._process`) where there is a
second core: appending a frame then costs its copy into shared memory, and the same
bytes come back. With a file to record to, it also hands that process what it needs to
append each chunk should this process die (:meth:`OffloadedFrames.hold`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from agent_widget.format import CHUNK_SIZE, ArrayFrames, OpenChunk
from agent_widget.recording._encoder._held_chunks import Held
from agent_widget.recording._encoder._process import EncoderDied, encoder_process
from agent_widget.recording._encoder._remote_records import RemoteRecords
from agent_widget.recording._encoder._ring import FrameRing, RemoteChunk, episode_ring


class OffloadedFrames(ArrayFrames):
    """Frames encoded by the encoder process, from the second chunk on and once it has
    started (``offload``; else as :class:`~agent_widget.format.ArrayFrames`). Call
    :meth:`finish_encoding` when no frame follows.

    Examples:
        >>> frames = OffloadedFrames(np.zeros((40, 4, 6, 3), np.uint8))
        >>> frames.finish_encoding()
        >>> len(frames), frames.num_chunks
        (40, 3)
    """

    def __init__(
        self,
        frames: Sequence[Any] | np.ndarray = (),
        *,
        allow_resize: bool = False,
        encoding: str = "zlib-runs",
        offload: bool = True,
    ) -> None:
        self._offload = offload
        self._ring: FrameRing | None = None  # with offload, once the encoder process is up
        self._ring_from = 0  # the first chunk given to the ring
        if offload:
            encoder_process()  # started now, to be up by the second chunk
        super().__init__(frames, allow_resize=allow_resize, encoding=encoding)

    def ready(self, k: int) -> bool:
        """Whether chunk k's parts are at hand without waiting for the encoder process."""
        chunk = self._open.get(k)
        return chunk is None or chunk.ready

    def with_encoder(self, k: int) -> bool:
        """Whether chunk k's frames went to the encoder process (it can make the chunk's
        record without waiting for them)."""
        return self._ring is not None and k >= self._ring_from

    def hold(self, k: int, written: int, held: Held) -> bool:
        """Give the encoder process full chunk ``k``'s ``held`` values (all but its frames)
        to append to the episode's file should this process die before writing it;
        ``written``: the chunks in the file now
        (:mod:`agent_widget.recording._encoder._held_chunks`). Its frame parts go with it
        if they are here, else the encoder's own are used. Whether it was held."""
        if self._ring is None:
            return False  # encoded here: each chunk is written once its steps are known
        chunk = self._open.get(k)
        with_encoder = isinstance(chunk, RemoteChunk) and not chunk.ready
        parts = None if with_encoder else self.chunk(k)
        return self._ring.hold(k, written, held._replace(parts=parts))

    def records(self, state: tuple[int, int, dict[bytes, int]]) -> RemoteRecords | None:
        """The encoder process makes the journal records of the chunks held from
        ``state``'s on (:mod:`agent_widget.recording._encoder._remote_records`); None where
        it does not encode these frames."""
        if self._ring is None or self._ring.error is not None:
            return None
        return self._ring.records(state)

    def drop_held(self) -> None:
        """The encoder process forgets the chunks held (the episode's file failed)."""
        if self._ring is not None:
            self._ring.drop_held()

    def take_error(self) -> EncoderDied | None:
        """The encoder process's death, once: its frames are encoded here since."""
        return None if self._ring is None else self._ring.take_error()

    def finish_encoding(self, *, let_go: bool = True) -> None:
        """No frame follows: every chunk's parts here, and (``let_go``) the shared memory
        let go, the encoder process's stream closed (dropping what it held for the
        episode's file: a recorder lets go once it wrote its chunks)."""
        if self._ring is None:
            return
        chunks = list(self._open.items())
        for k, chunk in chunks:  # encoded here while the encoder process ends the full ones
            if not chunk.full and isinstance(chunk, RemoteChunk):
                self._open[k] = chunk.moved_here()
        for k, chunk in chunks:
            if chunk.full:
                self._seal(k)
        if let_go:
            self._ring.close()
            self._offload, self._ring = False, None

    def _new_chunk(self, k: int) -> OpenChunk:
        """Chunk k, encoded here or (``offload``) by the encoder process."""
        if self._offload and self._ring is None and self._shape is not None:
            size = int(np.prod(self._shape))
            self._ring, self._offload = episode_ring(size, self.encoding, k)
            self._ring_from = k
        if self._ring is None or self._ring.error is not None:
            return self._chunk_here(k)
        return RemoteChunk(k * CHUNK_SIZE, self._ring, functools.partial(self._chunk_here, k))
