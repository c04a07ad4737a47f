"""Kept so notebooks that import ``agent_widget.step.Step`` still work: ``Step`` lives in
:mod:`agent_widget.panels` and is importable as ``from agent_widget import Step``."""

from agent_widget.panels import Step

__all__ = ["Step"]
