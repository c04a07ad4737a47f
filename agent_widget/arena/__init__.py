"""The arena: players of a two-player game play each other, every game kept in a run
library, and are rated by the games they played, with honest confidence.

``Arena`` plays round robins of a PettingZoo AEC game into a ``RunLibrary``;
``ratings`` and ``win_rates`` rate any table of two-player games (who sat first, who
second, the first's outcome), played here or elsewhere; ``ArenaBoard``
(``Arena.leaderboard()``) shows them, each game a click away. The layer above the library.
"""

from agent_widget.arena._arena import Arena
from agent_widget.arena._board import ArenaBoard
from agent_widget.arena._ratings import ratings, win_rates

__all__ = ["Arena", "ArenaBoard", "ratings", "win_rates"]
