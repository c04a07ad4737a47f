"""The run library: runs organized by environment and algorithm, and their leaderboard.

A plain folder of ``run.json`` files and ``.rollout`` episodes, or the same runs in a
bucket, that many writers can add to without locks (``record_many`` records into a run
in parallel); the leaderboard widget opens runs in the viewers below it.
The top layer: it may import every other.
"""

from agent_widget.library._board_text import percent_text as percent_text
from agent_widget.library._leaderboard import Leaderboard
from agent_widget.library._moments import Moments
from agent_widget.library._record_many import Recorded, record_many
from agent_widget.library._run_library import RunLibrary

__all__ = ["Leaderboard", "Moments", "Recorded", "RunLibrary", "record_many"]
