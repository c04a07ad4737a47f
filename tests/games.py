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


def win_or_block(observation: Any) -> int:
    """A Connect Four player that wins where it can, else blocks the opponent's win,
    else plays the legal column nearest the centre."""
    board = np.asarray(observation["observation"])  # (6, 7, 2): mine, theirs
    legal = np.flatnonzero(observation["action_mask"])
    for plane in (0, 1):  # my win first, then their win to block
        for column in legal:
            row = max(r for r in range(6) if not board[r, column].any())
            trial = board[:, :, plane].copy()
            trial[row, column] = 1
            if _four(trial):
                return int(column)
    return int(legal[np.argmin(np.abs(legal - 3))])


def _four(plane: np.ndarray) -> bool:
    """Whether ``plane`` (6x7) has four in a row, across, down or diagonally."""
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(6):
            for c in range(7):
                cells = [(r + i * dr, c + i * dc) for i in range(4)]
                if all(0 <= y < 6 and 0 <= x < 7 and plane[y, x] for y, x in cells):
                    return True
    return False
