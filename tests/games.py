"""PettingZoo's classic two-player games for tests, a random legal player, and the
bare PettingZoo loop that plays a game the way the recordings under test must see it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pettingzoo


def connect_four() -> Any:
    return pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")


def tictactoe() -> Any:
    return pettingzoo.make("aec", "classic/tictactoe-v3", render_mode="rgb_array")


def random_legal(seed: int) -> Callable[[str, Any], int]:
    """A policy drawing a legal move (from the observation's action mask) at random;
    a fresh one with the same seed draws the same moves."""
    rng = np.random.default_rng(seed)
    return lambda agent, obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))


def bare_game(
    make: Callable[[], Any], policy: Callable[[str, Any], int], seed: int
) -> tuple[int, dict[str, float]]:
    """One game played by PettingZoo's own loop: the step (counting every ``env.step``,
    leaving ones too) after which PettingZoo first reported every agent terminated, and
    ``env.rewards`` right then, the game's result (+1 the winner, -1 the loser, 0 a draw)."""
    env = make()
    env.reset(seed=seed)
    for t, agent in enumerate(env.agent_iter()):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else policy(agent, obs))
        if env.agents and all(env.terminations.values()):
            return t, {str(name): float(reward) for name, reward in env.rewards.items()}
    raise AssertionError("the game never ended")
