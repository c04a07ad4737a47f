"""Frames: validation of the images a user gives, and the sequence type that holds them.

:class:`Frames` is what an episode's frames are: a sequence of HxWx3 uint8 images
that also hands out its encoded chunks (:mod:`agent_widget.format._codec`), in memory
(:mod:`agent_widget.format._array_frames`) or read lazily from a file
(:mod:`agent_widget.format._lazy_columns`).

A missing frame (``None``: a ``render()`` that returned nothing) is kept as missing:
an empty (0, 0, 3) image, stored as a part of 0x0 frames with an empty raw payload,
which the viewer shows as "no frame at step t".
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from agent_widget.format._codec import MAX_FRAME_BYTES, Part, chunk_count, decode_frame, decode_part

# Decoded frames held at once beyond the one asked for: reading a part in order decodes
# it once (a Pong part is 1.6 MB), but a part of huge frames (16 of 4600x4600 zeros
# compress to a few KB) is read a frame at a time, so a small file cannot make a
# reader hold gigabytes.
DECODED_BYTES = 64 * 2**20
# A missing frame: what frames[t] is where there was none.
MISSING = np.zeros((0, 0, 3), np.uint8)
MISSING.flags.writeable = False


def held(frame: np.ndarray) -> np.ndarray:
    """A read-only copy of ``frame`` to hold: an env may render into one array again and
    again (freezing it would break the env's next render), or hand out a view of a
    larger one (holding it would pin that)."""
    if frame is MISSING:
        return frame
    frame = frame.copy()
    frame.flags.writeable = False
    return frame


def normalize_frame(frame: Any, t: int) -> np.ndarray:
    """Return ``frame`` as a C-contiguous HxWx3 uint8 array, or raise ValueError naming step ``t``.

    Accepted: uint8 HxWx3 (returned without a copy when already contiguous), grayscale
    HxW or HxWx1, HxWx4 (alpha dropped), floats in [0, 1] (scaled by 255 and rounded)
    and integers in [0, 255]; ``None`` or a (0, 0, 3) array is a missing frame
    (:data:`MISSING`).

    Examples:
        >>> normalize_frame(np.zeros((2, 3)), t=0).shape, normalize_frame(None, t=1).shape
        ((2, 3, 3), (0, 0, 3))
    """
    if (
        type(frame) is np.ndarray
        and frame.dtype == np.uint8
        and frame.ndim == 3
        and frame.shape[2] == 3
        and 0 < frame.size <= MAX_FRAME_BYTES
        and frame.flags.c_contiguous
    ):
        return frame  # as most envs render: nothing to check or convert (~1 µs a step)
    if frame is None:
        return MISSING
    array = np.asarray(frame)
    if array.shape == MISSING.shape:
        return MISSING
    where = f"frame at step {t}"
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    elif array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ValueError(
            f"{where}: expected an HxWx3 RGB, HxWx4 RGBA or HxW grayscale image, "
            f"got shape {array.shape}"
        )
    array = array[:, :, :3]
    height, width = array.shape[:2]
    if height == 0 or width == 0:
        raise ValueError(f"{where}: the image is empty (shape {array.shape})")
    if height * width * 3 > MAX_FRAME_BYTES:
        raise ValueError(
            f"{where}: {height}x{width} is too large (at most {MAX_FRAME_BYTES} bytes)"
        )
    return np.ascontiguousarray(_to_uint8(array, where))


def _to_uint8(array: np.ndarray, where: str) -> np.ndarray:
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f":
        if not np.isfinite(array).all():
            raise ValueError(f"{where}: contains NaN or infinite values")
        low, high = float(array.min()), float(array.max())
        if low < 0.0 or high > 1.0:
            raise ValueError(
                f"{where}: float images must lie in [0, 1], got values in [{low:g}, {high:g}]"
            )
        return np.rint(array * 255.0).astype(np.uint8)
    if array.dtype.kind in "iu":
        low, high = int(array.min()), int(array.max())
        if low < 0 or high > 255:
            raise ValueError(
                f"{where}: integer images must lie in [0, 255], got values in [{low}, {high}]"
            )
        return array.astype(np.uint8)
    raise ValueError(f"{where}: unsupported dtype {array.dtype} (use uint8 or float in [0, 1])")


def position(index: Any, length: int, what: str) -> int:
    """``index`` (negative counts from the end) as a position in 0..length-1, else IndexError."""
    t = operator.index(index)
    if not -length <= t < length:
        raise IndexError(f"index {index} out of range for {length} {what}")
    return t % length


class Frames(ABC):
    """A sequence of HxWx3 uint8 frames that also hands out its encoded chunks."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _frame(self, t: int) -> np.ndarray:
        """Frame ``t``, with ``0 <= t < len(self)`` already checked."""

    @abstractmethod
    def _encode_chunk(self, k: int) -> list[Part]:
        """The parts of chunk ``k``, with ``0 <= k < num_chunks`` already checked."""

    def __getitem__(self, t: int) -> np.ndarray:
        return self._frame(position(t, len(self), "frames"))

    def __iter__(self) -> Iterator[np.ndarray]:
        for k in range(self.num_chunks):
            for part in self.chunk(k):
                yield from self._part_frames(part)

    def _part_frames(self, part: Part) -> Iterator[np.ndarray]:
        """The frames of ``part`` in order: decoded together, or one at a time when they
        would pass :data:`DECODED_BYTES` together."""
        if part.count * part.height * part.width * 3 <= DECODED_BYTES:
            yield from self._decode(part)
        else:
            for i in range(part.count):
                yield self._decode(part, i + 1, last_only=True)[0]

    def _decode(self, part: Part, stop: int | None = None, last_only: bool = False) -> np.ndarray:
        """The first ``stop`` frames of ``part`` (:func:`decode_part`), or only the last of them;
        subclasses may say more about where a failure comes from."""
        if last_only:
            return decode_frame(part, (part.count if stop is None else stop) - 1)[None]
        return decode_part(part, stop)

    @property
    def num_chunks(self) -> int:
        return chunk_count(len(self))

    def chunk(self, k: int) -> list[Part]:
        """The encoded parts of chunk ``k`` (positions ``16k .. 16k+15``)."""
        k = operator.index(k)
        if not 0 <= k < self.num_chunks:
            raise IndexError(f"chunk {k} out of range for {self.num_chunks} chunks")
        return self._encode_chunk(k)


class DecodedPart:
    """The frames decoded last from one part, so that reading a part in order decodes it once.

    A frame costs decoding its part up to that frame; reading on past the frames held
    decodes the rest of the part at once, so frames read in order cost about one
    inflate of each part. One part is kept, and at most :data:`DECODED_BYTES` of it
    (past that, the frame asked for alone), which bounds the memory. The cache is
    replaced whole, never updated in place, so threads sharing it never see it half-written.
    """

    def __init__(self) -> None:
        # (the part's key, the index of the first frame held, the frames held)
        self._decoded: tuple[int, int, np.ndarray] | None = None

    @property
    def nbytes(self) -> int:
        decoded = self._decoded
        return 0 if decoded is None else decoded[2].nbytes

    def frame(
        self,
        key: int,
        i: int,
        part: Callable[[], Part],
        decode: Callable[..., np.ndarray],
    ) -> np.ndarray:
        """Frame ``i`` (read-only) of the part named ``key``; ``part()`` gives it when not
        held, ``decode(part, stop, last_only=...)`` decodes it."""
        decoded = self._decoded
        if decoded is None or decoded[0] != key or not 0 <= i - decoded[1] < len(decoded[2]):
            whole = part()
            frame_bytes = whole.height * whole.width * 3
            if (i + 1) * frame_bytes > DECODED_BYTES:
                first, frames = i, decode(whole, i + 1, last_only=True)
            else:
                ahead = decoded is not None and decoded[0] == key  # reading on: the rest too
                stop = (
                    whole.count if ahead and whole.count * frame_bytes <= DECODED_BYTES else i + 1
                )
                first, frames = 0, decode(whole, stop)
            frames.flags.writeable = False
            decoded = self._decoded = (key, first, frames)
        return decoded[2][i - decoded[1]]
