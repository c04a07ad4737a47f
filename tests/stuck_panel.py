"""A panel function stuck in a loop, as an infinite loop in user code is, but one the test
can end: ``release()`` (at teardown at the latest, by the ``stuck`` fixture in
conftest.py) lets every call return, so no thread outlives the test."""

from __future__ import annotations

import threading

from agent_widget.panels import Step
from tests.waiting import LIMIT


class Stuck:
    """Spins in pure Python (the GIL changes hands, as in ``while True: pass``) until released."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.entered = threading.Event()
        self._released = threading.Event()
        self._running = 0
        self._changed = threading.Condition()

    def __call__(self, step: Step) -> str:
        with self._changed:
            self.calls.append(step.t)
            self._running += 1
        self.entered.set()
        try:
            while not self._released.is_set():
                pass
            return f"late t={step.t}"
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    def release(self) -> None:
        """Lets every call return, and waits until they have."""
        self._released.set()
        with self._changed:
            assert self._changed.wait_for(lambda: self._running == 0, LIMIT), "still running"
