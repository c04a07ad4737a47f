"""Human names for discrete actions, shown next to each action in the viewer.

Atari (and any env with ``get_action_meanings()``) names its own actions; a few
gymnasium classics are named here from their documentation.
"""

from __future__ import annotations

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
    """Names of ``env``'s discrete actions, or None when they are not known.

    Examples:
        >>> action_names(gym.make("CartPole-v1"))
        ['LEFT', 'RIGHT']
    """
    unwrapped = env.unwrapped
    meanings = getattr(unwrapped, "get_action_meanings", None)
    if callable(meanings):
        return [str(name) for name in meanings()]
    cls = type(unwrapped)
    return known_action_names(f"{cls.__module__}:{cls.__qualname__}", env.action_space)
