"""Bradley–Terry ratings from a plain table of games: the order known strengths give,
draws as half-wins, an undefeated player's finite rating, the head-to-head table."""

from __future__ import annotations

import numpy as np
import pytest

pandas = pytest.importorskip("pandas")

from agent_widget.arena import ratings, win_rates  # noqa: E402


def games(first, second, outcome, times=1):
    return [{"first": first, "second": second, "outcome": outcome}] * times


def simulated(strengths, per_pair, seed=0):
    """A round robin of players whose Bradley–Terry strengths are ``strengths``, half of
    each pairing's games from each seat."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, si in enumerate(strengths):
        for j, sj in enumerate(strengths):
            if i != j:  # each ordered pair: i first, half the pairing's games
                won = rng.random(per_pair // 2) < 1 / (1 + np.exp(sj - si))
                rows += [(f"p{i}", f"p{j}", "win" if w else "loss") for w in won]
    return pandas.DataFrame(rows, columns=["first", "second", "outcome"])


def test_players_of_known_strengths_are_ranked_in_their_order():
    strengths = [-1.5, -0.5, 0.0, 0.7, 1.6]
    table = ratings(simulated(strengths, per_pair=200))
    assert table["player"].tolist() == ["p4", "p3", "p2", "p1", "p0"]
    truth = 1000 + (np.array(strengths) - np.mean(strengths)) * 400 / np.log(10)
    found = table.set_index("player").loc[[f"p{i}" for i in range(5)]]
    assert (found["lower"].to_numpy() <= found["rating"].to_numpy()).all()
    assert (found["rating"].to_numpy() <= found["upper"].to_numpy()).all()
    np.testing.assert_allclose(found["rating"], truth, atol=60)  # 60 Elo: 0.35 log-odds
    assert found["rating"].mean() == pytest.approx(1000)


def test_the_table_counts_each_players_games_wins_draws_and_losses_from_either_seat():
    results = games("a", "b", "win", 3) + games("b", "a", "draw", 2) + games("c", "a", 1.0)
    table = ratings(results).set_index("player")
    assert table.loc["a", ["games", "wins", "draws", "losses"]].tolist() == [6, 3, 2, 1]
    assert table.loc["b", ["games", "wins", "draws", "losses"]].tolist() == [5, 0, 2, 3]
    assert table.loc["c", ["games", "wins", "draws", "losses"]].tolist() == [1, 1, 0, 0]
    assert list(ratings(results).columns) == [
        *("player", "rating", "lower", "upper"),
        *("games", "wins", "draws", "losses"),
    ]


def test_a_draw_counts_as_half_a_win():
    drawn = ratings(games("a", "b", "draw", 4) + games("a", "c", "win", 4))
    split = ratings(
        games("a", "b", "win", 2) + games("a", "b", "loss", 2) + games("a", "c", "win", 4)
    )
    np.testing.assert_allclose(drawn["rating"], split["rating"])


def test_an_undefeated_player_has_a_finite_rating_and_interval_above_the_rest():
    table = ratings(games("a", "b", "win", 10) + games("b", "c", "win", 5) + games("c", "b", 0.5))
    assert np.isfinite(table[["rating", "lower", "upper"]].to_numpy()).all()
    assert table["player"].tolist() == ["a", "b", "c"]
    assert table.loc[0, "lower"] > table.loc[2, "upper"]
    assert (table["upper"] - table["lower"] > 100).all()  # every resample alike: not a point


def test_the_same_seed_gives_the_same_interval():
    results = simulated([0.0, 0.5, 1.0], per_pair=10)
    np.testing.assert_array_equal(ratings(results, seed=3), ratings(results, seed=3))
    assert not ratings(results, seed=3).equals(ratings(results, seed=4))


def test_win_rates_hold_each_rows_score_against_each_column():
    results = games("a", "b", "win", 3) + games("b", "a", "draw", 2) + games("a", "c", "loss")
    rates = win_rates(results)
    assert rates.loc["a", "b"] == pytest.approx((3 + 1) / 5)
    assert rates.loc["b", "a"] == pytest.approx(1 / 5)
    assert rates.loc["c", "a"] == 1.0
    assert np.isnan(rates.loc["b", "c"])
    assert np.isnan(np.diag(rates.to_numpy())).all()


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([{"first": "a", "outcome": "win"}], "result 0: expected the columns first, second"),
        (games("a", "b", "won"), "result 0: outcome 'won' is none of 'win', 'draw', 'loss'"),
        (games("a", "b", "win") + games("a", "a", "draw"), "result 1: 'a' played itself"),
    ],
)
def test_a_result_that_is_not_a_game_between_two_is_refused_by_its_row(results, message):
    with pytest.raises(ValueError, match=message):
        ratings(results)
