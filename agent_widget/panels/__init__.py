"""Panels: Python functions of one step whose results are drawn in cards beside the frame.

``Step`` is what a panel function is given; ``register`` adds a panel to every
viewer created afterwards. What a result becomes (bars, heatmap, image, text, error)
is decided by the card conversion; the runner computes cards on a worker thread,
newest request first, with a byte-bounded cache. Above the episode data, below the
viewer.
"""

# For the layers above (the viewer draws cards, the grid world uses the heatmap's
# colours); not the user API.
from agent_widget.panels._card_cache import DEFAULT_CACHE_BYTES as DEFAULT_CACHE_BYTES
from agent_widget.panels._card_image import BACKGROUND as BACKGROUND
from agent_widget.panels._card_image import BAR as BAR
from agent_widget.panels._card_image import BORDER as BORDER
from agent_widget.panels._card_image import HIGHLIGHT as HIGHLIGHT
from agent_widget.panels._card_image import MUTED as MUTED
from agent_widget.panels._card_image import TEXT as TEXT
from agent_widget.panels._card_image import card_image as card_image
from agent_widget.panels._card_image import clip as clip
from agent_widget.panels._card_image import needed_height as needed_height
from agent_widget.panels._card_image import overlay_on as overlay_on
from agent_widget.panels._card_image import text_font as text_font
from agent_widget.panels._card_image import wrapped as wrapped
from agent_widget.panels._cards import Card as Card
from agent_widget.panels._heatmap import LUT as LUT
from agent_widget.panels._numbers import common_decimals as common_decimals
from agent_widget.panels._numbers import format_fixed as format_fixed
from agent_widget.panels._numbers import format_number as format_number
from agent_widget.panels._numbers import js_number as js_number
from agent_widget.panels._numbers import to_fixed as to_fixed
from agent_widget.panels._panel_list import PanelsGiven as PanelsGiven
from agent_widget.panels._panel_list import add_panels as add_panels
from agent_widget.panels._panel_list import panel_list as panel_list
from agent_widget.panels._registry import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from agent_widget.panels._registry import Panel, PanelDecorator, register, registered, unregister
from agent_widget.panels._runner import PanelRunner as PanelRunner
from agent_widget.panels._runner import card_message as card_message
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
