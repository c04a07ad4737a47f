"""``Saliency``: which parts of a step's observation the model's output depends on.

Gradient, integrated gradients and SmoothGrad are Captum's (``Saliency``,
``IntegratedGradients``, ``NoiseTunnel``); perturbation is Greydanus et al. 2018
(:mod:`agent_widget.torch._perturbation`). Image observations give a 2-D map of
magnitudes (stacked frames summed, or one of them), placed on the rendered frame
where the observation is a picture of it (a cropped observation on its box of the
frame: :mod:`agent_widget.torch._spatial`, :mod:`agent_widget.torch._same_picture`),
else left on the observation's own grid (MiniGrid's egocentric 7x7 view); vector
observations give one signed attribution per feature (a bar chart). Each result's
caption says the method, the output explained and where the map lies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from captum.attr import IntegratedGradients, NoiseTunnel
from captum.attr import Saliency as Gradient

from agent_widget.panels import EpisodeData, Step
from agent_widget.torch._attribution import FeatureSaliency, SaliencyMap
from agent_widget.torch._bars import action_labels, taken_action
from agent_widget.torch._model import AgentModel, Outputs, Preprocess, observation
from agent_widget.torch._perturbation import perturbation_scores
from agent_widget.torch._roles import explained, role_of
from agent_widget.torch._same_picture import FramePictures
from agent_widget.torch._spatial import (
    Crop,
    ToFrame,
    channel_axis,
    on_frame,
    resized,
    spatial_map,
)

METHODS = ("gradient", "integrated_gradients", "smoothgrad", "perturbation")
_METHOD_NAMES = {"integrated_gradients": "integrated gradients", "smoothgrad": "SmoothGrad"}
TARGETS = ("taken", "argmax", "value", "logits", "sum")
# What each target explains for continuous actions (a Box): an action dimension or their sum.
BOX_TARGETS = ("sum",)
SMOOTHGRAD_NOISE = 0.15  # noise sd as a share of the input's range (the paper's 10-20%)
_CAPTUM_DEFAULTS: dict[str, dict[str, Any]] = {
    "gradient": {"abs": False},  # signed: vector features keep their direction
    "integrated_gradients": {"n_steps": 32, "internal_batch_size": 32},
    "smoothgrad": {"nt_type": "smoothgrad", "nt_samples": 16, "abs": False},
}


class Saliency:
    """Panel: a saliency map of the step's observation for a chosen output of the model.

    Args:
        model: an ``nn.Module`` mapping observations (batch first) to one output per
            action (Q-values or logits) or to ``(logits, value)``; or a
            Stable-Baselines3 DQN, PPO or A2C model.
        method: ``"gradient"``, ``"integrated_gradients"``, ``"smoothgrad"`` or
            ``"perturbation"``.
        target: the output explained. Discrete actions: ``"argmax"`` (the preferred
            action, the default), ``"taken"`` (the action taken; ``None`` at the last
            position, which has none), an action index, ``"value"`` (the value head;
            for a model with outputs per action only, ``max_a Q``), or, for
            perturbation only, ``"logits"`` (all outputs at once, the paper's actor
            saliency). Continuous actions (a ``Box``): an action dimension ``k``
            (the actor's mean for it, before any squashing) or ``"sum"`` (all of
            them, the default).
        action_space: the env's action space, for an episode that does not keep it in
            its metadata (recorded episodes do; an SB3 model knows its own).
        preprocess: builds the model's input from a batch of observations; defaults to
            their float32 values (an SB3 model: its own conversion).
        channel_axis: 0 for CxHxW inputs, -1 for HxWxC; guessed when ``None``.
        stacked: for stacked frames (the channel axis), the stacked frame whose map is
            shown (``-1``: the newest); ``None`` sums them all into one map. One panel
            per stacked frame shows each its own map.
        crop: the rows and columns of the rendered frame the observation shows, e.g.
            ``(slice(34, 194), slice(None))`` for Pong cropped to its playing field:
            the map is stretched over that box only. ``None`` stretches it over the
            whole frame (right for Atari preprocessing, which shrinks the whole screen).
        to_frame: any other mapping, ``to_frame(map, (height, width)) -> map``.
        over_frame: whether the map goes over the frame. ``None`` (the default):
            where the observation is a picture of the frame (of its ``crop``), checked
            once an episode by comparing them (:mod:`agent_widget.torch._same_picture`),
            or ``to_frame`` is given; otherwise the map stays on the observation's own
            grid and its card is drawn beside the frame, not over it. ``True`` or
            ``False`` decides without the check.
        feature_names: labels of a vector observation's features.
        normalize: what observations go through first, for a model trained under
            SB3's ``VecNormalize`` (by default the model's own; see :class:`Policy`);
            the map is of the normalized observation the network sees.
        **options: passed on to Captum's ``attribute`` (e.g. ``n_steps=50`` for
            integrated gradients, ``nt_samples``/``stdevs`` for SmoothGrad) or, for
            perturbation, to :func:`~agent_widget.torch._perturbation.perturbation_scores`
            (``stride``, ``mask_sigma``, ``blur_sigma``, ``batch_size``).

    Examples:
        >>> saliency = Saliency(q_net, method="perturbation")  # doctest: +SKIP
        >>> viewer.add_panel("saliency", saliency, overlay=True)  # doctest: +SKIP
        >>> saliency(step).shape == step.frame.shape[:2]  # doctest: +SKIP
        True
    """

    def __init__(
        self,
        model: Any,
        method: str = "gradient",
        target: str | int | None = None,
        *,
        preprocess: Preprocess | None = None,
        action_space: gym.Space[Any] | None = None,
        channel_axis: int | None = None,
        stacked: int | None = None,
        crop: Crop | None = None,
        to_frame: ToFrame | None = None,
        over_frame: bool | None = None,
        feature_names: Sequence[str] | None = None,
        normalize: Any = None,
        **options: Any,
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown saliency method {method!r} (known: {', '.join(METHODS)})")
        if isinstance(target, bool) or not (
            target is None or isinstance(target, int) or target in TARGETS
        ):
            raise ValueError(
                f"target must be an action index or one of {', '.join(TARGETS)}; got {target!r}"
            )
        if target == "logits" and method != "perturbation":
            raise ValueError('target="logits" is for method="perturbation" only')
        if stacked is not None and method == "perturbation":
            raise ValueError("stacked= picks a frame's map of a gradient method; perturbation "
                             "blurs all stacked frames at once")  # fmt: skip
        if crop is not None and to_frame is not None:
            raise ValueError("give crop (a box of the frame) or to_frame (a function), not both")
        self.model = AgentModel(model, preprocess, action_space, normalize)
        self.role = role_of(model)
        self.method = method
        self.target = target
        self.channel_axis = channel_axis
        self.stacked = stacked
        self.crop = crop
        self.to_frame = to_frame
        self.over_frame = over_frame
        self._pictures = FramePictures(crop)
        self.feature_names = None if feature_names is None else list(feature_names)
        self.options = options

    def __call__(self, step: Step) -> SaliencyMap | FeatureSaliency | None:
        self.model.resolve(step.rollout)
        inputs = self.model.inputs([observation(step)])
        with self.model.evaluating():
            with torch.no_grad():
                outputs = self.model.outputs(inputs)
            target = self._resolved(step, outputs)
            if target is None:
                return None
            method = _METHOD_NAMES.get(self.method, self.method)
            what = f"{method} of {self._what(step, outputs, target)}"
            if self.method == "perturbation":  # a coarse grid, stretched once to where it lies
                values, size = self._perturbation(inputs[0], target)
                return self._placed(step, values, what, size)
            attribution = self._captum(inputs, target)[0].detach().double().cpu().numpy()
        if attribution.ndim == 1:
            return FeatureSaliency(self._features(attribution), f"{what}, per feature")
        axis = channel_axis(attribution.shape, self.channel_axis)
        values = spatial_map(attribution, axis, self.stacked)
        return self._placed(step, values, what, values.shape)

    def _placed(
        self, step: Step, values: np.ndarray, what: str, grid: tuple[int, int]
    ) -> SaliencyMap:
        """The map over the frame where it belongs there, else on the observation's
        ``grid`` (its height and width)."""
        frame = _frame_size(step)
        if frame is None or not self._belongs_over_frame(step.rollout):
            why = "" if frame is None else ": it is no picture of the frame"
            caption = f"{what}, on the observation's {grid[0]}x{grid[1]} grid{why}"
            return SaliencyMap(resized(values, grid), caption, over_frame=False)
        where = "over the frame" if self.crop is None else "over its box of the frame"
        placed = on_frame(values, frame, self.crop, self.to_frame)
        return SaliencyMap(placed, f"{what}, {where}", over_frame=True)

    def _belongs_over_frame(self, episode: EpisodeData) -> bool:
        if self.over_frame is not None:
            return self.over_frame
        return self.to_frame is not None or self._pictures(episode)

    def _what(self, step: Step, outputs: Outputs, target: int | str) -> str:
        """The output explained, in words (whose: the Q-network's, the actor's, the critic's)."""
        count = outputs.logits.shape[1]
        role = self.role or ("actor" if outputs.value is not None else None)
        labels = action_labels(count, step.action_names)
        box = self.model.box is not None
        return explained(role, target, labels, box, critic=outputs.value is not None)

    def _resolved(self, step: Step, outputs: Outputs) -> int | str | None:
        count = outputs.logits.shape[1]
        if self.model.box is not None:
            return self._dimension(step, count)
        if self.target == "sum":
            raise ValueError('target="sum" is for continuous actions; these are discrete')
        if self.target == "taken":
            return taken_action(step, count)
        if self.target in ("argmax", None):
            return int(outputs.logits[0].argmax())
        if isinstance(self.target, int) and not 0 <= self.target < count:
            raise ValueError(f"step {step.t}: target {self.target} is not one of {count} actions")
        return self.target

    def _dimension(self, step: Step, count: int) -> int | str:
        """A continuous actor's explained output: an action dimension, or "sum"."""
        target = "sum" if self.target is None else self.target
        if isinstance(target, int) and not 0 <= target < count:
            raise ValueError(f"step {step.t}: target {target} is not one of {count} dimensions")
        if not isinstance(target, int) and target not in BOX_TARGETS:
            raise ValueError(
                f"target={target!r} reads discrete actions; these are continuous (a Box of "
                f"{count} dimensions): pass target=k for dimension k, or target='sum'"
            )
        return target

    def _explained(self, target: int | str) -> Callable[[torch.Tensor], torch.Tensor]:
        """The model as Captum sees it: per-action outputs, the value or their sum alone."""
        if target == "value":
            return lambda x: _value(self.model.outputs(x))
        if target == "sum":
            return lambda x: self.model.outputs(x).logits.sum(dim=1)
        return lambda x: self.model.outputs(x).logits

    def _captum(self, inputs: torch.Tensor, target: int | str) -> torch.Tensor:
        forward = self._explained(target)
        options = {**_CAPTUM_DEFAULTS[self.method], **self.options}
        captum_target = None if target in ("value", "sum") else target
        with torch.enable_grad():
            inputs = inputs.detach().requires_grad_()  # our own copy: the caller's stays as is
            if self.method == "gradient":
                return Gradient(forward).attribute(inputs, target=captum_target, **options)
            if self.method == "integrated_gradients":
                method = IntegratedGradients(forward)
                return method.attribute(inputs, target=captum_target, **options)
            span = float(inputs.detach().max() - inputs.detach().min()) or 1.0
            options.setdefault("stdevs", SMOOTHGRAD_NOISE * span)
            tunnel = NoiseTunnel(Gradient(forward))
            return tunnel.attribute(inputs, target=captum_target, **options)

    def _perturbation(
        self, image: torch.Tensor, target: int | str
    ) -> tuple[np.ndarray, tuple[int, int]]:
        """Greydanus saliency grid of one input, and the input's (height, width)."""
        if image.ndim == 1:
            raise ValueError(
                f"perturbation saliency needs an image observation, not a vector of "
                f"{len(image)} features; use method='gradient'"
            )
        axis = channel_axis(tuple(image.shape), self.channel_axis)
        if axis is None:
            chw, restore = image[None], lambda batch: batch[:, 0]
        elif axis == 2:
            chw, restore = image.permute(2, 0, 1), lambda batch: batch.permute(0, 2, 3, 1)
        else:
            chw, restore = image, lambda batch: batch

        def score(batch: torch.Tensor) -> torch.Tensor:
            outputs = self.model.outputs(restore(batch))
            if isinstance(target, int):
                return outputs.logits[:, target : target + 1]
            if target == "sum":
                return outputs.logits.sum(dim=1, keepdim=True)
            return outputs.logits if target == "logits" else _value(outputs)[:, None]

        height, width = chw.shape[1:]
        return perturbation_scores(score, chw, **self.options), (height, width)

    def _features(self, attribution: np.ndarray) -> dict[str, float]:
        names = self.feature_names or [f"obs[{i}]" for i in range(len(attribution))]
        if len(names) != len(attribution):
            raise ValueError(
                f"{len(names)} feature names for an observation of {len(attribution)} features"
            )
        return dict(zip(names, attribution.tolist(), strict=True))


def _frame_size(step: Step) -> tuple[int, int] | None:
    frame = step.frame
    return None if frame is None else (int(frame.shape[0]), int(frame.shape[1]))


def _value(outputs: Outputs) -> torch.Tensor:
    """The value head, or ``max_a Q`` for a model with outputs per action only."""
    return outputs.logits.max(dim=1).values if outputs.value is None else outputs.value
