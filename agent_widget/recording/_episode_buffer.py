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

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from agent_widget.episodes import AgentRows, Rollout, load, warn_dropped
from agent_widget.format import CHUNK_SIZE, Members, Spool, chunk_count
from agent_widget.recording._chunk_writer import ChunkWriter
from agent_widget.recording._encoder import EncoderDied, OffloadedFrames, encoder_deaths
from agent_widget.recording._env_states import SavedStates
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._recorded_observations import RecordedObservations, snapshot
from agent_widget.recording._step_values import actions_array, flag, number

# A floor of a file's bytes a position besides its frames and large observations: its
# infos, per-step arrays and index rows (measured: ALE's Pong 60 B, Breakout 68 B).
FILE_BYTES_A_POSITION = 48


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
        self.metadata = metadata or {}
        # A multi-agent episode's per-agent values, a row a step, written with each chunk.
        self.agents = agents
        self._states = states  # the env states saved at some positions, if any
        self._deaths_before = encoder_deaths()  # encoder processes dead before it
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
        # Where each chunk goes to the episode's file, if it has one.
        self.writer = None if spool is None else ChunkWriter(self, spool)

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
        reward = number(reward, t, "reward")
        terminated, truncated = flag(terminated, t, "terminated"), flag(truncated, t, "truncated")
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
            if self.writer is not None:
                self.writer.write_ready()
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

    @property
    def done(self) -> bool:
        return bool(self.actions) and (self.terminated[-1] or self.truncated[-1])

    def cut(self) -> None:
        """Mark an episode stopped from outside (step limit, early reset) as truncated."""
        if self.actions and not self.done:
            self.truncated[-1] = True
            if self.writer is not None:  # made before: the last step's flag is made again
                self.writer.forget_prepared()

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
                infos += self.writer.spool.infos(t // CHUNK_SIZE)  # type: ignore[union-attr]
            elif info is not None:
                infos.append(info)
        return infos

    def discard(self) -> None:
        """Drop an episode that took no action, and its file."""
        if self.writer is not None:
            self.writer.stop_lending()
        if self.frames is not None:
            self.frames.finish_encoding()
        self.observations.finish_encoding()
        if self.writer is not None:
            self.writer.spool.discard()

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
        writer = self.writer
        if writer is None:
            if self.frames is not None:
                self.frames.finish_encoding()
            if self._states is not None:
                self._states.fit(self._encoded_bytes())
            return self.to_rollout()
        if self.frames is not None:
            self.frames.finish_encoding(let_go=False)  # the encoder process holds on
        spool = writer.spool
        try:
            writer.write_ready(final=True)
        finally:
            writer.stop_lending()
            # Only now: the encoder process holds the chunks until they are written.
            if self.frames is not None:
                self.frames.finish_encoding()
            if spool.failed:
                spool.close()
        if spool.failed:
            return self.to_rollout()
        warn_dropped(writer.dropped, "infos", stacklevel=5)
        members = Members()
        spec, _ = members.observations(self.observations.arrays(self.frames))
        extras = {key: np.asarray(values) for key, values in self.extras.items()}
        path = spool.finish(
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
            "actions": actions_array(self.actions),
            "rewards": np.asarray(self.rewards, dtype=np.float64),
            "terminated": np.asarray(self.terminated, dtype=bool),
            "truncated": np.asarray(self.truncated, dtype=bool),
        }
