"""``Moments``: the steps a query over a library found, listed; a click opens the viewer
there, the found steps marked on its timeline.

The query (see :meth:`RunLibrary.query`) must give ``run``, ``episode`` and ``t``
columns (as ``SELECT ... FROM steps`` does); each row of the list is one step found,
or with ``stretches=True`` one stretch of consecutive steps of an episode. Clicking a
row opens an :class:`EpisodeViewer` of that episode at its first step, under the
list, with every step the query found in that episode drawn as a 0-1 line of its own
under the timeline's main band (the extra ``found``).
"""

from __future__ import annotations

import dataclasses
import html
import math
import pathlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets
from ipywidgets import DOMWidget, widget_serialization

from agent_widget.episodes import ActionNames, given_names
from agent_widget.library._shown import shown
from agent_widget.panels import PanelsGiven, add_panels, panel_list
from agent_widget.viewer import (
    AgentWidget,
    EpisodeViewer,
    sentence,
)

if TYPE_CHECKING:
    import pandas

    from agent_widget.library._run_library import RunLibrary

_STATIC = pathlib.Path(__file__).parent.parent / "static"
FOUND = "found"  # the extra that marks the found steps on an opened viewer's timeline
_KEYS = ("run", "episode", "t")
MAX_ROWS = 10_000  # listed at most (the widget's state carries them): the first, in order


class Moments(AgentWidget):
    """The steps ``sql`` finds in ``library``, one row per step or per stretch.

    Args:
        library: the run library to query.
        sql: a query over the library's tables giving ``run``, ``episode`` and ``t``
            (more columns are shown beside them).
        stretches: one row per stretch of consecutive steps of an episode (its first
            step, last step and the first row's other columns) instead of one per step.
        panels: panels of every viewer opened: a dict of name to panel function, or a
            list of :class:`~agent_widget.panels.Panel` s and functions (a function
            named by its ``__name__``, a torch panel by its class: ``QValues``).
        action_names: the names the viewers it opens give the actions (as
            :class:`EpisodeViewer` takes them), over those the episodes keep.

    Examples:
        >>> Moments(lib, "SELECT run, episode, t FROM steps WHERE reward < -10")  # doctest: +SKIP
        >>> Moments(lib, sql, panels={"Q": QValues(q_net)})  # doctest: +SKIP
    """

    _esm = _STATIC / "moments.js"
    _css = _STATIC / "moments.css"

    sql = traitlets.Unicode(read_only=True, help="str. The query.").tag(sync=True)
    columns = traitlets.List(
        traitlets.Unicode(),
        read_only=True,
        help="list[str]. The columns shown: run, episode, t (and last for stretches), then "
        "the query's others.",
    ).tag(sync=True)
    rows = traitlets.List(
        traitlets.List(traitlets.Unicode()),
        read_only=True,
        help="list[list[str]]. Each moment's cells as text, in the columns' order.",
    ).tag(sync=True)
    found = traitlets.Int(
        read_only=True, help="int. Moments found (more than listed past 10,000)."
    ).tag(sync=True)
    steps = traitlets.Int(
        read_only=True, help="int. Steps found: the query's rows (stretches hold several)."
    ).tag(sync=True)
    chosen = traitlets.Int(-1, read_only=True, help="int. The row opened last, -1 before any.").tag(
        sync=True
    )
    opened = traitlets.Instance(
        DOMWidget,
        allow_none=True,
        read_only=True,
        help="EpisodeViewer | None. The viewer of the moment opened last, under the list.",
    ).tag(sync=True, **widget_serialization)
    message = traitlets.Unicode(
        "", read_only=True, help="str. Why the last open failed, or empty."
    ).tag(sync=True)

    def __init__(
        self,
        library: RunLibrary,
        sql: str,
        *,
        stretches: bool = False,
        panels: PanelsGiven = None,
        action_names: ActionNames | None = None,
    ) -> None:
        self._viewer_panels = panel_list(panels)
        self._action_names = given_names(action_names)
        frame = library.query(sql)
        missing = [key for key in _KEYS if key not in frame.columns]
        if missing:
            raise ValueError(
                f"moments() needs the columns run, episode and t (as SELECT run, episode, t "
                f"... FROM steps gives them); the query lacks {', '.join(missing)}"
            )
        self.library = library
        self._moments = _moments(frame, stretches)
        self._steps = {
            key: np.sort(group["t"].to_numpy(np.int64))
            for key, group in frame.groupby(["run", "episode"], sort=False)
        }
        others = [c for c in frame.columns if c not in _KEYS and c != "last"]
        columns = ["run", "episode", "t", *(["last"] if stretches else []), *others]
        super().__init__()
        self.set_trait("sql", sql)
        self.set_trait("columns", columns)
        self.set_trait("found", len(self._moments))
        self.set_trait("steps", len(frame))
        self.set_trait("rows", [[_text(m[c]) for c in columns] for m in self._moments[:MAX_ROWS]])
        self.on_msg(self._on_message)

    def open_moment(self, index: int) -> EpisodeViewer:
        """Open row ``index``'s episode at its step, under the list (replacing the last)."""
        if not 0 <= index < len(self.rows):
            raise ValueError(f"no moment {index}: there are {len(self.rows)}")
        moment = self._moments[index]
        run, episode, t = str(moment["run"]), int(moment["episode"]), int(moment["t"])
        rollout = shown(self.library.open(run)[episode], self._action_names)
        marks = np.zeros(rollout.num_steps, np.float32)
        found = self._steps[(moment["run"], moment["episode"])]
        marks[found[(found >= 0) & (found < len(marks))]] = 1.0
        marked = dataclasses.replace(rollout, extras={**rollout.extras, FOUND: marks})
        viewer = EpisodeViewer(
            marked,
            extras=[FOUND],
            title=f"{run} · episode {episode} · step {t}",
            timeline_rates=[FOUND],
        )
        add_panels(viewer, self._viewer_panels)
        viewer.step = t
        previous = self.opened
        self.set_trait("opened", viewer)
        self.set_trait("chosen", index)
        self.set_trait("message", "")
        if previous is not None:
            previous.close()
        return viewer

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        if not isinstance(content, Mapping) or content.get("type") != "open":
            return
        index = content.get("index")
        try:
            if not isinstance(index, int):
                raise ValueError(f"no moment {index!r}")
            self.open_moment(index)
        except Exception as error:  # a message handler's exception is lost: show it
            self.set_trait("message", f"could not open: {type(error).__name__}: {error}")

    def _saved_text(self) -> str:
        what = f"{self.found} moment{'' if self.found == 1 else 's'} found in {self.library.root}"
        return sentence(what, "open them", page=False)

    def _saved_html(self) -> str:
        """The list as a table; every cell escaped."""
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in self.rows
        )
        note = html.escape(self._saved_text())
        return (
            f'<table class="aw-saved-moments"><caption>{note}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )


def _moments(frame: pandas.DataFrame, stretches: bool) -> list[dict[str, Any]]:
    """The query's rows as dicts, or its stretches: consecutive ``t`` of one episode, in
    the order the query gave them, each the first row's values and ``last``, its last t."""
    records = frame.to_dict("records")
    if not stretches:
        return records
    merged: list[dict[str, Any]] = []
    for record in records:
        last = merged[-1] if merged else None
        if (
            last is not None
            and (last["run"], last["episode"]) == (record["run"], record["episode"])
            and record["t"] == last["last"] + 1
        ):
            last["last"] = record["t"]
        else:
            merged.append({**record, "last": record["t"]})
    return merged


def _text(value: Any) -> str:
    """A cell as text: numbers shortly, NULLs as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)
