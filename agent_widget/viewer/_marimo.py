"""Widgets that marimo can open outside a running cell.

marimo sends a new anywidget's ESM to the browser as a "virtual file" that belongs
to the cell being run. A widget created while no cell runs (in a front end's
message handler: the leaderboard's Open, which makes an EpisodeViewer or a
CompareViewer and its viewers) has no cell to belong to, and marimo (0.25) fails
with a bare ``AssertionError`` while opening its comm. A widget created then
carries its ESM as a ``data:`` URL instead, which marimo hands to the browser as
it is; everywhere else (Jupyter, marimo inside a cell) nothing changes.
"""

from __future__ import annotations

import base64
import functools
import sys
from typing import Any

import traitlets


class OpensOutsideMarimoCells(traitlets.HasTraits):
    """Mixin for an anywidget (before ``AnyWidget`` in the bases): see the module docstring."""

    _esm: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # anywidget has made the class's _esm path its file's contents (FileContents);
        # it reads the instance's _esm when it adds the trait, in AnyWidget.__init__.
        esm = getattr(type(self), "_esm", None)
        if esm is not None and _marimo_outside_a_cell():
            self._esm = _data_url(str(esm))
        super().__init__(*args, **kwargs)


def _marimo_outside_a_cell() -> bool:
    """Whether this runs in a marimo kernel while none of its cells runs."""
    if "marimo" not in sys.modules:
        return False
    try:
        from marimo._runtime.context import safe_get_context
    except ImportError:  # another marimo: its own rules
        return False
    context = safe_get_context()
    return context is not None and getattr(context, "cell_id", "") is None


@functools.lru_cache(maxsize=4)
def _data_url(source: str) -> str:
    return "data:text/javascript;base64," + base64.b64encode(source.encode()).decode("ascii")
