"""Games in a run library: each player's return and outcome in the ``episodes`` table,
counted against PettingZoo's own results; a zero-sum run's row without a summed return;
runs listed before outcomes were kept; an arena's games counted by player."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("duckdb")

from agent_widget import Rollout, RunLibrary, record
from agent_widget.library._run_file import RUN_FILE, EpisodeSummary
from tests.games import bare_game, connect_four, random_legal, tictactoe, win_or_block

GAMES = {"connect_four": connect_four, "tictactoe": tictactoe}


def played(lib, name, seeds):
    """Games of ``name`` (seeds ``seeds``) added as run ``name``; PettingZoo's results."""
    make = GAMES[name]
    lib.add(
        [record(make(), random_legal(s), seed=s) for s in seeds],
        env_id=name,
        algorithm="random",
        run=name,
    )
    return [bare_game(make, random_legal(s), s) for s in seeds]


def counted(results):
    """Each agent's wins, draws and losses, counted by hand from PettingZoo's results."""
    counts = {}
    for _, result in results:
        for agent, reward in result.items():
            kind = "win" if reward > 0 else "loss" if reward < 0 else "draw"
            counts.setdefault(agent, {"win": 0, "draw": 0, "loss": 0})[kind] += 1
    return counts


def test_win_counts_from_the_episodes_table_equal_a_count_by_hand(tmp_path):
    lib = RunLibrary(tmp_path)
    results = {name: played(lib, name, range(10)) for name in GAMES}
    for name, found in results.items():
        for agent, counts in counted(found).items():
            row = lib.query(
                f"SELECT count(*) FILTER (WHERE outcome_{agent} = 'win') AS win, "
                f"count(*) FILTER (WHERE outcome_{agent} = 'draw') AS draw, "
                f"count(*) FILTER (WHERE outcome_{agent} = 'loss') AS loss, "
                f"sum(return_{agent}) AS total FROM episodes WHERE run = '{name}/random/{name}'"
            ).iloc[0]
            assert {k: int(row[k]) for k in counts} == counts
            assert row["total"] == counts["win"] - counts["loss"]


def test_an_agent_not_in_a_game_has_no_return_or_outcome_there(tmp_path):
    lib = RunLibrary(tmp_path)
    played(lib, "connect_four", range(2))
    played(lib, "tictactoe", range(2))
    found = lib.query(
        "SELECT env_id, count(outcome_player_0) AS p0, count(return_player_2) AS p2 "
        "FROM episodes GROUP BY 1 ORDER BY 1"
    )
    assert found.values.tolist() == [["connect_four", 2, 0], ["tictactoe", 0, 2]]


def test_the_winning_moves_row_has_both_players_terminated(tmp_path):
    lib = RunLibrary(tmp_path)
    results = played(lib, "connect_four", range(4))
    rows = lib.query(
        "SELECT episode, t, reward_player_0, reward_player_1 FROM steps "
        "WHERE terminated_player_0 AND terminated_player_1 ORDER BY ALL"
    )
    expected = [(i, t, r["player_0"], r["player_1"]) for i, (t, r) in enumerate(results)]
    assert [tuple(row) for row in rows.itertuples(index=False)] == expected


def test_a_zero_sum_run_shows_outcomes_and_no_summed_return(tmp_path):
    lib = RunLibrary(tmp_path)
    results = played(lib, "connect_four", range(8))
    lib.add(
        [Rollout.from_arrays(rewards=[1.0, 2.0], metadata={"env_id": "E"})],
        algorithm="a",
        run="solo",
    )
    rows = {row["run"]: row for row in lib.table()}
    game = rows["connect_four"]
    assert game["return_mean"] is None
    assert game["return_std"] is None
    assert game["agent_outcomes"] == counted(results)
    wins = counted(results)["player_0"]
    assert game["agent_returns"]["player_0"] == (wins["win"] - wins["loss"]) / 8
    assert rows["solo"]["return_mean"] == 3.0
    assert rows["solo"]["agent_outcomes"] is None
    means = lib.query("SELECT run, return_mean FROM runs ORDER BY run")
    assert means["return_mean"].isna().tolist() == [True, False]


def test_a_run_listed_before_outcomes_were_kept_reads_with_returns_and_no_outcomes(tmp_path):
    lib = RunLibrary(tmp_path)
    played(lib, "connect_four", range(3))
    run_file = tmp_path / "connect_four" / "random" / "connect_four" / RUN_FILE
    listed = json.loads(run_file.read_text())
    for entry in listed["episodes"]:
        del entry["agent_outcomes"]
    run_file.write_text(json.dumps(listed))
    (row,) = RunLibrary(tmp_path).table()
    assert row["agent_outcomes"] is None
    assert row["return_mean"] is None
    found = RunLibrary(tmp_path).query(
        "SELECT count(outcome_player_0) AS outcomes, count(return_player_0) AS returns "
        "FROM episodes"
    )
    assert found.values.tolist() == [[0, 3]]


def test_a_summary_whose_outcome_or_players_are_not_names_is_refused():
    entry = {"file": "episode-000.rollout", "return": 0.0, "steps": 3}
    with pytest.raises(ValueError, match="'agent_outcomes' must map agent names to one of"):
        EpisodeSummary.from_json({**entry, "agent_outcomes": {"player_0": "victory"}})
    with pytest.raises(ValueError, match="'players' must map agent names to player names"):
        EpisodeSummary.from_json({**entry, "players": {"player_0": 3}})
    summary = EpisodeSummary.from_json(
        {**entry, "agent_outcomes": {"player_0": "draw"}, "players": {"player_0": "dqn"}}
    )
    assert EpisodeSummary.from_json(summary.to_json()) == summary
    assert np.isclose(summary.total_return, 0.0)


def test_games_naming_their_players_count_outcomes_by_player_not_by_seat(tmp_path):
    games = []
    for seed in range(6):  # seats swapped every game, as an arena swaps them
        seated = ("heuristic", "random") if seed % 2 == 0 else ("random", "heuristic")
        players = dict(zip(("player_0", "player_1"), seated, strict=True))
        draw = random_legal(seed)
        moves = {"heuristic": win_or_block, "random": lambda obs, draw=draw: draw(None, obs)}
        policies = {seat: moves[player] for seat, player in players.items()}
        games.append(record(connect_four(), policies, seed=seed, metadata={"players": players}))
    lib = RunLibrary(tmp_path)
    lib.add(games, algorithm="arena", run="heuristic-vs-random")
    by_hand = {name: {"win": 0, "draw": 0, "loss": 0} for name in ("heuristic", "random")}
    for game in games:
        for seat, outcome in game.outcomes.items():
            by_hand[game.metadata["players"][seat]][outcome] += 1
    (row,) = lib.table()
    assert row["agent_outcomes"] == by_hand
    assert by_hand["heuristic"]["win"] > by_hand["random"]["win"]
