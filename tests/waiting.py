"""Waiting for something another thread or process does: on the condition itself, never
for a guessed time. The limit is only there so that a broken build fails instead of
hanging; it is generous because a loaded machine runs this suite ten times slower than
a quiet one (an Atari notebook took 547 s against 41 s alone)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

LIMIT = 120.0  # seconds
POLL = 0.02  # seconds between two looks at a condition that no event announces


def wait_for_trait(
    widget: Any, name: str, condition: Callable[[Any], bool], timeout: float = LIMIT
) -> Any:
    """Wait until ``condition(widget.<name>)`` holds, woken by the trait's changes (which
    may come from another thread, such as a widget's timer); the value that met it."""
    met = threading.Event()

    def check(_change: object = None) -> None:
        if condition(getattr(widget, name)):
            met.set()

    widget.observe(check, name)
    try:
        check()
        assert met.wait(timeout), f"{name} is {getattr(widget, name)!r} after {timeout} s"
    finally:
        widget.unobserve(check, name)
    return getattr(widget, name)


def wait_until(condition: Callable[[], Any], what: str, timeout: float = LIMIT) -> Any:
    """Wait until ``condition()`` is truthy, for state that no event announces (files
    another process writes, what a timer thread adds); its value."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(POLL)  # deliberate: the pause between two looks, not a wait for the state
    return value
