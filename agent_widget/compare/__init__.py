"""Several episodes side by side: ``CompareViewer``, alignment, where they diverge, and
``what_if``: an episode branched at any step, the branches beside it."""

from agent_widget.compare._divergence import first_divergence
from agent_widget.compare._viewer import CompareViewer
from agent_widget.compare._what_if import what_if

__all__ = ["CompareViewer", "first_divergence", "what_if"]
