"""Recording episodes from gymnasium environments into :class:`Rollout` objects.

Three entry points share one per-episode buffer, so they record the same way:

- :func:`record` runs a policy for one episode;
- :class:`RecordRollout` is a wrapper that records while the user's own loop runs;
- :func:`record_vector` runs a batched policy on a vector env, one rollout per sub-env.

Frames and large observations (images) are encoded as they come, in chunks of 16
positions, in the form the file stores and the browser receives: frames one at a time
(only the newest is held raw), observations a chunk at a time (only the chunk being
filled is held raw), so an episode's memory grows by its encoded size (Pong: ~60 B a
frame instead of 100 KB). The rest of a step (action, reward, flags,
info, extras) is appended to lists, built into arrays when a rollout is asked for.

What a step brings is kept as it is, so what went wrong at step t is seen at step t:
a NaN reward, a frame of another size. An exception in the env, the policy or the
user's loop never loses the steps recorded before it, and never wedges the recorder.
benchmarks/recording.py measures memory and overhead.
"""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import iterate

from agent_widget.episodes._action_names import action_names, known_action_names
from agent_widget.episodes._chunk_index import OBSERVATIONS
from agent_widget.episodes._codec import CHUNK_SIZE, chunk_count
from agent_widget.episodes._encoded_array import LARGE_ROW_BYTES, EncodedArray, FrameRows
from agent_widget.episodes._env_states import can_save, save_state
from agent_widget.episodes._frames import ArrayFrames, Frames
from agent_widget.episodes._rollout import Rollout, json_dicts, warn_dropped
from agent_widget.episodes._spool import Spool, open_next, open_path
from agent_widget.episodes._storage import Members, chunk_payloads, journal_layout

OpenFile = Callable[[], tuple[Path, BinaryIO]]
"""Where the next episode is written as it is recorded: a new file, open to write."""

Policy = Callable[[Any], Any]
"""``obs -> action`` or ``obs -> (action, extras)``, extras a dict of per-step values."""


def _labels(
    agent: str | None, algorithm: str | None, metadata: Mapping[str, Any] | None
) -> dict[str, Any]:
    """What the user tells about a recording; their ``metadata`` wins on clashes."""
    return {"agent": agent, "algorithm": algorithm, **(metadata or {})}


def _base_metadata(
    env_id: str | None, seed: int | None, names: list[str] | None, labels: Mapping[str, Any]
) -> dict[str, Any]:
    """The metadata every recorded rollout carries."""
    return {
        "env_id": env_id,
        "seed": seed,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "action_names": names,
        **labels,
    }


def spec_id(env: gym.Env[Any, Any] | VectorEnv[Any, Any, Any]) -> str | None:
    return env.spec.id if env.spec is not None else None


def split_policy_output(output: Any) -> tuple[Any, Mapping[str, Any]]:
    """``(action, {extras})`` -> its parts; anything else is the action alone."""
    if isinstance(output, tuple) and len(output) == 2 and isinstance(output[1], Mapping):
        return output[0], output[1]
    return output, {}


def _snapshot(obs: Any) -> Any:
    """A copy of array observations: frame-stacking and preprocessing wrappers reuse buffers."""
    if isinstance(obs, np.ndarray):
        return obs.copy()
    if isinstance(obs, Mapping):
        return {key: _snapshot(value) for key, value in obs.items()}
    return obs


class _Column:
    """One observation entry's values as they come: the frames themselves while each
    value is its step's frame (Atari's screen: nothing more is held), large numeric
    arrays encoded by the chunk, anything else kept as given (stacked when a rollout is
    asked for)."""

    def __init__(self, first: Any, frame: Any, frames: ArrayFrames | None) -> None:
        self.frames = frames if frames is not None and _is_frame(first, frame) else None
        self.mirrored = 1 if self.frames is not None else 0  # values that are the frames
        self.encoded: EncodedArray | None = None
        self.values: list[Any] = []
        self.broken_at: int | None = None  # the step whose value did not fit the others
        if self.frames is None:
            if (
                isinstance(first, np.ndarray)
                and first.dtype.kind in "biufc"
                and first.nbytes >= LARGE_ROW_BYTES
            ):
                self.encoded = EncodedArray(first.dtype, first.shape)
            self.append(first, None)

    def __len__(self) -> int:
        if self.frames is not None:
            return self.mirrored
        return len(self.encoded) if self.encoded is not None else len(self.values)

    def append(self, value: Any, frame: Any) -> None:
        if self.broken_at is not None:
            return
        if self.frames is not None:
            if _is_frame(value, frame):
                self.mirrored += 1
                return
            # From here on the values are not the frames: hold the earlier ones encoded.
            mirrored, self.frames = self.frames, None
            self.encoded = EncodedArray(np.uint8, mirrored[0].shape)
            for t in range(self.mirrored):
                self.encoded.append(mirrored[t])
        if self.encoded is None:
            self.values.append(_snapshot(value))
            return
        try:
            self.encoded.append(value)
        except ValueError:
            self.broken_at = len(self.encoded)

    def rows(self, start: int, stop: int) -> np.ndarray | None:
        """Values ``start..stop-1`` as an array (a chunk written as it is recorded), or
        None when they do not stack."""
        if self.broken_at is not None:
            return None
        if self.frames is not None:
            return FrameRows(self.frames, self.mirrored)[start:stop]
        if self.encoded is not None:
            return self.encoded[start:stop]
        try:
            return np.asarray(self.values[start:stop])
        except ValueError:  # ragged
            return None

    def payload(self, k: int) -> bytes | None:
        """Chunk ``k``'s values as the file stores a large entry's, or None if broken."""
        if self.frames is not None:
            return FrameRows(self.frames, self.mirrored).payload(k)
        return self.encoded.payload(k) if self.encoded is not None else None

    def release(self, k: int, read_back: Callable[[int], bytes]) -> None:
        """Let go of the encoded chunks up to ``k``, written to a file."""
        if self.encoded is not None:
            self.encoded.release(k, read_back)

    def array(self, frames: Frames | None) -> Any:
        """The values as an array, or None when they do not stack; ``frames``: the
        rollout's frames (the values while they are the frames)."""
        if self.broken_at is not None:
            return None
        if self.frames is not None and frames is not None:
            return FrameRows(frames, self.mirrored)
        if self.encoded is not None:
            return self.encoded.copy()
        try:
            array = np.asarray(self.values)
        except ValueError:  # ragged
            return None
        return array if array.dtype.kind in "biufc" and array.ndim > 0 else None


def _is_frame(value: Any, frame: Any) -> bool:
    """Whether observation ``value`` is the frame rendered at its step (pixels alike)."""
    return (
        isinstance(value, np.ndarray)
        and isinstance(frame, np.ndarray)
        and value.dtype == np.uint8
        and value.ndim == 3
        and value.shape == frame.shape
        and value.shape[2] == 3
        and np.array_equal(value, frame)
    )


class _Observations:
    """An episode's observations: one column, or one per key of a dict space."""

    def __init__(self, first: Any, frame: Any, frames: ArrayFrames | None) -> None:
        self.is_dict = isinstance(first, Mapping)
        entries = first if self.is_dict else {"": first}
        self.columns = {key: _Column(value, frame, frames) for key, value in entries.items()}

    def append(self, obs: Any, frame: Any) -> None:
        if self.is_dict != isinstance(obs, Mapping) or (
            self.is_dict and obs.keys() != self.columns.keys()
        ):
            for column in self.columns.values():
                if column.broken_at is None:
                    column.broken_at = len(column)
            return
        entries = obs if self.is_dict else {"": obs}
        for key, column in self.columns.items():
            column.append(entries[key], frame)

    def arrays(self, frames: Frames | None) -> Any:
        """Observations as one array or a dict of arrays; None (with a warning) if they
        do not form numeric arrays."""
        arrays = {key: column.array(frames) for key, column in self.columns.items()}
        if all(array is not None for array in arrays.values()):
            return arrays if self.is_dict else arrays[""]
        steps = [c.broken_at for c in self.columns.values() if c.broken_at is not None]
        why = f"changed type or shape at step {min(steps)}" if steps else "are not numeric arrays"
        warnings.warn(
            f"observations {why} (only arrays, scalars and one level of dict of a fixed "
            "shape are stored); this rollout has no observations",
            stacklevel=4,
        )
        return None


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
    ) -> None:
        self.spool, self.metadata = spool, metadata or {}
        self._layout: dict[str, Any] | None = None  # the journal's, set by the first chunk
        self._streams: dict[str, int] = {}  # the large observation entries' streams
        self._dropped: dict[str, int] = {}  # info keys not JSON-able, first position
        self.frames = ArrayFrames(allow_resize=True) if renders else None
        if self.frames is not None:
            self.frames.append(frame)
        self.observations = _Observations(obs, frame, self.frames)
        # One per position; None once written to the episode's file (read back from it).
        self.infos: list[dict[str, Any] | None] = [info]
        self.actions: list[Any] = []
        self.rewards: list[float] = []
        self.terminated: list[bool] = []
        self.truncated: list[bool] = []
        self.extras: dict[str, list[Any]] = {}
        self.states: dict[int, Any] = {}  # env states saved at some positions

    def check_extras(self, extras: Mapping[str, Any]) -> None:
        """ValueError unless ``extras`` has the names of the steps before (checked before
        the env steps, so a mistake loses no step)."""
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
    ) -> None:
        self.check_extras(extras)
        if self.frames is not None:
            self.frames.append(frame)  # first: a frame it refuses leaves the episode as it was
        if not self.actions:
            self.extras = {key: [] for key in extras}
        for key, value in extras.items():
            self.extras[key].append(np.array(value))
        self.actions.append(_snapshot(action))
        self.observations.append(obs, frame)
        self.rewards.append(float(reward))
        self.terminated.append(bool(terminated))
        self.truncated.append(bool(truncated))
        self.infos.append(info)
        self._write_ready()

    def _write_ready(self, *, final: bool = False) -> None:
        """Write each chunk whose steps are all known (the position after it is here);
        ``final``: the rest too. After a failed write, nothing more (the file ends at
        the chunk before it)."""
        spool, n = self.spool, len(self.infos)
        if spool is None:
            return
        while not spool.failed and spool.written < chunk_count(n):
            if not final and (spool.written + 1) * CHUNK_SIZE >= n:
                return
            try:
                self._write_chunk(spool, spool.written, n)
            except BaseException as error:
                spool.failed = True  # said once; the episode goes on in memory
                error.add_note(
                    f"agent-widget: {spool.path} ends before chunk {spool.written} (positions "
                    f"from {spool.written * CHUNK_SIZE}); the episode goes on in memory"
                )
                raise

    def _write_chunk(self, spool: Spool, k: int, n: int) -> None:
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
        streams: dict[int, bytes] = {}
        for key, column in self.observations.columns.items():
            stream = self._streams.get(key)
            if stream is None:  # a small entry: in the record's arrays, unless broken
                if (rows := column.rows(start, stop)) is not None:
                    arrays[f"observations/{key}"] = rows
            elif (payload := column.payload(k)) is not None:
                streams[stream] = payload
        parts = None if self.frames is None else self.frames.chunk(k)
        infos = json_dicts(self.infos[start:stop], self._dropped, start)  # type: ignore[arg-type]
        spool.write(chunk_payloads(start, stop, parts, streams, infos), arrays, self._layout)
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
        return journal_layout(self.metadata, self.frames is not None, spec)

    @property
    def done(self) -> bool:
        return bool(self.actions) and (self.terminated[-1] or self.truncated[-1])

    def cut(self) -> None:
        """Mark an episode stopped from outside (step limit, early reset) as truncated."""
        if self.actions and not self.done:
            self.truncated[-1] = True

    def to_rollout(self) -> Rollout:
        """The episode so far; recording may go on (what is held is shared, not copied)."""
        frames = None if self.frames is None else self.frames.copy()
        steps = self._steps()
        return Rollout.from_arrays(
            frames=frames,
            observations=self.observations.arrays(frames),
            actions=steps["actions"],
            rewards=steps["rewards"],
            terminated=steps["terminated"],
            truncated=steps["truncated"],
            infos=self._all_infos(),
            extras={key: np.asarray(values) for key, values in self.extras.items()},
            metadata=self.metadata,
            states=dict(self.states),
        )

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
        if self.spool is not None:
            self.spool.discard()

    def finish(self) -> Rollout:
        """The episode as it ends: read back from its file when it has one (after a
        failed write, as held: in memory and in the chunks written before it)."""
        if self.spool is None:
            return self.to_rollout()
        try:
            self._write_ready(final=True)
        finally:
            if self.spool.failed:
                self.spool.close()
        if self.spool.failed:
            return self.to_rollout()
        warn_dropped(self._dropped, "infos", stacklevel=5)
        members = Members()
        spec, _ = members.observations(self.observations.arrays(self.frames))
        extras = {key: np.asarray(values) for key, values in self.extras.items()}
        rollout = self.spool.finish(
            lambda: members.meta(
                self._steps(),
                extras,
                spec,
                num_positions=len(self.infos),
                metadata=self.metadata,
                frames=self.frames is not None,
            )
        )
        rollout.states = dict(self.states)
        return rollout

    def save_state(self, env: gym.Env[Any, Any], every: int | None, offset: int = 0) -> None:
        """Save the env's state at this position if it falls every ``every`` positions
        (counted from ``offset`` positions before this episode's first: a branch's)."""
        position = len(self.infos) - 1
        if every and (offset + position) % every == 0 and position > 0:
            self.states[position] = save_state(env)

    def _steps(self) -> dict[str, np.ndarray]:
        return {
            "actions": _actions_array(self.actions),
            "rewards": np.asarray(self.rewards, dtype=np.float64),
            "terminated": np.asarray(self.terminated, dtype=bool),
            "truncated": np.asarray(self.truncated, dtype=bool),
        }


class RecordRollout(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Record every episode that runs through this wrapper as a :class:`Rollout`.

    Each ``reset()`` starts a new episode; it is added to :attr:`rollouts` when
    it terminates or truncates, or, marked truncated, when ``reset()`` or
    :meth:`end_episode` is called before it ended. :attr:`current` is the episode
    in progress. Frames come from ``env.render()`` when the env has
    ``render_mode="rgb_array"``; otherwise the rollouts have no frames.

    Per-step extras (Q-values, value estimates...) are not part of the gymnasium
    API, so they are handed over with :meth:`record_extras` just before ``step()``.

    With ``states_every=K``, an env that can save its state (ALE's) has it saved every K
    positions, in memory (``rollout.states``): :meth:`Rollout.branch` then replays at
    most K steps.

    With ``directory``, each episode is written to ``directory/episode-NNN.rollout`` as
    it is recorded, a chunk (16 positions) at a time, and what was written is let go:
    an episode longer than memory can be recorded, and a run killed at any moment leaves
    files that :func:`load` opens up to their last whole chunk. The rollouts are then
    read from their files. Several recorders may share a directory.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import RecordRollout
        >>> env = RecordRollout(gym.make("CartPole-v1", render_mode="rgb_array"), agent="me")
        >>> obs, info = env.reset(seed=0)
        >>> done = False
        >>> while not done:
        ...     env.record_extras(value=float(obs[2]))
        ...     obs, reward, terminated, truncated, info = env.step(int(obs[2] > 0))
        ...     done = terminated or truncated
        >>> rollout = env.rollouts[-1]
        >>> rollout.num_positions == len(rollout.frames) == rollout.num_steps + 1
        True
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        *,
        agent: str | None = None,
        algorithm: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        directory: str | os.PathLike[str] | None = None,
        states_every: int | None = None,
    ) -> None:
        # As gymnasium's own wrappers: the env's spec lists this wrapper with its arguments.
        gym.utils.RecordConstructorArgs.__init__(
            self,
            agent=agent,
            algorithm=algorithm,
            metadata=metadata,
            directory=directory,
            states_every=states_every,
        )
        gym.Wrapper.__init__(self, env)
        self.rollouts: list[Rollout] = []
        self._renders = env.render_mode == "rgb_array"
        self._labels = _labels(agent, algorithm, metadata)
        self._episode: EpisodeBuffer | None = None
        self._extras: Mapping[str, Any] = {}
        if states_every is not None and states_every < 1:
            raise ValueError(f"states_every must be a positive number of steps, not {states_every}")
        # Only for envs that can save their state (ALE's); others record as usual.
        self._states_every = states_every if can_save(env) else None
        self._open_file: OpenFile | None = None
        if directory is not None:
            self._open_file = functools.partial(open_next, directory)

    @property
    def current(self) -> Rollout | None:
        """The episode in progress, as a Rollout (built on access), or None between episodes."""
        return None if self._episode is None else self._episode.to_rollout()

    def record_extras(self, **extras: Any) -> None:
        """Attach per-step values (e.g. ``q_values=q``) to the next ``step()``.

        Every step of an episode must get the same names; each becomes an array
        ``rollout.extras[name]`` with one entry per step.
        """
        self._extras = extras

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and start recording a new episode (filing one left unfinished)."""
        if self._episode is not None and self._episode.actions:
            self.end_episode()
        elif self._episode is not None:
            self._episode.discard()
        self._episode = None
        obs, info = self.env.reset(seed=seed, options=options)
        names = action_names(self.env)
        metadata = _base_metadata(spec_id(self.env), seed, names, self._labels)
        frame = self.env.render() if self._renders else None
        spool = None if self._open_file is None else Spool(*self._open_file())
        self._episode = EpisodeBuffer(obs, info, frame, self._renders, spool, metadata)
        self._extras = {}
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the transition (with extras from :meth:`record_extras`).

        If the env raises, the episode so far stays :attr:`current` (the next ``reset()``
        files it, marked truncated).
        """
        if self._episode is None:
            raise RuntimeError("call reset() before step(): recording starts with an episode")
        extras, self._extras = self._extras, {}
        self._episode.check_extras(extras)
        obs, reward, terminated, truncated, info = self.env.step(action)
        frame = self.env.render() if self._renders else None
        self._episode.add(action, extras, obs, reward, terminated, truncated, info, frame)
        self._episode.save_state(self.env, self._states_every)
        if terminated or truncated:
            self.end_episode()
        return obs, reward, terminated, truncated, info

    def end_episode(self) -> Rollout | None:
        """End the episode in progress here, e.g. when your loop stops at a step limit.

        Its last step is marked truncated (unless it terminated); it is added to
        :attr:`rollouts` and returned. Returns None when no episode is in progress.
        """
        episode, self._episode = self._episode, None  # whatever happens, the next one starts anew
        if episode is None:
            return None
        episode.cut()
        rollout = episode.finish()
        self.rollouts.append(rollout)
        return rollout


def record(
    env: gym.Env[Any, Any],
    policy: Policy,
    seed: int | None = None,
    max_steps: int = 10_000,
    *,
    agent: str | None = None,
    algorithm: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    path: str | os.PathLike[str] | None = None,
    states_every: int | None = None,
) -> Rollout:
    """Run ``policy`` in ``env`` for one episode and return it as a :class:`Rollout`.

    The episode ends when the env terminates or truncates, or after ``max_steps``
    actions (the last step is then marked truncated). With ``render_mode="rgb_array"``
    the rollout has ``T + 1`` frames: the reset frame and one after each action.

    If the policy or the env raises (or on Ctrl-C), the exception goes on with the
    steps recorded so far as its ``rollout`` attribute (their last step marked
    truncated), and a note saying so.

    With ``path``, the episode is written there as it is recorded, a chunk (16
    positions) at a time, and what was written is let go: an episode longer than
    memory can be recorded, and a run killed at any moment (kill -9, out of memory, a
    job's time limit) leaves a file that :func:`load` opens with every position up to
    its last whole chunk. The rollout returned is read from the file; after an
    exception, the file holds the steps recorded before it.

    Args:
        env: any gymnasium env; it is reset with ``seed`` and left open.
        policy: ``obs -> action``, or ``obs -> (action, extras)`` where ``extras`` is
            a dict with string keys such as ``{"q_values": q, "value": v}``; each becomes a per-step
            array in ``rollout.extras``.
        seed: passed to ``env.reset``.
        max_steps: the most actions to take.
        agent: a name for the agent, kept in the metadata.
        algorithm: the training algorithm, kept in the metadata.
        metadata: further metadata; overrides the recorded values on clashes.
        path: a ``.rollout`` file to write the episode to as it is recorded (replaced
            if it exists).
        states_every: save the env's state every this many positions, when it can
            (ALE's envs): a branch (:meth:`Rollout.branch`) then replays from the last
            one before its branch point. Kept in memory (``rollout.states``), never in
            the file.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import record
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> rollout = record(env, lambda obs: int(obs[2] > 0), seed=0, agent="lean")
        >>> rollout.metadata["env_id"], rollout.metadata["action_names"]
        ('CartPole-v1', ['LEFT', 'RIGHT'])
        >>> long = record(env, policy, seed=0, path="long.rollout")  # doctest: +SKIP
    """
    recorder = RecordRollout(
        env, agent=agent, algorithm=algorithm, metadata=metadata, states_every=states_every
    )
    if path is not None:
        recorder._open_file = functools.partial(open_path, path)
    obs, _ = recorder.reset(seed=seed)
    try:
        for _ in range(max_steps):
            action, extras = split_policy_output(policy(obs))
            recorder.record_extras(**extras)
            obs, _, terminated, truncated, _ = recorder.step(action)
            if terminated or truncated:
                return recorder.rollouts[-1]
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        partial = recorder.end_episode()
        if partial is not None:
            error.rollout = partial  # type: ignore[attr-defined]
            error.add_note(
                f"agent-widget: the {partial.num_steps} steps recorded before this are in "
                "this exception's .rollout (e.g. sys.last_exc.rollout in a notebook)"
            )
        raise
    rollout = recorder.end_episode()
    assert rollout is not None  # reset() started one
    return rollout


def _sub_env_info(infos: Mapping[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info from a vector env's batched info dict (``key``/``_key`` mask pairs)."""
    info = {}
    for key, value in infos.items():
        if key.startswith("_") and key[1:] in infos:
            continue
        mask = infos.get(f"_{key}")
        if mask is not None and not mask[i]:
            continue
        info[key] = _sub_env_info(value, i) if isinstance(value, Mapping) else value[i]
    return info


def record_vector(
    envs: VectorEnv[Any, Any, Any],
    policy: Policy,
    seed: int | None = None,
    max_steps: int = 10_000,
    *,
    agent: str | None = None,
    algorithm: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    directory: str | os.PathLike[str] | None = None,
) -> list[Rollout]:
    """Run a batched policy on a vector env; return each sub-env's first episode.

    ``policy`` maps a batch of observations to a batch of actions (or to
    ``(actions, extras)`` with each extra batched along the first axis).
    ``SyncVectorEnv`` and ``AsyncVectorEnv`` reset sub-env ``i`` with ``seed + i``,
    so ``rollouts[i]`` equals ``record(single_env, policy, seed=seed + i)`` for a
    policy that treats each row on its own, and its metadata says so (``"seed"``,
    ``"sub_env"``). Natively vectorized envs (e.g. ``gym.make_vec("CartPole-v1")``
    without ``vectorization_mode``) share one generator; their rollouts carry the
    vector seed. Recording stops once every sub-env has finished its first
    episode or after ``max_steps`` vector steps (unfinished episodes are then
    marked truncated). Later episodes of sub-envs that finished early are not
    kept: they would start from seeds nobody chose. If the policy or the env raises,
    the exception goes on with the episodes so far as its ``rollouts`` attribute.

    Works with autoreset modes ``NEXT_STEP`` (gymnasium's default: the step after
    an episode's end resets that sub-env and ignores its action) and ``DISABLED``
    (finished sub-envs are reset here). ``SAME_STEP`` is refused: it resets a
    sub-env before its last frame can be rendered. Frames come from
    ``envs.render()`` when ``envs.render_mode == "rgb_array"``.

    With ``directory``, each sub-env's episode is written to its own
    ``episode-NNN.rollout`` there as it is recorded, as :func:`record` does with
    ``path``, and the rollouts are read from those files.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import record_vector
        >>> envs = gym.make_vec(
        ...     "CartPole-v1", num_envs=2, vectorization_mode="sync", render_mode="rgb_array"
        ... )
        >>> rollouts = record_vector(envs, lambda obs: (obs[:, 2] > 0).astype(int), seed=0)
        >>> [r.metadata["seed"] for r in rollouts]
        [0, 1]
    """
    mode = envs.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if mode == AutoresetMode.SAME_STEP:
        raise ValueError(
            "record_vector needs autoreset_mode NEXT_STEP or DISABLED: SAME_STEP resets a "
            "sub-env inside the step that ends its episode, before its last frame is rendered"
        )
    renders = envs.render_mode == "rgb_array"
    num_envs = envs.num_envs

    def frames() -> Sequence[Any]:
        rendered = envs.render() if renders else None
        return (None,) * num_envs if rendered is None else rendered

    obs, infos = envs.reset(seed=seed)
    metadatas = _vector_metadata(envs, seed, _labels(agent, algorithm, metadata))
    episodes = [
        EpisodeBuffer(
            obs_i,
            _sub_env_info(infos, i),
            frame,
            renders,
            None if directory is None else Spool(*open_next(directory)),
            metadatas[i],
        )
        for i, (obs_i, frame) in enumerate(
            zip(iterate(envs.observation_space, obs), frames(), strict=True)
        )
    ]
    try:
        _run_vector(envs, policy, episodes, obs, max_steps, mode, frames)
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        error.rollouts = _vector_rollouts(episodes)  # type: ignore[attr-defined]
        error.add_note(
            "agent-widget: the episodes recorded before this are in this exception's .rollouts"
        )
        raise
    return _vector_rollouts(episodes)


def _run_vector(
    envs: VectorEnv[Any, Any, Any],
    policy: Policy,
    episodes: list[EpisodeBuffer],
    obs: Any,
    max_steps: int,
    mode: AutoresetMode,
    frames: Callable[[], Sequence[Any]],
) -> None:
    """Steps ``envs`` until every sub-env finished its first episode or ``max_steps``."""
    for _ in range(max_steps):
        active = [i for i, episode in enumerate(episodes) if not episode.done]
        if not active:
            return
        actions, extras = split_policy_output(policy(obs))
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        step_frames = frames()
        per_env = zip(
            iterate(envs.action_space, actions), iterate(envs.observation_space, obs), strict=True
        )
        for i, (action, obs_i) in enumerate(per_env):
            if i in active:
                episodes[i].add(
                    action,
                    {key: value[i] for key, value in extras.items()},
                    obs_i,
                    rewards[i],
                    terminated[i],
                    truncated[i],
                    _sub_env_info(infos, i),
                    step_frames[i],
                )
        ended = terminated | truncated
        if mode == AutoresetMode.DISABLED and ended.any():
            obs, _ = envs.reset(options={"reset_mask": ended})


def _vector_metadata(
    envs: VectorEnv[Any, Any, Any], seed: int | None, labels: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each sub-env's episode's metadata."""
    env_id, names = _describe_vector(envs)
    # Sync/Async vector envs reset sub-env i with seed + i; natively vectorized envs
    # (e.g. CartPoleVectorEnv) share one generator, so only the vector seed means anything.
    per_env_seeds = isinstance(envs, (SyncVectorEnv, AsyncVectorEnv))
    return [
        _base_metadata(
            env_id,
            seed + i if seed is not None and per_env_seeds else seed,
            names,
            {"sub_env": i, **labels},
        )
        for i in range(envs.num_envs)
    ]


def _vector_rollouts(episodes: list[EpisodeBuffer]) -> list[Rollout]:
    """Each sub-env's episode as a rollout, unfinished ones marked truncated."""
    rollouts = []
    for episode in episodes:
        episode.cut()
        rollouts.append(episode.finish())
    return rollouts


def _describe_vector(envs: VectorEnv[Any, Any, Any]) -> tuple[str | None, list[str] | None]:
    """The env id and action names of a vector env's sub-envs."""
    sub_envs = getattr(envs, "envs", None)  # SyncVectorEnv holds its sub-envs
    if sub_envs:
        return spec_id(sub_envs[0]), action_names(sub_envs[0])
    if envs.spec is None:
        return None, None
    return envs.spec.id, known_action_names(envs.spec.entry_point, envs.single_action_space)
