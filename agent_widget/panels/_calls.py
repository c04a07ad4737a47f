"""User functions called one at a time on a thread of their own, each waited for up to a limit.

Python cannot stop a thread, so a call that runs past its limit (an infinite loop in
a panel) keeps its thread: the caller gives up on it and the next call gets a fresh
thread. The given-up call's thread ends when the call returns, handing the late
result to a callback, so a panel that was only slow still gets its result used. A
loop in C code that never releases the GIL holds every thread of the process: no
limit helps there.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
IDLE_EXIT = 10.0  # seconds a call thread waits for a call before it ends (another starts on demand)
_FRAMES = 5  # of a given-up call's stack, most recent last


class GaveUp(Exception):
    """The call was given up on: it ran past its limit (``timed_out``), or was cancelled."""

    def __init__(self, timed_out: bool, where: str) -> None:
        super().__init__("no answer in time" if timed_out else "cancelled")
        self.timed_out = timed_out
        self.where = where  # the call's last stack frames when it was given up on


class _Call(Generic[T]):
    """One call: run on a call thread, waited for by its caller."""

    def __init__(self, fn: Callable[[], T], late: Callable[[T | None], None], tag: object) -> None:
        self.fn, self.late, self.tag = fn, late, tag
        self.thread: threading.Thread | None = None  # the thread that runs it, once taken
        self.given_up = False
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._result: T | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        """Runs the function on the calling (call) thread; a late result goes to ``late``."""
        result: T | None = None
        try:
            result = self.fn()
        except BaseException as error:  # handed to the waiting caller, whatever it is
            self._error = error
        with self._lock:
            self._result = result
            self._done.set()
            late = self.given_up
        if late:
            self.late(result)

    def give_up(self) -> bool:
        """Stops waiting for the call; False when it had returned already."""
        with self._lock:
            if self._done.is_set():
                return False
            self.given_up = True
            self._done.set()  # wakes the caller
            return True

    def wait(self, timeout: float | None) -> T:
        """The result; GaveUp once ``timeout`` seconds passed or :meth:`give_up` was called."""
        timed_out = not self._done.wait(timeout) and self.give_up()
        if self.given_up:
            raise GaveUp(timed_out, self.where())
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def where(self) -> str:
        """The last frames of the call's stack, as a traceback reads (empty once it returned)."""
        frame = sys._current_frames().get(self.thread.ident or -1) if self.thread else None
        if frame is None:
            return ""
        return "".join(traceback.format_list(traceback.extract_stack(frame)[-_FRAMES:]))


class Caller:
    """Calls functions one at a time on a call thread, giving up on each after its limit.

    Examples:
        >>> caller = Caller("example")
        >>> caller.call(lambda: 6 * 7, timeout=1.0, late=print)
        42
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._one_at_a_time = threading.Lock()
        self._state = threading.Condition()  # guards the three below
        self._pending: _Call[Any] | None = None  # handed to the thread, not yet taken
        self._current: _Call[Any] | None = None  # the call being waited for
        self._thread: threading.Thread | None = None

    def call(
        self,
        fn: Callable[[], T],
        timeout: float | None,
        late: Callable[[T | None], None],
        tag: object = None,
    ) -> T:
        """``fn()`` on the call thread, once the calls before it are done or given up on.

        Raises GaveUp after ``timeout`` seconds (None: no limit) or when :meth:`give_up`
        names ``tag``; the call then keeps running on its thread, and ``late`` gets its
        result (None if it raised) there when it returns.
        """
        with self._one_at_a_time:
            call = _Call(fn, late, tag)
            with self._state:
                self._pending = self._current = call
                if self._thread is None:
                    self._thread = threading.Thread(target=self._serve, name=self._name)
                    self._thread.daemon = True  # a call stuck in user code must not hold up exit
                    self._thread.start()
                self._state.notify_all()
            try:
                return call.wait(timeout)
            except GaveUp:
                with self._state:
                    if self._pending is call:
                        self._pending = None  # never started: its thread serves the next one
                    elif self._thread is call.thread:
                        self._thread = None  # left to the call; the next one gets a fresh thread
                raise
            finally:
                with self._state:
                    self._current = None

    def give_up(self, tag: object) -> None:
        """Stops waiting for the current call if it has ``tag`` (its caller gets GaveUp)."""
        with self._state:
            if self._current is not None and self._current.tag is tag:
                self._current.give_up()

    def _serve(self) -> None:
        me = threading.current_thread()
        while True:
            with self._state:
                while self._pending is None:
                    if not self._state.wait(IDLE_EXIT) and self._pending is None:
                        if self._thread is me:
                            self._thread = None
                        return
                call, self._pending = self._pending, None
                call.thread = me
            call.run()
            if call.given_up:
                return  # the caller has moved on to a fresh thread
