"""Env states packed as deltas off the stepping thread.

A recording saves its env's state every 64 positions by default
(:mod:`agent_widget.recording._env_states`), held as a delta against the state kept
before it (:mod:`agent_widget.format._state_deltas`). Packing an ALE state costs
~120-250 µs, ~3 µs a Pong step: 1.2% of ``record()``'s time, measured by taking it
away (``benchmarks.recording``). So each state goes, serialized (14 KB), to the frame
encoder process (:mod:`agent_widget.recording._encoder._process`), which keeps the chain's
newest parts, packs it and sends the delta back (~100 B); the state itself stands in
for its delta until then (a branch restores it all the same).

Where there is no encoder process (one core, not started yet, or dead) states are packed
here. A chain goes on where it moves (a recording's first states are packed here while
the encoder process starts): the parts of its newest state go with the next one.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

from agent_widget.format import Delta, DeltaState, Split
from agent_widget.recording._encoder._process import EncoderProcess, encoder_process


class StateChain:
    """One episode's states (``states``: position -> state, changed in place), each
    packed as a delta against the one before it."""

    def __init__(self, kind: type, states: dict[int, Any]) -> None:
        self.kind, self.states = kind, states
        self.pending: dict[int, bytes] = {}  # position -> bytes, with the encoder process
        self._newest: DeltaState | None = None  # the chain's newest delta
        self._split: Split | None = None  # its parts, if it was packed here
        self._process: EncoderProcess | None = None  # the one packing, and its stream
        self._stream = 0
        self._closed: weakref.finalize[Any, Any] | None = None

    def add(self, position: int, state: Any) -> None:
        """Pack ``state``, saved at ``position``: by the encoder process where one is up."""
        raw = state.serialize()
        process = encoder_process()
        if process is None or not process.is_ready():
            self._pack_here()
            self._pack(position, raw)
            return
        before = None
        if process is not self._process:
            self._pack_here()  # those the one before had, if it died
            self._open(process)
            before = self._before()  # the chain goes on there
        self.states[position], self.pending[position] = state, raw
        process.receive(block=False)  # the deltas back so far: the pipe never fills
        process.send(("state", self._stream, position, raw, before))
        if process.error is not None:
            self._pack_here()

    def settle(self) -> None:
        """Wait for the deltas on their way (packed here if the encoder process died)."""
        process = self._process
        while self.pending and process is not None and process.error is None:
            process.receive(block=True)
        self._pack_here()

    def thinned(self, kept: set[int]) -> dict[int, DeltaState]:
        """The states at positions ``kept``, packed again here as a chain of their own,
        which the next state continues."""
        self.settle()
        self.close()  # the encoder process's parts are of a state not kept
        newest: tuple[DeltaState, Split] | None = None
        thinned, split = {}, None
        for position in sorted(self.states):
            split = self.states[position].split(split)
            if position in kept:
                newest = DeltaState.packed(self.kind, split.joined(), newest)
                thinned[position] = newest[0]
        self._newest, self._split = newest if newest is not None else (None, None)
        return thinned

    def close(self) -> None:
        """The encoder process forgets the chain (the next state starts another)."""
        if self._closed is not None:
            self._closed()
        self._process, self._closed = None, None

    def _open(self, process: EncoderProcess) -> None:
        self.close()
        chain = weakref.ref(self)

        def came(position: int, delta: Delta) -> None:
            if (alive := chain()) is not None:
                alive._came(position, delta)

        self._process, self._stream = process, process.listen(came)
        self._closed = weakref.finalize(self, _close, process, self._stream, os.getpid())

    def _came(self, position: int, delta: Delta) -> None:
        if self.pending.pop(position, None) is None:
            return  # packed here meanwhile
        self._newest, self._split = DeltaState.of(self.kind, self._newest, delta), None
        self.states[position] = self._newest

    def _pack_here(self) -> None:
        """Pack here the states the encoder process has not sent back, in order."""
        for position in sorted(self.pending):
            self._pack(position, self.pending.pop(position))

    def _before(self) -> Split | None:
        """The parts of the chain's newest state (decoded along it if packed elsewhere)."""
        if self._split is None and self._newest is not None:
            self._split = self._newest.parts()
        return self._split

    def _pack(self, position: int, raw: bytes) -> None:
        before = self._before()
        base = None if self._newest is None or before is None else (self._newest, before)
        self._newest, self._split = DeltaState.packed(self.kind, raw, base)
        self.states[position] = self._newest


def _close(process: EncoderProcess, stream: int, owner: int) -> None:
    if os.getpid() == owner:  # a forked child's copy: the stream is its parent's
        process.close(stream)
