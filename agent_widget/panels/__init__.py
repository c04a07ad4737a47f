"""Panels: Python functions of one step whose results are drawn in cards beside the frame.

``Step`` is what a panel function is given; ``register`` adds a panel to every
viewer created afterwards. What a result becomes (bars, heatmap, image, text, error)
is decided by the card conversion; the runner computes cards on a worker thread,
newest request first, with a byte-bounded cache. Above the episode data, below the
viewer.
"""

from agent_widget.panels._registry import Panel, PanelDecorator, register, registered, unregister
from agent_widget.panels._step import EpisodeData, Step

__all__ = [
    "EpisodeData",
    "Panel",
    "PanelDecorator",
    "Step",
    "register",
    "registered",
    "unregister",
]
