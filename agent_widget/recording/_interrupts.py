"""Ctrl-C held while a recording changes its state, so an interrupt never leaves it half done.

A notebook's Kernel → Interrupt is a SIGINT, which Python turns into a
KeyboardInterrupt at whatever line runs: between appending a step's frame and its
reward, or in the middle of writing a chunk to the episode's file. Either leaves the
episode inconsistent (lists of different lengths, a chunk half written). The few
places that change a recording's state therefore hold the signal until they are done
(a step's append: microseconds; a chunk's write: milliseconds) and raise it then, so
the interrupt lands between two whole steps and the recorder can file every step.

Holding swaps the SIGINT handler in and out: two ``sigaction`` calls, ~0.6 µs a step
here through ``_signal`` (``signal.signal`` converts each handler to an enum, which
for a function raises and catches a ValueError: ~12 µs a step, 4% of a Pong step and
render; ``benchmarks.recording_faults``). A handler left in place between steps would
cost less but would have to tell, when it finds itself installed again, whether the
handler it replaced is still the one to call: code that swaps handlers and restores
ours makes that wrong, and Ctrl-C would then do something else than the user set.

Signals reach only the main thread, and only it can hold them: elsewhere the block
runs as it is. Blocking the signal (``pthread_sigmask``) would not hold it: a signal
sent to the process goes to a thread that does not block it (a Jupyter kernel has
several), and Python raises it in the main thread all the same.
"""

from __future__ import annotations

import _signal  # signal.signal without its enum conversions (see above)
import signal
import threading
from types import FrameType, TracebackType
from typing import Any


class interrupts_held:  # lower case: used as a function, ``with interrupts_held():``
    """Hold SIGINT while the block runs, then hand it to the handler that was there
    (a KeyboardInterrupt, usually) if one came.

    ``raise_after=False`` drops a held interrupt instead: for the clean-up after an
    exception, which goes on anyway (a second Ctrl-C while the steps so far are being
    filed waits for them, and is not raised over the first). Nothing is raised over an
    exception the block itself raises.
    """

    __slots__ = ("_held", "_holding", "_previous", "_raise_after")

    def __init__(self, *, raise_after: bool = True) -> None:
        self._raise_after = raise_after
        self._held: list[FrameType | None] = []
        self._holding = False

    def _hold(self, _signum: int, frame: FrameType | None) -> None:
        self._held.append(frame)

    def __enter__(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous: Any = _signal.signal(signal.SIGINT, self._hold)
            self._holding = True

    def __exit__(
        self,
        error_type: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._holding:
            return
        self._holding = False
        _signal.signal(signal.SIGINT, self._previous)
        if self._held and self._raise_after and error is None:
            _deliver(self._previous, self._held[0])


def _deliver(handler: Any, frame: FrameType | None) -> None:
    """What the handler in place would have done with the SIGINT held."""
    if callable(handler):
        handler(signal.SIGINT, frame)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)
