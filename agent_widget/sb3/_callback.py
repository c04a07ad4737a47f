"""``RecordCheckpoints``: a Stable-Baselines3 callback recording checkpoints as it trains.

Every ``every`` environment steps it hands the model (its deterministic ``predict``)
and its policy's network to a :class:`~agent_widget.checkpoints.CheckpointRecorder`:
one evaluation episode per seed, and ``model.policy.state_dict()`` as safetensors.
The evaluation runs in an env of its own, so the training env's episodes and the
training's random state are left as they were. A model trained under ``VecNormalize``
is evaluated on observations normalized with its statistics of that moment, which are
saved beside the weights (safetensors, no pickle) for the viewer to feed that
checkpoint's network with. The folder SB3 writes the training's TensorBoard scalars to
(``tensorboard_log=``'s ``DQN_1``) is kept in each episode's metadata, for
TensorBoard's Agent tab to link the checkpoints' run to those scalars.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat

from agent_widget.checkpoints import CheckpointRecorder
from agent_widget.library import RunLibrary


class RecordCheckpoints(BaseCallback):
    """Record a checkpoint every ``every`` environment steps of ``model.learn``.

    Args:
        make_env: an env id, or a function making the evaluation env (without
            ``render_mode``: frames are rendered later, by replay).
        every: environment steps between checkpoints (``model.num_timesteps``; with
            several envs a checkpoint is taken at the first step past each multiple).
        seeds: one evaluation episode per seed at each checkpoint.
        library: the :class:`~agent_widget.library.RunLibrary` (or its folder).
        run: the run's name; defaults to the current UTC time.
        deterministic: passed to the model's ``predict``.
        max_steps: the most actions in one evaluation episode.
        params: hyperparameters kept in the run.

    The algorithm's name in the library is the model's class name (``DQN``, ``PPO``).

    Examples:
        >>> model = DQN("MlpPolicy", "CartPole-v1")  # doctest: +SKIP
        >>> record = RecordCheckpoints("CartPole-v1", every=5_000, seeds=[0, 1],
        ...                            library="runs/", run="dqn")  # doctest: +SKIP
        >>> model.learn(50_000, callback=record)  # doctest: +SKIP
    """

    def __init__(
        self,
        make_env: str | Callable[[], gym.Env[Any, Any]],
        every: int,
        seeds: Iterable[int] = (0, 1),
        *,
        library: RunLibrary | str | os.PathLike[str],
        run: str | None = None,
        deterministic: bool = True,
        max_steps: int = 10_000,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a whole number of steps, at least 1; got {every!r}")
        self.every = every
        self._options: dict[str, Any] = {
            "seeds": seeds,
            "library": library,
            "run": run,
            "deterministic": deterministic,
            "max_steps": max_steps,
            "params": params,
        }
        self._make_env = make_env
        self.recorder: CheckpointRecorder | None = None
        """The recorder, made when training starts (it needs the model's name)."""
        self._next = every

    def _on_training_start(self) -> None:
        if self.recorder is None:
            algorithm = type(self.model).__name__
            self.recorder = CheckpointRecorder(
                self._make_env,
                algorithm=algorithm,
                scalars=scalars_dir(self.model),
                **self._options,
            )
        self._next = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next and self.recorder is not None:
            self.recorder.record(self.num_timesteps, self.model, network=self.model.policy)
            self._next = (self.num_timesteps // self.every + 1) * self.every
        return True

    def _on_training_end(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


def scalars_dir(model: Any) -> str | None:
    """The folder ``model``'s logger writes TensorBoard scalars to, None when it writes none
    (no ``tensorboard_log=``: a logger to stdout only)."""
    logger = model.logger
    if any(isinstance(out, TensorBoardOutputFormat) for out in logger.output_formats):
        return str(logger.get_dir())
    return None
