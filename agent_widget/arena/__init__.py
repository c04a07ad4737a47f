"""The arena: players of a two-player game play each other, every game kept in a run
library, and are rated by the games they played, with honest confidence.

``Arena`` plays round robins of a PettingZoo AEC game into a ``RunLibrary``;
``ratings`` and ``win_rates`` rate any table of two-player games (who sat first, who
second, the first's outcome), played here or elsewhere; ``ArenaBoard``
(``Arena.leaderboard()``) shows them, each game a click away. ``Ladder`` plays
single-agent players over a ladder of env configurations (levels) and counts their
successes at each, with ``wilson_interval``s. The layer above the library.
"""

from agent_widget.arena._arena import Arena
from agent_widget.arena._board import ArenaBoard
from agent_widget.arena._levels import Ladder
from agent_widget.arena._ratings import ratings, win_rates
from agent_widget.arena._wilson import wilson_interval

__all__ = ["Arena", "ArenaBoard", "Ladder", "ratings", "wilson_interval", "win_rates"]
