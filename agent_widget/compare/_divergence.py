"""Where episodes of the same env and seed stop agreeing: the first differing action."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent_widget.episodes import Rollout


def first_divergence(a: Rollout, b: Rollout) -> int | None:
    """The first step at which ``a`` and ``b`` take different actions, or None if none does.

    Meant for rollouts of the same env and seed: up to that step they saw the same
    states, so it is where the agents' behaviour parts. When one episode's actions
    are a strict prefix of the other's, they part where the shorter one ends (its
    ``num_steps``). Actions are compared exactly, element by element.

    Examples:
        >>> a = Rollout.from_arrays(actions=[0, 1, 1, 0])
        >>> b = Rollout.from_arrays(actions=[0, 1, 2, 0])
        >>> first_divergence(a, b)
        2
    """
    actions_a, actions_b = np.asarray(a.actions), np.asarray(b.actions)
    if actions_a.shape[1:] != actions_b.shape[1:]:
        raise ValueError(
            f"cannot compare actions of shapes {actions_a.shape[1:]} and {actions_b.shape[1:]} "
            "(per step): are the rollouts of the same env?"
        )
    common = min(len(actions_a), len(actions_b))
    differs = actions_a[:common] != actions_b[:common]
    differing = np.flatnonzero(differs.any(axis=tuple(range(1, differs.ndim))))
    if len(differing):
        return int(differing[0])
    return None if len(actions_a) == len(actions_b) else common


def shared_divergence(rollouts: Sequence[Rollout]) -> int | None:
    """The first step where not all ``rollouts`` act alike (the comparison marks it on its
    shared timeline), if they share ``env_id`` and ``seed``; None otherwise."""
    first = rollouts[0].metadata
    same = all(r.metadata.get(k) == first.get(k) for r in rollouts[1:] for k in ("env_id", "seed"))
    if len(rollouts) < 2 or not same:
        return None
    steps = [first_divergence(rollouts[0], r) for r in rollouts[1:]]
    found = [s for s in steps if s is not None]
    return min(found) if found else None
