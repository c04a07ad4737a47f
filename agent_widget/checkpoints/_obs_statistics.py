"""A checkpoint's observation statistics (``VecNormalize``'s), in a safetensors file
beside its weights, written and read without pickle.

A model trained under ``VecNormalize`` is only right with the statistics of its own
moment in training: they move as it trains, and the final ones give an early
checkpoint's network numbers it never saw. SB3 saves them as a pickle
(``vecnormalize.pkl``), which loading would run; here they are four tensors (``mean``,
``var``, ``clip_obs``, ``epsilon``, float64) through the weights' own safetensors
writer and reader, so a file that is not one is a :class:`WeightsFileError` too.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from agent_widget.checkpoints._weights import WeightsFileError, read_weights, save_weights
from agent_widget.recording import ObservationStatistics

_KEYS = ("mean", "var", "clip_obs", "epsilon")


def statistics_file(step: int) -> str:
    """The observation statistics file of the checkpoint at training step ``step``."""
    return f"checkpoint-{step:010d}.obs-statistics.safetensors"


def save_statistics(statistics: ObservationStatistics, path: str | os.PathLike[str]) -> Path:
    """Write ``statistics`` to ``path`` as safetensors, atomically."""
    numbers = (statistics.mean, statistics.var, [statistics.clip_obs], [statistics.epsilon])
    tensors = [torch.as_tensor(np.asarray(value, np.float64)) for value in numbers]
    return save_weights(dict(zip(_KEYS, tensors, strict=True)), path)


def read_statistics(path: str | os.PathLike[str]) -> ObservationStatistics:
    """The statistics in ``path``; a :class:`WeightsFileError` naming the file when it is
    no safetensors file (never unpickled) or does not hold them."""
    tensors = read_weights(path)
    if sorted(tensors) != sorted(_KEYS) or tensors["mean"].shape != tensors["var"].shape:
        shapes = {key: tuple(tensors[key].shape) for key in sorted(tensors)}
        raise WeightsFileError(
            f"observation statistics file {path} holds {shapes}; expected mean and var of "
            "one shape, clip_obs and epsilon (written by CheckpointRecorder)"
        )
    mean, var, clip_obs, epsilon = (tensors[key].double().numpy() for key in _KEYS)
    return ObservationStatistics(mean, var, float(clip_obs[0]), float(epsilon[0]))
