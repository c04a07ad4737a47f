"""Who won a multi-agent game: each agent's outcome, from what the episode holds.

A game has a winner when it is zero-sum (the agents' returns add up to 0, as in
PettingZoo's classic games: +1 the winner, -1 the loser, 0 each in a draw) and it
ended for every agent (PettingZoo reported each terminated or truncated at some step,
so an episode cut short by ``record(..., max_steps=...)`` has none). An agent's outcome
is then the sign of its return: a win above 0, a draw at 0, a loss below. A game of
several winners and losers (three players, chips won in poker) reads the same way.
Where a game has no winner (a cooperative one, an unfinished one) each agent's return
is what says how it did: ``Rollout.agent_returns``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Outcome = Literal["win", "draw", "loss"]
OUTCOMES: tuple[Outcome, ...] = ("win", "draw", "loss")


def zero_sum(returns: Sequence[float]) -> bool:
    """Whether the agents' ``returns`` (two or more) add up to 0, to float rounding."""
    totals = np.asarray(returns, np.float64)
    scale = max(1.0, float(np.abs(totals).max(initial=0.0)))
    return len(totals) >= 2 and abs(float(totals.sum())) <= 1e-9 * scale


def outcomes(
    names: Sequence[str], rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
) -> dict[str, Outcome] | None:
    """Each agent's outcome by name, or None where the game has no winner (see the
    module). ``rewards``, ``terminated`` and ``truncated`` are ``(T, n_agents)``, the
    rewards NaN where an agent was absent."""
    totals = np.nansum(np.asarray(rewards, np.float64), axis=0).reshape(-1)
    ended = (np.asarray(terminated, bool) | np.asarray(truncated, bool)).any(axis=0)
    if not (zero_sum(totals) and np.all(ended)):
        return None
    signs = np.sign(totals).astype(int)
    return {name: OUTCOMES[1 - int(sign)] for name, sign in zip(names, signs, strict=True)}
