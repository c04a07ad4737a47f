"""``CheckpointRecorder``: evaluation episodes and the network's weights, during training.

At each checkpoint the current policy plays one episode per seed, and the network's
weights are saved beside them, in a run of a :class:`~agent_widget.library.RunLibrary`::

    <run>/episode-NNN.rollout              one per seed per checkpoint
    <run>/checkpoint-0000005000.safetensors  the weights at training step 5000
    <run>/checkpoint-0000005000.obs-statistics.safetensors  its VecNormalize statistics

Each episode's metadata says which checkpoint it shows (``training_step``, and the
weights' file name as ``checkpoint``). The episodes are recorded without frames: the
env renders nothing during training (rendering costs several times the policy's
forward pass), and the frames are made by replaying the actions from the seed when
the episode is first shown (:func:`~agent_widget.recording.render_frames`).

A model trained under SB3's ``VecNormalize`` is evaluated on observations normalized
as it is trained at that moment (its own ``get_vec_normalize_env()``, or the
``normalize=`` given), and those statistics are saved beside its weights, without
pickle (:mod:`~agent_widget.checkpoints._obs_statistics`): the viewer feeds each
checkpoint's network with its own, not the statistics the training ended with.

A policy that raises during an evaluation does not stop the training: the steps it
played are kept as an episode whose ``metadata["evaluation_error"]`` says what
happened, and a warning says it too.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import gymnasium as gym
from torch import nn

from agent_widget.checkpoints._obs_statistics import save_statistics, statistics_file
from agent_widget.checkpoints._weights import failed_note, save_weights
from agent_widget.episodes import Rollout
from agent_widget.library import RunLibrary
from agent_widget.recording import normalization, record

EnvMaker = Callable[[], gym.Env[Any, Any]]


def checkpoint_file(step: int) -> str:
    """The weights file of the checkpoint at training step ``step``."""
    return f"checkpoint-{step:010d}.safetensors"


class CheckpointRecorder:
    """Records evaluation episodes and weights at checkpoints of a training loop.

    Args:
        make_env: an env id, or a function making the env the policy is evaluated in.
            Make it without ``render_mode``: frames are rendered later, by replay.
        seeds: one episode per seed at each checkpoint.
        library: a :class:`~agent_widget.library.RunLibrary` (or its folder) to record
            into; a library in a bucket is not supported yet (the weights are files).
        run: the run's name; defaults to the current UTC time.
        algorithm: the algorithm's name in the library.
        deterministic: passed to a model's ``predict`` (SB3's); a function is called as
            it is.
        max_steps: the most actions in one evaluation episode.
        params: hyperparameters kept in the run, as :meth:`RunLibrary.add` keeps them.
        scalars: the folder the training writes its TensorBoard scalars to, kept (made
            absolute) in each episode's metadata as ``scalars_dir``: TensorBoard's Agent
            tab links the run to those scalars.

    Examples:
        >>> recorder = CheckpointRecorder("CartPole-v1", seeds=[0, 1],
        ...                               library="runs/", run="dqn")  # doctest: +SKIP
        >>> for step in range(total_steps):  # doctest: +SKIP
        ...     ...  # the training step
        ...     if step % 5000 == 0:
        ...         recorder.record(step, lambda obs: q_net(obs).argmax(), network=q_net)
    """

    def __init__(
        self,
        make_env: str | EnvMaker,
        seeds: Iterable[int] = (0, 1),
        *,
        library: RunLibrary | str | os.PathLike[str],
        run: str | None = None,
        algorithm: str = "torch",
        deterministic: bool = True,
        max_steps: int = 10_000,
        params: dict[str, Any] | None = None,
        scalars: str | os.PathLike[str] | None = None,
    ) -> None:
        self.library = library if isinstance(library, RunLibrary) else RunLibrary(library)
        if not isinstance(self.library.root, Path):
            raise ValueError(
                f"checkpoints are recorded into a library folder; {self.library.root} is a "
                "URL (a bucket library does not hold weights files yet)"
            )
        self.seeds = [int(seed) for seed in seeds]
        if not self.seeds:
            raise ValueError("seeds must name at least one seed to evaluate with")
        self._make_env = make_env
        self._env: gym.Env[Any, Any] | None = None
        self.run = run or datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        self.algorithm = algorithm
        self.deterministic = deterministic
        self.max_steps = max_steps
        self.params = params
        self.scalars = None if scalars is None else os.path.abspath(scalars)
        self.failures: list[str] = []
        """What each evaluation that raised said (also in its episode's metadata)."""

    def record(
        self, step: int, policy: Any, network: nn.Module | None = None, *, normalize: Any = None
    ) -> list[Rollout]:
        """Evaluate ``policy`` once per seed and save ``network``'s weights, as the
        checkpoint at training step ``step``; the episodes recorded.

        Args:
            step: the training step (environment steps so far, or your own count).
            policy: ``obs -> action`` (or ``(action, extras)``), or a model with SB3's
                ``predict``.
            network: the module whose ``state_dict()`` is saved; without it only the
                episodes are recorded.
            normalize: what the policy's observations go through, as for
                :func:`~agent_widget.recording.record`: by default a model's own
                ``VecNormalize``. Its statistics, when it has them, are saved too.
        """
        step = int(step)
        name = checkpoint_file(step)
        env = self._environment()
        found = normalization(policy, normalize)
        statistics = None if found is None else found.statistics
        metadata = {"training_step": step, "checkpoint": name if network is not None else None}
        if statistics is not None:
            metadata["observation_statistics"] = statistics_file(step)
        if self.scalars is not None:
            metadata["scalars_dir"] = self.scalars
        episodes = []
        for seed in self.seeds:  # a loop, not a comprehension: warnings name the caller's line
            episodes.append(self._evaluate(env, policy, seed, metadata, normalize))
        run = self.library.add(episodes, algorithm=self.algorithm, run=self.run, params=self.params)
        if statistics is not None:  # before the weights: a reader waits for those
            save_statistics(statistics, Path(run.path) / statistics_file(step))
        if network is not None:
            try:
                save_weights(network.state_dict(), Path(run.path) / name)
            except Exception as error:  # a reader must not wait for them for ever
                failed_note(Path(run.path) / name).write_text(f"{type(error).__name__}: {error}")
                raise
        return episodes

    def close(self) -> None:
        """Close the evaluation env (a new one is made if :meth:`record` is called again)."""
        if self._env is not None:
            self._env.close()
            self._env = None

    def _environment(self) -> gym.Env[Any, Any]:
        if self._env is None:
            make = self._make_env
            self._env = gym.make(make) if isinstance(make, str) else make()
        return self._env

    def _evaluate(
        self,
        env: gym.Env[Any, Any],
        policy: Any,
        seed: int,
        metadata: dict[str, Any],
        normalize: Any,
    ) -> Rollout:
        """One episode, or the steps played before the policy (or the env) raised."""
        try:
            return record(
                env,
                policy,
                seed,
                self.max_steps,
                deterministic=self.deterministic,
                algorithm=self.algorithm,
                metadata=metadata,
                normalize=normalize,
            )
        except Exception as error:
            message = (
                f"evaluation at training step {metadata['training_step']}, seed {seed}: "
                f"{type(error).__name__}: {error}"
            )
            self.failures.append(message)
            warnings.warn(f"{message} (training goes on; recorded in the run)", stacklevel=3)
            played = getattr(error, "rollout", None)
            if played is None:  # raised before the first observation
                played = Rollout.from_arrays(metadata={"seed": seed})
            played.metadata.update(metadata, evaluation_error=message)
            played.metadata.setdefault("env_id", env.spec.id if env.spec else None)
            return played
