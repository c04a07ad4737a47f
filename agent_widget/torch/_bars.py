"""``ActionBars``: one value per action, with what a plain bar chart cannot say.

A Q-value or policy card needs more than bars: which action was taken and which
one the agent prefers (they differ under epsilon-greedy exploration), a value axis
fixed across the episode so that steps compare, and a few numbers (V, the gap
between the top two actions). ``ActionBars`` carries them and is also a
``Mapping[str, float]`` of label -> value, so a card that knows only plain dicts
still draws it as bars with the taken action highlighted. It needs numpy only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from agent_widget.panels import Step


class ActionBars(Mapping[str, float]):
    """Per-action values of one step and how to draw them.

    Attributes:
        heights: float64 array, one value per action (``np.asarray(bars)`` too).
        labels: one label per action (the action names where known, else indices).
        taken: index of the action taken at this step, ``None`` where none was.
        greedy: index of the action the agent prefers (highest value).
        scale: ``(low, high)`` the value axis spans, the same for every step of the
            episode, or ``None`` to fit each step's own values.
        stats: named numbers about the step (e.g. ``{"V": 1.2, "top-2 gap": 0.1}``).
        ranges: ``(n, 2)`` float64, a ``(low, high)`` whisker per bar (a Gaussian
            actor's mean +- one standard deviation), or ``None``.
        marks: float64, a value marked on each bar (the continuous action taken), or
            ``None``.
        source: what the values were computed from (``"the Q-network"``, ``"the
            actor"``, ``"critics 1, 2"``), said first in the caption; ``None`` says
            nothing.

    For continuous actions the bars are one per action dimension: ``greedy=False``
    (no dimension is preferred), ``ranges`` and ``marks`` say the spread and the
    action taken.

    Examples:
        >>> bars = ActionBars([1.0, 3.0], ["LEFT", "RIGHT"], taken=0, stats={"V": 3.0})
        >>> dict(bars), bars.greedy, bars.caption
        ({'LEFT': 1.0, 'RIGHT': 3.0}, 1, 'V 3 · greedy RIGHT · taken LEFT')
        >>> ActionBars([1.0, 3.0], ["LEFT", "RIGHT"], source="the Q-network").caption
        'from the Q-network · greedy RIGHT'
    """

    def __init__(
        self,
        values: Any,
        labels: Sequence[str],
        *,
        taken: int | None = None,
        scale: tuple[float, float] | None = None,
        stats: Mapping[str, float] | None = None,
        greedy: bool = True,
        ranges: Any = None,
        marks: Any = None,
        source: str | None = None,
    ) -> None:
        self.heights = np.asarray(values, dtype=np.float64).reshape(-1)
        self.labels = tuple(labels)
        if len(self.labels) != len(self.heights) or len(set(self.labels)) != len(self.labels):
            raise ValueError(
                f"ActionBars needs one distinct label per value: {len(self.heights)} values, "
                f"labels {list(self.labels)!r:.200}"
            )
        if taken is not None and not 0 <= taken < len(self.heights):
            raise ValueError(f"taken action {taken} is not one of the {len(self.heights)} actions")
        self.taken = taken
        self.greedy = int(np.argmax(self.heights)) if greedy and len(self.heights) else None
        self.ranges = None if ranges is None else self._per_bar(ranges, (len(self.heights), 2))
        self.marks = None if marks is None else self._per_bar(marks, (len(self.heights),))
        self.scale = None if scale is None else (float(scale[0]), float(scale[1]))
        self.stats = {name: float(value) for name, value in (stats or {}).items()}
        self.source = source

    @property
    def caption(self) -> str:
        """One line of text: what the values come from, the stats, then the greedy and the
        taken action."""
        parts = [] if self.source is None else [f"from {self.source}"]
        parts += [f"{name} {value:.3g}" for name, value in self.stats.items()]
        if self.greedy is not None:
            parts.append(f"greedy {self.labels[self.greedy]}")
        if self.taken is not None:
            parts.append(f"taken {self.labels[self.taken]}")
        return " · ".join(parts)

    def _per_bar(self, values: Any, shape: tuple[int, ...]) -> np.ndarray:
        array = np.asarray(values, dtype=np.float64)
        if array.shape != shape:
            raise ValueError(f"expected {shape} values, one per bar; got shape {array.shape}")
        return array

    def __getitem__(self, label: str) -> float:
        try:
            return float(self.heights[self.labels.index(label)])
        except ValueError:
            raise KeyError(label) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.labels)

    def __len__(self) -> int:
        return len(self.labels)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self.heights.astype(dtype or np.float64, copy=True)

    def __repr__(self) -> str:
        return f"ActionBars({dict(self)!r}, taken={self.taken}, greedy={self.greedy})"


def action_labels(count: int, names: Sequence[str]) -> list[str]:
    """The action names when there is one distinct name per action, else the indices."""
    if len(names) == count and len(set(names)) == count:
        return [str(name) for name in names]
    return [str(i) for i in range(count)]


def taken_action(step: Step, count: int) -> int | None:
    """The step's action as an index into ``count`` outputs (``None`` where none was taken)."""
    taken = step.action_index
    if taken is not None and not 0 <= taken < count:
        raise ValueError(f"step {step.t}: action {taken} is not one of the model's {count} actions")
    return taken
