"""The frame encoder process's main loop (:mod:`agent_widget.recording._encoder._process`
starts it): run as a script, ``python _worker.py FD_IN FD_OUT``.

It reads each chunk's frames from their episode's slots of shared memory and encodes
them with the recorder's own :func:`~agent_widget.format.encode_chunk` (the same code,
so the same bytes as encoding in the recording process); the chunk's parts go back over
the pipe. Only the file format and the encoder are imported, not the widget (0.2 s to
start instead of 1.2 s): the packages above are made empty shells around their folders.
It ends when the recording process closes its end of the pipe (its exit, however it
came), and ignores Ctrl-C, which the recording process handles. A recording process
that died (its pipe closed without its "exit") leaves the chunks it held here to append
to their files (:mod:`agent_widget.recording._encoder._held_chunks`). A live one's held
chunks it makes into journal records, once lent what they take
(:mod:`agent_widget.recording._encoder._remote_records`). It also packs a recording's
env states as deltas (:mod:`agent_widget.recording._encoder._state_packing`), keeping
each chain's newest parts.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import types
from collections.abc import Iterator
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path
from typing import Any

import numpy as np

# Below the recording process: when no core is spare, a chunk sent wakes this process
# without taking the stepping thread's core from it (at the same priority the pipe
# write that woke it waited out the chunk's encoding, ~1.2 ms for Pong's 16 frames).
NICE = 10
# And never preempting it on waking: Linux's batch policy takes its turn as the nice
# value says, but a wake-up does not put it ahead of the process running (a kernel's
# scheduler may still have, with nice 10 alone, when the other core was busy).
POLICY = getattr(os, "SCHED_BATCH", None)  # Linux


def _import_encoder() -> Any:
    """``encode_chunk``, ``CHUNK_SIZE``, ``_held_chunks`` and ``pack_state``, without
    importing the widget: the package, the recording layer and this one are empty
    shells around their folders; the file format (numpy and the standard library) is
    imported whole."""
    root = Path(__file__).resolve().parents[2]
    shells = ("agent_widget", "agent_widget.recording", "agent_widget.recording._encoder")
    folders = (root, root / "recording", root / "recording" / "_encoder")
    for name, folder in zip(shells, folders, strict=True):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules.setdefault(name, package)
    from agent_widget.format import CHUNK_SIZE, encode_chunk, pack_state
    from agent_widget.recording._encoder import _held_chunks

    return encode_chunk, CHUNK_SIZE, _held_chunks, pack_state


class _Stream:
    """One episode's frame slots, and its hold slots after them."""

    def __init__(self, name: str, slots: int, slot_bytes: int, encoding: str, held: Any) -> None:
        self.memory = SharedMemory(name)
        # The recording process owns the memory and unlinks it; this one only reads it.
        resource_tracker.unregister(self.memory._name, "shared_memory")  # type: ignore[attr-defined]
        self.slots = np.ndarray((slots, slot_bytes), np.uint8, buffer=self.memory.buf)
        self.holds = held.hold_area(self.memory.buf, slots * slot_bytes)
        self.encoding = encoding

    def frames(self, slots: list[tuple[int, tuple[int, ...]]]) -> Iterator[np.ndarray]:
        for slot, shape in slots:
            yield self.slots[slot, : int(np.prod(shape))].reshape(shape)


def _encode_rows(stream: _Stream, slots: list[int], nbytes: int) -> bytes:
    """A chunk of observation rows (the first ``nbytes`` of each slot) as one payload,
    by the recording process's own ``encode_rows``: the bytes of encoding them there."""
    from agent_widget.format import encode_rows  # imported by _import_encoder

    return encode_rows(stream.slots[slots, :nbytes], stream.encoding)


def main(receive: Connection, send: Connection) -> None:
    encode_chunk, chunk_size, held_chunks, pack_state = _import_encoder()
    streams: dict[int, _Stream | None] = {}  # None: ended before it was opened here
    chains: dict[int, Any] = {}  # each chain of env states' newest parts (_state_packing)
    makers: dict[int, Any] = {}  # records made for a stream's recorder (_remote_records)
    held = held_chunks.HeldChunks()

    def make_records(stream_id: int) -> None:
        """Send the records of the stream's held chunks that can be made now."""
        maker, stream = makers.get(stream_id), streams.get(stream_id)
        if maker is None or stream is None:
            return
        for record in maker.made(stream.holds, functools.partial(held.parts, stream_id)):
            with contextlib.suppress(OSError):  # it died: read on, for the chunks it held
                send.send(record)

    # Its recorder may have exited while this process started: read on, for its last words.
    with contextlib.suppress(OSError):
        send.send(("ready",))
    while True:
        try:
            message = receive.recv()
        except EOFError:  # the recording process died: its held chunks go to its files
            for stream_id, stream in streams.items():
                for k, chunk in [] if stream is None else stream.holds.held():
                    held.hold(stream_id, k, chunk)
            _append(held.held())
            return
        if message[0] == "chunk":
            _, stream_id, start, slots = message
            if (stream := streams[stream_id]) is not None:
                parts = encode_chunk(stream.frames(slots), start, stream.encoding)
                held.encoded(stream_id, start // chunk_size, parts)
                try:
                    send.send(("parts", stream_id, start // chunk_size, parts))
                except OSError:  # it died: read on to the end, for the chunks it held
                    continue
                make_records(stream_id)  # the chunk before, or this one if held by now
        elif message[0] == "lend":  # _remote_records
            _, stream_id, to, k, size, offsets = message
            from agent_widget.recording._encoder._held_records import RecordMaker

            makers[stream_id] = RecordMaker(to, k, size, offsets)
            make_records(stream_id)
        elif message[0] == "open":
            _, stream_id, name, slots, slot_bytes, encoding = message
            try:
                streams[stream_id] = _Stream(name, slots, slot_bytes, encoding, held_chunks)
            except FileNotFoundError:  # the episode ended (and let its memory go) already
                streams[stream_id] = None
        elif message[0] == "rows":  # observation rows (_remote_rows)
            _, stream_id, k, slots, nbytes = message
            if (stream := streams[stream_id]) is not None:
                try:
                    send.send(("parts", stream_id, k, _encode_rows(stream, slots, nbytes)))
                except OSError:  # it died: read on to the end, for the chunks it held
                    continue
        elif message[0] == "state":  # an env state to pack (_state_packing)
            _, chain, position, raw, before = message  # before: the chain's parts so far
            delta, chains[chain] = pack_state(raw, chains.get(chain, before))
            with contextlib.suppress(OSError):  # it died: read on, for the chunks it held
                send.send(("parts", chain, position, delta))
        elif message[0] == "reset":  # the stream's ring goes to another episode
            held.close(message[1])
            makers.pop(message[1], None)
        elif message[0] == "close":
            held.close(message[1])
            makers.pop(message[1], None)
            chains.pop(message[1], None)
            stream = streams.pop(message[1], None)
            if stream is None:
                continue
            del stream.slots, stream.holds
            stream.memory.close()
        elif message[0] == "exit":  # the recording process exits, its files as it left them
            return


def _append(episodes: list[Any]) -> None:
    """Append each episode's held chunks to its file (their records made only now)."""
    if episodes:
        from agent_widget.recording._encoder._held_records import append_held

        for chunks in episodes:
            append_held(chunks)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICE)
    if POLICY is not None:
        os.sched_setscheduler(0, POLICY, os.sched_param(0))
    main(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
