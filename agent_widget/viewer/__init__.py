"""``EpisodeViewer``: the anywidget that shows one episode, and the wire it talks over.

The widget serves the episode (the rollout plus steps appended live) to the front
end in chunks on request; the wire protocol packs those replies and the timeline's
series. Above episodes and panels; the comparison, grid-world and library widgets
are built from it.
"""

# For the layers above (every widget of the package is an AgentWidget; the comparison, the
# leaderboard and the training viewer are built like the viewer, their outputs' saved
# copies and videos too); not the user API.
from agent_widget.viewer._base_widget import AgentWidget as AgentWidget
from agent_widget.viewer._film import video_options as video_options
from agent_widget.viewer._given import positions as positions
from agent_widget.viewer._page import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from agent_widget.viewer._page import Export as Export
from agent_widget.viewer._page import page_state as page_state
from agent_widget.viewer._page import render as render
from agent_widget.viewer._page import written as written
from agent_widget.viewer._playback import PlaybackChecks as PlaybackChecks
from agent_widget.viewer._saved_copy import framed as framed
from agent_widget.viewer._saved_copy import saved_table as saved_table
from agent_widget.viewer._saved_copy import sentence as sentence
from agent_widget.viewer._saved_copy import still as still
from agent_widget.viewer._saved_copy import table_row as table_row
from agent_widget.viewer._transport import pack_series as pack_series
from agent_widget.viewer._video import checked_video as checked_video
from agent_widget.viewer._video import film as film
from agent_widget.viewer._widget import EpisodeViewer

__all__ = ["EpisodeViewer"]
