"""Lining up several episodes on one shared timeline, by step or by a key of each position.

By step, shared position ``p`` shows position ``p`` of every episode, and an episode
that has ended holds its last position. By a key (a number per position that never
decreases: env time, an ALE frame number), the shared positions are the keys of all
episodes in order, and each episode shows its last position whose key is at most
the shared one (its first position before that).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent_widget.episodes import Rollout

# A per-position key: a function of the rollout, or the name of an info entry.
Key = Callable[[Rollout], Any] | str


def by_key(rollouts: Sequence[Rollout], key: Key, labels: Sequence[str]) -> list[np.ndarray]:
    """For each rollout, its position at each shared position (int32, all the same length)."""
    keys = [_keys(rollout, key, label) for rollout, label in zip(rollouts, labels, strict=True)]
    shared = np.unique(np.concatenate(keys))
    return [
        np.maximum(np.searchsorted(k, shared, side="right") - 1, 0).astype(np.int32) for k in keys
    ]


@dataclass(frozen=True)
class Alignment:
    """Rollouts lined up: ``maps`` is empty by step, else per rollout its position at each
    shared position as little-endian int32 (the comparison's ``positions``); ``lengths``
    are the rollouts' numbers of positions."""

    maps: Sequence[bytes]
    lengths: Sequence[int]

    def position(self, i: int, shared: int) -> int:
        """Rollout ``i``'s position at shared position ``shared``."""
        if not self.maps:
            return min(shared, self.lengths[i] - 1)
        mine = np.frombuffer(self.maps[i], "<i4")
        return int(mine[min(shared, len(mine) - 1)])

    def ended(self, i: int, shared: int) -> bool:
        """Whether rollout ``i`` has ended by shared position ``shared``: it holds its last
        position, reached at an earlier shared position."""
        last = self.lengths[i] - 1
        if not self.maps:
            return shared > last
        mine = np.frombuffer(self.maps[i], "<i4")
        return bool(mine[shared] == last and shared > int(np.searchsorted(mine, last)))

    def counterpart(self, i: int, j: int, t: int) -> int:
        """Rollout ``i``'s position at the first shared position where rollout ``j`` is at ``t``."""
        if not self.maps:
            return self.position(i, t)
        mine = np.frombuffer(self.maps[j], "<i4")
        return self.position(i, min(int(np.searchsorted(mine, t)), len(mine) - 1))


def _keys(rollout: Rollout, key: Key, label: str) -> np.ndarray:
    """The rollout's key at each position, checked: one finite number each, never decreasing."""
    n = rollout.num_positions
    if isinstance(key, str):
        infos = rollout.infos or []
        missing = next((t for t in range(n) if key not in infos[t]), None)
        if missing is not None:
            raise ValueError(f"{label}: the info at position {missing} has no {key!r} to align by")
        values = np.asarray([infos[t][key] for t in range(n)])
    else:
        values = np.asarray(key(rollout))
    if values.shape != (n,) or values.dtype.kind not in "biuf":
        raise ValueError(
            f"{label}: the alignment key must give one number per position ({n}), "
            f"got {values.dtype} {values.shape}"
        )
    values = values.astype(np.float64)
    if not np.isfinite(values).all():
        raise ValueError(
            f"{label}: alignment key at position {_first(~np.isfinite(values))} is not finite"
        )
    if n > 1 and (np.diff(values) < 0).any():
        raise ValueError(
            f"{label}: the alignment key decreases at position {_first(np.diff(values) < 0) + 1}; "
            "it must never decrease (e.g. time or a frame number)"
        )
    return values


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])
