"""What a saliency panel returns: a map, or one value per feature, that says what it
explains and where it lies.

Both stay what they were (a float64 ``numpy`` array, a ``dict`` of feature -> value)
and carry two attributes the cards read: ``caption`` (the method, the output
explained, where the map lies) and, for a map, ``over_frame``: ``False`` for a map on
the observation's own grid, which is then drawn in its card even for a panel added
with ``overlay=True`` (stretched over the frame it would land on the wrong pixels).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class SaliencyMap(np.ndarray):
    """A 2-D float64 map with its ``caption`` and whether it lies ``over_frame``.

    Examples:
        >>> values = SaliencyMap(np.ones((7, 7)), "gradient of V", over_frame=False)
        >>> values.shape, values.over_frame, float(values.sum())
        ((7, 7), False, 49.0)
    """

    caption: str
    over_frame: bool

    def __new__(cls, values: Any, caption: str, *, over_frame: bool) -> SaliencyMap:
        array = np.asarray(values, dtype=np.float64).view(cls)
        array.caption, array.over_frame = caption, over_frame
        return array

    def __array_finalize__(self, obj: Any) -> None:
        # Slices and copies keep what the map says.
        self.caption = getattr(obj, "caption", "")
        self.over_frame = getattr(obj, "over_frame", True)


class FeatureSaliency(dict[str, float]):
    """One signed attribution per feature of a vector observation, with its ``caption``."""

    def __init__(self, values: dict[str, float], caption: str) -> None:
        super().__init__(values)
        self.caption = caption
