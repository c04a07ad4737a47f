"""Whole-episode series for the timeline, from outputs computed in batches.

Each series has one value per action (length ``T``, the convention of a rollout's
``extras``), so ``rollout.extras.update(series)`` puts them on the timeline via
``EpisodeViewer(rollout, extras=[...])``. The panels' ``series()`` methods run the
model over the episode once, in batches, and hand the outputs to these functions.
"""

from __future__ import annotations

import numpy as np

from agent_widget.panels import EpisodeData


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities along the last axis, stable for large logits."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def entropy(logits: np.ndarray) -> np.ndarray:
    """Entropy in nats of the categorical distribution of each row of logits."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_z = np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    log_p = shifted - log_z
    return -(np.exp(log_p) * log_p).sum(axis=-1)


def taken_actions(episode: EpisodeData) -> np.ndarray:
    """The episode's actions as indices; ValueError unless they are discrete."""
    actions = np.asarray(episode.actions)
    if actions.ndim != 1 or actions.dtype.kind not in "biu":
        raise ValueError(
            f"per-action series need discrete actions; the episode's actions are "
            f"{actions.dtype} of shape {actions.shape}"
        )
    return actions.astype(np.int64)


def per_action(outputs: np.ndarray, steps: int) -> np.ndarray:
    """The rows of per-position outputs that have an action (the first ``steps``)."""
    if len(outputs) < steps:
        raise ValueError(f"the episode has {steps} actions but only {len(outputs)} observations")
    return outputs[:steps]


def td_errors(
    episode: EpisodeData, estimates: np.ndarray, bootstrap: np.ndarray, gamma: float
) -> np.ndarray:
    """``r_t + gamma * bootstrap[t + 1] - estimates[t]`` for each action ``t``.

    ``bootstrap`` holds a value per position (e.g. ``max_a Q(s, a)`` or ``V(s)``); an
    action that terminated the episode bootstraps from 0, and one whose next
    position has no observation (data with one observation per action) gets NaN.
    Truncation still bootstraps: the state after it had a future.
    """
    steps = len(estimates)
    following = np.full(steps, np.nan)
    available = min(steps, len(bootstrap) - 1)
    following[:available] = bootstrap[1 : available + 1]
    terminated = np.asarray(episode.terminated, dtype=bool)[:steps]
    following = np.where(terminated, 0.0, following)
    rewards = np.asarray(episode.rewards, dtype=np.float64)[:steps]
    return rewards + gamma * following - estimates
