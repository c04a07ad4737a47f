"""The frame encoder process: one per Python process, started the first time an episode
is recorded on a machine with a second core, and reused by every episode after it.

Encoding a frame (finding its changed bytes, deflating them) costs ~76 µs of Pong's
~260 µs step and render. A thread cannot take that off the stepping thread: ALE steps
and numpy's comparisons hold the GIL, so a thread encoding beside the loop made it
slower, not faster (2,000 Pong steps, whole processes paired with a bare loop: 1.41x
with a thread, 1.18x encoding inline; the thread's process used as much CPU as wall
time, so nothing ran in parallel). A process can: the recording process copies each
frame into a slot of shared memory (~4 µs) and, once a chunk is full, sends its slots
down a pipe; this process encodes the chunk and sends back its parts (~1 KB for Pong's
16 frames). See :mod:`agent_widget.recording._encoder._ring`.

With a file to record to, the recording process also leaves it what it needs to append
each chunk still waiting on its frames (in the ring's shared memory, without a message:
:mod:`agent_widget.recording._encoder._held_chunks`): a recording process killed at any moment loses
no chunk whose steps were all known, as when it encoded inline.

It is started as a fresh interpreter (``subprocess``, never a fork: the recording
process may hold torch or ALE, whose state does not survive one), in its own session
so a Ctrl-C reaches only the recording process, and it imports only the encoder. It
exits when its pipe closes, however the recording process ended. A process that forks
after starting it gets its own in the child (the pipe is the parent's).
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("_worker.py")


class EncoderDied(RuntimeError):
    """The frame encoder process ended while frames were on their way to it."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


class EncoderProcess:
    """The pipe to the encoder process, and who gets the messages it sends back.

    Messages go one at a time under a lock (a viewer's thread may read frames while the
    loop records). Streams (one per episode) register a callback for their parts."""

    def __init__(self) -> None:
        to_worker, worker_in = os.pipe()[::-1]
        worker_out, from_worker = os.pipe()[::-1]
        # from_worker/to_worker: this end; worker_in/worker_out: the worker's.
        self.owner = os.getpid()  # a forked child's copy says nothing for it (stop)
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), str(worker_in), str(worker_out)],
            pass_fds=(worker_in, worker_out),
            start_new_session=True,
            stdin=subprocess.DEVNULL,
        )
        os.close(worker_in)
        os.close(worker_out)
        self._send = Connection(to_worker, readable=False)
        self._receive = Connection(from_worker, writable=False)
        # Asked at each step while a chunk's parts are on their way: a poll object kept
        # open asks in ~0.7 µs, Connection.poll(0) in ~5 (it builds a selector each time).
        self._incoming = select.poll()
        self._incoming.register(from_worker, select.POLLIN)
        self.lock = threading.RLock()
        self.ready = False
        self.error: EncoderDied | None = None
        self._streams: dict[int, Callable[[int, Any], None]] = {}
        self.rings_bytes = 0  # the shared memory of the rings open (_frame_ring)
        self._next_stream = 0

    def is_ready(self) -> bool:
        """Whether it has started (its first message came), without waiting."""
        with self.lock:
            if not self.ready and self.error is None:
                self.receive(block=False)
            return self.ready and self.error is None

    def wait_ready(self) -> bool:
        """Wait until it has started; whether it did."""
        with self.lock:
            while not self.ready and self.error is None:
                self.receive(block=True)
            return self.error is None

    def open(
        self,
        name: str,
        slots: int,
        slot_bytes: int,
        encoding: str,
        on_parts: Callable[[int, Any], None],
    ) -> int:
        """Register a stream of frames in the shared memory ``name``; its id."""
        with self.lock:
            stream = self.listen(on_parts)
            self.send(("open", stream, name, slots, slot_bytes, encoding))
            return stream

    def listen(self, on_message: Callable[[int, Any], None]) -> int:
        """Register a stream whose messages need no shared memory (a chain of env
        states, :mod:`agent_widget.recording._encoder._state_packing`); its id."""
        with self.lock:
            stream = self._next_stream
            self._next_stream += 1
            self._streams[stream] = on_message
            return stream

    def close(self, stream: int) -> None:
        with self.lock:
            if self._streams.pop(stream, None) is not None:
                self.send(("close", stream))

    def send(self, message: tuple[Any, ...]) -> None:
        """Send, or note the process dead (:attr:`error`)."""
        if self.error is not None:
            return
        try:
            self._send.send(message)
        except OSError:  # BrokenPipeError: it exited
            self._died()

    def receive(self, *, block: bool) -> None:
        """Hand each message that came to its stream; ``block``: wait for one first."""
        with self.lock:
            try:
                while self.error is None and (block or self._incoming.poll(0)):
                    block = False
                    message = self._receive.recv()
                    if message[0] == "ready":
                        self.ready = True
                    elif (on_parts := self._streams.get(message[1])) is not None:
                        on_parts(message[2], message[3])
            except (EOFError, OSError):
                self._died()

    def _died(self) -> None:
        code = self.process.wait()
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        self.error = EncoderDied(
            f"agent-widget's frame encoder process (pid {self.process.pid}) died ({how})"
        )
        global _deaths
        _deaths += 1
        _forget(self, started=self.ready)

    def stop(self) -> None:
        """Close the pipe; the process exits (at this process's exit; in a forked child,
        only the child's copies of the pipe close). It is told this process exits, so it
        drops the chunks it holds (:mod:`agent_widget.recording._encoder._held_chunks`):
        this process leaves its files as they are, and only one that dies has them
        appended."""
        if self.owner == os.getpid():
            self.send(("exit",))
        self._send.close()
        self._receive.close()
        self.process.wait()


_process: EncoderProcess | None = None
_owner = 0  # the pid that started it
_cannot_start = False  # one could not be started, or died before it was up: inline
_deaths = 0  # encoder processes of this Python process that died


def encoder_deaths() -> int:
    """How many encoder processes of this Python process died so far: a recorder asks
    at each step whether one died, in ~0.1 µs instead of asking each of its rings."""
    return _deaths


def encoder_process() -> EncoderProcess | None:
    """This Python process's encoder process, started at the first call; None where
    there is one core (encoding would only take the stepping thread's core), or where
    one cannot run (frames are then encoded inline)."""
    global _process, _owner, _cannot_start
    if cores() < 2 or _cannot_start:
        return None
    if _process is None or _owner != os.getpid():
        try:
            _process, _owner = EncoderProcess(), os.getpid()
        except OSError:  # no interpreter to start, no process or pipe to spare
            _cannot_start = True
            return None
        atexit.register(_process.stop)
    return _process


def _forget(process: EncoderProcess, *, started: bool) -> None:
    """After it died: the next episode starts another, unless it never came up (one
    that cannot start is not started again at every episode)."""
    global _process, _cannot_start
    if _process is process:
        _process = None
    _cannot_start = _cannot_start or not started
