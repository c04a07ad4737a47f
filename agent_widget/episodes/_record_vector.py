"""``record_vector()``: a batched policy on a gymnasium vector env, one rollout per sub-env."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import iterate

from agent_widget.episodes._action_names import action_names, known_action_names
from agent_widget.episodes._episode_buffer import EpisodeBuffer
from agent_widget.episodes._interrupts import interrupts_held
from agent_widget.episodes._policies import PolicyFunction, as_policy, split_policy_output
from agent_widget.episodes._recording_metadata import base_metadata, labels, spec_id
from agent_widget.episodes._rollout import Rollout
from agent_widget.format import Spool


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
    policy: PolicyFunction | Any,
    seed: int | None = None,
    max_steps: int = 10_000,
    *,
    deterministic: bool = True,
    agent: str | None = None,
    algorithm: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    directory: str | os.PathLike[str] | None = None,
) -> list[Rollout]:
    """Run a batched policy on a vector env; return each sub-env's first episode.

    ``policy`` maps a batch of observations to a batch of actions (or to
    ``(actions, extras)`` with each extra batched along the first axis), or is a
    model with ``predict(obs, deterministic=...)`` (Stable-Baselines3's), called on
    the batch.
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
    metadatas = _vector_metadata(envs, seed, labels(agent, algorithm, metadata))
    with interrupts_held():  # each sub-env's file and the episode that writes it, or none
        episodes = [
            EpisodeBuffer(
                obs_i,
                _sub_env_info(infos, i),
                frame,
                renders,
                None if directory is None else Spool.in_folder(directory),
                metadatas[i],
            )
            for i, (obs_i, frame) in enumerate(
                zip(iterate(envs.observation_space, obs), frames(), strict=True)
            )
        ]
    rollouts: list[Rollout] | None = None
    try:
        _run_vector(envs, as_policy(policy, deterministic), episodes, obs, max_steps, mode, frames)
        with interrupts_held():  # filed whole; a Ctrl-C meanwhile is raised after
            rollouts = _vector_rollouts(episodes)
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        with interrupts_held(raise_after=False):  # a second Ctrl-C waits for the filing
            if rollouts is None:
                rollouts = _vector_rollouts(episodes)
        error.rollouts = rollouts  # type: ignore[attr-defined]
        error.add_note(
            "agent-widget: the episodes recorded before this are in this exception's .rollouts"
        )
        raise
    return rollouts


def _run_vector(
    envs: VectorEnv[Any, Any, Any],
    policy: PolicyFunction,
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
        with interrupts_held():  # a vector step goes into every sub-env's episode, or none
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
        base_metadata(
            env_id,
            seed + i if seed is not None and per_env_seeds else seed,
            names,
            envs.single_action_space,
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
