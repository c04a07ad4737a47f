"""What if: an episode branched at step t, another action taken there, the rest played out.

The env is brought to position ``t`` by replaying the episode's actions from its seed,
or from the last env state saved before ``t`` (saved by default where the env can:
:mod:`~agent_widget.recording._env_states`), each step's reward and end checked
against the recorded ones, each observation too where it is held as an array, and
observations held encoded (images) and the frame at ``t`` itself: decoding every
recorded screen would cost as much as the replay. So a branch never starts from a
state the episode was not in: an env that does not replay the same from its seed is
a :class:`ReplayDivergenceError` naming the position. From ``t`` on the branch is
recorded as :func:`record` records; its positions ``0..t`` are the original's own:
the same frames and observations, its full chunks of encoded frames the original's
own objects (only the chunk holding ``t`` is encoded again).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format import (
    CHUNK_SIZE,
    LARGE_ROW_BYTES,
    ArrayFrames,
    ChunkedRows,
    FrameRows,
    Frames,
    Part,
    encode_chunk,
    encode_rows,
)
from agent_widget.recording._env_states import SavedStates, can_save, restore_state
from agent_widget.recording._episode_buffer import EpisodeBuffer
from agent_widget.recording._minari import ReplayDivergenceError
from agent_widget.recording._normalization import (
    NORMALIZATION_KEY,
    normalization,
    normalized,
    noted,
)
from agent_widget.recording._policies import PolicyFunction, as_policy, split_policy_output
from agent_widget.recording._recording_metadata import spec_id


def branch(
    rollout: Rollout,
    t: int,
    action: Any,
    *,
    env: gym.Env[Any, Any] | Callable[[], gym.Env[Any, Any]],
    policy: PolicyFunction | Any,
    max_steps: int = 10_000,
    normalize: Any = None,
) -> Rollout:
    """``rollout`` up to position ``t``, then ``action`` at ``t`` instead of the recorded
    one, then ``policy`` until the episode ends or ``max_steps`` more actions.

    Args:
        rollout: a recorded episode with a seed (``metadata["seed"]``).
        t: the position to branch at (``0 .. num_steps``).
        action: the action taken at ``t``; it must be in the env's action space.
        env: an env of the rollout's env id, or a function that makes one; made with
            ``render_mode="rgb_array"`` when the rollout has frames. It is reset with the
            rollout's seed and left open.
        policy: as for :func:`record` (a function, or a model's deterministic ``predict``);
            extras it gives under the episode's names carry on.
        max_steps: the most actions from ``t`` on.
        normalize: as for :func:`record` (by default a model's own ``VecNormalize``); the
            branch's metadata says the one its policy used.

    Raises:
        ReplayDivergenceError: the env did not replay the episode from its seed.
        ValueError: ``t`` out of range, ``max_steps`` under 1, an action outside the
            space, an env of another id, a rollout without a seed or with actions that
            cannot be replayed.
        TypeError: ``t`` or ``max_steps`` not a whole number (``1.5``, ``"3"``, ``True``).

    If the policy or the env raises after ``t``, the exception carries the branch so
    far as its ``rollout`` attribute, as :func:`record` does.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import record
        >>> env = gym.make("CartPole-v1")
        >>> episode = record(env, lambda obs: int(obs[2] > 0), seed=0)
        >>> other = episode.branch(5, 0, env=env, policy=lambda obs: int(obs[2] > 0))
        >>> bool((other.actions[:5] == episode.actions[:5]).all()), int(other.actions[5])
        (True, 0)
        >>> other.metadata["branch"]["t"], other.num_positions != episode.num_positions
        (5, True)
    """
    t = whole_number(t, "t", 0)
    max_steps = whole_number(max_steps, "max_steps", 1)  # the action at t is one
    env = env if isinstance(env, gym.Env) else env()
    seed = _checked(rollout, t, action, env)
    # Strictly before t: at least one replayed step checks what a restored state shows.
    saved = [p for p in rollout.states if p < t] if can_save(env) else []
    try:
        obs, info = _replay(rollout, t, env, seed, max(saved, default=0))
    except ReplayDivergenceError:
        if not saved:
            raise
        obs, info = _replay(rollout, t, env, seed, 0)  # a wrapper the state left stale
    renders = rollout.frames is not None
    frame = rollout.frames[t] if rollout.frames is not None else None  # as the env's
    states = SavedStates(env, None, offset=t)  # by default, as record's: where the parent's fall
    found = normalization(policy, normalize)
    future = EpisodeBuffer(obs, info, frame, renders, metadata=noted({}, found), states=states)
    try:
        _play(env, normalized(as_policy(policy), found), future, obs, action, max_steps, renders)
    except BaseException as error:
        future.cut()
        error.rollout = _joined(rollout, t, action, future.to_rollout())  # type: ignore[attr-defined]
        error.add_note(
            "agent-widget: the branch recorded before this is in this exception's .rollout"
        )
        raise
    future.cut()
    return _joined(rollout, t, action, future.finish())


def _replay(
    rollout: Rollout, t: int, env: gym.Env[Any, Any], seed: int, start: int
) -> tuple[Any, dict[str, Any]]:
    """The env brought to position ``t`` from its seed, or from the state saved at
    ``start`` (reset without the seed first: ALE reloads its game on a seed, as long
    as ~100 steps, and the state brings the random generator back): the observation
    and info there, every position on the way checked (see the module)."""
    if start:
        obs, info = env.reset()
        restore_state(env, rollout.states[start], start)
    else:
        obs, info = env.reset(seed=seed)
        _check_position(rollout, 0, obs, env, t)
    every_step = _checked_every_step(rollout.observations)
    rewards = rollout.rewards[start:t].tolist()
    for s, action in enumerate(_replayable_actions(rollout.actions[start:t]), start):
        obs, reward, terminated, truncated, info = env.step(action)
        recorded = rewards[s - start]
        if float(reward) != recorded and recorded == recorded:  # a NaN recorded: kept as is
            raise ReplayDivergenceError(_diverged(rollout, s + 1, "gave another reward"), s + 1)
        if every_step or s + 1 == t:
            _check_position(rollout, s + 1, obs, env, t)
        if (terminated or truncated) and s + 1 < rollout.num_positions - 1:
            raise ReplayDivergenceError(_diverged(rollout, s + 1, "ended the episode"), s + 1)
    return obs, info


def _replayable_actions(actions: np.ndarray) -> list[Any]:
    """The actions as the env takes them (a discrete space's as ints, in one go)."""
    if actions.ndim == 1 and actions.dtype.kind in "iu":
        return actions.tolist()  # type: ignore[no-any-return]
    return [_replayable(action) for action in actions]


def _checked_every_step(observations: Any) -> bool:
    """Whether some observation entry is held as an array, so checked at every step."""
    entries = observations.values() if isinstance(observations, Mapping) else [observations]
    return any(isinstance(entry, np.ndarray) for entry in entries)


def whole_number(value: Any, name: str, least: int) -> int:
    """``value`` as an int of at least ``least``, or a ValueError (TypeError for what is
    no integer at all: 1.5, "3", True) naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{name} must be a whole number, not {value!r:.40} ({type(value).__name__})"
        )
    if value < least:
        raise ValueError(f"{name} must be at least {least}, not {value}")
    return int(value)


def _checked(rollout: Rollout, t: int, action: Any, env: gym.Env[Any, Any]) -> int:
    """The rollout's seed, once every argument is checked."""
    if not 0 <= t <= rollout.num_steps:
        raise ValueError(f"cannot branch at position {t}: the episode has 0..{rollout.num_steps}")
    if t == rollout.num_steps and rollout.num_steps and rollout.terminated[-1]:
        raise ValueError(f"cannot branch at position {t}: the episode terminated there")
    env_id, wanted = spec_id(env), rollout.metadata.get("env_id")
    if env_id is not None and wanted is not None and env_id != wanted:
        raise ValueError(f"the env is {env_id!r}, the episode was recorded in {wanted!r}")
    seed = rollout.metadata.get("seed")
    if not isinstance(seed, int):
        raise ValueError(
            "the episode has no seed (metadata['seed']): its start cannot be replayed; "
            "record it with a seed to branch it"
        )
    if rollout.frames is not None and env.render_mode != "rgb_array":
        raise ValueError(
            "the episode has frames: make the env with render_mode='rgb_array' so the "
            "branch has them too"
        )
    if rollout.observations is None:
        raise ValueError("the episode has no observations to check its replay against")
    if not env.action_space.contains(_replayable(action)):
        raise ValueError(f"action {action!r} is not in the env's action space {env.action_space}")
    if rollout.actions.dtype.kind == "U":
        raise ValueError("the episode's actions are stored as text: they cannot be replayed")
    return seed


def _replayable(action: Any) -> Any:
    """An action as the env takes it: a NumPy scalar of an integer space as an int."""
    value = np.asarray(action)
    if value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return value if value.ndim else value.item()


def _check_position(rollout: Rollout, s: int, obs: Any, env: gym.Env[Any, Any], t: int) -> None:
    """ReplayDivergenceError unless the replay's position ``s`` is the recorded one, as
    far as it is checked there: observations held encoded (and the frame) at ``t``."""
    recorded: Any = rollout.observations
    if isinstance(recorded, Mapping):
        same = isinstance(obs, Mapping) and all(
            _same_row(obs[key], value, s, s == t) for key, value in recorded.items()
        )
    else:
        same = _same_row(obs, recorded, s, s == t)
    if not same:
        raise ReplayDivergenceError(_diverged(rollout, s, "gave another observation"), s)
    if s == t and rollout.frames is not None:
        _check_frame(rollout, s, env)


def _same_row(obs: Any, recorded: Any, s: int, always: bool) -> bool:
    """Whether ``obs`` is row ``s`` of ``recorded``; taken as such where the rows are
    held encoded or in a file (not an array), unless ``always``."""
    if not always and not isinstance(recorded, np.ndarray):
        return True
    return np.array_equal(np.asarray(obs), recorded[s])


def _check_frame(rollout: Rollout, s: int, env: gym.Env[Any, Any]) -> None:
    if not np.array_equal(np.asarray(env.render()), rollout.frames[s]):  # type: ignore[index]
        raise ReplayDivergenceError(_diverged(rollout, s, "rendered another frame"), s)


def _diverged(rollout: Rollout, s: int, what: str) -> str:
    return (
        f"the env is not deterministic from this seed: replaying the episode's actions "
        f"from seed {rollout.metadata.get('seed')} {what} at position {s}, so a branch "
        "from there would not start where the episode was"
    )


def _play(
    env: gym.Env[Any, Any],
    policy: PolicyFunction,
    future: EpisodeBuffer,
    obs: Any,
    action: Any,
    max_steps: int,
    renders: bool,
) -> None:
    """From observation ``obs``, take ``action``, then follow ``policy``; the policy's
    extras are kept at every step (at the first, what it would have done), and the
    env's state saved as the future's states say."""
    for k in range(max_steps):
        chosen, extras = split_policy_output(policy(obs))
        taken = action if k == 0 else chosen
        future.check_extras(extras)
        obs, reward, terminated, truncated, info = env.step(_replayable(taken))
        frame = env.render() if renders else None
        future.add(taken, extras, obs, reward, terminated, truncated, info, frame)
        future.save_state(env)
        if terminated or truncated:
            return


def _joined(original: Rollout, t: int, action: Any, future: Rollout) -> Rollout:
    """The original's positions ``0..t-1`` and steps ``0..t-1``, then ``future`` (whose
    position 0 is position ``t``)."""
    n = t + future.num_positions
    frames = None
    if original.frames is not None and future.frames is not None:
        frames = ArrayFrames.after(_Prefix(original.frames, t), encoding="zlib-runs")
        frames.allow_resize = True
        for s in range(future.num_positions):
            frames.append(future.frames[s])
    extras = {
        name: np.concatenate([np.asarray(values[:t]), future.extras[name]])
        for name, values in original.extras.items()
        if name in future.extras and np.asarray(values).shape[1:] == future.extras[name].shape[1:]
    }
    metadata = {
        **{key: value for key, value in original.metadata.items() if key != NORMALIZATION_KEY},
        **future.metadata,  # when it was made, and the normalisation its policy used
        "branch": {"t": t, "action": plain(action), "of": parent(original.metadata)},
    }
    # Both parts are rollouts already (checked, JSON-able infos): joined as they are.
    return Rollout(
        frames=frames,
        observations=_joined_observations(original.observations, t, future, frames, n),
        actions=np.concatenate([original.actions[:t], future.actions]),
        rewards=np.concatenate([original.rewards[:t], future.rewards]),
        terminated=np.concatenate([original.terminated[:t], future.terminated]),
        truncated=np.concatenate([original.truncated[:t], future.truncated]),
        infos=[*(original.infos[s] for s in range(t)), *(future.infos or [])],  # type: ignore[index]
        extras=extras,
        metadata=metadata,
        states={
            **{p: state for p, state in original.states.items() if p <= t},
            **{t + p: state for p, state in future.states.items()},
        },
    )


def parent(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """What a branch says of the episode it branched from (its own branch point too)."""
    keys = ("agent", "algorithm", "created", "branch")
    return {key: metadata[key] for key in keys if metadata.get(key) is not None}


def plain(action: Any) -> Any:
    value = np.asarray(action).tolist()
    try:
        json.dumps(value)
    except TypeError:
        return repr(action)
    return value


def _joined_observations(
    original: Any, t: int, future: Rollout, frames: Frames | None, n: int
) -> Any:
    observations: Any = future.observations
    if isinstance(original, Mapping):
        return {
            key: _joined_rows(value, t, observations[key], frames, n)
            for key, value in original.items()
        }
    return _joined_rows(original, t, observations, frames, n)


def _joined_rows(original: Any, t: int, future: Any, frames: Frames | None, n: int) -> Any:
    """Rows ``0..t-1`` of ``original`` then ``future``'s: the frames again when both are
    the frames, encoded when their rows are large, else one array."""
    if isinstance(original, FrameRows) and isinstance(future, FrameRows) and frames is not None:
        return FrameRows(frames, n)
    first = np.asarray(future[0])
    if first.nbytes < LARGE_ROW_BYTES:
        return np.concatenate([np.asarray(original[:t]), np.asarray(future)])
    return _JoinedRows(original, t, future, first)


class _JoinedRows(ChunkedRows):
    """Rows ``0..t-1`` of ``original`` then ``future``'s, read from them (nothing
    decoded or encoded again until saved; the original's full chunks are then its
    own payloads, when it holds them encoded)."""

    def __init__(self, original: Any, t: int, future: Any, first: np.ndarray) -> None:
        self._original, self._t, self._future = original, t, future
        self.dtype, self._row_shape = first.dtype, first.shape

    def __len__(self) -> int:
        return self._t + len(self._future)

    def _row(self, s: int) -> np.ndarray:
        return np.asarray(self._original[s] if s < self._t else self._future[s - self._t])

    def payload(self, k: int) -> bytes:
        start, stop = k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, len(self))
        if stop <= self._t and isinstance(self._original, ChunkedRows):
            return self._original.payload(k)
        rows = np.stack([self._row(s) for s in range(start, stop)])
        return encode_rows(rows.reshape(stop - start, -1).view(np.uint8))


class _Prefix(Frames):
    """The first ``length`` frames of ``frames``: full chunks handed out as they are."""

    def __init__(self, frames: Frames, length: int) -> None:
        self._frames, self._length = frames, length

    def __len__(self) -> int:
        return self._length

    def _frame(self, t: int) -> np.ndarray:
        return self._frames[t]

    def _encode_chunk(self, k: int) -> list[Part]:
        if (k + 1) * CHUNK_SIZE <= self._length:
            return self._frames.chunk(k)
        stop = self._length
        return encode_chunk((self._frames[s] for s in range(k * CHUNK_SIZE, stop)), k * CHUNK_SIZE)
