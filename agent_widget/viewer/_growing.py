"""The served episode's columns as they grow while a cell appends, none copied whole.

A training loop may append thousands of steps a second to a viewer: a column of
per-step values grows in amortized O(1) (its buffer doubles), and the infos and
observations appended are read after the recorded ones as one sequence (a dict
space's observations as one dict a position).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agent_widget.format import CHUNK_SIZE


class GrowingColumn:
    """Per-step values that grow a step at a time in amortized O(1) (a training loop's
    appends must not copy the whole episode each time). The source array is never written.
    """

    def __init__(self, values: Any, what: str) -> None:
        self._buffer = values
        self._size = len(values)
        self._owned = False
        self.what = what

    @property
    def values(self) -> Any:
        return self._buffer[: self._size]

    def checked(self, rows: Any, step: int) -> np.ndarray:
        """``rows`` if they can be appended, else a ValueError naming ``step``.

        An empty column takes the type of its first rows: an episode shown from its
        first frame alone learns what its actions look like from the first append.
        """
        rows = np.asarray(rows)
        if self._size == 0:
            return rows
        shape, dtype = tuple(self._buffer.shape[1:]), self._buffer.dtype
        if rows.shape[1:] != shape or not np.can_cast(rows.dtype, dtype, "same_kind"):
            raise ValueError(
                f"{self.what} at step {step}: got {rows.dtype} of shape {rows.shape[1:]}, "
                f"the episode has {dtype} of shape {shape}"
            )
        return rows

    def extend(self, rows: np.ndarray) -> None:
        if self._size == 0:
            self._buffer = rows[:0]
        size = self._size + len(rows)
        if not self._owned or size > len(self._buffer):
            capacity = max(size, 2 * self._size, CHUNK_SIZE)
            buffer = np.empty((capacity, *self._buffer.shape[1:]), self._buffer.dtype)
            buffer[: self._size] = self.values
            self._buffer, self._owned = buffer, True
        self._buffer[self._size : size] = rows
        self._size = size


class Joined(Sequence[Any]):
    """Two sequences read as one, without copying either (the recorded and the appended)."""

    def __init__(self, first: Sequence[Any], second: Sequence[Any]) -> None:
        self._first, self._second = first, second

    def __len__(self) -> int:
        return len(self._first) + len(self._second)

    def __getitem__(self, t: Any) -> Any:
        if not isinstance(t, int) or not 0 <= t < len(self):
            raise IndexError(f"position {t!r} out of range for {len(self)} positions")
        old = len(self._first)
        return self._first[t] if t < old else self._second[t - old]


class Rows(Sequence[Any]):
    """Per-position rows of observations: a dict space's arrays read as one dict per position."""

    def __init__(self, observations: Any, length: int) -> None:
        self._observations, self._length = observations, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, t: Any) -> Any:
        if not isinstance(t, int) or not 0 <= t < self._length:
            raise IndexError(f"position {t!r} out of range for {self._length} positions")
        if self._observations is None:
            return None
        if isinstance(self._observations, Mapping):
            return {name: values[t] for name, values in self._observations.items()}
        return self._observations[t]
