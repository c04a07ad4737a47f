"""Every widget of the package closes whole: ipywidgets' close leaves a widget's layout
model open, which a front end keeps and a notebook saved with its widget state holds."""

from __future__ import annotations

import importlib
import pkgutil

import anywidget

import agent_widget
from agent_widget import CompareViewer, EpisodeViewer
from agent_widget.viewer._closing import ClosesItsLayout
from tests.e2e.episodes import synthetic_episode


def test_a_closed_viewer_closes_its_layout():
    for widget in (
        EpisodeViewer(synthetic_episode(10)),
        CompareViewer({"a": synthetic_episode(10), "b": synthetic_episode(5)}),
    ):
        layout = widget.layout
        assert layout.comm is not None  # opened with the widget
        widget.close()
        assert widget.comm is None
        assert layout.comm is None


def test_every_widget_of_the_package_closes_its_layout():
    for module in pkgutil.walk_packages(agent_widget.__path__, "agent_widget."):
        importlib.import_module(module.name)
    widgets = [
        cls for cls in _subclasses(anywidget.AnyWidget) if cls.__module__.startswith("agent_widget")
    ]
    assert len(widgets) >= 6  # the viewers, the comparison, training, leaderboard, moments
    assert [cls for cls in widgets if not issubclass(cls, ClosesItsLayout)] == []


def _subclasses(cls: type) -> set[type]:
    return {sub for child in cls.__subclasses__() for sub in (child, *_subclasses(child))}
