"""Chunks the frame encoder process holds for a recording to a file, so that killing the
recording process loses no chunk whose steps were all known.

With ``path=`` a chunk goes to the file once its steps are all known and its frame parts
are at hand. From an episode's second chunk on the parts come back from the encoder
process (:mod:`agent_widget.format._encoder_process`) ~1-2 ms after the chunk was sent,
so the file trails the episode by a chunk or two: a recording process killed then
(SIGKILL, the OOM killer, a job's time limit) would lose them, where encoding inline it
had written them. So for each chunk it leaves waiting on the encoder, the recording
process sends the encoder process the rest of the chunk (:class:`Held`: its per-step
arrays, large observations and infos, as its journal record takes them; one message a
chunk, built once and written from later). The encoder process keeps them next to the
parts it encoded (:class:`HeldChunks`), drops those the recording process says it wrote,
and, when its pipe closes without the recording process having said it exits (it died),
appends those that follow the file's last whole journal record
(:func:`agent_widget.format._append_held.append_held`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from agent_widget.format._codec import Part

# Encoded chunks kept a stream, newest first: a chunk's hold follows its "chunk" message
# at once (it is sent when the step after the chunk comes), so the newest one is enough;
# a few more cost nothing (~1 KB a Pong chunk).
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
    infos: tuple[Any, ...]  # the infos' payload (a ``Payload``'s fields)
    parts: list[Part] | None  # the frame parts; None: those the encoder process made

    @classmethod
    def of(
        cls,
        file: tuple[str, int, int],
        layout: dict[str, Any] | None,
        arrays: dict[str, np.ndarray],
        streams: list[tuple[int, bytes | None]],
        infos: tuple[Any, ...],
    ) -> Held:
        """A chunk's values but its frames, packed to be sent (its parts added by
        :meth:`agent_widget.format.ArrayFrames.hold` where they are at hand)."""
        return cls(file, layout, packed(arrays), streams, tuple(infos), None)


class HeldChunks:
    """In the encoder process: each stream's newest encoded parts, and the chunks held
    for it until the recording process writes them (or its episode ends)."""

    def __init__(self) -> None:
        self._encoded: dict[int, dict[int, list[Part]]] = {}  # stream -> chunk -> parts
        self._held: dict[int, dict[int, Held]] = {}  # stream -> chunk -> held

    def encoded(self, stream: int, k: int, parts: list[Part]) -> None:
        kept = self._encoded.setdefault(stream, {})
        kept[k] = parts
        for old in [j for j in kept if j <= k - KEPT]:
            del kept[old]

    def hold(self, stream: int, k: int, written: int, held: Held) -> None:
        """Hold chunk ``k``; ``written``: the chunks in the file when it was sent."""
        chunks = self._held.setdefault(stream, {})
        for old in [j for j in chunks if j < written]:
            del chunks[old]
        if held.parts is None:
            parts = self._encoded.get(stream, {}).get(k)
            if parts is None:  # never encoded here: nothing to append from it on
                return
            held = held._replace(parts=parts)
        chunks[k] = held

    def drop(self, stream: int) -> None:
        """Forget what is held for ``stream`` (its file is done with, or failed)."""
        self._held.pop(stream, None)

    def close(self, stream: int) -> None:
        self.drop(stream)
        self._encoded.pop(stream, None)

    def held(self) -> list[dict[int, Held]]:
        """Each stream's held chunks, by chunk number, for those that hold any."""
        return [chunks for chunks in self._held.values() if chunks]
