"""CartPole and the rules the tests play it with, defined once: a test that records an
episode again to check one (in another process, from a seed) needs the very same env
and policy. Plain functions, not fixtures: they are passed as env factories and
policies, and pickled to worker processes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np


def cartpole(render_mode: str | None = "rgb_array") -> gym.Env:
    return gym.make("CartPole-v1", render_mode=render_mode)


def lean(obs) -> int:
    """Push the cart towards the side the pole leans to: the pole falls within about 50
    steps, so episodes stay short."""
    return int(obs[2] > 0)


def balance(obs) -> int:
    """Push towards where the pole leans and is heading: it stays up to the time limit
    (500 steps), long enough to branch anywhere."""
    return int(3 * obs[2] + obs[3] > 0)


def with_angle(policy: Callable[[Any], int]) -> Callable[[Any], tuple[int, dict]]:
    """``policy``, also giving the pole's angle as a per-step extra."""
    return lambda obs: (policy(obs), {"angle": np.float32(obs[2])})
