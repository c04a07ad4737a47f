"""A run of games in the live leaderboard (a real JupyterLab): no summed return for a
zero-sum game, and each player's wins, draws and losses in a column of its own, as
the games recorded here (the same seeds and players) end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent_widget import record
from harness.lab import Notebook
from tests.games import connect_four, win_or_block

ROOT = Path(__file__).parents[2]
SEEDS = range(4)

CELLS = [
    f"""import sys, tempfile
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
from agent_widget import record
from agent_widget.library import RunLibrary
from tests.games import connect_four, win_or_block

def leftmost(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])

def games(seats):
    return [record(connect_four(), seats, seed=s) for s in {list(SEEDS)!r}]

lib = RunLibrary(tempfile.mkdtemp())
first, second = [win_or_block, leftmost], [leftmost, win_or_block]
lib.add(games(dict(zip(["player_0", "player_1"], first))), algorithm="heuristic", run="first")
lib.add(games(dict(zip(["player_0", "player_1"], second))), algorithm="heuristic", run="second")
board = lib.leaderboard()""",
    "board",
]

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("game_outcomes.ipynb", CELLS)]


def leftmost(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


def expected_counts(seats) -> dict[str, str]:
    """Each player's ``W–D–L`` over the games, as PettingZoo's rewards end them."""
    counts = {"player_0": [0, 0, 0], "player_1": [0, 0, 0]}
    for seed in SEEDS:
        game = record(connect_four(), seats, seed=seed)
        for agent, total in zip(game.agents, np.nansum(game.agent_rewards, axis=0), strict=True):
            counts[agent][0 if total > 0 else 2 if total < 0 else 1] += 1
    return {agent: "–".join(map(str, c)) for agent, c in counts.items()}


def test_a_zero_sum_run_shows_each_players_wins_draws_and_losses_and_no_summed_return(
    notebook: Notebook,
):
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".aw-leaderboard")
    root.wait_for(timeout=30_000)
    head = root.locator("thead th").all_text_contents()
    return_column = next(i for i, h in enumerate(head) if h.startswith("return (mean"))
    played = [head.index(f"W–D–L · {agent}") for agent in ("player_0", "player_1")]
    rows = {
        row[head.index("run")]: row
        for row in root.locator("tbody tr").evaluate_all(
            "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))"
        )
        if len(row) > 1
    }
    for run, seats in (
        ("first", {"player_0": win_or_block, "player_1": leftmost}),
        ("second", {"player_0": leftmost, "player_1": win_or_block}),
    ):
        counts = expected_counts(seats)
        assert [rows[run][i] for i in played] == [counts["player_0"], counts["player_1"]]
        assert rows[run][return_column] == "-"
