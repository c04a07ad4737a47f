"""``EpisodeViewer``: the anywidget that shows one episode, and the wire it talks over.

The widget serves the episode (the rollout plus steps appended live) to the front
end in chunks on request; the wire protocol packs those replies and the timeline's
series. Above episodes and panels; the comparison, grid-world and library widgets
are built from it.
"""

from agent_widget.viewer._widget import EpisodeViewer

__all__ = ["EpisodeViewer"]
