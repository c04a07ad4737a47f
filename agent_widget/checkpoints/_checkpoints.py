"""``Checkpoints``: a run recorded by a :class:`CheckpointRecorder`, read back by checkpoint.

What a viewer of the checkpoints stands on: the training steps, each checkpoint's
episodes by seed, their frames made by replay the first time an episode is asked for
(then kept), the evaluations that failed, and each checkpoint's weights loaded into
a module the caller gives.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
from torch import nn

from agent_widget.checkpoints._weights import WeightsFileError, load_weights
from agent_widget.episodes import Rollout, render_frames
from agent_widget.library import RunLibrary


class Checkpoints:
    """The checkpoints of a run: ``training_step -> {seed: episode}``, and weights.

    Args:
        library: the library holding the run.
        run: the run's id (``"CartPole-v1/DQN/my-run"``).
        render_env: makes the env frames are rendered in by replay (with
            ``render_mode="rgb_array"``); by default ``gym.make`` of the episodes'
            env id. Give your own for an env recorded with wrappers.
    """

    def __init__(
        self,
        library: RunLibrary,
        run: str,
        render_env: Callable[[], gym.Env[Any, Any]] | None = None,
    ) -> None:
        self.episodes = library.open(run)
        self.folder = Path(self.episodes.run.path)
        self._render_env = render_env
        self._rendered: dict[int, Rollout] = {}
        self._index: dict[int, dict[int, int]] = {}
        self.failures: dict[tuple[int, int], str] = {}
        """``(training_step, seed) -> message`` for each evaluation that raised."""
        for i in range(len(self.episodes)):
            metadata = self.episodes[i].metadata
            step, seed = metadata.get("training_step"), metadata.get("seed")
            if isinstance(step, int) and isinstance(seed, int):
                self._index.setdefault(step, {})[seed] = i
                if metadata.get("evaluation_error"):
                    self.failures[step, seed] = str(metadata["evaluation_error"])

    @property
    def steps(self) -> list[int]:
        """The training steps of the checkpoints, in order."""
        return sorted(self._index)

    def seeds(self, step: int) -> list[int]:
        """The seeds evaluated at the checkpoint of ``step``."""
        return sorted(self._checkpoint(step))

    def episode(self, step: int, seed: int) -> Rollout:
        """The episode of ``seed`` at the checkpoint of ``step``, its frames rendered by
        replay when first asked for (a failed evaluation's steps are not replayed)."""
        i = self._checkpoint(step).get(seed)
        if i is None:
            raise KeyError(f"no episode of seed {seed} at training step {step}")
        if (step, seed) in self.failures:
            return self.episodes[i]
        if i not in self._rendered:
            self._rendered[i] = render_frames(self.episodes[i], self._render_env)
        return self._rendered[i]

    def weights_file(self, step: int) -> Path:
        """The safetensors file of the checkpoint of ``step``."""
        self._checkpoint(step)
        names = {self.episodes[i].metadata.get("checkpoint") for i in self._index[step].values()}
        names.discard(None)
        if not names:
            raise WeightsFileError(f"the checkpoint at training step {step} saved no weights")
        return self.folder / str(names.pop())

    def load_weights(self, step: int, module: nn.Module) -> nn.Module:
        """The weights of the checkpoint of ``step`` loaded into ``module`` (see
        :func:`load_weights`); a missing file is a :class:`WeightsFileError` too."""
        path = self.weights_file(step)
        if not path.exists():
            raise WeightsFileError(
                f"weights file {path} of training step {step} is missing (not written yet, "
                "or removed)"
            )
        return load_weights(path, module)

    def _checkpoint(self, step: int) -> dict[int, int]:
        if step not in self._index:
            raise KeyError(f"no checkpoint at training step {step}; the run has {self.steps}")
        return self._index[step]
