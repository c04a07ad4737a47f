"""A PettingZoo game in a real JupyterLab (issue #40): the readout names the agent that
acted and each player's move, legal moves, reward and return; the timeline draws a
return line per player, named in the legend; a panel reads ``step.agent``; a turn
appended live to a game's viewer is read out as a recorded one."""

from __future__ import annotations

import pytest

from harness.charts import tallest_run
from harness.lab import Notebook

pytest.importorskip("pettingzoo")

VIEWER = 1
LIVE = 3  # the viewer of a game's first 15 turns, played on from the kernel
# The timeline's first two light extras colours (js/shared/timeline-draw.ts).
PLAYER_COLOURS = ["#8e44ad", "#16a085"]
CELLS = [
    """import numpy as np
import pettingzoo
from agent_widget import EpisodeViewer, record

game = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
leftmost = lambda agent, obs: int(np.flatnonzero(obs["action_mask"])[0])
rollout = record(game, leftmost, seed=0)
viewer = EpisodeViewer(rollout)

@viewer.panel("whose turn")
def whose_turn(step):
    return f"{step.agent} to play" if step.agent else "game over"
""",
    "viewer",
    """live_game = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
live = EpisodeViewer(record(live_game, leftmost, seed=0, max_steps=15))

def play_a_turn():
    player = live_game.agent_selection
    obs, *_ = live_game.last()
    move = leftmost(player, obs)
    present = list(live_game.agents)
    live_game.step(move)
    live.append(
        frame=live_game.render(),
        agent=player,
        agents=present,
        agent_actions={player: move},
        agent_rewards=live_game.rewards,
        action_masks={player: obs["action_mask"]},
    )
""",
    "live",
]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("agents.ipynb", CELLS, viewport={"width": 1200, "height": 1000}),
]


def readout_at(notebook: Notebook, t: int, cell: int = VIEWER) -> list[str]:
    """The readout's lines once position ``t``'s chunk (its agents) has arrived."""
    view = notebook.view(cell)
    view.slide_to(t)
    view.wait_painted(t)
    notebook.wait_for(
        "(root) => root.querySelector('.aw-readout').textContent.includes('acted')",
        view.root.element_handle(),
        what=f"the readout of position {t}'s agents",
    )
    return view.readout().splitlines()


def test_the_readout_names_who_acted_and_each_players_move(notebook):
    assert readout_at(notebook, 3)[1:4] == [
        "acted: player_1",
        "player_0: action - · reward 0 · return 0 (after action 3)",
        "player_1: action 0 · legal 0 1 2 3 4 5 6 · reward 0 · return 0 (after action 3)",
    ]
    # Both drop in the leftmost open column: after six pieces it is full.
    assert readout_at(notebook, 6)[1:3] == [
        "acted: player_0",
        "player_0: action 1 · legal 1 2 3 4 5 6 · reward 0 · return 0 (after action 6)",
    ]


def test_a_panel_reads_whose_turn_it_is(notebook):
    view = notebook.view(VIEWER)
    view.slide_to(4)
    view.wait_card("whose turn", 4, "text")
    assert view.card("whose turn").inner_text().endswith("player_0 to play")


def test_the_timeline_draws_a_return_line_per_player(notebook):
    view = notebook.view(VIEWER)
    view.slide_to(0)
    view.wait_painted(0)
    keys = view.root.locator(".aw-timeline-key")
    assert keys.filter(has_text="return[player_0]").count() == 1
    assert keys.filter(has_text="return[player_1]").count() == 1
    canvas = view.root.locator("canvas.aw-timeline")
    # Thin lines: their antialiased pixels count too. Both players' returns are 0 until
    # the win (the later line over the earlier), then part: each shows over a stretch.
    for colour in PLAYER_COLOURS:
        assert tallest_run(canvas, colour, within=40, min_alpha=64)["columns"] > 50, colour


def test_a_turn_appended_live_is_read_out_as_a_recorded_one(notebook):
    """Position 15, the last of the game's 15 turns recorded and of the first chunk the
    page holds, has no step; the turn played from there and appended gives it the
    readout the game recorded whole has there, though the chunk reaches no further."""
    view = notebook.view(LIVE)
    view.slide_to(15)
    view.wait_painted(15)
    assert "acted" not in view.readout()
    notebook.execute("play_a_turn()")
    assert readout_at(notebook, 15, LIVE)[1:4] == [
        "acted: player_1",
        "player_0: action - · reward 0 · return 0 (after action 15)",
        "player_1: action 2 · legal 2 3 4 5 6 · reward 0 · return 0 (after action 15)",
    ]
