"""An episode's large observations as it is recorded: encoded by the encoder process.

:class:`OffloadedRows` is the file format's :class:`~agent_widget.format.EncodedArray`
whose chunks of rows are copied into a ring of shared memory as they come and encoded
by the encoder process (:class:`~agent_widget.recording._encoder._remote_rows.RemoteRows`),
as an episode's frames are (:mod:`agent_widget.recording._encoder._frames`).
"""

from __future__ import annotations

from typing import Any

from agent_widget.format import EncodedArray
from agent_widget.recording._encoder._process import EncoderDied, encoder_process
from agent_widget.recording._encoder._remote_rows import RemoteRows
from agent_widget.recording._encoder._ring import FrameRing, episode_ring


class OffloadedRows(EncodedArray):
    """Rows encoded by the encoder process where there is one (``offload``; else as
    :class:`~agent_widget.format.EncodedArray`): the same bytes, off the thread that
    appends. Call :meth:`finish_encoding` when no row follows.

    Examples:
        >>> import numpy as np
        >>> rows = OffloadedRows(np.uint8, (84, 84))
        >>> for t in range(40):
        ...     rows.append(np.full((84, 84), t, np.uint8))
        >>> rows.finish_encoding()
        >>> rows.shape, int(rows[37][0, 0])
        ((40, 84, 84), 37)
    """

    def __init__(self, dtype: Any, row_shape: tuple[int, ...], *, offload: bool = True) -> None:
        super().__init__(dtype, row_shape)
        self._offload = offload
        self._ring: FrameRing | None = None  # with offload, once the encoder process is up
        if offload:
            encoder_process()  # started now, to be up by the second chunk

    def ready(self, k: int) -> bool:
        """Whether chunk k's payload is at hand without waiting for the encoder process."""
        chunk = self._sealed[k] if k < len(self._sealed) else None
        return not isinstance(chunk, RemoteRows) or chunk.ready

    def take_error(self) -> EncoderDied | None:
        """The encoder process's death, once: its rows are encoded here since."""
        return None if self._ring is None else self._ring.take_error()

    def finish_encoding(self) -> None:
        """No row follows: every full chunk's payload here, the ring given back."""
        if self._ring is None:
            return
        for k, chunk in enumerate(self._sealed):
            if isinstance(chunk, RemoteRows):
                self._sealed[k] = chunk.payload()
        if self._filling is not None:
            self._open, self._filling = self._rows(self._filling.moved_here()), None
        self._ring.close()
        self._offload, self._ring = False, None

    def _rows_elsewhere(self, k: int) -> RemoteRows | None:
        """Chunk k in the ring, or None: encoded here."""
        if self._offload and self._ring is None:
            self._ring, self._offload = episode_ring(self._row_bytes, "zlib-runs", k)
        if self._ring is None or self._ring.error is not None:
            return None
        return RemoteRows(k, self._ring, self._row_bytes)
