"""Long episodes tiled from a real one's chunks: 100,000 positions that cost, per chunk,
what a recorded episode of that length would, built in moments. Imported by tests,
benchmarks and their notebook kernels."""

from __future__ import annotations

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format import Frames
from agent_widget.format._codec import CHUNK_SIZE, Part, decode_frame, decode_part, encode_part


class RepeatedFrames(Frames):
    """``length`` positions made of a real episode's full chunks, repeated (for a long file)."""

    def __init__(self, source: Frames, length: int) -> None:
        full = len(source) // CHUNK_SIZE
        self._chunks = [source.chunk(k) for k in range(full)]
        self._length = length

    def __len__(self) -> int:
        return self._length

    def _encode_chunk(self, k: int) -> list[Part]:
        source = self._chunks[k % len(self._chunks)]
        shift = k * CHUNK_SIZE - source[0].start
        count = min(CHUNK_SIZE, self._length - k * CHUNK_SIZE)  # the last chunk may be cut
        parts = []
        for part in source:
            keep = min(part.count, source[0].start + count - part.start)
            if keep <= 0:
                break
            if keep < part.count:
                parts.append(encode_part(decode_part(part, keep), part.start + shift))
            else:
                parts.append(part._replace(start=part.start + shift))
        return parts

    def _frame(self, t: int) -> np.ndarray:
        part = next(p for p in self._encode_chunk(t // CHUNK_SIZE) if t < p.start + p.count)
        return decode_frame(part, t - part.start)


def repeated(rollout: Rollout, positions: int) -> Rollout:
    """A ``positions``-long episode made of ``rollout``'s full frame chunks, repeated.

    The payloads are the real ones (every frame decodes to a frame of the episode),
    so a long episode costs what a recorded one of that length would, per chunk.
    """
    if rollout.frames is None:
        raise ValueError("repeated() tiles an episode's frames; this episode has none")
    steps = positions - 1
    infos = list(rollout.infos or [])  # a loaded rollout's infos are lazy: read them once
    period = len(infos) // CHUNK_SIZE * CHUNK_SIZE
    return Rollout.from_arrays(
        frames=RepeatedFrames(rollout.frames, positions),
        actions=np.resize(rollout.actions, (steps, *rollout.actions.shape[1:])),
        rewards=np.resize(rollout.rewards, steps),
        infos=[infos[t % period] for t in range(positions)],
        metadata=rollout.metadata,
    )
