"""The learning curve of a :class:`TrainingViewer`: a point per episode, whatever the pace.

A position of the viewer is a value map drawn at most every ``interval`` seconds, so
how many there are depends on the machine and the front end (the same seeded run gave
57 in JupyterLab, 74 in Voila, 25 in marimo). The curve does not: its x is the
episodes trained (point ``k`` after ``k`` episodes), and episode ``k``'s return is
its own bar on the interval ``k .. k + 1``, never summed with its neighbours'. The
positions are a sampling of it: ``positions`` holds, for each, the point it shows.

On the wire the curve is the viewer's ``series`` format (js/shared/series.ts), so the
front end draws it with the viewer's own timeline: ``rewards`` the returns (one byte
an episode for FrozenLake's 0 and 1), ``extra:<name>`` the moving average and success
rate over the last ``window`` episodes as float32 (exact as sent, 4 bytes an episode).

In env steps (``x="steps"``) the points are the same, a point an episode, and
``steps`` holds each one's x: the env steps taken by the end of that episode. The
front end lays the series out on that axis (js/training/curve-steps.ts).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable

import numpy as np

from agent_widget.viewer import pack_series

X_AXES = ("episodes", "steps")


class LearningCurve:
    """Per-episode returns, whether each succeeded, and the positions sampling them.

    Examples:
        >>> curve = LearningCurve(window=2, success=lambda r: r > 0)
        >>> for ret in (0.0, 1.0, 1.0):
        ...     curve.add(ret)
        >>> curve.moving_average().tolist(), curve.success_rate().tolist()
        ([0.0, 0.5, 1.0], [0.0, 0.5, 1.0])
    """

    def __init__(
        self, window: int, success: Callable[[float], bool] | None, x: str = "episodes"
    ) -> None:
        if x not in X_AXES:
            raise ValueError(f"x must be one of {X_AXES}, got {x!r}")
        self.window = int(window)
        self.success = success
        self.x = x
        self._returns = array("d")
        self._successes = array("B")
        self._steps = array("q")  # env steps by the end of each episode (x="steps" only)
        self.positions = array("q", [0])  # the table before training: after 0 episodes

    def __len__(self) -> int:
        return len(self._returns)

    def add(self, ret: float | None, steps: int | None = None) -> None:
        """Episode ``len(self)`` returned ``ret`` (None: not given, left out of the averages)
        by ``steps`` env steps in all (needed in steps, never fewer than the last)."""
        if self.x == "steps":
            if steps is None:
                raise ValueError(
                    'a learning curve in steps (x="steps") needs the env steps so far with '
                    "each episode: snapshot(q_table, episode, ret, steps=n); the reference "
                    "agents' train() passes them"
                )
            if self._steps and steps < self._steps[-1]:
                raise ValueError(f"steps went back from {self._steps[-1]} to {steps}")
            self._steps.append(int(steps))
        value = math.nan if ret is None else float(ret)
        self._returns.append(value)
        self._successes.append(bool(self.success(value)) if self.success and ret is not None else 0)

    def sample(self, episodes: int) -> None:
        """A new position shows the table after ``episodes`` episodes."""
        self.positions.append(episodes)

    @property
    def returns(self) -> np.ndarray:
        """float64 (episodes,): each episode's return (NaN where none was given)."""
        return np.array(self._returns, dtype=np.float64)

    def moving_average(self) -> np.ndarray:
        """float64 (episodes,): the mean return of the last ``window`` episodes at each."""
        return self._trailing_mean(self.returns)

    def success_rate(self) -> np.ndarray:
        """float64 (episodes,): the share of the last ``window`` episodes that succeeded."""
        successes = np.array(self._successes, dtype=np.float64)
        return self._trailing_mean(np.where(np.isnan(self.returns), np.nan, successes))

    def series(self) -> dict[str, bytes]:
        """The curve as the front end reads it: the timeline's ``series`` (``rewards`` the
        returns, ``extra:<name>`` the running figures), ``positions``, the episodes
        trained before each position's snapshot, and in steps ``steps``, each point's x."""
        packed = {
            "rewards": pack_series(self.returns),
            "extra:moving average": pack_series(self.moving_average().astype(np.float32)),
        }
        if self.success is not None:
            packed["extra:success rate"] = pack_series(self.success_rate().astype(np.float32))
        packed["positions"] = pack_series(np.array(self.positions, dtype=np.int64))
        if self.x == "steps":
            packed["steps"] = pack_series(np.array(self._steps, dtype=np.int64))
        return packed

    def _trailing_mean(self, values: np.ndarray) -> np.ndarray:
        """The mean of the given (non-NaN) values among the last ``window`` at each index."""
        given = ~np.isnan(values)
        sums = np.concatenate([[0.0], np.cumsum(np.where(given, values, 0.0))])
        counts = np.concatenate([[0], np.cumsum(given)])
        end = np.arange(1, len(values) + 1)
        start = np.maximum(end - self.window, 0)
        count = counts[end] - counts[start]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, (sums[end] - sums[start]) / np.maximum(count, 1), 0.0)
