"""An episode's chunks on their way to its file, as it is recorded (``path=``).

Each chunk goes to the file once its steps are all known (the position after it is
here), and its frames, large observations and infos are then let go: the recording
reads them back from the file. Where frames are encoded by the encoder process
(:mod:`agent_widget.recording._encoder`), the file trails the episode by a chunk or
two: each chunk whose steps are known is held by that process (all but its frames),
to append should this process be killed, and that process makes its journal record,
which this one writes as it comes; this process stays the file's one writer.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Iterator
from typing import Any, NamedTuple, Protocol

import numpy as np

from agent_widget.episodes import AgentRows, json_dicts
from agent_widget.format import (
    CHUNK_SIZE,
    OBSERVATIONS,
    Members,
    Spool,
    chunk_count,
    chunk_payloads,
    journal_layout,
)
from agent_widget.recording._encoder import Held, OffloadedFrames, RemoteRecords
from agent_widget.recording._recorded_observations import RecordedObservations
from agent_widget.recording._step_values import actions_array


class Steps(Protocol):
    """What the writer reads of the episode being recorded (an ``EpisodeBuffer``)."""

    frames: OffloadedFrames | None
    observations: RecordedObservations
    infos: list[dict[str, Any] | None]  # None once written (read back from the file)
    actions: list[Any]
    rewards: list[float]
    terminated: list[bool]
    truncated: list[bool]
    extras: dict[str, list[Any]]
    agents: AgentRows | None
    metadata: dict[str, Any]


class _Prepared(NamedTuple):
    """A chunk's values but its frames, as its journal record takes them."""

    arrays: dict[str, np.ndarray]  # per-step arrays and small observations
    streams: dict[str, bytes | None]  # large observations by key; None: the frames
    infos: list[dict[str, Any]]  # JSON-able (``json_dicts``): made JSON by whoever writes


class ChunkWriter:
    """Writes the chunks of ``buffer``'s episode to ``spool`` as their steps are known
    (:meth:`write_ready`, at each step, and at its end with ``final``)."""

    def __init__(self, buffer: Steps, spool: Spool) -> None:
        self.buffer, self.spool = buffer, spool
        self._mask_width = 0  # the action masks' width in the file's chunks, set by the first
        self._layout: dict[str, Any] | None = None  # the journal's, set by the first chunk
        self._streams: dict[str, int] = {}  # the large observation entries' streams
        self.dropped: dict[str, int] = {}  # info keys not JSON-able, first position
        # Chunks whose frames are with the encoder process, their other values made
        # once (:meth:`_hold`) and written from here when the parts come back.
        self._prepared: dict[int, _Prepared] = {}
        self._held = 0  # the chunks before it were held (or written)
        # Records the encoder process makes of the chunks held (:meth:`_lending`).
        self._records: RemoteRecords | None = None
        self._lends = True  # until it cannot: the records are made here from then on

    def forget_prepared(self) -> None:
        """The last step's values changed (a flag): the chunks' values are made again."""
        self._prepared.clear()

    def write_ready(self, *, final: bool = False) -> None:
        """Write each chunk whose steps are all known (the position after it is here);
        ``final``: the rest too. After a failed write, nothing more (the file ends at
        the chunk before it). Each chunk whose frames went to the encoder process is
        held for it (:meth:`_hold`), which makes its record, written here as it comes
        (:meth:`_lending`), and so is every chunk after the first held; a chunk before
        (its frames encoded here) is written once its observations are back, held by
        the encoder process meanwhile if they are not."""
        spool, n, records = self.spool, len(self.buffer.infos), self._records
        # Lending, every chunk whose steps are known held, no record come: nothing to do.
        idle = records is not None and not records.came and self._held == (n - 1) // CHUNK_SIZE
        if idle and not final:
            return
        records = self._lending()
        if final and records is not None:
            records.receive()  # those that came: written, the rest made here
        while not spool.failed and spool.written < chunk_count(n):
            k = spool.written
            if records is not None and (record := records.take(k)) is not None:
                with self._writing(spool):
                    spool.write_record(record)
                self._let_go(spool, k, n)
                continue
            if final:
                self.stop_lending()  # the rest made here
                records = None
            elif (k + 1) * CHUNK_SIZE >= n:
                return  # not all of its steps yet
            elif records is not None or self._may_lend(k) or not self._ready(k):
                if self.buffer.frames is not None and self._held < (n - 1) // CHUNK_SIZE:
                    self._hold(spool, n)
                return  # its record, frames or observations still being made
            with self._writing(spool):
                self._write_chunk(spool, k, n)

    def _ready(self, k: int) -> bool:
        """Whether chunk k's frames and observations are encoded."""
        return (
            self.buffer.frames is None or self.buffer.frames.ready(k)
        ) and self.buffer.observations.ready(k)

    def _may_lend(self, k: int) -> bool:
        """Whether the encoder process may make chunk k's record, its frames with it:
        then the chunk is held for it even when its parts are back (a chunk made and
        written here took ~250 µs of the stepping thread, a hold ~40 and writing its
        record ~13; stacked Pong, its parts back in time, made half its chunks here)."""
        return self._lends and self.buffer.frames is not None and self.buffer.frames.with_encoder(k)

    def _lending(self) -> RemoteRecords | None:
        """The records the encoder process makes of this episode's chunks from the
        first it was given on (:meth:`_hold`,
        :mod:`agent_widget.recording._encoder._remote_records`); None where they are made
        here (before, or since it died)."""
        if self._records is not None and self._records.error is not None:
            self.stop_lending()
        return self._records

    def stop_lending(self) -> None:
        """The records are made here from the first chunk not written; those the
        encoder process sends after are dropped."""
        if self._records is not None:
            self._records.close()
        self._records, self._lends = None, False

    @contextlib.contextmanager
    def _writing(self, spool: Spool) -> Iterator[None]:
        """A write that fails is said once, and none follows: the file ends at the
        chunk before it, and the episode goes on in memory."""
        try:
            yield
        except BaseException as error:
            spool.failed = True
            self.stop_lending()
            if self.buffer.frames is not None:
                self.buffer.frames.drop_held()
            error.add_note(
                f"agent-widget: {spool.path} ends before chunk {spool.written} (positions "
                f"from {spool.written * CHUNK_SIZE}); the episode goes on in memory"
            )
            raise

    def _hold(self, spool: Spool, n: int) -> None:
        """Give the encoder process each chunk whose steps are all known, from the first
        not written, to append should this process die before writing it (SIGKILL loses
        none of them, as when frames were encoded here), and to make its record of: it
        is lent what that takes with the first (:meth:`_lending`). Their values are made
        now, once. A chunk that cannot be held (values that cannot be made, infos too
        large for a hold slot), nor any after it, is made here, and says why if it
        cannot be written. Nor are frames so small they are
        observations stored as plain arrays (under 1 KB): those would be read back from
        the encoder's parts, waiting for them. A chunk whose large observations are
        still with the encoder is held once they are back."""
        complete = (n - 1) // CHUNK_SIZE  # the chunks whose steps are all known
        assert self.buffer.frames is not None
        try:
            layout = self._layout = self._layout or self._first_layout()
        except ValueError:  # metadata not JSON-able: the first write says so
            layout = None
        columns = self.buffer.observations.columns.items()
        if layout is None or any(
            key not in self._streams and c.frames is not None for key, c in columns
        ):
            self._held = complete
            self.stop_lending()
            return
        for k in range(max(self._held, spool.written), complete):
            if not self.buffer.observations.ready(k):  # held once its rows' payload is here
                self._held = k
                return
            try:
                prepared = self._prepared[k] = self._prepare(k, n)
            except ValueError:
                self.stop_lending()
                break
            streams = [(self._streams[key], data) for key, data in prepared.streams.items()]
            layout = self._layout if k == 0 else None
            held = Held.of(spool.identity, layout, prepared.arrays, streams, prepared.infos)
            if not self.buffer.frames.hold(k, spool.written, held):
                self.stop_lending()
                break
            if self._records is None and self._lends:  # sent after the chunk is held
                self._records = self.buffer.frames.records(spool.state)
                if self._records is None:  # it does not encode them (it died): made here
                    self.stop_lending()
        self._held = complete

    def _prepare(self, k: int, n: int) -> _Prepared:
        """Chunk k's values but its frames, as its journal record takes them."""
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)
        steps = slice(start, min(stop, n - 1))
        if self._layout is None:
            self._layout = self._first_layout()
        arrays = {
            "actions": actions_array(self.buffer.actions[steps]),
            "rewards": np.asarray(self.buffer.rewards[steps], dtype=np.float64),
            "terminated": np.asarray(self.buffer.terminated[steps], dtype=bool),
            "truncated": np.asarray(self.buffer.truncated[steps], dtype=bool),
        }
        arrays |= {f"extras/{key}": np.asarray(v[steps]) for key, v in self.buffer.extras.items()}
        if self.buffer.agents is not None:
            chunk = self.buffer.agents.columns(steps, mask_width=self._mask_width)
            arrays |= {f"agents/{key}": value for key, value in chunk.arrays.items()}
        streams: dict[str, bytes | None] = {}
        for key, column in self.buffer.observations.columns.items():
            if key not in self._streams:  # a small entry: in the record's arrays, unless broken
                if (rows := column.rows(start, stop)) is not None:
                    arrays[f"observations/{key}"] = rows
            elif column.frames is not None:
                streams[key] = None  # the frames: made from their parts, once they are here
            elif (payload := column.payload(k)) is not None:
                streams[key] = payload
        infos = json_dicts(self.buffer.infos[start:stop], self.dropped, start)  # type: ignore[arg-type]
        return _Prepared(arrays, streams, infos)

    def _write_chunk(self, spool: Spool, k: int, n: int) -> None:
        prepared = self._prepared.get(k) or self._prepare(k, n)
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)
        parts = None if self.buffer.frames is None else self.buffer.frames.chunk(k)
        streams: dict[int, bytes] = {}
        for key, data in prepared.streams.items():
            payload = self.buffer.observations.columns[key].payload(k) if data is None else data
            if payload is not None:
                streams[self._streams[key]] = payload
        payloads = chunk_payloads(start, stop, parts, streams, prepared.infos)
        assert self._layout is not None  # made with the first chunk's values (_prepare)
        spool.write(payloads, prepared.arrays, self._layout)
        self._let_go(spool, k, n)

    def _let_go(self, spool: Spool, k: int, n: int) -> None:
        """Chunk k is in the file: its frames, large observations and infos are read
        back from there."""
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)
        self._prepared.pop(k, None)
        self.buffer.infos[start:stop] = [None] * (stop - start)
        if self.buffer.frames is not None:
            self.buffer.frames.release(k, spool.frame_parts)
        for key, stream in self._streams.items():
            self.buffer.observations.columns[key].release(
                k, functools.partial(spool.payload, stream)
            )

    def _first_layout(self) -> dict[str, Any]:
        """The journal's layout, from the values of the first chunk: which observation
        entries are large (chunked streams), as :func:`save` decides."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # said once, when the episode ends
            observations = self.buffer.observations.arrays(self.buffer.frames)
        spec, chunked = Members().observations(observations)
        keys = list(self.buffer.observations.columns)
        self._streams = {keys[stream - OBSERVATIONS]: stream for stream in chunked}
        agents = None
        if self.buffer.agents is not None:
            self._mask_width = self.buffer.agents.mask_width()
            agents = self.buffer.agents.columns(slice(0, 0), mask_width=self._mask_width)
        return journal_layout(self.buffer.metadata, self.buffer.frames is not None, spec, agents)
