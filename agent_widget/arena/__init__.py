"""The arena: players rated by the games they play against each other.

``ratings`` and ``win_rates`` rate any table of two-player games (who sat first,
who second, the first's outcome), played here or elsewhere.
"""

from agent_widget.arena._ratings import ratings, win_rates

__all__ = ["ratings", "win_rates"]
