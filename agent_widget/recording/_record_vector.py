"""``record_vector()``: a batched policy on a vector env (gymnasium's or
Stable-Baselines3's), its sub-envs' episodes each a rollout."""

from __future__ import annotations

import operator
import os
from collections.abc import Mapping
from typing import Any

from gymnasium.vector import VectorEnv

from agent_widget.episodes import Rollout
from agent_widget.format import Spool
from agent_widget.recording._episode_buffer import EpisodeBuffer
from agent_widget.recording._gymnasium_vector import GymnasiumSteps
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._normalization import normalization, normalized, noted
from agent_widget.recording._policies import PolicyFunction, as_policy, split_policy_output
from agent_widget.recording._recording_metadata import base_metadata, labels
from agent_widget.recording._sb3_vector import SB3Steps, is_sb3_vec_env
from agent_widget.recording._vector_steps import Start, VectorSteps, episode_targets


def record_vector(
    envs: VectorEnv[Any, Any, Any] | Any,
    policy: PolicyFunction | Any,
    seed: int | None = None,
    max_steps: int = 10_000,
    *,
    episodes: int | None = None,
    deterministic: bool = True,
    agent: str | None = None,
    algorithm: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    directory: str | os.PathLike[str] | None = None,
    normalize: Any = None,
) -> list[Rollout]:
    """Run a batched policy on a vector env; return its sub-envs' episodes.

    ``envs`` is a gymnasium ``VectorEnv`` or a Stable-Baselines3 ``VecEnv``
    (``DummyVecEnv``, ``SubprocVecEnv``, ``make_atari_env(...)``, wrapped in
    ``VecFrameStack`` or ``VecTransposeImage``...; known by its API, SB3 is not
    imported). ``policy`` maps a batch of observations to a batch of actions (or to
    ``(actions, extras)`` with each extra batched along the first axis), or is a
    model with ``predict(obs, deterministic=...)`` (Stable-Baselines3's), called on
    the batch. ``normalize`` is as for :func:`~agent_widget.recording.record` (by default
    a model's own ``VecNormalize``), applied to the batch; the rollouts keep the raw
    observations.

    By default each sub-env's first episode is kept, ``rollouts[i]`` from sub-env
    ``i``. With ``episodes=N``, N whole episodes are kept, sub-env ``i`` giving
    ``(N + i) // num_envs`` of them as SB3's ``evaluate_policy`` counts: the split is
    fixed before any episode runs, so sub-envs whose episodes end sooner do not give
    more of them, and the short episodes are not favoured. Rollouts come ordered by
    sub-env, then by episode; the metadata says which (``"sub_env"``,
    ``"sub_env_episode"``, counted from 0). Recording stops once every sub-env has
    given its episodes, or after ``max_steps`` vector steps: the episodes under way
    are then kept, marked truncated (a later episode that has taken no action yet is
    dropped).

    Seeds: ``SyncVectorEnv``, ``AsyncVectorEnv`` and SB3's VecEnvs (``venv.seed(seed)``,
    then ``reset()``) reset sub-env ``i`` with ``seed + i``, so its first episode
    equals ``record(single_env, policy, seed=seed + i)`` for a policy that treats each
    row on its own, and its metadata's ``"seed"`` says so. A sub-env's later episodes
    start where its random generator went on, from no seed of their own: their
    ``"seed"`` is None, and they cannot be branched (:meth:`Rollout.branch` replays
    from a seed). Natively vectorized envs (e.g. ``gym.make_vec("CartPole-v1")``
    without ``vectorization_mode``) share one generator; their first episodes carry
    the vector seed.

    Frames: gymnasium's env needs ``render_mode="rgb_array"`` (``envs.render()``),
    SB3's sub-envs the same (``get_images()``; ``make_atari_env(...,
    env_kwargs={"render_mode": "rgb_array"})``). The frames are what the env renders
    (Atari's 210x160 screen), the observations what the policy sees (SB3's stacked,
    resized ones). SB3's VecEnvs reset a sub-env inside the step that ends its
    episode: that episode's last position then holds the terminal observation (from
    ``infos[i]["terminal_observation"]``) and no frame, because the frame rendered
    after the step already shows the next episode's start. The file keeps the frame
    as missing; the position's info says ``"no_frame"`` and why, and the viewer shows
    that instead of a picture. gymnasium's vector envs keep every last frame with
    autoreset ``NEXT_STEP`` (their default) or ``DISABLED``; ``SAME_STEP`` resets as SB3
    does, and its episodes end the same way (the observation from
    ``infos["final_obs"]``, no frame).

    If the policy or the env raises, the exception goes on with the episodes so far
    as its ``rollouts`` attribute. With ``directory``, each episode is written to its
    own ``episode-NNN.rollout`` there as it is recorded, as :func:`record` does with
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
        >>> rollouts = record_vector(envs, lambda obs: (obs[:, 2] > 0).astype(int), episodes=5)
        >>> [(r.metadata["sub_env"], r.metadata["sub_env_episode"]) for r in rollouts]
        [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
        >>> from stable_baselines3.common.env_util import make_atari_env  # doctest: +SKIP
        >>> from stable_baselines3.common.vec_env import VecFrameStack  # doctest: +SKIP
        >>> venv = VecFrameStack(  # doctest: +SKIP
        ...     make_atari_env("ALE/Pong-v5", n_envs=4, env_kwargs={"render_mode": "rgb_array"}), 4
        ... )
        >>> rollouts = record_vector(venv, model, seed=0, episodes=8)  # doctest: +SKIP
    """
    steps: VectorSteps = SB3Steps(envs) if is_sb3_vec_env(envs) else _gymnasium(envs)
    found = normalization(policy, normalize)
    recording = _Recording(
        steps,
        episode_targets(episodes, steps.num_envs),
        seed,
        directory,
        labels(agent, algorithm, noted(metadata, found)),
    )
    try:
        with interrupts_held():  # each sub-env's file and the episode that writes it, or none
            recording.begin(steps.reset(seed))
        recording.run(normalized(as_policy(policy, deterministic), found), max_steps)
        with interrupts_held():  # filed whole; a Ctrl-C meanwhile is raised after
            rollouts = recording.rollouts()
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        with interrupts_held(raise_after=False):  # a second Ctrl-C waits for the filing
            error.rollouts = recording.rollouts()  # type: ignore[attr-defined]
        error.add_note(
            "agent-widget: the episodes recorded before this are in this exception's .rollouts"
        )
        raise
    return rollouts


def _gymnasium(envs: Any) -> GymnasiumSteps:
    if not isinstance(envs, VectorEnv):
        raise TypeError(
            "record_vector needs a gymnasium VectorEnv or a Stable-Baselines3 VecEnv; "
            f"got {type(envs).__name__}"
        )
    return GymnasiumSteps(envs)


class _Recording:
    """The episodes of a vector env as they are recorded: each sub-env's one under way,
    and those finished, until each sub-env has given its target."""

    def __init__(
        self,
        steps: VectorSteps,
        targets: list[int],
        seed: int | None,
        directory: str | os.PathLike[str] | None,
        labels: dict[str, Any],
    ) -> None:
        self.steps, self.targets, self.seed = steps, targets, seed
        self.directory, self.labels = directory, labels
        self.env_id, self.names, self.action_space = steps.describe()
        self.current: list[EpisodeBuffer | None] = [None] * steps.num_envs
        self.finished: list[list[EpisodeBuffer]] = [[] for _ in range(steps.num_envs)]
        self.rollouts_filed: list[Rollout] | None = None

    def begin(self, starts: list[Start]) -> None:
        for i, start in enumerate(starts):
            self._start(i, start)

    def _start(self, i: int, start: Start) -> None:
        """Sub-env ``i``'s next episode, if it is to give one more."""
        n = len(self.finished[i])
        if n >= self.targets[i]:
            return
        episode_metadata = base_metadata(
            self.env_id,
            self.steps.sub_env_seed(self.seed, i) if n == 0 else None,
            self.names,
            self.action_space,
            {"sub_env": i, "sub_env_episode": n, **self.labels},
        )
        spool = None if self.directory is None else Spool.in_folder(self.directory)
        self.current[i] = EpisodeBuffer(
            start.obs, start.info, start.frame, self.steps.renders, spool, episode_metadata
        )

    def run(self, policy: PolicyFunction, max_steps: int) -> None:
        """Steps the vector env until every sub-env gave its episodes, or ``max_steps``."""
        for _ in range(max_steps):
            if all(map(operator.ge, map(len, self.finished), self.targets)):
                return  # (a sub-env between episodes may have one to start next step)
            actions, extras = split_policy_output(policy(self.steps.obs))
            results = self.steps.step(actions)
            rows = self.steps.action_rows(actions)
            with interrupts_held():  # a vector step goes into every sub-env's episode, or none
                for i, result in enumerate(results):
                    episode = self.current[i]
                    if episode is not None and result.outcome is not None:
                        o = result.outcome
                        row_extras = {key: value[i] for key, value in extras.items()}
                        episode.add(
                            rows[i],
                            row_extras,
                            o.obs,
                            o.reward,
                            o.terminated,
                            o.truncated,
                            o.info,
                            o.frame,
                        )
                        if episode.done:
                            self.finished[i].append(episode)
                            self.current[i] = None
                    if result.start is not None:
                        self._start(i, result.start)

    def rollouts(self) -> list[Rollout]:
        """Every episode kept, by sub-env then episode; those under way marked truncated,
        later ones that took no action dropped. Filed once: the exception handler asks
        again after an error elsewhere."""
        if self.rollouts_filed is None:
            for i, episode in enumerate(self.current):
                if episode is not None and (episode.actions or not self.finished[i]):
                    episode.cut()
                    self.finished[i].append(episode)
                elif episode is not None:  # a later episode that only began
                    episode.discard()
                self.current[i] = None
            self.rollouts_filed = [e.finish() for episodes in self.finished for e in episodes]
        return self.rollouts_filed
