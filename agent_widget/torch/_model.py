"""The network behind a torch panel, made callable on a step's numpy observations.

A panel's model is any ``nn.Module`` mapping a batch of observations to one output
per action (Q-values or policy logits), or to a pair ``(logits, value)`` (an
actor-critic). For a ``Box`` action space the outputs are actions instead: the
means of a Gaussian actor's pair ``(mean, log_std)``, or a deterministic actor's
actions. Which it is comes from the action space (given to the panel, an SB3
model's own, or the one the episode's metadata keeps), never guessed from shapes: a
log-std read as a value would be wrong without a warning. Stable-Baselines3
DQN/PPO/A2C/SAC/TD3 models are accepted too and adapted by
:mod:`agent_widget.torch._sb3`, which is imported only when such a model comes in.

Every pass runs with the model in eval mode (dropout off, batch norm frozen) and
puts the modes back afterwards, so a model being trained in the next cell is left
as it was. Inputs go to the device of the model's parameters; outputs come back to
the CPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from agent_widget.episodes import box_shape, describe_space
from agent_widget.panels import EpisodeData, Step
from agent_widget.recording import NORMALIZATION_KEY, normalization

Preprocess = Callable[[Any], torch.Tensor]
"""Turns a batch of observations (stacked numpy, or a dict of them) into the model's input."""

BATCH_SIZE = 256


class Outputs(NamedTuple):
    """A batch's outputs: ``logits`` (B, A) per action, ``value`` (B,) or ``None``.

    For a ``Box`` action space, ``logits`` are the actions' means (B, k) and
    ``log_std`` (B, k) a Gaussian actor's spread (``None`` for a deterministic actor).
    """

    logits: torch.Tensor
    value: torch.Tensor | None
    log_std: torch.Tensor | None = None


def default_preprocess(batch: Any) -> torch.Tensor:
    """float32 of the observations as they are (a network that wants pixels / 255 divides)."""
    if isinstance(batch, Mapping):
        raise ValueError("dict observations need a preprocess= function that builds the input")
    return torch.as_tensor(np.asarray(batch), dtype=torch.float32)


class AgentModel:
    """A network and the preprocessing that feeds it, run on numpy observations.

    Args:
        model: an ``nn.Module`` (see the module docstring) or an SB3
            DQN/PPO/A2C/SAC/TD3 model.
        preprocess: builds the input tensor from stacked observations; defaults to
            float32 of them (SB3 models: the policy's own conversion).
        action_space: the env's action space; by default an SB3 model's own, else
            the one the episode's metadata keeps (see :meth:`resolve`).
        normalize: what observations go through before ``preprocess``: by default an
            SB3 model's own ``VecNormalize`` (``get_vec_normalize_env()``), else none;
            a ``VecNormalize`` saved apart, a function of a batch, or False for none
            (see :func:`agent_widget.recording.record`).
    """

    def __init__(
        self,
        model: Any,
        preprocess: Preprocess | None = None,
        action_space: gym.Space[Any] | None = None,
        normalize: Any = None,
    ) -> None:
        self.space = None if action_space is None else describe_space(action_space)
        self.normalization = normalization(model, normalize)
        """The observations' normalisation the model is fed with (None: raw)."""
        self._raw_asked = normalize is False
        if _is_sb3(model):
            from agent_widget.torch import _sb3 as sb3

            model, own, own_space = sb3.adapt(model)
            preprocess = preprocess or own
            self.space = self.space or describe_space(own_space)
        if not isinstance(model, nn.Module):
            raise TypeError(
                f"expected a torch nn.Module or a Stable-Baselines3 model, "
                f"got {type(model).__name__}"
            )
        self.module = model
        self.preprocess = preprocess or default_preprocess

    def resolve(self, episode: EpisodeData) -> None:
        """Takes the action space from an episode, unless already known: the one its
        metadata keeps, else what its actions are (whole numbers: discrete; vectors of
        floats: a ``Box`` of their shape), else it stays unknown. Checks the episode's
        normalisation too (:meth:`check_normalization`)."""
        self.check_normalization(episode)
        if self.space is not None:
            return
        kept = episode.metadata.get("action_space")
        self.space = dict(kept) if isinstance(kept, Mapping) else _space_of(episode.actions)

    def check_normalization(self, episode: EpisodeData) -> None:
        """ValueError when the episode's policy saw normalized observations (its metadata
        says so) and this model would be fed raw ones, numbers it was not trained on;
        unless raw ones were asked for (``normalize=False``)."""
        said = episode.metadata.get(NORMALIZATION_KEY)
        if said and self.normalization is None and not self._raw_asked:
            kind = said.get("kind") if isinstance(said, Mapping) else said
            raise ValueError(
                f"the episode's policy saw normalized observations ({kind}; its "
                f"metadata[{NORMALIZATION_KEY!r}]) and this panel's model has no "
                "normalisation: pass normalize= the VecNormalize it was trained with "
                '(VecNormalize.load("vecnormalize.pkl", venv)), or normalize=False to '
                "show its outputs on raw observations anyway"
            )

    def require_discrete(self, episode: EpisodeData, what: str) -> None:
        """ValueError saying ``what`` reads discrete actions, when the actions are continuous."""
        self.resolve(episode)
        if self.box is not None:
            raise ValueError(
                f"{what} reads outputs per discrete action; these actions are continuous "
                f"(a Box of shape {self.box}): use Policy for the actor's actions"
            )

    @property
    def box(self) -> tuple[int, ...] | None:
        """The action shape if the actions are continuous (a ``Box``), else None."""
        return None if self.space is None else box_shape({"action_space": self.space})

    @property
    def device(self) -> torch.device:
        parameter = next(self.module.parameters(), None)
        return torch.device("cpu") if parameter is None else parameter.device

    def inputs(self, observations: Sequence[Any]) -> torch.Tensor:
        """The model's float input for a list of observations (normalized first, if the
        model was trained on normalized ones), on the model's device."""
        batch = _stacked(observations)
        if self.normalization is not None:
            batch = self.normalization.apply(batch)
        tensor = self.preprocess(batch)
        return tensor.to(self.device, torch.float32)

    def outputs(self, inputs: torch.Tensor) -> Outputs:
        """Run the model; the caller chooses the grad mode and holds :meth:`evaluating`."""
        result = self.module(inputs)
        pair = isinstance(result, (tuple, list)) and len(result) == 2
        if self.box is not None and (pair or isinstance(result, torch.Tensor)):
            return _actions(result, self.box)
        if isinstance(result, torch.Tensor):
            logits, value = result, None
        elif pair and self.space is None:
            raise ValueError(
                "the model returned a pair of outputs: (logits, value) for discrete actions, "
                "but (mean, log_std) for continuous ones, and this episode does not say its "
                "action space (recorded before it was kept, or made with from_arrays): pass "
                "action_space=env.action_space to the panel"
            )
        elif pair:
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
            logits, value, _ = self.outputs(self.inputs([obs]))
        numbers = logits[0].double().cpu().numpy()
        return numbers, None if value is None else float(value[0])

    def episode_outputs(
        self, episode: EpisodeData, start: int = 0, batch_size: int = BATCH_SIZE
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Outputs of positions ``start ..`` of an episode, in batches of ``batch_size``.

        Returns ``(logits, value)``: float64 arrays ``(n - start, A)`` and
        ``(n - start,)`` (``None`` without a value head).
        """
        batches = list(self.episode_batches(episode, start, batch_size))
        if not batches:
            return np.zeros((0, 0)), None
        logits = np.concatenate([_numbers(out.logits) for out in batches])
        values = [_numbers(out.value) for out in batches if out.value is not None]
        return logits, np.concatenate(values) if values else None

    def episode_batches(
        self, episode: EpisodeData, start: int = 0, batch_size: int = BATCH_SIZE
    ) -> Iterator[Outputs]:
        """The outputs of positions ``start ..`` of an episode, a batch at a time, run
        without gradients in eval mode."""
        count = positions(episode)
        with self.evaluating(), torch.no_grad():
            for first in range(start, count, batch_size):
                stop = min(first + batch_size, count)
                batch = [observation(Step(episode, t, ())) for t in range(first, stop)]
                yield self.outputs(self.inputs(batch))


def _numbers(tensor: torch.Tensor) -> np.ndarray:
    return tensor.double().cpu().numpy()


def _space_of(actions: Any) -> dict[str, Any] | None:
    """The kind of action space an episode's actions show, where they show one."""
    array = np.asarray(actions)
    if array.size == 0:
        return None
    if array.ndim == 1 and array.dtype.kind in "iu":
        return {"type": "Discrete"}
    if array.ndim >= 2 and array.dtype.kind == "f":
        return {"type": "Box", "shape": list(array.shape[1:])}
    return None


def _actions(result: Any, shape: tuple[int, ...]) -> Outputs:
    """A continuous actor's outputs: actions (B, k), or a Gaussian's (mean, log_std)."""
    mean, log_std = (result, None) if isinstance(result, torch.Tensor) else result
    size = int(np.prod(shape))
    if mean.ndim < 1 or mean[0].numel() != size:
        raise ValueError(
            f"the model returned outputs of shape {tuple(mean.shape)}; for actions of shape "
            f"{shape} expected (batch, {size}) actions or a pair (mean, log_std) of them"
        )
    mean = mean.reshape(len(mean), size)
    if log_std is not None:
        log_std = (
            torch.as_tensor(log_std).expand(len(mean), size) if log_std.numel() == size else log_std
        )
        if log_std.numel() != mean.numel():
            raise ValueError(
                f"the model's log_std has shape {tuple(log_std.shape)}; expected {size} "
                "values (one per action dimension), or one per dimension for each observation"
            )
        log_std = log_std.reshape(mean.shape)
    return Outputs(mean, None, log_std)


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


def is_q_network(model: Any) -> bool:
    """Whether ``model`` is an SB3 DQN (Q-values, no policy); imports SB3 only for its models."""
    if not _is_sb3(model):
        return False
    from agent_widget.torch import _sb3 as sb3

    return sb3.is_q_network(model)


def has_critics(model: Any) -> bool:
    """Whether ``model`` is an SB3 continuous actor-critic with Q critics (SAC, TD3, DDPG)."""
    if not _is_sb3(model):
        return False
    from agent_widget.torch import _sb3 as sb3

    return sb3.has_critics(model)


def _is_sb3(model: Any) -> bool:
    return any(cls.__module__.startswith("stable_baselines3.") for cls in type(model).__mro__)
