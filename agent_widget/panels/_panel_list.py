"""``panels=`` of the widgets that open viewers of their own (a list of moments, the
leaderboard): the panels every viewer they open gets, checked when the widget is made,
not when a click opens a viewer and the error could only be shown in the page."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent_widget.panels._registry import Panel, _AddsPanels

PanelsGiven = Mapping[str, Callable[..., Any] | Panel] | Iterable[Callable[..., Any] | Panel] | None
"""A dict of name to panel function (or :class:`Panel`), or a list of Panels and
functions; None for none."""


def panel_list(panels: PanelsGiven) -> list[Panel]:
    """``panels`` as Panels. A function in a list is named by its ``__name__``, a torch
    panel (a callable object) by its class (``QValues``); names are unique.

    Examples:
        >>> def value(step):
        ...     return step.t
        >>> [panel.name for panel in panel_list([value, Panel("t", value)])]
        ['value', 't']
    """
    if panels is None:
        return []
    if isinstance(panels, str) or not isinstance(panels, Mapping | Iterable):
        raise TypeError(
            "panels= takes a dict of name to panel function, or a list of Panels and "
            f"functions; got {type(panels).__name__}"
        )
    given = panels.items() if isinstance(panels, Mapping) else ((None, p) for p in panels)
    made = [_panel(name, fn) for name, fn in given]
    names = [panel.name for panel in made]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"panels= names {twice} more than once: give each panel its own name")
    return made


def add_panels(widget: _AddsPanels, panels: Iterable[Panel]) -> None:
    """Add ``panels`` to ``widget`` (a viewer, or a comparison: each of its viewers)."""
    for panel in panels:
        widget.add_panel(
            panel.name,
            panel.fn,
            overlay=panel.overlay,
            precompute=panel.precompute,
            timeout=panel.timeout,
        )


def _panel(name: str | None, fn: Any) -> Panel:
    if isinstance(fn, Panel):
        return fn if name is None else dataclasses.replace(fn, name=name)
    if name is None:
        name = getattr(fn, "__name__", None) or type(fn).__name__
        if name == "<lambda>":
            raise ValueError(
                "panels=: a lambda has no name to show on its card; give the panels as a "
                "dict, panels={'name': lambda step: ...}"
            )
    return Panel(name, fn)
