"""``Throttle``: a function run at most once a pause, the last request to run it never lost.

The TrainingViewer draws a new position at most every ``interval`` seconds and sends
its colour scales and learning curve at most ten times a second, however fast
snapshots come: each is a throttle whose function reads the newest state as it runs,
so one run serves every request made while it waited.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class Throttle:
    """Runs ``call`` now when its last run is ``pause()`` seconds old, else once from a timer.

    Runs never overlap; a request while a timer is pending adds nothing (the timer's run
    will read the newest state). :meth:`flush` runs a pending one now (a cell's end),
    :meth:`cancel` drops it.

    Examples:
        >>> runs = []
        >>> throttle = Throttle(lambda: runs.append(len(runs)), pause=lambda: 60.0)
        >>> throttle.soon(); throttle.soon(); throttle.soon()
        >>> runs, throttle.pending  # the first at once, the others waiting together
        ([0], True)
        >>> throttle.flush()
        >>> runs, throttle.pending
        ([0, 1], False)
    """

    def __init__(self, call: Callable[[], None], pause: Callable[[], float]) -> None:
        self._call = call
        self._pause = pause
        self._lock = threading.Lock()  # the timer and the time of the last run
        self._running = threading.Lock()  # one run at a time
        self._timer: threading.Timer | None = None
        self._ran_at = -math.inf

    @property
    def pending(self) -> bool:
        """Whether a run waits for its timer."""
        return self._timer is not None

    def soon(self) -> None:
        """Run now if the last run is old enough, else make sure a timer runs it then."""
        with self._lock:
            if self._timer is not None:
                return
            wait = self._ran_at + self._pause() - time.monotonic()
            if wait > 0:
                self._timer = threading.Timer(wait, self._on_timer)
                self._timer.daemon = True
                self._timer.start()
                return
        self._run()

    def flush(self) -> None:
        """Run the pending run now, if there is one; else wait for a run under way."""
        if self._take_timer():
            self._run()
        else:
            with self._running:
                pass

    def cancel(self) -> None:
        """Drop the pending run, if there is one."""
        self._take_timer()

    def _take_timer(self) -> bool:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        return timer is not None

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
        self._run()

    def _run(self) -> None:
        with self._running:
            with self._lock:
                self._ran_at = time.monotonic()
            self._call()
