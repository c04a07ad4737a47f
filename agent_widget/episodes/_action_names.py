"""Human names for actions, shown next to each action in the viewer.

From the env's own API where it has one: Atari's ``get_action_meanings()``,
MiniGrid's ``Actions`` enum (``env.actions``), a ``Dict`` space's keys, MuJoCo's
actuator names for a ``Box``'s dimensions (an action's components). Else from the
documentation of a few gymnasium classics and PettingZoo's Knights-Archers-Zombies,
keyed by entry point.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

# Keyed by entry point ("module:Class", as in gymnasium's registry) so a user's own
# class with the same name is never mislabelled.
_ACTION_NAMES: dict[str, tuple[str, ...]] = {
    "gymnasium.envs.toy_text.frozen_lake:FrozenLakeEnv": ("LEFT", "DOWN", "RIGHT", "UP"),
    "gymnasium.envs.toy_text.cliffwalking:CliffWalkingEnv": ("UP", "RIGHT", "DOWN", "LEFT"),
    "gymnasium.envs.toy_text.taxi:TaxiEnv": ("SOUTH", "NORTH", "EAST", "WEST", "PICKUP", "DROPOFF"),
    "gymnasium.envs.toy_text.blackjack:BlackjackEnv": ("STICK", "HIT"),
    "gymnasium.envs.classic_control.cartpole:CartPoleEnv": ("LEFT", "RIGHT"),
    "gymnasium.envs.classic_control.mountain_car:MountainCarEnv": ("LEFT", "NOOP", "RIGHT"),
    "gymnasium.envs.classic_control.acrobot:AcrobotEnv": ("TORQUE -1", "TORQUE 0", "TORQUE +1"),
    "gymnasium.envs.box2d.lunar_lander:LunarLander": ("NOOP", "LEFT", "MAIN", "RIGHT"),
    # Every agent's (archers' and knights'); "ATTACK" fires an arrow or swings the mace.
    "pettingzoo.butterfly.knights_archers_zombies.knights_archers_zombies:raw_env": (
        "FORWARD",
        "BACKWARD",
        "TURN CCW",
        "TURN CW",
        "ATTACK",
        "NONE",
    ),
}


def known_action_names(entry_point: Any, action_space: gym.Space[Any]) -> list[str] | None:
    """Documented action names for a gymnasium classic (by entry point), else None.

    For when there is no env instance to ask, e.g. a vector env or a Minari dataset.

    Examples:
        >>> known_action_names(
        ...     "gymnasium.envs.classic_control.cartpole:CartPoleEnv", gym.spaces.Discrete(2)
        ... )
        ['LEFT', 'RIGHT']
    """
    names = _ACTION_NAMES.get(entry_point) if isinstance(entry_point, str) else None
    if names is None or not isinstance(action_space, gym.spaces.Discrete):
        return None  # unknown, or e.g. LunarLander's continuous variant
    return list(names) if action_space.n == len(names) else None


def action_names(env: gym.Env[Any, Any]) -> list[str] | None:
    """Names of ``env``'s actions (of a ``Box``'s dimensions), or None when not known.

    Examples:
        >>> action_names(gym.make("CartPole-v1"))
        ['LEFT', 'RIGHT']
    """
    meanings = getattr(env.unwrapped, "get_action_meanings", None)
    if callable(meanings):
        return [str(name) for name in meanings()]
    return space_names(env.unwrapped, env.action_space)


def space_names(unwrapped: Any, space: gym.Space[Any]) -> list[str] | None:
    """Names of the actions of ``space`` that the env ``unwrapped`` (a gymnasium or a
    PettingZoo one, for one agent's space) says, or its documentation; else None."""
    cls = type(unwrapped)
    return (
        _enum_names(getattr(unwrapped, "actions", None), space)
        or _actuator_names(getattr(unwrapped, "model", None), space)
        or _dict_keys(space)
        or known_action_names(f"{cls.__module__}:{cls.__qualname__}", space)
    )


def _enum_names(actions: Any, space: gym.Space[Any]) -> list[str] | None:
    """The names of an enum of the actions (MiniGrid's ``Actions``): one member per
    action of a ``Discrete`` space, valued 0, 1, ... in order."""
    if not (isinstance(actions, type) and issubclass(actions, enum.Enum)):
        return None
    if not isinstance(space, gym.spaces.Discrete) or space.start != 0:
        return None
    members = list(actions)
    if [member.value for member in members] != list(range(int(space.n))):
        return None
    return [member.name for member in members]


def _actuator_names(model: Any, space: gym.Space[Any]) -> list[str] | None:
    """A MuJoCo model's actuator names (``model.actuator(i).name``), one per dimension of
    a ``Box`` of as many (HalfCheetah's ``bthigh``, ``bshin``, ...); None if one has none."""
    count = getattr(model, "nu", None)
    if not callable(getattr(model, "actuator", None)) or not isinstance(count, int):
        return None
    if not isinstance(space, gym.spaces.Box) or space.shape != (count,):
        return None
    names = [str(model.actuator(i).name) for i in range(count)]
    return names if all(names) else None


def _dict_keys(space: gym.Space[Any]) -> list[str] | None:
    """A ``Dict`` space's keys: what each part of its actions is."""
    if isinstance(space, gym.spaces.Dict) and isinstance(space.spaces, Mapping):
        return [str(key) for key in space.spaces]
    return None
