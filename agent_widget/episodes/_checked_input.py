"""What goes into a ``Rollout`` from outside, checked and normalized.

``Rollout.from_arrays`` takes a user's arrays, the recording layer an env's infos
(through :func:`json_dicts`): per-step arrays must be numeric (lazy ones, stored, h5py
or zarr, stay lazy), rewards and flags become vectors of one dtype, and infos and
metadata keep only what JSON holds, the rest dropped with one warning naming it (never
pickled). Kept apart from the ``Rollout`` module, which holds the episode and only
checks that its lengths agree.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def numeric_array(value: Any, name: str, kinds: str = "biufc") -> Any:
    """``value`` as a numeric/bool numpy array (or of ``kinds``); lazy arrays (stored, h5py,
    zarr) stay lazy."""
    lazy = not isinstance(value, np.ndarray) and all(
        hasattr(value, a) for a in ("shape", "dtype", "__len__", "__getitem__")
    )
    array = value if lazy else np.asarray(value)
    if array.dtype.kind not in kinds or array.ndim == 0:
        raise ValueError(
            f"{name}: expected a per-step numeric array, got dtype {array.dtype} "
            f"with shape {array.shape}"
        )
    return array


def step_vector(value: Any, steps: int, dtype: type, name: str) -> np.ndarray:
    """A per-step vector (rewards or a flag) as ``dtype``; missing means zeros (False)."""
    if value is None:
        return np.zeros(steps, dtype)
    array = np.asarray(value)
    if array.ndim != 1 or array.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected a 1-D numeric array, got {array.dtype} {array.shape}")
    return array.astype(dtype)  # a NaN or inf reward is kept: the viewer marks its step


def checked_json_dicts(mappings: Sequence[Mapping[str, Any]], where: str) -> list[dict[str, Any]]:
    """The JSON-able part of each mapping; the rest is dropped with a single warning,
    which points at whoever called ``Rollout.from_arrays``."""
    dropped: dict[str, int] = {}
    results = json_dicts(mappings, dropped)
    warn_dropped(dropped, where, stacklevel=4)
    return results


def json_dicts(
    mappings: Sequence[Mapping[str, Any]], dropped: dict[str, int], first: int = 0
) -> list[dict[str, Any]]:
    """The JSON-able part of each mapping (of positions ``first ..``); the keys of what
    is dropped go into ``dropped``, with the first position where each was."""
    results = []
    for t, mapping in enumerate(mappings, first):
        result = {}
        for key, value in mapping.items():
            if type(value) in _AS_THEY_ARE and type(key) is str:  # ALE's infos: ints
                result[key] = value
                continue
            try:  # a mapping whose items(), or a key whose str(), raises: dropped
                key = str(key)
                converted = _jsonable(value)
            except Exception:
                key, converted = key if isinstance(key, str) else type(key).__name__, _DROP
            if converted is _DROP:
                dropped.setdefault(key, t)
            else:
                result[key] = converted
        results.append(result)
    return results


def warn_dropped(dropped: dict[str, int], where: str, stacklevel: int) -> None:
    """One warning naming what :func:`json_dicts` dropped, if anything."""
    if dropped:
        keys = ", ".join(f"{key!r} (first at step {t})" for key, t in dropped.items())
        warnings.warn(
            f"{where}: dropped values that are not JSON-able (or nest over {MAX_INFO_DEPTH} "
            f"deep): {keys}",
            stacklevel=stacklevel,
        )


_DROP = object()
MAX_INFO_DEPTH = 64
"""How deep an info's values may nest; deeper ones are dropped, as values JSON cannot hold."""
_AS_THEY_ARE = frozenset({int, str, bool, type(None)})  # JSON's own: nothing to convert


def _jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` converted to plain JSON types (numpy scalars and arrays included), or
    _DROP; so is anything nested deeper than :data:`MAX_INFO_DEPTH` (or holding itself),
    which would otherwise end a recording in a ``RecursionError`` at its last step."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in "biuf" or value.ndim > MAX_INFO_DEPTH - depth:
            return _DROP
        value = value.tolist()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _DROP
    if depth >= MAX_INFO_DEPTH:
        return _DROP
    if isinstance(value, (list, tuple)):
        items = [_jsonable(v, depth + 1) for v in value]
        return _DROP if any(v is _DROP for v in items) else items
    if isinstance(value, Mapping):
        entries = {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
        return _DROP if any(v is _DROP for v in entries.values()) else entries
    return _DROP
