"""An episode's observations as they come, held as cheaply as their kind allows: the
frames themselves while each observation is its step's frame (Atari's screen), large
numeric arrays encoded by the chunk, anything else as given."""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agent_widget.format import LARGE_ROW_BYTES, ArrayFrames, FrameRows, Frames
from agent_widget.recording._encoder import EncoderDied, OffloadedRows

_PLAIN = frozenset({int, float, bool, str, np.int64})


def snapshot(obs: Any) -> Any:
    """A copy of array observations: frame-stacking and preprocessing wrappers reuse buffers."""
    if isinstance(obs, np.ndarray):
        return obs.copy()
    if type(obs) in _PLAIN:  # a discrete action: not asked of Mapping's abc (~0.5 µs)
        return obs
    if isinstance(obs, Mapping):
        return {key: snapshot(value) for key, value in obs.items()}
    return obs


class _ObservationColumn:
    """One observation entry's values as they come: the frames themselves while each
    value is its step's frame (Atari's screen: nothing more is held), large numeric
    arrays encoded by the chunk, anything else kept as given (stacked when a rollout is
    asked for)."""

    def __init__(
        self, first: Any, frame: Any, frames: ArrayFrames | None, *, offload: bool
    ) -> None:
        self.frames = frames if frames is not None and _is_frame(first, frame) else None
        self.offload = offload  # large arrays encoded by the encoder process where there is one
        self.mirrored = 1 if self.frames is not None else 0  # values that are the frames
        self.encoded: OffloadedRows | None = None
        self.values: list[Any] = []
        self.broken_at: int | None = None  # the step whose value did not fit the others
        if self.frames is None:
            if (
                isinstance(first, np.ndarray)
                and first.dtype.kind in "biufc"
                and first.nbytes >= LARGE_ROW_BYTES
            ):
                self.encoded = OffloadedRows(first.dtype, first.shape, offload=offload)
            self.append(first, None)

    def __len__(self) -> int:
        if self.frames is not None:
            return self.mirrored
        return len(self.encoded) if self.encoded is not None else len(self.values)

    def append(self, value: Any, frame: Any) -> None:
        if self.broken_at is not None:
            return
        if self.frames is not None:
            if _is_frame(value, frame):
                self.mirrored += 1
                return
            # From here on the values are not the frames: hold the earlier ones encoded.
            mirrored, self.frames = self.frames, None
            self.encoded = OffloadedRows(np.uint8, mirrored[0].shape, offload=self.offload)
            for t in range(self.mirrored):
                self.encoded.append(mirrored[t])
        if self.encoded is None:
            self.values.append(snapshot(value))
            return
        try:
            self.encoded.append(value)
        except ValueError:
            self.broken_at = len(self.encoded)

    def rows(self, start: int, stop: int) -> np.ndarray | None:
        """Values ``start..stop-1`` as an array (a chunk written as it is recorded), or
        None when they do not stack."""
        if self.broken_at is not None:
            return None
        if self.frames is not None:
            return FrameRows(self.frames, self.mirrored)[start:stop]
        if self.encoded is not None:
            return self.encoded[start:stop]
        try:
            return np.asarray(self.values[start:stop])
        except ValueError:  # ragged
            return None

    def payload(self, k: int) -> bytes | None:
        """Chunk ``k``'s values as the file stores a large entry's, or None if broken."""
        if self.frames is not None:
            return FrameRows(self.frames, self.mirrored).payload(k)
        return self.encoded.payload(k) if self.encoded is not None else None

    def release(self, k: int, read_back: Callable[[int], bytes]) -> None:
        """Let go of the encoded chunks up to ``k``, written to a file."""
        if self.encoded is not None:
            self.encoded.release(k, read_back)

    def array(self, frames: Frames | None) -> Any:
        """The values as an array, or None when they do not stack; ``frames``: the
        rollout's frames (the values while they are the frames)."""
        if self.broken_at is not None:
            return None
        if self.frames is not None and frames is not None:
            return FrameRows(frames, self.mirrored)
        if self.encoded is not None:
            return self.encoded.copy()
        try:
            array = np.asarray(self.values)
        except ValueError:  # ragged
            return None
        return array if array.dtype.kind in "biufc" and array.ndim > 0 else None


def _is_frame(value: Any, frame: Any) -> bool:
    """Whether observation ``value`` is the frame rendered at its step (pixels alike)."""
    return (
        isinstance(value, np.ndarray)
        and isinstance(frame, np.ndarray)
        and value.dtype == np.uint8
        and frame.dtype == np.uint8  # stored as it is: a float frame is scaled
        and value.ndim == 3
        and value.shape == frame.shape
        and value.shape[2] == 3
        and _same_bytes(value, frame)
    )


def _libc_memcmp() -> Callable[[int, int, int], int] | None:
    """The C library's memcmp, or None where there is none to ask for it (Windows)."""
    try:
        memcmp = ctypes.CDLL(None).memcmp
    except (OSError, TypeError, AttributeError):
        return None
    memcmp.restype = ctypes.c_int
    memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return memcmp  # type: ignore[no-any-return]


_memcmp = _libc_memcmp()


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one shape and dtype hold the same bytes: C-contiguous ones by
    memcmp where they lie, copying nothing (Pong's screen: 1.9 µs, against 2.7 comparing
    their ``tobytes()``, whose 200 KB of copies also slowed ALE's next step: 0.8% of
    ``record()`` on Pong, paired in one process), others by NumPy."""
    contiguous = a.flags.c_contiguous and b.flags.c_contiguous
    if _memcmp is None or not contiguous or a.nbytes != b.nbytes:
        return bool(np.array_equal(a, b))
    return _memcmp(_address(a), _address(b), a.nbytes) == 0


def _address(array: np.ndarray) -> int:
    """Where a C-contiguous array's bytes start: through the buffer protocol (0.24 µs)
    where it is writable and not empty, else through NumPy's ctypes (0.8 µs)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))  # type: ignore[arg-type]
    except (TypeError, ValueError, BufferError):  # read-only, or empty
        return int(array.ctypes.data)


class RecordedObservations:
    """An episode's observations: one column, or one per key of a dict space.
    ``offload``: large arrays are encoded by the encoder process where there is one
    (:class:`OffloadedRows`); :meth:`finish_encoding` when the episode ends."""

    def __init__(
        self, first: Any, frame: Any, frames: ArrayFrames | None, *, offload: bool = False
    ) -> None:
        self.is_dict = isinstance(first, Mapping)
        entries = first if self.is_dict else {"": first}
        self.columns = {
            key: _ObservationColumn(value, frame, frames, offload=offload)
            for key, value in entries.items()
        }

    def _encoded(self) -> list[OffloadedRows]:
        return [c.encoded for c in self.columns.values() if c.encoded is not None]

    def ready(self, k: int) -> bool:
        """Whether chunk k's encoded values are at hand without waiting for the encoder."""
        return all(encoded.ready(k) for encoded in self._encoded())

    def take_error(self) -> EncoderDied | None:
        """The encoder process's death, once (its rows are encoded here since)."""
        errors = [error for e in self._encoded() if (error := e.take_error()) is not None]
        return errors[0] if errors else None

    def finish_encoding(self) -> None:
        """No value follows: every chunk encoded here, the rings given back."""
        for encoded in self._encoded():
            encoded.finish_encoding()

    def append(self, obs: Any, frame: Any) -> None:
        if not self.is_dict and type(obs) is np.ndarray:  # most envs': no abc asked
            self.columns[""].append(obs, frame)
            return
        if self.is_dict != isinstance(obs, Mapping) or (
            self.is_dict and obs.keys() != self.columns.keys()
        ):
            for column in self.columns.values():
                if column.broken_at is None:
                    column.broken_at = len(column)
            return
        entries = obs if self.is_dict else {"": obs}
        for key, column in self.columns.items():
            column.append(entries[key], frame)

    def arrays(self, frames: Frames | None) -> Any:
        """Observations as one array or a dict of arrays; None (with a warning) if they
        do not form numeric arrays."""
        arrays = {key: column.array(frames) for key, column in self.columns.items()}
        if all(array is not None for array in arrays.values()):
            return arrays if self.is_dict else arrays[""]
        steps = [c.broken_at for c in self.columns.values() if c.broken_at is not None]
        why = f"changed type or shape at step {min(steps)}" if steps else "are not numeric arrays"
        warnings.warn(
            f"observations {why} (only arrays, scalars and one level of dict of a fixed "
            "shape are stored); this rollout has no observations",
            stacklevel=4,
        )
        return None
