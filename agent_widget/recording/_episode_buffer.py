"""One episode's data as it is recorded, shared by every way of recording
(:func:`~agent_widget.recording.record`, :class:`~agent_widget.recording.RecordRollout`,
:func:`~agent_widget.recording.record_vector`, branches), so they record the same way.

Frames and large observations (images) are encoded as they come, in chunks of 16
positions, in the form the file stores and the browser receives: frames one at a time
(only the newest is held raw), observations a chunk at a time (only the chunk being
filled is held raw), so an episode's memory grows by its encoded size (Pong: ~60 B a
frame instead of 100 KB). The rest of a step (action, reward, flags, info, extras) is
appended to lists, built into arrays when a rollout is asked for.

Where the machine has a second core, the frames are not encoded on the thread that
steps the env: from the episode's second chunk on, each frame is copied into a ring of
shared memory and a full chunk is encoded by the frame encoder process
(:mod:`agent_widget.recording._encoder._process`, one per Python process), which sends its
parts back; the same bytes as encoding here. With ``path=``, the encoder process is
given the rest of each such chunk once its steps are all known
(:mod:`agent_widget.recording._encoder._held_chunks`) and makes its journal record
(:mod:`agent_widget.recording._encoder._remote_records`), which this process writes as it comes:
the file trails the episode by a chunk or two, and meanwhile the encoder process
holds those chunks, to append them should this process be killed: a file cut by a
kill holds every chunk whose steps were known. A full ring makes the next step wait. An
encoder that dies is an error naming it once the step is in, every step kept (the
frames it had not encoded are encoded here).

Large observations that are not the frames (Atari's stacked grayscale screens) go the
same way, a ring of their own each, encoded a chunk at a time
(:class:`~agent_widget.format.EncodedArray`); those the encoder had not encoded when it
died are encoded here too.

What a step brings is kept as it is, so what went wrong at step t is seen at step t:
a NaN reward, a frame of another size. An exception in the env, the policy or the
user's loop never loses the steps recorded before it, and never wedges the recorder.
benchmarks/recording.py measures memory and overhead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, SupportsFloat

import gymnasium as gym
import numpy as np

from agent_widget.episodes import AgentRows, Rollout, json_dicts, load, warn_dropped
from agent_widget.format import (
    CHUNK_SIZE,
    OBSERVATIONS,
    Members,
    Spool,
    chunk_count,
    chunk_payloads,
    journal_layout,
)
from agent_widget.recording._encoder import (
    EncoderDied,
    Held,
    OffloadedFrames,
    RemoteRecords,
    encoder_deaths,
)
from agent_widget.recording._env_states import SavedStates
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._recorded_observations import RecordedObservations, snapshot


def _actions_array(actions: list[Any]) -> np.ndarray:
    """The actions as numbers when they form a numeric array, else each as text (a Text
    space's strings; Tuple and Dict actions as JSON where they can be)."""
    try:
        array = np.asarray(actions)
    except ValueError:  # ragged: a Tuple of parts of different shapes
        array = None
    if array is not None and (array.dtype.kind in "biufc" or array.size == 0):
        return array
    return np.array([_action_string(action) for action in actions], dtype=str)


def _action_string(action: Any) -> str:
    if isinstance(action, str):
        return action
    try:
        return json.dumps(action, default=lambda value: np.asarray(value).tolist())
    except (TypeError, ValueError):
        return repr(action)


def _number(value: Any, t: int, what: str) -> float:
    """A step's reward as a float, or a ValueError naming the step and the value."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"step {t}: the {what} is {value!r:.80} ({type(value).__name__}), not a number; "
            f"the {t} steps before it are kept"
        ) from None


def _flag(value: Any, t: int, what: str) -> bool:
    """A step's terminated or truncated as a bool, or a ValueError naming the step."""
    if type(value) is bool:  # as gymnasium's envs give it: no need to ask numpy
        return value
    if np.ndim(value) != 0:
        raise ValueError(
            f"step {t}: {what} is {value!r:.80} ({type(value).__name__}), not one flag; "
            f"the {t} steps before it are kept"
        )
    return bool(value)


# A floor of a file's bytes a position besides its frames and large observations: its
# infos, per-step arrays and index rows (measured: ALE's Pong 60 B, Breakout 68 B).
FILE_BYTES_A_POSITION = 48


class _Prepared(NamedTuple):
    """A chunk's values but its frames, as its journal record takes them."""

    arrays: dict[str, np.ndarray]  # per-step arrays and small observations
    streams: dict[str, bytes | None]  # large observations by key; None: the frames
    infos: list[dict[str, Any]]  # JSON-able (``json_dicts``): made JSON by whoever writes


class EpisodeBuffer:
    """One episode's data as it comes; a Rollout of it can be asked for at any time.

    With a ``spool``, each chunk goes to the episode's file once the step after it is
    known, and its frames, large observations and infos are let go (read back from the
    file when asked for); the rest of a step stays in memory (tens of bytes)."""

    def __init__(
        self,
        obs: Any,
        info: dict[str, Any],
        frame: Any | None,
        renders: bool,
        spool: Spool | None = None,
        metadata: dict[str, Any] | None = None,
        states: SavedStates | None = None,
        agents: AgentRows | None = None,
    ) -> None:
        self.spool, self.metadata = spool, metadata or {}
        # A multi-agent episode's per-agent values, a row a step, written with each chunk.
        self.agents = agents
        self._mask_width = 0  # the action masks' width in the file's chunks, set by the first
        self._states = states  # the env states saved at some positions, if any
        self._deaths_before = encoder_deaths()  # encoder processes dead before it
        self._layout: dict[str, Any] | None = None  # the journal's, set by the first chunk
        self._streams: dict[str, int] = {}  # the large observation entries' streams
        self._dropped: dict[str, int] = {}  # info keys not JSON-able, first position
        self.frames = OffloadedFrames(allow_resize=True) if renders else None
        if self.frames is not None:
            self.frames.append(frame)
        self.observations = RecordedObservations(obs, frame, self.frames, offload=True)
        # One per position; None once written to the episode's file (read back from it).
        self.infos: list[dict[str, Any] | None] = [info]
        self.actions: list[Any] = []
        self.rewards: list[float] = []
        self.terminated: list[bool] = []
        self.truncated: list[bool] = []
        self.extras: dict[str, list[Any]] = {}
        # Chunks whose frames are with the encoder process, their other values made
        # once (:meth:`_hold`) and written from here when the parts come back.
        self._prepared: dict[int, _Prepared] = {}
        self._held = 0  # the chunks before it were held (or written)
        # Records the encoder process makes of the chunks held (:meth:`_lending`).
        self._records: RemoteRecords | None = None
        self._lends = True  # until it cannot: the records are made here from then on

    def check_extras(self, extras: Mapping[str, Any]) -> None:
        """ValueError unless ``extras`` has the names of the steps before (checked before
        the env steps, so a mistake loses no step)."""
        if not extras and not self.extras:
            return  # none, as at every step before
        t = len(self.actions)
        if t > 0 and extras.keys() != self.extras.keys():
            raise ValueError(
                f"step {t}: extras {sorted(extras)} differ from step 0's {sorted(self.extras)}; "
                "give the same extras at every step of an episode"
            )
        for key, value in extras.items():
            if np.asarray(value).dtype.kind not in "biufc":
                raise ValueError(
                    f"step {t}: extras[{key!r}] is {type(value).__name__}, not numbers "
                    "(extras are per-step arrays: a number or an array of numbers)"
                )

    def add(
        self,
        action: Any,
        extras: Mapping[str, Any],
        obs: Any,
        reward: SupportsFloat,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
        frame: Any | None,
        agent_row: dict[str, Any] | None = None,
    ) -> None:
        """Add a step whole, or nothing: what cannot be stored is refused before anything
        changes, and a Ctrl-C waits until the step (and a chunk it completes) is in.
        ``agent_row``: a multi-agent step's per-agent values (:class:`AgentRows`)."""
        t = len(self.actions)
        self.check_extras(extras)
        reward = _number(reward, t, "reward")
        terminated, truncated = _flag(terminated, t, "terminated"), _flag(truncated, t, "truncated")
        with interrupts_held():
            if self.frames is not None:
                self.frames.append(frame)  # first: a frame it refuses leaves the episode as it was
            if not self.actions:
                self.extras = {key: [] for key in extras}
            for key, value in extras.items():
                self.extras[key].append(np.array(value))
            self.actions.append(snapshot(action))
            self.observations.append(obs, frame)
            self.rewards.append(reward)
            self.terminated.append(terminated)
            self.truncated.append(truncated)
            self.infos.append(info)
            if self.agents is not None:
                self.agents.append(agent_row)  # type: ignore[arg-type]
            self._write_ready()
            if (error := self._encoder_error()) is not None:
                error.add_note(
                    f"agent-widget: the {t + 1} steps so far are kept (the frames and "
                    "observations it had not encoded were encoded here); the next episode "
                    "starts another"
                )
                raise error

    def _encoder_error(self) -> EncoderDied | None:
        """The encoder process's death, once, whether frames or observations saw it."""
        if encoder_deaths() == self._deaths_before:
            return None  # none died since the episode began
        errors = [self.observations.take_error()]
        if self.frames is not None:
            errors.append(self.frames.take_error())
        return next((error for error in errors if error is not None), None)

    def _write_ready(self, *, final: bool = False) -> None:
        """Write each chunk whose steps are all known (the position after it is here);
        ``final``: the rest too. After a failed write, nothing more (the file ends at
        the chunk before it). Each chunk whose frames went to the encoder process is
        held for it (:meth:`_hold`), which makes its record, written here as it comes
        (:meth:`_lending`), and so is every chunk after the first held; a chunk before
        (its frames encoded here) is written once its observations are back, held by
        the encoder process meanwhile if they are not."""
        spool, n, records = self.spool, len(self.infos), self._records
        if spool is None:
            return
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
                self._stop_lending()  # the rest made here
                records = None
            elif (k + 1) * CHUNK_SIZE >= n:
                return  # not all of its steps yet
            elif records is not None or self._may_lend(k) or not self._ready(k):
                if self.frames is not None and self._held < (n - 1) // CHUNK_SIZE:
                    self._hold(spool, n)
                return  # its record, frames or observations still being made
            with self._writing(spool):
                self._write_chunk(spool, k, n)

    def _ready(self, k: int) -> bool:
        """Whether chunk k's frames and observations are encoded."""
        return (self.frames is None or self.frames.ready(k)) and self.observations.ready(k)

    def _may_lend(self, k: int) -> bool:
        """Whether the encoder process may make chunk k's record, its frames with it:
        then the chunk is held for it even when its parts are back (a chunk made and
        written here took ~250 µs of the stepping thread, a hold ~40 and writing its
        record ~13; stacked Pong, its parts back in time, made half its chunks here)."""
        return self._lends and self.frames is not None and self.frames.with_encoder(k)

    def _lending(self) -> RemoteRecords | None:
        """The records the encoder process makes of this episode's chunks from the
        first it was given on (:meth:`_hold`,
        :mod:`agent_widget.recording._encoder._remote_records`); None where they are made
        here (before, or since it died)."""
        if self._records is not None and self._records.error is not None:
            self._stop_lending()
        return self._records

    def _stop_lending(self) -> None:
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
            self._stop_lending()
            if self.frames is not None:
                self.frames.drop_held()
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
        assert self.frames is not None
        try:
            layout = self._layout = self._layout or self._first_layout()
        except ValueError:  # metadata not JSON-able: the first write says so
            layout = None
        columns = self.observations.columns.items()
        if layout is None or any(
            key not in self._streams and c.frames is not None for key, c in columns
        ):
            self._held = complete
            self._stop_lending()
            return
        for k in range(max(self._held, spool.written), complete):
            if not self.observations.ready(k):  # held once its rows' payload is here
                self._held = k
                return
            try:
                prepared = self._prepared[k] = self._prepare(k, n)
            except ValueError:
                self._stop_lending()
                break
            streams = [(self._streams[key], data) for key, data in prepared.streams.items()]
            layout = self._layout if k == 0 else None
            held = Held.of(spool.identity, layout, prepared.arrays, streams, prepared.infos)
            if not self.frames.hold(k, spool.written, held):
                self._stop_lending()
                break
            if self._records is None and self._lends:  # sent after the chunk is held
                self._records = self.frames.records(spool.state)
                if self._records is None:  # it does not encode them (it died): made here
                    self._stop_lending()
        self._held = complete

    def _prepare(self, k: int, n: int) -> _Prepared:
        """Chunk k's values but its frames, as its journal record takes them."""
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)
        steps = slice(start, min(stop, n - 1))
        if self._layout is None:
            self._layout = self._first_layout()
        arrays = {
            "actions": _actions_array(self.actions[steps]),
            "rewards": np.asarray(self.rewards[steps], dtype=np.float64),
            "terminated": np.asarray(self.terminated[steps], dtype=bool),
            "truncated": np.asarray(self.truncated[steps], dtype=bool),
        }
        arrays |= {f"extras/{key}": np.asarray(v[steps]) for key, v in self.extras.items()}
        if self.agents is not None:
            chunk = self.agents.columns(steps, mask_width=self._mask_width)
            arrays |= {f"agents/{key}": value for key, value in chunk.arrays.items()}
        streams: dict[str, bytes | None] = {}
        for key, column in self.observations.columns.items():
            if key not in self._streams:  # a small entry: in the record's arrays, unless broken
                if (rows := column.rows(start, stop)) is not None:
                    arrays[f"observations/{key}"] = rows
            elif column.frames is not None:
                streams[key] = None  # the frames: made from their parts, once they are here
            elif (payload := column.payload(k)) is not None:
                streams[key] = payload
        infos = json_dicts(self.infos[start:stop], self._dropped, start)  # type: ignore[arg-type]
        return _Prepared(arrays, streams, infos)

    def _write_chunk(self, spool: Spool, k: int, n: int) -> None:
        prepared = self._prepared.get(k) or self._prepare(k, n)
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)
        parts = None if self.frames is None else self.frames.chunk(k)
        streams: dict[int, bytes] = {}
        for key, data in prepared.streams.items():
            payload = self.observations.columns[key].payload(k) if data is None else data
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
        self.infos[start:stop] = [None] * (stop - start)
        if self.frames is not None:
            self.frames.release(k, spool.frame_parts)
        for key, stream in self._streams.items():
            self.observations.columns[key].release(k, functools.partial(spool.payload, stream))

    def _first_layout(self) -> dict[str, Any]:
        """The journal's layout, from the values of the first chunk: which observation
        entries are large (chunked streams), as :func:`save` decides."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # said once, when the episode ends
            observations = self.observations.arrays(self.frames)
        spec, chunked = Members().observations(observations)
        keys = list(self.observations.columns)
        self._streams = {keys[stream - OBSERVATIONS]: stream for stream in chunked}
        agents = None
        if self.agents is not None:
            self._mask_width = self.agents.mask_width()
            agents = self.agents.columns(slice(0, 0), mask_width=self._mask_width)
        return journal_layout(self.metadata, self.frames is not None, spec, agents)

    @property
    def done(self) -> bool:
        return bool(self.actions) and (self.terminated[-1] or self.truncated[-1])

    def cut(self) -> None:
        """Mark an episode stopped from outside (step limit, early reset) as truncated."""
        if self.actions and not self.done:
            self.truncated[-1] = True
            self._prepared.clear()  # made before: the last step's flag is made again

    def to_rollout(self) -> Rollout:
        """The episode so far; recording may go on (what is held is shared, not copied)."""
        frames = None if self.frames is None else self.frames.copy()
        steps = self._steps()
        rollout = Rollout.from_arrays(
            frames=frames,
            observations=self.observations.arrays(frames),
            actions=steps["actions"],
            rewards=steps["rewards"],
            terminated=steps["terminated"],
            truncated=steps["truncated"],
            infos=self._all_infos(),
            extras={key: np.asarray(values) for key, values in self.extras.items()},
            metadata=self.metadata,
            states=self._held_states(),
        )
        if self.agents is None:
            return rollout
        return dataclasses.replace(rollout, agent_columns=self.agents.columns())

    def _all_infos(self) -> list[dict[str, Any]]:
        """Every position's info: those written to the file read back from it."""
        infos: list[dict[str, Any]] = []
        for t, info in enumerate(self.infos):
            if info is None and t % CHUNK_SIZE == 0:  # a written chunk: all of it, at once
                infos += self.spool.infos(t // CHUNK_SIZE)  # type: ignore[union-attr]
            elif info is not None:
                infos.append(info)
        return infos

    def discard(self) -> None:
        """Drop an episode that took no action, and its file."""
        self._stop_lending()
        if self.frames is not None:
            self.frames.finish_encoding()
        self.observations.finish_encoding()
        if self.spool is not None:
            self.spool.discard()

    def _held_states(self) -> dict[int, Any]:
        return {} if self._states is None else dict(self._states.states)

    def finish(self, *, replace: bool = True) -> Rollout:
        """The episode as it ends: read back from its file when it has one (after a
        failed write, as held: in memory and in the chunks written before it); its
        states thinned to its size (:class:`SavedStates`).
        ``replace``: whether its file replaces one at its path (:meth:`Spool.finish`)."""
        with interrupts_held():  # the file finished whole, whenever a Ctrl-C comes
            self.observations.finish_encoding()  # their payloads here, their rings let go
            return self._finish(replace)

    def _finish(self, replace: bool) -> Rollout:
        if self.spool is None:
            if self.frames is not None:
                self.frames.finish_encoding()
            if self._states is not None:
                self._states.fit(self._encoded_bytes())
            return self.to_rollout()
        if self.frames is not None:
            self.frames.finish_encoding(let_go=False)  # the encoder process holds on
        try:
            self._write_ready(final=True)
        finally:
            self._stop_lending()
            # Only now: the encoder process holds the chunks until they are written.
            if self.frames is not None:
                self.frames.finish_encoding()
            if self.spool.failed:
                self.spool.close()
        if self.spool.failed:
            return self.to_rollout()
        warn_dropped(self._dropped, "infos", stacklevel=5)
        members = Members()
        spec, _ = members.observations(self.observations.arrays(self.frames))
        extras = {key: np.asarray(values) for key, values in self.extras.items()}
        path = self.spool.finish(
            lambda: members.meta(
                self._steps(),
                extras,
                spec,
                num_positions=len(self.infos),
                metadata=self.metadata,
                frames=self.frames is not None,
                agents=None if self.agents is None else self.agents.columns(),
            ),
            replace=replace,
        )
        if self._states is not None:
            self._states.fit(os.path.getsize(path))
        rollout = load(path)
        rollout.states = self._held_states()
        return rollout

    def _encoded_bytes(self) -> int:
        """A floor of the bytes the episode's file would hold: its encoded frames and
        large observations (those that are not the frames), and what it holds for
        every position besides (:data:`FILE_BYTES_A_POSITION`)."""
        total = FILE_BYTES_A_POSITION * len(self.infos)
        if self.frames is not None:
            for k in range(self.frames.num_chunks):
                total += sum(len(part.payload) for part in self.frames.chunk(k))
        for column in self.observations.columns.values():
            if column.encoded is not None and column.frames is None:
                total += sum(
                    len(column.encoded.payload(k)) for k in range(chunk_count(len(self.infos)))
                )
        return total

    def save_state(self, env: gym.Env[Any, Any]) -> None:
        """Save the env's state at this position if its interval says so."""
        if self._states is not None:
            self._states.save(env, len(self.infos) - 1)

    def _steps(self) -> dict[str, np.ndarray]:
        return {
            "actions": _actions_array(self.actions),
            "rewards": np.asarray(self.rewards, dtype=np.float64),
            "terminated": np.asarray(self.terminated, dtype=bool),
            "truncated": np.asarray(self.truncated, dtype=bool),
        }
