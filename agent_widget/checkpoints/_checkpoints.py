"""``Checkpoints``: a run recorded by a :class:`CheckpointRecorder`, read back by checkpoint.

What a viewer of the checkpoints stands on: the training steps, each checkpoint's
episodes by seed, their frames made by replay the first time an episode is asked for
(then kept; an episode whose replay fails is shown without them, its panels reading
its observations, and :attr:`Checkpoints.unrendered` says why), the evaluations that
failed, each checkpoint's weights loaded into a module the caller gives, and the
checkpoints a training still running adds (:meth:`Checkpoints.refresh`). A run its
training has not written into yet has no checkpoint: read before the first one is in
(a viewer opened in the cell after the one starting the training), it is empty until a
refresh finds it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from torch import nn

from agent_widget.checkpoints._obs_statistics import read_statistics
from agent_widget.checkpoints._weights import WeightsFileError, failed_note, load_weights
from agent_widget.episodes import ActionNames, Rollout, given_names, named
from agent_widget.library import RunLibrary
from agent_widget.recording import ObservationStatistics, render_frames


class Checkpoints:
    """The checkpoints of a run: ``training_step -> {seed: episode}``, and weights.

    Args:
        library: the library holding the run.
        run: the run's id (``"CartPole-v1/DQN/my-run"``).
        render_env: makes the env frames are rendered in by replay (with
            ``render_mode="rgb_array"``); by default the env made again as the
            episodes' ``metadata["env_spec"]`` says (their env id and gymnasium's own
            wrappers; see :func:`~agent_widget.recording.render_frames`). Give your own
            for an env with wrappers of another package (a file never makes
            agent-widget import a module).
        action_names: names of the episodes' actions (as :class:`EpisodeViewer` takes
            them), over those they keep.
    """

    def __init__(
        self,
        library: RunLibrary,
        run: str,
        render_env: Callable[[], gym.Env[Any, Any]] | None = None,
        action_names: ActionNames | None = None,
    ) -> None:
        self._library, self.run = library, run
        self._action_names = given_names(action_names)
        self.folder = Path(library.root, run)
        """Where the run's episodes and weights files are (or will be)."""
        self.episodes: Sequence[Rollout] = ()
        """The run's episodes, empty before the training writes the first checkpoint."""
        self._returns: dict[str, float] = {}  # episode file -> its return, from run.json
        self._render_env = render_env
        self._rendered: dict[str, Rollout] = {}
        self._render_lock = threading.Lock()
        self._rendering: dict[str, threading.Lock] = {}  # episode file -> its render's lock
        self._index: dict[int, dict[int, str]] = {}  # step -> seed -> episode file
        self._weights: dict[int, str] = {}  # step -> weights file
        self._statistics: dict[int, str] = {}  # step -> observation statistics file
        self._envs: dict[int, set[str]] = {}  # step -> the env ids of its episodes
        self._positions: dict[str, int] = {}  # episode file -> index in self.episodes
        self.failures: dict[tuple[int, int], str] = {}
        """``(training_step, seed) -> message`` for each evaluation that raised."""
        self.unrendered: dict[tuple[int, int], str] = {}
        """``(training_step, seed) -> why`` for each episode whose frames could not be
        rendered by replay (it is shown without them)."""
        self.refresh()

    def refresh(self) -> list[int]:
        """Read the run again, adding the checkpoints recorded since (by a training
        still running, here or in another process); the training steps added.

        Episode files never change once in a run, so only the new ones are read. A run
        not written yet stays empty (a training about to write its first checkpoint)."""
        if not self._returns and not self._library.has_run(self.run):
            return []
        self.episodes = episodes = self._library.open(self.run)
        before = set(self._index)
        for i, entry in enumerate(episodes.run.episodes):
            self._returns[entry.file] = entry.total_return
            known = entry.file in self._positions
            self._positions[entry.file] = i
            if known:
                continue
            metadata = self.episodes[i].metadata
            step, seed = metadata.get("training_step"), metadata.get("seed")
            if not (isinstance(step, int) and isinstance(seed, int)):
                continue  # an episode added to the run some other way
            self._index.setdefault(step, {})[seed] = entry.file
            self._envs.setdefault(step, set()).add(str(metadata.get("env_id")))
            if isinstance(metadata.get("checkpoint"), str):
                self._weights[step] = metadata["checkpoint"]
            if isinstance(metadata.get("observation_statistics"), str):
                self._statistics[step] = metadata["observation_statistics"]
            if metadata.get("evaluation_error"):
                self.failures[step, seed] = str(metadata["evaluation_error"])
        return sorted(self._index.keys() - before)

    @property
    def steps(self) -> list[int]:
        """The training steps of the checkpoints, in order."""
        return sorted(self._index)

    def seeds(self, step: int) -> list[int]:
        """The seeds evaluated at the checkpoint of ``step``."""
        return sorted(self._checkpoint(step))

    def returns(self) -> dict[int, dict[int, float]]:
        """``training_step -> {seed: return}`` of every evaluation, in order: the return
        over training, read from the run's summary (no episode file is opened)."""
        return {
            step: {seed: self._returns[file] for seed, file in sorted(self._index[step].items())}
            for step in self.steps
        }

    def env_ids(self) -> dict[str, list[int]]:
        """``env_id -> training steps`` of the episodes: one entry for a run of one env
        (a run name reused for another env's training holds several)."""
        found: dict[str, list[int]] = {}
        for step in self.steps:
            for env_id in sorted(self._envs[step]):
                found.setdefault(env_id, []).append(step)
        return found

    def recorded(self, step: int, seed: int) -> Rollout:
        """The episode of ``seed`` at the checkpoint of ``step`` as recorded: actions,
        observations and rewards, no frames rendered (cheap: for comparing actions)."""
        file = self._checkpoint(step).get(seed)
        if file is None:
            raise KeyError(f"no episode of seed {seed} at training step {step}")
        return self._rendered.get(file) or named(
            self.episodes[self._positions[file]], self._action_names
        )

    def weights_pending(self, step: int) -> bool:
        """Whether the checkpoint of ``step`` names a weights file not there (yet): the
        recorder writes it after the episodes, so a reader may come in between."""
        if step not in self._weights:
            return False
        try:
            path = self._run_file(step, self._weights[step], "weights")
        except WeightsFileError:
            return False  # refused: loading says why
        return not path.exists() and not failed_note(path).exists()

    def episode(self, step: int, seed: int) -> Rollout:
        """The episode of ``seed`` at the checkpoint of ``step``, its frames rendered by
        replay when first asked for (a failed evaluation's steps are not replayed); as
        recorded, without frames, when the replay fails (why in :attr:`unrendered`).
        Thread-safe: a thread asking for an episode another is rendering waits for it."""
        rollout = self.recorded(step, seed)
        file = self._index[step][seed]
        if (step, seed) in self.failures:
            return rollout
        with self._render_lock:  # one lock per episode: others render meanwhile
            lock = self._rendering.setdefault(file, threading.Lock())
        with lock:  # once, whichever thread asks first (a viewer renders ahead)
            if file not in self._rendered:
                try:
                    self._rendered[file] = render_frames(rollout, self._render_env)
                except Exception as error:  # the env's own code too: shown without frames
                    self.unrendered[step, seed] = (
                        f"shown without frames, as replaying it failed: "
                        f"{type(error).__name__}: {error}"
                    )
                    self._rendered[file] = rollout
            return self._rendered[file]

    def weights_file(self, step: int) -> Path:
        """The safetensors file of the checkpoint of ``step``."""
        self._checkpoint(step)
        if step not in self._weights:
            raise WeightsFileError(f"the checkpoint at training step {step} saved no weights")
        return self._run_file(step, self._weights[step], "weights")

    def load_weights(self, step: int, module: nn.Module) -> nn.Module:
        """The weights of the checkpoint of ``step`` loaded into ``module`` (see
        :func:`load_weights`); a missing file is a :class:`WeightsFileError` too."""
        path = self.weights_file(step)
        note = failed_note(path)
        if not path.exists() and note.is_file() and not note.is_symlink():  # never a link out
            with note.open(errors="replace") as file:
                why = file.read(1000)  # a line the recorder wrote; a stranger's, bounded
            raise WeightsFileError(f"the weights of training step {step} failed to save: {why}")
        if not path.exists():
            raise WeightsFileError(
                f"weights file {path} of training step {step} is missing (not written yet, "
                "or removed)"
            )
        return load_weights(path, module)

    def statistics(self, step: int) -> ObservationStatistics | None:
        """The observation statistics (``VecNormalize``'s) the checkpoint of ``step`` was
        evaluated with, read without pickle; None when it had none. A
        :class:`WeightsFileError` when their file is missing or is not one."""
        self._checkpoint(step)
        if step not in self._statistics:
            return None
        return read_statistics(self._run_file(step, self._statistics[step], "statistics"))

    def _run_file(self, step: int, name: str, what: str) -> Path:
        """The run's file ``name`` that an episode's metadata names for the checkpoint
        of ``step``; a :class:`WeightsFileError` when it lies outside the run's folder.

        The metadata is the file's say, and a file may come from anyone: an absolute
        path, ``..`` or a link out of the run would read a file of the machine (and an
        error could tell its size). Only a plain name inside the folder is opened; the
        refusal says nothing of what the name points at."""
        path = self.folder / name
        plain = name not in ("", ".", "..") and Path(name).name == name and "\\" not in name
        if not (plain and path.resolve().is_relative_to(self.folder.resolve())):
            raise WeightsFileError(
                f"the checkpoint at training step {step} names its {what} file {name!r}, "
                "not a file of the run's folder: refused (only files inside the run are read)"
            )
        return path

    def _checkpoint(self, step: int) -> dict[int, str]:
        if step not in self._index:
            raise KeyError(f"no checkpoint at training step {step}; the run has {self.steps}")
        return self._index[step]
