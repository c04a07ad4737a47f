"""The value axis a panel keeps for a whole episode, so bars of different steps compare.

The range is computed over every position of the episode in batches the first time
a step of it is shown, then only over positions appended since (a live episode), and
widened if a step's values leave it (a model trained since). A panel shown for
another episode starts over.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from agent_widget.panels import EpisodeData

_SLACK = 1e-4  # share of the range a step's values may leave it by without widening it


class EpisodeRange:
    """``(low, high)`` of the values of every position of the last episode asked about."""

    def __init__(self, values_from: Callable[[EpisodeData, int], np.ndarray]) -> None:
        """``values_from(episode, start)`` gives the values of positions ``start ..``."""
        self._values_from = values_from
        self._episode: weakref.ref[Any] | None = None
        self._count = 0
        self._low, self._high = np.inf, -np.inf

    def __call__(
        self, episode: EpisodeData, count: int, current: np.ndarray
    ) -> tuple[float, float]:
        """The range over ``count`` positions of ``episode``, and the ``current`` values."""
        if self._episode is None or self._episode() is not episode or count < self._count:
            self._episode, self._count = weakref.ref(episode), 0
            self._low, self._high = np.inf, -np.inf
        if count > self._count:
            self._widen(self._values_from(episode, self._count))
            self._count = count
        # A single pass differs from a batched one in the last bits: only a real
        # excursion (a model trained since) moves the axis.
        slack = _SLACK * (self._high - self._low) if self._high > self._low else 0.0
        if np.any(current < self._low - slack) or np.any(current > self._high + slack):
            self._widen(current)
        if self._high > self._low:
            return float(self._low), float(self._high)
        return float(self._low) - 0.5, float(self._high) + 0.5  # a flat episode still needs an axis

    def _widen(self, values: np.ndarray) -> None:
        finite = values[np.isfinite(values)]
        if finite.size:
            self._low = min(self._low, float(finite.min()))
            self._high = max(self._high, float(finite.max()))
