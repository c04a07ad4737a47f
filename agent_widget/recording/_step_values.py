"""What a step brings, checked as it comes, and the actions made into an array.

A reward that is not a number, or a flag that is not one flag, is refused before the
step changes anything (an error naming the step and the value); actions of any space are
kept, as numbers where they form a numeric array, else as text.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def actions_array(actions: list[Any]) -> np.ndarray:
    """The actions as numbers when they form a numeric array, else each as text (a Text
    space's strings; Tuple and Dict actions as JSON where they can be)."""
    try:
        array = np.asarray(actions)
    except ValueError:  # ragged: a Tuple of parts of different shapes
        array = None
    if array is not None and (array.dtype.kind in "biufc" or array.size == 0):
        return array
    return np.array([_action_string(action) for action in actions], dtype=str)


def _action_string(action: Any) -> str:
    if isinstance(action, str):
        return action
    try:
        return json.dumps(action, default=lambda value: np.asarray(value).tolist())
    except (TypeError, ValueError):
        return repr(action)


def number(value: Any, t: int, what: str) -> float:
    """A step's reward as a float, or a ValueError naming the step and the value."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"step {t}: the {what} is {value!r:.80} ({type(value).__name__}), not a number; "
            f"the {t} steps before it are kept"
        ) from None


def flag(value: Any, t: int, what: str) -> bool:
    """A step's terminated or truncated as a bool, or a ValueError naming the step."""
    if type(value) is bool:  # as gymnasium's envs give it: no need to ask numpy
        return value
    if np.ndim(value) != 0:
        raise ValueError(
            f"step {t}: {what} is {value!r:.80} ({type(value).__name__}), not one flag; "
            f"the {t} steps before it are kept"
        )
    return bool(value)
