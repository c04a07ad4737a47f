"""Journal records made by the encoder process for a recording to a file; the recording
process only writes them.

Making a chunk's journal record (its infos made JSON and deflated, its payloads'
digests, the record's body of per-step arrays deflated) cost the stepping thread ~100
µs a chunk of Pong as profiled there, much of it code and data the emulator had pushed
out of the caches in the 16 steps between two chunks; made by the encoder process,
record(path=) takes 1.0-1.2% less of the bare step-and-render loop's time
(``benchmarks.recording_parts``, and 40 episodes of each, alternating). With frames
encoded by the encoder process (:mod:`agent_widget.recording._encoder._process`), the
recording process already gives it each chunk whose steps are all known, all but its
frames, in the ring's hold slots (:mod:`agent_widget.recording._encoder._held_chunks`), in case it
dies. So from the first chunk an episode holds, it lends the encoder process what
making the next record takes (the chunk's number, the bytes of chunks.bin so far and
where each payload is: :attr:`RolloutWriter.state`); the encoder process makes each
held chunk's record in order once it has the chunk's parts, and sends it back with
the payloads it added (:class:`agent_widget.recording._encoder._held_records.RecordMaker`). The
bytes are those made here: the same code, fed the same values.

The recording process writes each record as it comes, in order: it stays the one
writer of its file, so a full disk, a Ctrl-C or a kill are what they were. Where a
chunk cannot be held (over a slot's size) or the encoder process died, it makes the
records itself from the first chunk not written, as it does at the episode's end, and
a record that comes after is dropped.
"""

from __future__ import annotations

import os
import weakref

from agent_widget.format import Record
from agent_widget.recording._encoder._process import EncoderProcess


class RemoteRecords:
    """One episode's records, made by the encoder process from the chunks held in the
    ring of ``stream`` from chunk ``state[0]`` on (``state``: :attr:`RolloutWriter.state`)."""

    def __init__(
        self, process: EncoderProcess, stream: int, state: tuple[int, int, dict[bytes, int]]
    ) -> None:
        self.process = process
        self._came: dict[int, Record] = {}
        with process.lock:
            self._to = process.listen(self._came.__setitem__)
            process.send(("lend", stream, self._to, *state))
        # An episode dropped unfinished stops listening all the same.
        self._close = weakref.finalize(self, _stop_listening, process, self._to, os.getpid())

    @property
    def error(self) -> BaseException | None:
        """The encoder process's death: no record comes any more."""
        return self.process.error

    @property
    def came(self) -> bool:
        """Whether a record came that is not taken yet."""
        return bool(self._came)

    def take(self, k: int) -> Record | None:
        """Chunk ``k``'s record if it came. The pipe is not asked: it is, at each step
        a chunk waits for its parts, and a record comes just after its chunk's parts
        (asking at every step cost ~1.5 ms of a 1,000-step Pong episode)."""
        return self._came.pop(k, None)

    def receive(self) -> None:
        """Take in the records that came (the episode ends: they are written)."""
        self.process.receive(block=False)

    def close(self) -> None:
        """No record is wanted any more: those that come are dropped."""
        self._close()
        self._came.clear()


def _stop_listening(process: EncoderProcess, to: int, owner: int) -> None:
    if os.getpid() == owner:  # a forked child's copy: the pipe is its parent's
        process.close(to)
