"""Several episodes side by side: ``CompareViewer``, alignment, and where they diverge."""

from agent_widget.compare._divergence import first_divergence
from agent_widget.compare._viewer import CompareViewer

__all__ = ["CompareViewer", "first_divergence"]
