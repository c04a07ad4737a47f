"""Kept so code that imports ``agent_widget.divergence.first_divergence`` still works: it
lives in :mod:`agent_widget.compare` and is importable as ``from agent_widget import
first_divergence``."""

from agent_widget.compare import first_divergence

__all__ = ["first_divergence"]
