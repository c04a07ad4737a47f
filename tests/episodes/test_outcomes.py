"""Who won: ``Rollout.outcomes`` of real PettingZoo games against the result PettingZoo
itself reports, and the games that have no winner."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from agent_widget import Rollout, record
from tests.games import bare_game, connect_four, random_legal, tictactoe

_BY_SIGN = {1: "win", 0: "draw", -1: "loss"}


@pytest.mark.parametrize("make", [connect_four, tictactoe])
def test_each_players_outcome_is_the_result_pettingzoo_reports(make):
    seen = set()
    for seed in range(12):
        rollout = record(make(), random_legal(seed), seed=seed)
        _, result = bare_game(make, random_legal(seed), seed)
        expected = {agent: _BY_SIGN[int(np.sign(r))] for agent, r in result.items()}
        assert rollout.outcomes == expected
        seen.update(expected.values())
    assert seen >= {"win", "loss"}


def test_a_tic_tac_toe_draw_is_a_draw_for_both():
    draws = [
        seed
        for seed in range(40)
        if set(bare_game(tictactoe, random_legal(seed), seed)[1].values()) == {0.0}
    ]
    assert draws, "some random game of the first 40 is a draw"
    rollout = record(tictactoe(), random_legal(draws[0]), seed=draws[0])
    assert rollout.outcomes == {"player_1": "draw", "player_2": "draw"}


@pytest.mark.parametrize("make", [connect_four, tictactoe])
def test_the_winning_moves_step_has_both_players_terminated_as_pettingzoo_says(make):
    for seed in range(6):
        rollout = record(make(), random_legal(seed), seed=seed)
        ended_at, result = bare_game(make, random_legal(seed), seed)
        assert rollout.agent_terminated[ended_at].all()
        assert not rollout.agent_terminated[:ended_at].any()
        np.testing.assert_array_equal(
            rollout.agent_rewards[ended_at], [result[a] for a in rollout.agents]
        )
        assert rollout.agent_acted[ended_at].any()  # a move, not a leaving step


def test_a_game_cut_short_has_no_winner():
    assert record(connect_four(), random_legal(0), seed=0, max_steps=5).outcomes is None


def test_a_game_whose_returns_do_not_cancel_has_no_winner():
    """A cooperative game's agents score together: their returns are what says how
    they did, not a win for each."""
    from tests.beacon import beacon_aec, guide

    rollout = record(beacon_aec(), guide(0), seed=0)
    assert np.nansum(rollout.agent_rewards) != 0
    assert rollout.outcomes is None


def test_one_agents_episode_has_no_outcomes():
    assert Rollout.from_arrays(rewards=[1.0, -1.0]).outcomes is None
