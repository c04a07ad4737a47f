"""What ``Rollout``'s methods that step an env call: functions of the recording layer,
which lends them here when it is imported (``import agent_widget`` imports it first).

``Rollout.branch()`` and ``Rollout.from_minari()`` stay where users call them, and the
episode layer stays below recording: it never imports the layer that builds on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_lent: dict[str, Callable[..., Any]] = {}


def lend(**functions: Callable[..., Any]) -> None:
    """Lend ``Rollout`` the recording layer's ``functions`` (by the names it asks)."""
    _lent.update(functions)


def lent(name: str) -> Callable[..., Any]:
    """The function lent as ``name``."""
    try:
        return _lent[name]
    except KeyError:
        raise RuntimeError(
            f"{name} is the recording layer's: import agent_widget (or agent_widget.recording)"
        ) from None
