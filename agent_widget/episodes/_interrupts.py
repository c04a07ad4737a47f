"""Ctrl-C held while a recording changes its state, so an interrupt never leaves it half done.

A notebook's Kernel → Interrupt is a SIGINT, which Python turns into a
KeyboardInterrupt at whatever line runs: between appending a step's frame and its
reward, or in the middle of writing a chunk to the episode's file. Either leaves the
episode inconsistent (lists of different lengths, a chunk half written). The few
places that change a recording's state therefore hold the signal until they are done
(a step's append: microseconds; a chunk's write: milliseconds) and raise it then, so
the interrupt lands between two whole steps and the recorder can file every step.

Holding swaps the SIGINT handler in and out (two ``sigaction`` calls: ~10 µs a step
here, 2% of a Pong step and render; ``benchmarks.recording_faults``). A handler left
in place between steps would cost less but would have to tell, when it finds itself
installed again, whether the handler it replaced is still the one to call: code that
swaps handlers and restores ours makes that wrong, and Ctrl-C would then do something
else than the user set.

Signals reach only the main thread, and only it can hold them: elsewhere the block
runs as it is.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupts_held(*, raise_after: bool = True) -> Iterator[None]:
    """Hold SIGINT while the block runs, then hand it to the handler that was there
    (a KeyboardInterrupt, usually) if one came.

    ``raise_after=False`` drops a held interrupt instead: for the clean-up after an
    exception, which goes on anyway (a second Ctrl-C while the steps so far are being
    filed waits for them, and is not raised over the first). Nothing is raised over an
    exception the block itself raises.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[FrameType | None] = []

    def hold(_signum: int, frame: FrameType | None) -> None:
        held.append(frame)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held and raise_after:
        _deliver(previous, held[0])


def _deliver(handler: signal._HANDLER, frame: FrameType | None) -> None:
    """What the handler in place would have done with the SIGINT held."""
    if callable(handler):
        handler(signal.SIGINT, frame)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)
