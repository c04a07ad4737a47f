"""Observations normalized as a model saw them in training (Stable-Baselines3's
``VecNormalize``), while the rollout keeps them raw.

A model trained under ``VecNormalize`` learned on ``(obs - mean) / sqrt(var + eps)``,
clipped; its ``predict`` does not normalize (the training env did), so a policy fed raw
observations acts, and its panels show, numbers the model never saw. Nothing here
imports SB3: a ``VecNormalize`` is known by its ``normalize_obs``, a model's own by its
``get_vec_normalize_env()``. :class:`ObservationStatistics` is that normalisation as
plain numbers, for files written without pickle (each checkpoint's, beside its weights).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

NORMALIZATION_KEY = "observation_normalization"
"""The metadata entry of a rollout whose policy saw normalized observations."""

Normalize = Callable[[Any], Any]
"""A batch (or one) of raw observations -> the observations the model was trained on."""

# Statistics of at most this many values are kept whole in a rollout's metadata.
SHOWN_VALUES = 1024


@dataclass(frozen=True)
class ObservationStatistics:
    """``VecNormalize``'s observation statistics as numbers: ``mean``, ``var`` (of the
    observation's shape), ``clip_obs`` and ``epsilon``; normalizes as it does."""

    mean: np.ndarray
    var: np.ndarray
    clip_obs: float
    epsilon: float

    @classmethod
    def of(cls, vec_normalize: Any) -> ObservationStatistics | None:
        """A ``VecNormalize``'s statistics as they are now (a copy); None when it does not
        normalize observations (``norm_obs=False``); ValueError for dict observations."""
        if isinstance(vec_normalize, ObservationStatistics):
            return vec_normalize
        if not getattr(vec_normalize, "norm_obs", False):
            return None
        rms = vec_normalize.obs_rms
        if isinstance(rms, dict):
            raise ValueError(
                "the VecNormalize normalizes dict observations, whose statistics cannot be "
                "kept as numbers yet (they are used, not saved)"
            )
        return cls(
            np.array(rms.mean, dtype=np.float64),
            np.array(rms.var, dtype=np.float64),
            float(vec_normalize.clip_obs),
            float(vec_normalize.epsilon),
        )

    def normalize_obs(self, obs: Any) -> np.ndarray:
        """``clip((obs - mean) / sqrt(var + epsilon))`` as float32, as ``VecNormalize`` does."""
        scaled = (np.asarray(obs) - self.mean) / np.sqrt(self.var + self.epsilon)
        return np.clip(scaled, -self.clip_obs, self.clip_obs).astype(np.float32)

    def describe(self) -> dict[str, Any]:
        """What a rollout's metadata says of them (the arrays when they are small)."""
        described: dict[str, Any] = {"clip_obs": self.clip_obs, "epsilon": self.epsilon}
        if self.mean.size <= SHOWN_VALUES:
            described |= {"mean": self.mean.tolist(), "var": self.var.tolist()}
        return described


@dataclass(frozen=True)
class Normalization:
    """How observations reach the policy: ``apply`` to them, ``source`` where it came from
    (``"model"`` or ``"normalize="``), ``name`` what it is, ``statistics`` when they are
    VecNormalize's."""

    apply: Normalize
    source: str
    name: str
    statistics: ObservationStatistics | None = None

    def describe(self) -> dict[str, Any]:
        """The metadata entry ``"observation_normalization"`` of a rollout recorded with it."""
        described: dict[str, Any] = {"kind": self.name, "source": self.source}
        if self.statistics is not None:
            described |= self.statistics.describe()
        return described


def normalization(model: Any, normalize: Any = None) -> Normalization | None:
    """The normalisation to feed ``model`` with: ``normalize`` when given (a
    ``VecNormalize``, an :class:`ObservationStatistics`, or a function of a batch of
    observations), none for ``normalize=False``, else the model's own
    ``get_vec_normalize_env()`` (SB3's), else none.

    Examples:
        >>> normalization(lambda obs: 0) is None
        True
        >>> stats = ObservationStatistics(np.zeros(2), np.full(2, 4.0), 10.0, 0.0)
        >>> normalization(None, stats).apply(np.array([2.0, -4.0])).tolist()
        [1.0, -2.0]
    """
    if normalize is False:
        return None
    if normalize is None:
        own = getattr(model, "get_vec_normalize_env", None)
        found = own() if callable(own) else None
        return None if found is None else _from_vec_normalize(found, "model")
    if callable(getattr(normalize, "normalize_obs", None)):
        return _from_vec_normalize(normalize, "normalize=")
    if callable(normalize):
        name = getattr(normalize, "__qualname__", type(normalize).__name__)
        return Normalization(normalize, "normalize=", f"function {name}")
    raise TypeError(
        "normalize must be a VecNormalize (VecNormalize.load(path, venv) of the model's "
        "vecnormalize.pkl), a function of a batch of observations, False for none, or None "
        f"for the model's own; got {type(normalize).__name__}"
    )


def noted(metadata: Mapping[str, Any] | None, found: Normalization | None) -> dict[str, Any]:
    """``metadata`` with :data:`NORMALIZATION_KEY` saying ``found`` (the user's own entry wins)."""
    return {**({} if found is None else {NORMALIZATION_KEY: found.describe()}), **(metadata or {})}


def normalized(policy: Callable[[Any], Any], found: Normalization | None) -> Callable[[Any], Any]:
    """``policy`` called on observations normalized by ``found`` (as it is, without)."""
    if found is None:
        return policy
    apply = found.apply
    return lambda obs: policy(apply(obs))


def _from_vec_normalize(vec_normalize: Any, source: str) -> Normalization | None:
    try:
        statistics = ObservationStatistics.of(vec_normalize)
    except ValueError:  # dict observations: used, not kept
        return Normalization(vec_normalize.normalize_obs, source, type(vec_normalize).__name__)
    if statistics is None:  # norm_obs=False: rewards only
        return None
    name = type(vec_normalize).__name__
    return Normalization(statistics.normalize_obs, source, name, statistics)
