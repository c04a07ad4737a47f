"""``RecordRollout``: a gymnasium wrapper that records the episodes of the user's own loop."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from agent_widget.episodes import Rollout, action_names
from agent_widget.format import Spool, is_url
from agent_widget.recording._env_spec import env_spec
from agent_widget.recording._env_states import SavedStates
from agent_widget.recording._episode_buffer import EpisodeBuffer
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._recording_metadata import base_metadata, labels, spec_id


class RecordRollout(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Record every episode that runs through this wrapper as a :class:`Rollout`.

    Each ``reset()`` starts a new episode; it is added to :attr:`rollouts` when
    it terminates or truncates, or, marked truncated, when ``reset()`` or
    :meth:`end_episode` is called before it ended. :attr:`current` is the episode
    in progress. Frames come from ``env.render()`` when the env has
    ``render_mode="rgb_array"``; otherwise the rollouts have no frames.

    Per-step extras (Q-values, value estimates...) are not part of the gymnasium
    API, so they are handed over with :meth:`record_extras` just before ``step()``.

    An env that can save its state (ALE's) has it saved as it goes, in memory
    (``rollout.states``), so that :meth:`Rollout.branch` replays a few steps instead of
    the whole episode: by default at an interval that keeps the states under 10% of
    the episode's size (:mod:`~agent_widget.recording._env_states`); with
    ``states_every=K`` every K positions; with ``states_every=0`` never.

    With ``directory``, each episode is written to ``directory/episode-NNN.rollout`` as
    it is recorded, a chunk (16 positions) at a time, and what was written is let go:
    an episode longer than memory can be recorded, and a run killed at any moment leaves
    files that :func:`load` opens up to their last whole chunk, every chunk whose steps
    were all known (as :func:`record` says of ``path``). The rollouts are then
    read from their files. Several recorders may share a directory. With ``path``
    instead, each episode is written to that one file (replacing the one before: for a
    loop that records one episode, as :func:`record` does): to ``<path>.part`` while it
    is recorded, renamed to ``path`` when it ends.

    A Ctrl-C (Kernel → Interrupt) lands between two whole steps: a step's data and a
    chunk's write are finished first, so every step before it can be filed.

    In a training loop, ``episode_trigger`` and ``step_trigger`` choose the episodes
    kept, as for gymnasium's ``RecordVideo``: ``episode_trigger(episode_id)`` is asked
    at each ``reset()`` (episodes counted from 0), ``step_trigger(step_id)`` after each
    step (steps counted from 0 across episodes) and, when it says yes, the next episode
    to start is kept: whole episodes only, so each can be replayed from its seed and
    branched. Either saying yes keeps the episode; with neither given, every episode
    is kept. An episode not kept is not rendered: it costs what the env costs.

    In a vector env, give it to ``gym.make_vec(..., wrappers=[...])`` with a
    ``directory``: each sub-env (in its own process, for ``AsyncVectorEnv``) writes
    the episodes it keeps there, where :class:`RunLibrary` or :func:`load` read them.

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
        path: str | os.PathLike[str] | None = None,
        states_every: int | None = None,
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
    ) -> None:
        # As gymnasium's own wrappers: the env's spec lists this wrapper with its arguments.
        gym.utils.RecordConstructorArgs.__init__(
            self,
            agent=agent,
            algorithm=algorithm,
            metadata=metadata,
            directory=directory,
            path=path,
            states_every=states_every,
            episode_trigger=episode_trigger,
            step_trigger=step_trigger,
        )
        gym.Wrapper.__init__(self, env)
        self.rollouts: list[Rollout] = []
        self.episode_id = -1  # the episode in progress, counted from 0 at the first reset
        self.step_id = 0  # steps taken through the wrapper, across episodes
        self._episode_trigger = episode_trigger
        self._step_trigger = step_trigger
        self._step_fired = False  # the step trigger said yes since the last episode started
        self._renders = env.render_mode == "rgb_array"
        self._labels = labels(agent, algorithm, metadata)
        self._episode: EpisodeBuffer | None = None
        self._extras: Mapping[str, Any] = {}
        if states_every is not None and states_every < 0:
            raise ValueError(
                f"states_every must be a number of steps (0: none), not {states_every}"
            )
        self._states_every = states_every
        if directory is not None and path is not None:
            raise ValueError("give directory (a file per episode) or path (one file), not both")
        if is_url(path) or is_url(directory):  # Path() would make s3://a/b.rollout s3:/a/...
            raise ValueError(
                f"recording writes local files, not {path or directory!r}: record to a local "
                "path, then add the episode to a RunLibrary at the bucket's URL"
            )
        self._open_spool: Callable[[], Spool] | None = None
        if directory is not None:
            self._open_spool = functools.partial(Spool.in_folder, directory)
        elif path is not None:
            self._open_spool = functools.partial(Spool.to_path, path)

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
        """Reset the env and start recording a new episode (filing one left unfinished),
        if the triggers keep it."""
        if self._episode is not None and self._episode.actions:
            self.end_episode()
        elif self._episode is not None:
            self._episode.discard()
        self._episode = None
        self.episode_id += 1
        obs, info = self.env.reset(seed=seed, options=options)
        if not self._kept():
            return obs, info
        names = action_names(self.env)
        metadata = base_metadata(
            spec_id(self.env), seed, names, self.env.action_space, self._labels
        )
        metadata["env_spec"] = env_spec(self.env)  # how to make it again, for a replay
        frame = self.env.render() if self._renders else None
        with interrupts_held():  # the file and the episode that writes it, or neither
            spool = None if self._open_spool is None else self._open_spool()
            states = SavedStates(self.env, self._states_every)
            self._episode = EpisodeBuffer(obs, info, frame, self._renders, spool, metadata, states)
        self._extras = {}
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the transition (with extras from :meth:`record_extras`).

        If the env raises, the episode so far stays :attr:`current` (the next ``reset()``
        files it, marked truncated).
        """
        if self.episode_id < 0:
            raise RuntimeError("call reset() before step(): recording starts with an episode")
        if self._episode is None:  # an episode the triggers did not keep, or ended by hand
            return self._step_unrecorded(action)
        extras, self._extras = self._extras, {}
        self._episode.check_extras(extras)
        obs, reward, terminated, truncated, info = self.env.step(action)
        frame = self.env.render() if self._renders else None
        self._episode.add(action, extras, obs, reward, terminated, truncated, info, frame)
        self._episode.save_state(self.env)
        self._count_step()
        if terminated or truncated:
            self.end_episode()
        return obs, reward, terminated, truncated, info

    def _step_unrecorded(
        self, action: Any
    ) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        self._extras = {}
        result = self.env.step(action)
        self._count_step()
        return result

    def _count_step(self) -> None:
        """Counts a step; between kept episodes, asks the step trigger."""
        between = self._episode is None
        if between and self._step_trigger is not None and self._step_trigger(self.step_id):
            self._step_fired = True
        self.step_id += 1

    def _kept(self) -> bool:
        """Whether the episode starting now is recorded (see the class docstring)."""
        if self._episode_trigger is None and self._step_trigger is None:
            return True
        fired, self._step_fired = self._step_fired, False
        by_episode = self._episode_trigger is not None and self._episode_trigger(self.episode_id)
        return fired or by_episode

    def end_episode(self, *, replace: bool = True) -> Rollout | None:
        """End the episode in progress here, e.g. when your loop stops at a step limit.

        Its last step is marked truncated (unless it terminated); it is added to
        :attr:`rollouts` and returned. Returns None when no episode is in progress.

        Args:
            replace: with ``path``, whether this episode's file replaces one already at
                the path; False (what :func:`record` does when an exception cuts the
                episode short) keeps that one, and this episode's file stays at
                ``<path>.part``.
        """
        episode, self._episode = self._episode, None  # whatever happens, the next one starts anew
        if episode is None:
            return None
        with interrupts_held():  # filed whole: the file finished, the rollout kept
            episode.cut()
            rollout = episode.finish(replace=replace)
            self.rollouts.append(rollout)
        return rollout
