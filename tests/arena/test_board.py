"""``ArenaBoard`` (``Arena.leaderboard()``): the data it sends the front end for a real
Connect Four arena (ratings rows, the head-to-head cells, a pairing's games), the game
a click opens, and its saved copy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pandas")

from agent_widget.arena import Arena, ArenaBoard, win_rates
from agent_widget.arena._board import row_texts
from agent_widget.viewer import EpisodeViewer
from tests.games import connect_four, win_or_block

CASES = json.loads((Path(__file__).parents[2] / "js/arena/board.cases.json").read_text("utf-8"))
MARKUP = "<img src=x onerror=alert(1)>"


def leftmost(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


def randomly(observation):
    return int(np.random.default_rng().choice(np.flatnonzero(observation["action_mask"])))


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Arena:
    players = {"heuristic": win_or_block, MARKUP: leftmost, "random": randomly}
    arena = Arena(connect_four, players, tmp_path_factory.mktemp("arena"))
    arena.play(games=4, workers=1, engine="processes", progress=False)  # a worker: fewer to start
    return arena


@pytest.fixture
def board(arena: Arena) -> ArenaBoard:
    return arena.leaderboard()


def test_the_ratings_rows_are_the_arenas_ratings_best_first(arena, board):
    table = arena.ratings()
    assert [row["player"] for row in board.players] == list(table["player"])
    for row, expected in zip(board.players, table.to_dict("records"), strict=True):
        assert row == pytest.approx(expected)
        assert row["games"] == row["wins"] + row["draws"] + row["losses"] == 8


def test_each_cell_is_the_win_rate_and_the_rows_games_against_the_column(arena, board):
    rates = win_rates(arena.results())
    # Counted by hand from the library's episodes table: each game from each seat's side.
    sides = arena.library.query(
        "SELECT player_player_0 AS row, player_player_1 AS col, outcome_player_0 AS outcome "
        "FROM episodes UNION ALL "
        "SELECT player_player_1, player_player_0, outcome_player_1 FROM episodes"
    )
    assert len(board.cells) == 6  # 3 players, every ordered pair met
    for cell in board.cells:
        assert cell["rate"] == pytest.approx(rates.loc[cell["row"], cell["column"]])
        mine = sides[(sides.row == cell["row"]) & (sides.col == cell["column"])]
        counted = mine.outcome.value_counts().to_dict()
        assert [cell["wins"], cell["draws"], cell["losses"]] == [
            counted.get(k, 0) for k in ("win", "draw", "loss")
        ]
        assert cell["games"] == len(mine) == 4
        assert cell["rate"] == pytest.approx((cell["wins"] + cell["draws"] / 2) / cell["games"])


def test_a_pairings_games_are_the_librarys_episodes_of_it(arena, board):
    board.pairing = ["random", "heuristic"]
    (run,) = [r for r in arena.library.runs() if r.run == "heuristic-vs-random"]
    expected = sorted(
        (
            {
                "run": run.id,
                "episode": i,
                "seed": e.seed,
                "first": e.players["player_0"],
                "second": e.players["player_1"],
                "outcome": e.agent_outcomes[
                    next(seat for seat, name in e.players.items() if name == "random")
                ],
                "steps": e.steps,
            }
            for i, e in enumerate(run.episodes)
        ),
        key=lambda game: game["seed"],
    )
    assert board.games == expected
    assert board.message == ""
    board.pairing = []
    assert board.games == []


def test_a_pairing_of_unknown_players_lists_no_games_and_says_why(board):
    board.pairing = ["heuristic", "nobody"]
    assert board.games == []
    assert "nobody" in board.message


def test_a_game_opens_in_a_viewer_at_its_last_move(arena, board):
    board.pairing = ["heuristic", "random"]
    game = board.games[-1]
    board._on_message(board, {"type": "open", "run": game["run"], "episode": game["episode"]}, [])
    viewer = board.opened
    assert isinstance(viewer, EpisodeViewer)
    episode = arena.library.open(game["run"])[game["episode"]]
    moved = np.flatnonzero(episode.actions >= 0)
    assert viewer.step == moved[-1] == episode.num_steps - 3  # two leaving steps after it
    assert viewer.length == episode.num_positions
    assert viewer.title.startswith(f"connect_four_v3 · game {game['seed']}: ")
    assert "heuristic (player_" in viewer.title
    assert "random (player_" in viewer.title
    assert board.message == ""


def test_opening_a_game_not_in_the_arena_says_so_and_keeps_the_viewer(board):
    board.pairing = ["heuristic", "random"]
    shown = board.open_game(board.games[0]["run"], board.games[0]["episode"])
    board._on_message(board, {"type": "open", "run": "elsewhere/arena/x-vs-y", "episode": 0}, [])
    assert "no game 0 of run 'elsewhere/arena/x-vs-y'" in board.message
    assert board.opened is shown


def test_the_saved_copy_is_the_ratings_table_with_names_escaped(board):
    data, _ = board._repr_mimebundle_()
    page = data["text/html"]
    assert MARKUP not in page
    for row in board.players:
        assert "<tr>" + "".join(f"<td>{_escaped(t)}</td>" for t in row_texts(row)) in page
    assert data["text/plain"].startswith("Arena leaderboard of 3 players at connect_four_v3.")


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@pytest.mark.parametrize("case", CASES["rows"], ids=lambda case: case["row"]["player"])
def test_rows_are_written_as_the_live_board_writes_them(case):
    assert row_texts(case["row"]) == case["texts"]


def test_an_arena_with_no_games_shows_an_empty_board(tmp_path):
    arena = Arena(connect_four, {"a": leftmost, "b": randomly}, tmp_path)
    board = arena.leaderboard()
    assert board.players == board.cells == board.games == []
