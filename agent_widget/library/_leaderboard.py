"""``Leaderboard``: a run library's table as a widget; selected runs open in a viewer.

The table (one row per run, grouped by env by default and ranked within each group by
the column sorted by, filterable) is drawn by the front end from
:meth:`RunLibrary.table` rows, with text only. The user ticks runs and presses Open:
one run opens in an :class:`EpisodeViewer`, several in a :class:`CompareViewer` (the
same episode number of each), shown under the table.
"""

from __future__ import annotations

import html
import pathlib
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import traitlets
from ipywidgets import DOMWidget, widget_serialization

from agent_widget.compare import CompareViewer
from agent_widget.episodes import ActionNames, given_names
from agent_widget.library._board_text import table_text
from agent_widget.library._shown import shown
from agent_widget.panels import PanelsGiven, add_panels, panel_list
from agent_widget.viewer import (
    AgentWidget,
    EpisodeViewer,
    saved_table,
    sentence,
    table_row,
)

if TYPE_CHECKING:  # the library imports this module when it is displayed
    from agent_widget.library._run_library import RunLibrary

_STATIC = pathlib.Path(__file__).parent.parent / "static"


class Leaderboard(AgentWidget):
    """The runs of a :class:`RunLibrary` as a sortable, filterable table.

    Args:
        library: the library to show; ``display(library)`` shows this widget too.
        group_by: ``"env"`` (the default), ``"algorithm"`` (a header row per group,
            the sorted order within each) or ``None`` (the rows follow the sorted
            column across the whole table). By env by default: returns of different
            envs do not compare (CartPole's 300 is not above FrozenLake's 0.65), and
            each env's returns print to the decimals they need.
        panels: panels of every viewer Open shows (a comparison's in each column), as
            for :class:`Moments`: a dict of name to panel function, or a list of
            :class:`~agent_widget.panels.Panel` s and functions.
        action_names: the names the viewers it opens give the actions (as
            :class:`EpisodeViewer` takes them), over those the episodes keep.

    Examples:
        >>> board = Leaderboard(RunLibrary("runs/"))  # doctest: +SKIP
        >>> board.open_runs(["CartPole-v1/dqn/lr1e-3", "CartPole-v1/ppo/lr3e-4"])  # doctest: +SKIP
    """

    _esm = _STATIC / "leaderboard.js"
    _css = _STATIC / "leaderboard.css"

    rows = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help="list[dict]. The library's table (RunLibrary.table()), re-read by refresh().",
    ).tag(sync=True)
    errors = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help='list[dict]. Runs that could not be read: {"path", "message"}.',
    ).tag(sync=True)
    selected = traitlets.List(
        traitlets.Unicode(), help="list[str]. Ids of the ticked runs. Two-way."
    ).tag(sync=True)
    episode = traitlets.Int(
        0, help="int, default 0. Which episode of each selected run Open shows. Two-way."
    ).tag(sync=True)
    opened = traitlets.Instance(
        DOMWidget,
        allow_none=True,
        read_only=True,
        help="EpisodeViewer | CompareViewer | None. What Open showed last, under the table.",
    ).tag(sync=True, **widget_serialization)
    group_by = traitlets.Enum(
        ["env", "algorithm"],
        default_value="env",
        allow_none=True,
        help='"env" | "algorithm" | None, default "env". What the rows are grouped by; '
        "None: one table in the sorted column's order. Two-way (the table has a control).",
    ).tag(sync=True)
    message = traitlets.Unicode(
        "", read_only=True, help="str. Why the last Open (or Refresh) failed, or empty."
    ).tag(sync=True)

    def __init__(
        self,
        library: RunLibrary,
        *,
        group_by: str | None = "env",
        panels: PanelsGiven = None,
        action_names: ActionNames | None = None,
        **traits: Any,
    ) -> None:
        self.library = library
        self._viewer_panels = panel_list(panels)
        self._action_names = given_names(action_names)
        super().__init__(group_by=group_by, **traits)
        self.refresh()
        self.on_msg(self._on_message)

    def refresh(self) -> None:
        """Read the library again (runs other programs added since appear)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the errors are shown in the table instead
            rows = self.library.table()
        self.set_trait("rows", rows)
        self.set_trait(
            "errors", [{"path": str(e.path), "message": e.message} for e in self.library.errors]
        )

    def open_runs(
        self, ids: Sequence[str] | None = None, episode: int | None = None
    ) -> EpisodeViewer | CompareViewer:
        """Show episode ``episode`` of the runs ``ids`` (default: the selection) under the table.

        One run opens in an :class:`EpisodeViewer`, several in a :class:`CompareViewer`.
        """
        ids = list(self.selected if ids is None else ids)
        episode = self.episode if episode is None else episode
        if not ids:
            raise ValueError("no run selected: tick one or more runs, or pass their ids")
        rows = {row["id"]: row for row in self.rows}
        unknown = [i for i in ids if i not in rows]
        if unknown:
            raise ValueError(f"no run {', '.join(map(repr, unknown))} in {self.library.root}")
        rollouts = {}
        for run_id in ids:
            episodes = self.library.open(run_id)
            if not -len(episodes) <= episode < len(episodes):
                raise ValueError(
                    f"run {run_id!r} has {len(episodes)} episodes, no episode {episode}"
                )
            label = _label(rows[run_id], [rows[i] for i in ids])
            rollouts[label] = shown(episodes[episode], self._action_names)
        title = _title([rows[i] for i in ids], episode)
        viewer: EpisodeViewer | CompareViewer
        if len(rollouts) == 1:
            viewer = EpisodeViewer(*rollouts.values(), title=title)
        else:
            viewer = CompareViewer(rollouts, title=title)
        add_panels(viewer, self._viewer_panels)
        previous = self.opened
        self.set_trait("opened", viewer)
        self.set_trait("message", "")
        if previous is not None:
            previous.close()
        return viewer

    def _saved_text(self) -> str:
        runs = f"{len(self.rows)} run{'' if len(self.rows) == 1 else 's'}"
        what = f"Leaderboard of {runs} in {self.library.root}"
        return sentence(what, "sort, filter and open them", page=False)

    def _saved_html(self) -> str:
        """The sentence, then the table as the live one first shows it (board_text:
        its columns, order, groups and numbers); every user string escaped. The
        sentence is a paragraph, not the table's caption: a caption one line long made
        the table as wide (880 px in a 668 px cell), cut off in view."""
        head, lines = table_text(self.rows, self.group_by)
        width = len(head)
        rows = (
            f'<tr class="aw-group"><td colspan="{width}">{html.escape(cells[0])}</td></tr>'
            if kind == "group"
            else table_row(cells)
            for kind, cells in lines
        )
        return saved_table("leaderboard", self._saved_text(), head, rows)

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        if not isinstance(content, Mapping):
            return
        if content.get("type") == "refresh":
            try:
                self.refresh()
            except OSError as error:  # a bucket gone out of reach: said under the table
                self.set_trait("message", str(error))
            else:
                self.set_trait("message", "")
        elif content.get("type") == "open":
            try:
                self.open_runs()
            except ValueError as error:
                self.set_trait("message", str(error))
            except Exception as error:  # a message handler's exception is lost: show it
                self.set_trait("message", f"could not open: {type(error).__name__}: {error}")


def _label(row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    """``algorithm / run``, with the env in front when the runs are of several envs."""
    label = f"{row['algorithm']} / {row['run']}"
    if len({r["env_id"] for r in rows}) > 1:
        label = f"{row['env_id']}: {label}"
    return label


def _title(rows: Sequence[Mapping[str, Any]], episode: int) -> str:
    """``env · algorithm / run · episode N``: the env when the runs share one (else each
    column's label names its own), the run when there is one."""
    envs = {str(r["env_id"]) for r in rows if r.get("env_id")}
    parts = [*envs] if len(envs) == 1 else []
    if len(rows) == 1:
        parts.append(f"{rows[0]['algorithm']} / {rows[0]['run']}")
    return " · ".join([*parts, f"episode {episode}"])
