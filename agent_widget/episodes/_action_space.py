"""An episode's action space, kept in its metadata as JSON.

Why keep it: what a network's outputs mean depends on it. A pair of tensors is
``(logits, value)`` for discrete actions but ``(mean, log_std)`` for a Gaussian
actor over a ``Box``; a panel must not guess (a log-std read as a value is wrong
without a warning). Bounds are kept so that actions can be drawn within them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

# Bounds of larger boxes are left out: action spaces are small, and metadata is read whole.
MAX_BOUNDS = 256


def describe_space(space: spaces.Space[Any]) -> dict[str, Any]:
    """A JSON description of an action space: its type and what a viewer needs of it.

    Infinite bounds are ``None`` (JSON has no infinity).

    Examples:
        >>> describe_space(spaces.Discrete(3))
        {'type': 'Discrete', 'n': 3, 'start': 0}
        >>> describe_space(spaces.Box(-2.0, 2.0, (1,)))
        {'type': 'Box', 'shape': [1], 'dtype': 'float32', 'low': [-2.0], 'high': [2.0]}
    """
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Box):
        described: dict[str, Any] = {
            "type": "Box",
            "shape": [int(n) for n in space.shape],
            "dtype": str(space.dtype),
        }
        if space.low.size <= MAX_BOUNDS:
            described["low"] = _bounds(space.low)
            described["high"] = _bounds(space.high)
        return described
    if isinstance(space, spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": np.asarray(space.nvec).tolist()}
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": np.asarray(space.n).tolist()}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "keys": [str(key) for key in space.spaces]}
    return {"type": type(space).__name__}


def box_shape(metadata: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The shape of the episode's actions if its action space is a ``Box``, else None
    (discrete, or not known: an episode recorded before this was kept)."""
    space = metadata.get("action_space")
    if not isinstance(space, Mapping) or space.get("type") != "Box":
        return None
    shape = space.get("shape")
    if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
        return None
    return tuple(shape)


def agent_spaces(described: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What a multi-agent episode's metadata says of its agents' action spaces beyond
    the one ``action_space`` field (the first agent's), from each agent's description
    (:func:`describe_space`): nothing where every agent has the same space (so files of
    such episodes stay byte for byte as before), else ``action_space`` None and
    ``agent_action_spaces`` by agent (the first agent's space read as everyone's would
    mislead: a speaker's words are not a listener's moves).

    Examples:
        >>> agent_spaces({"a": {"type": "Discrete", "n": 2}, "b": {"type": "Discrete", "n": 2}})
        {}
        >>> agent_spaces({"a": {"type": "Discrete", "n": 2}, "b": {"type": "Box"}})
        {'action_space': None, 'agent_action_spaces': {'a': {'type': 'Discrete', 'n': 2}, \
'b': {'type': 'Box'}}}
    """
    first, *others = described.values()
    if all(other == first for other in others):
        return {}
    return {"action_space": None, "agent_action_spaces": {k: dict(v) for k, v in described.items()}}


def agent_names(names: Mapping[str, Sequence[str] | None]) -> dict[str, Any]:
    """What a multi-agent episode's metadata says of its agents' action names, from each
    agent's (None where not known): ``action_names`` where every agent has the same,
    else ``agent_action_names`` by agent, for those that have names.

    Examples:
        >>> agent_names({"a": ["UP", "DOWN"], "b": ["UP", "DOWN"]})
        {'action_names': ['UP', 'DOWN']}
        >>> agent_names({"a": ["UP", "DOWN"], "b": None})
        {'action_names': None, 'agent_action_names': {'a': ['UP', 'DOWN']}}
    """
    first, *others = names.values()
    if all(other == first for other in others):
        return {"action_names": None if first is None else list(first)}
    own = {agent: list(agent_names) for agent, agent_names in names.items() if agent_names}
    return {"action_names": None, "agent_action_names": own}


def agent_space(metadata: Mapping[str, Any], agent: str) -> Any:
    """The description of ``agent``'s action space in a multi-agent episode's metadata:
    its own where the agents' differ, else the episode's one (None where not kept)."""
    own = metadata.get("agent_action_spaces")
    if isinstance(own, Mapping):
        return own.get(agent)
    return metadata.get("action_space")


# Action names: one list, or a list per agent (a dict by agent's name).
ActionNames = Sequence[str] | Mapping[str, Sequence[str]]


def names_fit(names: Sequence[str], space: Any) -> bool:
    """Whether a list of action names names the actions of the space ``space``
    describes: a ``Discrete`` one of as many actions, the dimensions of a ``Box`` of as
    many, a ``Dict``'s keys (None, a space not kept: assumed to, as before spaces were
    kept).

    Examples:
        >>> names_fit(["LEFT", "RIGHT"], {"type": "Discrete", "n": 2, "start": 0})
        True
        >>> names_fit(["LEFT", "RIGHT"], {"type": "Box", "shape": [3]})
        False
        >>> names_fit(["thigh", "shin"], {"type": "Box", "shape": [2]})
        True
    """
    if not isinstance(space, Mapping):
        return True
    kind = space.get("type")
    if kind == "Box":
        return space.get("shape") == [len(names)]
    if kind == "Dict":
        return space.get("keys") == list(names)
    return kind == "Discrete" and space.get("n") == len(names)


def kept_names(metadata: Mapping[str, Any]) -> Any:
    """The action names an episode's metadata keeps: by agent
    (``agent_action_names``), else one list (``action_names``); None if neither."""
    return metadata.get("agent_action_names") or metadata.get("action_names")


def given_names(names: Any) -> list[str] | dict[str, list[str]] | None:
    """Action names as a user gives them (``action_names=``): None, a list of strings, or
    a dict of such lists by agent; anything else a ValueError saying so."""
    if names is None:
        return None
    if isinstance(names, Mapping):
        return {str(agent): _name_list(own) for agent, own in names.items()}
    return _name_list(names)


def with_names(metadata: Mapping[str, Any], names: ActionNames | None) -> dict[str, Any]:
    """``metadata`` with ``names`` (:func:`given_names`) as the episode's action names,
    winning over those it keeps: a list as ``action_names`` (names by agent dropped),
    a dict as ``agent_action_names``. None leaves it as it is.

    Examples:
        >>> with_names({"action_names": ["0", "1"], "seed": 3}, ["LEFT", "RIGHT"])
        {'action_names': ['LEFT', 'RIGHT'], 'seed': 3}
    """
    names = given_names(names)
    if names is None:
        return dict(metadata)
    if isinstance(names, dict):
        return {**metadata, "agent_action_names": names}
    kept = {key: value for key, value in metadata.items() if key != "agent_action_names"}
    return {**kept, "action_names": names}


def own_names(names: ActionNames, metadata: Mapping[str, Any], agent: str) -> list[str]:
    """The action names that name ``agent``'s actions: its own where ``names`` is a dict
    by agent; else the one list where the agents share one action space, and where they
    differ (the metadata's ``agent_action_spaces``) only for an agent whose own space it
    fits (:func:`names_fit`), so a speaker's three words never name another agent's
    five moves."""
    if isinstance(names, Mapping):
        return list(names.get(agent, ()))
    own = metadata.get("agent_action_spaces")
    if isinstance(own, Mapping) and not names_fit(names, own.get(agent)):
        return []
    return list(names)


def _name_list(names: Any) -> list[str]:
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise ValueError(
            f"action_names must be a list of strings or a dict of them by agent, got {names!r:.200}"
        )
    return list(names)


def _bounds(values: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in values.astype(np.float64).ravel()]
