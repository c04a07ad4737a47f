"""A comparison's rollouts by label: named from their metadata when not by the user,
and the two a diff panel compares found by theirs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent_widget.episodes import Rollout


def labelled(
    rollouts: Mapping[str, Rollout] | Sequence[Rollout],
) -> tuple[list[str], list[Rollout]]:
    """Names and rollouts, checked; a list is named from each rollout's metadata."""
    if isinstance(rollouts, Mapping):
        labels, episodes = [str(k) for k in rollouts], list(rollouts.values())
    else:
        episodes = list(rollouts)
        labels = [
            str(r.metadata.get("agent") or r.metadata.get("algorithm") or i)
            if isinstance(r, Rollout)
            else str(i)
            for i, r in enumerate(episodes)
        ]
        labels = [
            f"{label} ({i})" if labels.count(label) > 1 else label for i, label in enumerate(labels)
        ]
    if not episodes:
        raise ValueError("CompareViewer needs at least one rollout")
    for label, episode in zip(labels, episodes, strict=True):
        if not isinstance(episode, Rollout):
            raise TypeError(f"{label}: expected a Rollout, got {type(episode).__name__}")
    return labels, episodes


def pair(labels: Sequence[str], a: str | None, b: str | None) -> tuple[int, int]:
    """The indices of rollouts ``a`` and ``b``, checked; each defaults to the first other."""
    if len(labels) < 2:
        raise ValueError("a diff panel needs two rollouts; this comparison has one")
    for label in (a, b):
        if label is not None and label not in labels:
            known = ", ".join(map(repr, labels))
            raise ValueError(f"diff panel: no rollout is labelled {label!r} (labels: {known})")
    a = next(label for label in labels if label != b) if a is None else a
    b = next(label for label in labels if label != a) if b is None else b
    if a == b:
        raise ValueError(f"diff panel: a and b are both {a!r}; compare two rollouts")
    return labels.index(a), labels.index(b)
