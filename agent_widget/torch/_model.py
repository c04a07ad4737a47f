"""The network behind a torch panel, made callable on a step's numpy observations.

A panel's model is any ``nn.Module`` mapping a batch of observations to one output
per action (Q-values or policy logits), or to a pair ``(logits, value)`` (an
actor-critic). Stable-Baselines3 DQN/PPO/A2C models are accepted too and adapted
by :mod:`agent_widget.torch._sb3`, which is imported only when such a model comes in.

Every pass runs with the model in eval mode (dropout off, batch norm frozen) and
puts the modes back afterwards, so a model being trained in the next cell is left
as it was. Inputs go to the device of the model's parameters; outputs come back to
the CPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from agent_widget.panels import EpisodeData, Step

Preprocess = Callable[[Any], torch.Tensor]
"""Turns a batch of observations (stacked numpy, or a dict of them) into the model's input."""

BATCH_SIZE = 256


class Outputs(NamedTuple):
    """A batch's outputs: ``logits`` (B, A) per action, ``value`` (B,) or ``None``."""

    logits: torch.Tensor
    value: torch.Tensor | None


def default_preprocess(batch: Any) -> torch.Tensor:
    """float32 of the observations as they are (a network that wants pixels / 255 divides)."""
    if isinstance(batch, Mapping):
        raise ValueError("dict observations need a preprocess= function that builds the input")
    return torch.as_tensor(np.asarray(batch), dtype=torch.float32)


class AgentModel:
    """A network and the preprocessing that feeds it, run on numpy observations.

    Args:
        model: an ``nn.Module`` (see the module docstring) or an SB3 DQN/PPO/A2C model.
        preprocess: builds the input tensor from stacked observations; defaults to
            float32 of them (SB3 models: the policy's own conversion).
    """

    def __init__(self, model: Any, preprocess: Preprocess | None = None) -> None:
        if _is_sb3(model):
            from agent_widget.torch import _sb3 as sb3

            model, own = sb3.adapt(model)
            preprocess = preprocess or own
        if not isinstance(model, nn.Module):
            raise TypeError(
                f"expected a torch nn.Module or a Stable-Baselines3 model, "
                f"got {type(model).__name__}"
            )
        self.module = model
        self.preprocess = preprocess or default_preprocess

    @property
    def device(self) -> torch.device:
        parameter = next(self.module.parameters(), None)
        return torch.device("cpu") if parameter is None else parameter.device

    def inputs(self, observations: Sequence[Any]) -> torch.Tensor:
        """The model's float input for a list of observations, on the model's device."""
        tensor = self.preprocess(_stacked(observations))
        return tensor.to(self.device, torch.float32)

    def outputs(self, inputs: torch.Tensor) -> Outputs:
        """Run the model; the caller chooses the grad mode and holds :meth:`evaluating`."""
        result = self.module(inputs)
        if isinstance(result, torch.Tensor):
            logits, value = result, None
        elif isinstance(result, (tuple, list)) and len(result) == 2:
            logits, value = result
            value = value.reshape(len(logits))
        else:
            raise ValueError(
                f"the model returned {type(result).__name__}; return a (batch, actions) tensor "
                "or a pair (logits, value)"
            )
        if logits.ndim != 2:
            raise ValueError(
                f"the model returned outputs of shape {tuple(logits.shape)}; "
                "expected (batch, actions)"
            )
        return Outputs(logits, value)

    @contextlib.contextmanager
    def evaluating(self) -> Iterator[None]:
        """Eval mode for the duration, each submodule's own mode restored afterwards."""
        modes = [(module, module.training) for module in self.module.modules()]
        self.module.eval()
        try:
            yield
        finally:
            for module, training in modes:
                module.training = training

    def step_outputs(self, obs: Any) -> tuple[np.ndarray, float | None]:
        """One observation's per-action outputs (float64) and its value, if any."""
        with self.evaluating(), torch.no_grad():
            logits, value = self.outputs(self.inputs([obs]))
        numbers = logits[0].double().cpu().numpy()
        return numbers, None if value is None else float(value[0])

    def episode_outputs(
        self, episode: EpisodeData, start: int = 0, batch_size: int = BATCH_SIZE
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Outputs of positions ``start ..`` of an episode, in batches of ``batch_size``.

        Returns ``(logits, value)``: float64 arrays ``(n - start, A)`` and
        ``(n - start,)`` (``None`` without a value head).
        """
        count = positions(episode)
        logits, values = [], []
        with self.evaluating(), torch.no_grad():
            for first in range(start, count, batch_size):
                stop = min(first + batch_size, count)
                batch = [observation(Step(episode, t, ())) for t in range(first, stop)]
                out = self.outputs(self.inputs(batch))
                logits.append(out.logits.double().cpu().numpy())
                if out.value is not None:
                    values.append(out.value.double().cpu().numpy())
        if not logits:
            return np.zeros((0, 0)), None
        return np.concatenate(logits), np.concatenate(values) if values else None


def positions(episode: EpisodeData) -> int:
    """How many positions have an observation."""
    observations = episode.observations
    if observations is None:
        raise ValueError("the episode has no observations for the model to look at")
    if isinstance(observations, Mapping):
        return len(next(iter(observations.values())))
    return len(observations)


def observation(step: Step) -> Any:
    """The step's observation; ValueError naming the step when it has none."""
    obs = step.obs
    if obs is None:
        raise ValueError(f"step {step.t}: there is no observation for the model to look at")
    return obs


def _stacked(observations: Sequence[Any]) -> Any:
    first = observations[0]
    if isinstance(first, Mapping):
        return {key: np.stack([np.asarray(o[key]) for o in observations]) for key in first}
    return np.stack([np.asarray(o) for o in observations])


def _is_sb3(model: Any) -> bool:
    return any(cls.__module__.startswith("stable_baselines3.") for cls in type(model).__mro__)
