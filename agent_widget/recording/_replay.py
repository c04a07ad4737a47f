"""Frames made after the fact: an episode's actions replayed from its seed, rendered.

Rendering is most of what recording costs (CartPole: ~1.7 ms a step with frames,
~0.2 ms without), so an episode recorded during training keeps its observations and
actions only, and its frames are made when someone looks: the env is reset with the
episode's seed and its actions are taken again, each replayed observation checked
against the recorded one, so a replay that strays (an env not deterministic from its
seed, another version of it, other wrappers) is a :class:`ReplayDivergenceError`
naming the position, never wrong frames. Minari import replays the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format import ArrayFrames
from agent_widget.recording._env_spec import make_env


class ReplayDivergenceError(ValueError):
    """Replaying an episode's actions (a Minari import's, a branch's up to its branch
    point, frames rendered later) did not reproduce its recorded observations;
    ``position`` says where."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position
        """The first position whose replayed observation differs from the stored one."""


def at(data: Any, t: int) -> Any:
    """Entry ``t`` of stacked per-step data, dicts (nested) included."""
    if isinstance(data, Mapping):
        return {key: at(value, t) for key, value in data.items()}
    return data[t]


def same_observation(replayed: Any, stored: Any) -> bool:
    """Whether a replayed observation is the stored one (dicts key by key; numbers
    within float rounding, since a file may hold them in a narrower dtype)."""
    if isinstance(stored, Mapping):
        return isinstance(replayed, Mapping) and all(
            key in replayed and same_observation(replayed[key], value)
            for key, value in stored.items()
        )
    replayed, stored = np.asarray(replayed), np.asarray(stored)
    if replayed.shape != stored.shape:
        return False
    if replayed.dtype.kind in "biufc" and stored.dtype.kind in "biufc":
        return bool(np.allclose(replayed, stored, equal_nan=True))
    return bool(np.array_equal(replayed, stored))


def replay_frames(
    env: gym.Env[Any, Any],
    reset: Mapping[str, Any],
    actions: Sequence[Any] | np.ndarray,
    check: Callable[[int, Any], None],
    diverged: Callable[[int, str], ReplayDivergenceError],
) -> list[np.ndarray]:
    """The frames of an episode replayed in ``env`` (made with ``render_mode="rgb_array"``).

    Args:
        env: reset with ``reset`` (``seed``, ``options``), then given ``actions``.
        reset: keywords of ``env.reset``.
        actions: the episode's actions, one per step.
        check: called with each position and the replay's observation there; raises
            when it is not the recorded one.
        diverged: the error for an env that ends the episode before its last action.
    """
    steps = len(actions)
    obs, _ = env.reset(**reset)
    check(0, obs)
    frames = [env.render()]
    for t in range(steps):
        obs, _, terminated, truncated, _ = env.step(actions[t])
        check(t + 1, obs)
        frames.append(env.render())
        if (terminated or truncated) and t < steps - 1:
            raise diverged(t + 1, f"ends after action {t}, not after action {steps - 1}")
    return frames  # type: ignore[return-value]


def render_frames(
    rollout: Rollout,
    env: gym.Env[Any, Any] | Callable[[], gym.Env[Any, Any]] | None = None,
) -> Rollout:
    """``rollout`` with its frames, rendered by replaying its actions from its seed.

    A rollout that has frames is returned as it is.

    Args:
        rollout: an episode recorded without frames, with its seed and observations
            (``record`` in an env made without ``render_mode`` keeps both).
        env: an env made with ``render_mode="rgb_array"`` (reset, used, left open), or
            a function that makes one (closed after); by default the env made as the
            rollout's ``metadata["env_spec"]`` says (``record`` keeps it: the env id and
            gymnasium's own wrappers, see :mod:`agent_widget.recording._env_spec`),
            else ``gym.make(rollout.metadata["env_id"], render_mode="rgb_array")``. Pass
            your own for an env with wrappers of another package.

    Raises:
        ReplayDivergenceError: the replay's observation differs from the recorded one
            at some position (its ``position``), or the env ends the episode early.
        ValueError: the rollout has no seed or no observations, the env does not render
            ``rgb_array`` frames, or cannot be made again from the rollout's metadata.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import record
        >>> episode = record(gym.make("CartPole-v1"), lambda obs: int(obs[2] > 0), seed=0)
        >>> episode.frames is None, render_frames(episode).frames[0].shape
        (True, (400, 600, 3))
    """
    if rollout.frames is not None:
        return rollout
    seed, observations = rollout.metadata.get("seed"), rollout.observations
    if not isinstance(seed, int) or observations is None:
        raise ValueError(
            "frames are rendered by replaying an episode from its seed and checking its "
            "observations: this one has "
            + ("no seed (metadata['seed'])" if not isinstance(seed, int) else "no observations")
        )
    made = env is None or not isinstance(env, gym.Env)
    left_out = ""  # the recorded env's wrappers not made again, and why
    if env is None:
        description = rollout.metadata.get("env_spec")
        if isinstance(description, Mapping):
            env, left_out = make_env(description)
        else:
            env = gym.make(rollout.metadata["env_id"], render_mode="rgb_array")
    elif not isinstance(env, gym.Env):
        env = env()
    try:
        if env.render_mode != "rgb_array":
            raise ValueError(
                f"frames are rendered with render_mode='rgb_array'; this env's is "
                f"{env.render_mode!r}"
            )

        def diverged(t: int, what: str) -> ReplayDivergenceError:
            return ReplayDivergenceError(
                f"replaying the episode's actions from seed {seed} {what}, so frames "
                f"rendered from position {t} on would not show this episode "
                + (
                    f"({left_out})"
                    if left_out
                    else "(is the env made as it was recorded, with the same wrappers?)"
                ),
                position=t,
            )

        def check(t: int, obs: Any) -> None:
            if not same_observation(obs, at(observations, t)):
                raise diverged(t, f"gives another observation at position {t}")

        frames = replay_frames(env, {"seed": seed}, rollout.actions, check, diverged)
    finally:
        if made:
            env.close()
    return dataclasses.replace(rollout, frames=ArrayFrames(frames))
