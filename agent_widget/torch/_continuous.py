"""A continuous actor's view of one step: per action dimension, the mean action, one
standard deviation either side (a Gaussian actor's), and the action taken; and its
series over an episode, from one batched run (the cheap way to put the actor's means
on the timeline: no cost while recording).

Shown in the env's action space: where the network's numbers are mapped before the
env gets them (SAC's tanh, SAC's and TD3's scaling to the bounds), the mean and
both ends of the whisker go through the same map, so a squashed whisker is
lopsided as the actions are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from agent_widget.panels import EpisodeData, Step
from agent_widget.torch._bars import ActionBars
from agent_widget.torch._model import AgentModel, observation


def continuous_bars(model: AgentModel, step: Step) -> ActionBars:
    """The bars of a ``Box`` policy at ``step`` (see the module docstring)."""
    to_space = getattr(model.module, "to_action_space", None) or (lambda x: x)
    stats: dict[str, float] = {}
    ranges = None
    with model.evaluating(), torch.no_grad():
        out = model.outputs(model.inputs([observation(step)]))
        mean = out.logits[0]
        values = to_space(mean).double().cpu().numpy()
        if out.log_std is not None:
            log_std = out.log_std[0]
            std = torch.exp(log_std)
            low, high = to_space(mean - std), to_space(mean + std)
            ranges = torch.stack([low, high], dim=1).double().cpu().numpy()
            # A diagonal Gaussian's entropy, in nats (before any squashing).
            stats["entropy"] = float((log_std + 0.5 * np.log(2 * np.pi * np.e)).sum())
    return ActionBars(
        values,
        [f"a[{i}]" for i in range(len(values))],
        greedy=False,
        scale=_bounds(model.space),
        stats=stats,
        ranges=ranges,
        marks=_taken(step, len(values)),
        source="the actor",
    )


def continuous_series(model: AgentModel, episode: EpisodeData, batch_size: int) -> dict[str, Any]:
    """``"mean"`` (T, k): the actor's action at each step, in the action space; and, for a
    Gaussian actor, ``"entropy"`` (T,) in nats."""
    to_space = getattr(model.module, "to_action_space", None) or (lambda x: x)
    means, entropies = [], []
    for out in model.episode_batches(episode, batch_size=batch_size):
        means.append(to_space(out.logits).double().cpu().numpy())
        if out.log_std is not None:
            entropy = out.log_std + 0.5 * np.log(2 * np.pi * np.e)
            entropies.append(entropy.sum(dim=1).double().cpu().numpy())
    steps = len(episode.actions)
    series: dict[str, Any] = {"mean": np.concatenate(means)[:steps]}
    if entropies:
        series["entropy"] = np.concatenate(entropies)[:steps]
    return series


def _taken(step: Step, size: int) -> np.ndarray | None:
    if step.action is None:
        return None
    action = np.asarray(step.action, dtype=np.float64).reshape(-1)
    if action.size != size:
        raise ValueError(
            f"step {step.t}: the action taken has {action.size} values; the model gives {size}"
        )
    return action


def _bounds(space: Mapping[str, Any] | None) -> tuple[float, float] | None:
    """One value axis for every dimension: the space's lowest and highest bound, if finite."""
    if space is None or not space.get("low") or not space.get("high"):
        return None
    bounds = [*space["low"], *space["high"]]
    if any(b is None for b in bounds):
        return None
    low, high = min(space["low"]), max(space["high"])
    return (float(low), float(high)) if low < high else None
