"""``ArenaBoard``: an arena's ratings and head-to-head matrix as a widget; its games open
in a viewer.

The kernel sends the data, the front end (js/arena/) draws it with text only: the
ratings table (each player's interval a bar on one rating axis), the head-to-head
matrix as a heatmap (a cell the row's score rate against the column, a draw half a
win, and their wins, draws and losses), the games of the pairing whose cell was
clicked, and the game clicked in an :class:`EpisodeViewer` under them, opened at its
last move with each player's readout. The saved copy is the ratings table.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets
from ipywidgets import DOMWidget, widget_serialization

from agent_widget.arena._ratings import ratings, win_rates
from agent_widget.panels import PanelsGiven, add_panels, panel_list, to_fixed
from agent_widget.viewer import AgentWidget, EpisodeViewer, saved_table, sentence, table_row

if TYPE_CHECKING:
    import pandas

    from agent_widget.arena._arena import Arena

_STATIC = pathlib.Path(__file__).parent.parent / "static"
HEADERS = ("player", "rating", "95% interval", "games", "W–D–L")
_FLIPPED = {"win": "loss", "draw": "draw", "loss": "win"}
VIEWER_HEIGHT = 360  # px: a game under the board, its readout in view beside the matrix


class ArenaBoard(AgentWidget):
    """An :class:`Arena`'s ratings, head-to-head matrix and games; made by
    :meth:`Arena.leaderboard`.

    Args:
        arena: the arena whose library's games are shown (read again by ``refresh``).
        panels: panels of the viewer a game opens in, as for :class:`Leaderboard`.

    Examples:
        >>> board = arena.leaderboard()  # doctest: +SKIP
        >>> board.pairing = ["heuristic", "random"]  # doctest: +SKIP
        >>> board.open_game(board.games[0]["run"], board.games[0]["episode"])  # doctest: +SKIP
    """

    _esm = _STATIC / "arena.js"
    _css = _STATIC / "arena.css"

    players = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help="list[dict]. The ratings, best first: player, rating, lower, upper (the 95% "
        "interval), games, wins, draws, losses.",
    ).tag(sync=True)
    cells = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help="list[dict]. The head-to-head matrix's cells of players who met: row, column, "
        "rate (the row's score rate against the column, a draw half a win), games, wins, "
        "draws, losses (the row's).",
    ).tag(sync=True)
    pairing = traitlets.List(
        traitlets.Unicode(),
        help="list[str]. The cell shown, [row player, column player], or []. Two-way.",
    ).tag(sync=True)
    games = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help="list[dict]. The pairing's games, by seed (game k of a pairing is played on "
        "seed k): run, episode, seed, first, second (the players by seat), outcome (the row "
        "player's), steps.",
    ).tag(sync=True)
    opened = traitlets.Instance(
        DOMWidget,
        allow_none=True,
        read_only=True,
        help="EpisodeViewer | None. The game opened last, under the matrix.",
    ).tag(sync=True, **widget_serialization)
    message = traitlets.Unicode(
        "", read_only=True, help="str. Why the last pairing or game could not be shown, or empty."
    ).tag(sync=True)

    def __init__(self, arena: Arena, *, panels: PanelsGiven = None, **traits: Any) -> None:
        self.arena = arena
        self._viewer_panels = panel_list(panels)
        self._results: pandas.DataFrame | None = None
        super().__init__(**traits)
        self.refresh()
        self.on_msg(self._on_message)

    def refresh(self) -> None:
        """Read the arena's games again (games played since appear)."""
        results = self.arena.results()
        steps = {
            (run.id, i): episode.steps
            for run in self.arena.library.runs(env_id=self.arena.env_id)
            for i, episode in enumerate(run.episodes)
        }
        results["steps"] = [
            steps.get((r, int(e)), 0) for r, e in zip(results.run, results.episode, strict=True)
        ]
        self._results = results
        empty = results.empty
        self.set_trait("players", [] if empty else rating_rows(ratings(results)))
        self.set_trait("cells", [] if empty else matrix_cells(results))
        self._show_pairing()

    def open_game(self, run: str, episode: int) -> EpisodeViewer:
        """Show game ``episode`` of the run ``run`` (a row of :attr:`games`) under the
        matrix, at its last move, with each player's readout."""
        known = self._results
        if known is None or not ((known.run == run) & (known.episode == episode)).any():
            raise ValueError(f"no game {episode} of run {run!r} in this arena")
        game = self.arena.library.open(run)[episode]
        moved = np.flatnonzero(np.asarray(game.actions) >= 0)  # Connect Four's last two take none
        seats = game.metadata.get("players") or {}
        who = " vs ".join(f"{name} ({seat})" for seat, name in seats.items())
        seed = game.metadata.get("seed")  # game k of a pairing is played on seed k
        name = f"episode {episode}" if seed is None else f"game {seed}"
        title = f"{self.arena.env_id} · {name}: {who}"
        viewer = EpisodeViewer(game, title=title, height=VIEWER_HEIGHT)
        viewer.step = int(moved[-1]) if len(moved) else game.num_positions - 1
        add_panels(viewer, self._viewer_panels)
        previous = self.opened
        self.set_trait("opened", viewer)
        self.set_trait("message", "")
        if previous is not None:
            previous.close()
        return viewer

    @traitlets.observe("pairing")
    def _on_pairing(self, _change: object) -> None:
        self._show_pairing()

    def _show_pairing(self) -> None:
        if self._results is None:
            return  # before refresh: it shows the pairing
        pair = list(self.pairing)
        names = {row["player"] for row in self.players}
        if pair and (len(pair) != 2 or not set(pair) <= names or pair[0] == pair[1]):
            self.set_trait("games", [])
            self.set_trait("message", f"pairing {pair!r}: expected two of {sorted(names)}")
            return
        self.set_trait("games", pairing_games(self._results, *pair) if pair else [])
        self.set_trait("message", "")

    def _saved_text(self) -> str:
        count = len(self.players)
        players = f"{count} player{'' if count == 1 else 's'}"
        what = f"Arena leaderboard of {players} at {self.arena.env_id}"
        return sentence(what, "see the head-to-head matrix and open its games", page=False)

    def _saved_html(self) -> str:
        """The sentence, then the ratings table as the live one writes it; every user
        string escaped."""
        rows = (table_row(row_texts(row)) for row in self.players)
        return saved_table("arena", self._saved_text(), HEADERS, rows)

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        if not isinstance(content, Mapping):
            return
        if content.get("type") == "refresh":
            try:
                self.refresh()
            except OSError as error:  # a bucket gone out of reach: said under the board
                self.set_trait("message", str(error))
        elif content.get("type") == "open":
            try:
                self.open_game(str(content.get("run")), int(content.get("episode", -1)))
            except (ValueError, TypeError) as error:
                self.set_trait("message", str(error))
            except Exception as error:  # a message handler's exception is lost: show it
                self.set_trait("message", f"could not open: {type(error).__name__}: {error}")


def rating_rows(table: pandas.DataFrame) -> list[dict[str, Any]]:
    """:func:`ratings`' table as the widget's rows (plain Python numbers)."""
    return [
        {
            "player": str(row.player),
            **{key: float(getattr(row, key)) for key in ("rating", "lower", "upper")},
            **{key: int(getattr(row, key)) for key in ("games", "wins", "draws", "losses")},
        }
        for row in table.itertuples()
    ]


def row_texts(row: Mapping[str, Any]) -> list[str]:
    """A ratings row's cells as text: ratings to whole Elo points (js/arena/board.ts's
    ratingTexts; board.cases.json holds the cases both are tested against)."""
    return [
        str(row["player"]),
        to_fixed(row["rating"], 0),
        f"{to_fixed(row['lower'], 0)} – {to_fixed(row['upper'], 0)}",
        str(row["games"]),
        f"{row['wins']}–{row['draws']}–{row['losses']}",
    ]


def matrix_cells(results: pandas.DataFrame) -> list[dict[str, Any]]:
    """The head-to-head cells of the players who met: the rate :func:`win_rates` gives,
    and the row player's wins, draws and losses against the column's, from either seat."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for first, second, outcome in zip(
        results["first"], results["second"], results["outcome"], strict=True
    ):
        for row, column, result in ((first, second, outcome), (second, first, _FLIPPED[outcome])):
            tally = counts.setdefault((row, column), {"win": 0, "draw": 0, "loss": 0})
            tally[result] += 1
    rates = win_rates(results)
    return [
        {
            "row": row,
            "column": column,
            "rate": float(rates.loc[row, column]),
            "games": sum(tally.values()),
            "wins": tally["win"],
            "draws": tally["draw"],
            "losses": tally["loss"],
        }
        for (row, column), tally in sorted(counts.items())
    ]


def pairing_games(results: pandas.DataFrame, row: str, column: str) -> list[dict[str, Any]]:
    """The games between ``row`` and ``column`` (``results`` as :meth:`Arena.results`
    gives them, with each game's ``steps``), by run and seed, each with ``row``'s outcome
    (a seed missing, NaN in the table, is None)."""
    met = results[
        ((results["first"] == row) & (results["second"] == column))
        | ((results["first"] == column) & (results["second"] == row))
    ]
    games: Sequence[Any] = met.sort_values(["run", "seed", "episode"]).itertuples()
    return [
        {
            "run": str(game.run),
            "episode": int(game.episode),
            "seed": int(game.seed) if game.seed == game.seed and game.seed is not None else None,
            "first": str(game.first),
            "second": str(game.second),
            "outcome": game.outcome if game.first == row else _FLIPPED[game.outcome],
            "steps": int(game.steps),
        }
        for game in games
    ]
