"""A PettingZoo episode in the viewer: one return line per agent on the timeline, the
readout per agent in each chunk reply, and ``step.agent`` for panels."""

from __future__ import annotations

import json
import zlib

import imageio.v3 as iio
import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")

from agent_widget import CompareViewer, Step, load, record  # noqa: E402
from agent_widget.viewer import EpisodeViewer  # noqa: E402
from agent_widget.viewer._agents import MAX_AGENT_LINES  # noqa: E402
from agent_widget.viewer._saved_copy import readout_lines  # noqa: E402
from agent_widget.viewer._transport import chunk_reply, unpack_series  # noqa: E402
from tests.beacon import beacon_aec, guide  # noqa: E402


def legal_first(agent, obs):
    return int(np.flatnonzero(obs["action_mask"])[0])


@pytest.fixture(scope="module")
def game():
    """Connect Four, each player dropping in the leftmost open column: player_0 wins."""
    env = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
    return record(env, legal_first, seed=0)


def agent_readout(viewer, chunk):
    _, buffers = chunk_reply({"id": 1, "chunks": [chunk]}, viewer._episode)
    return json.loads(zlib.decompress(bytes(buffers[-1])))["agents"]


def test_the_timeline_has_one_return_line_per_agent(game):
    viewer = EpisodeViewer(game)
    for i, agent in enumerate(game.agents):
        line = unpack_series(viewer.series[f"extra:return[{agent}]"])
        np.testing.assert_array_equal(line, np.nancumsum(game.agent_rewards[:, i]))
    assert line[-1] == game.agent_returns[-1, 1]


def test_each_position_says_who_acted_and_each_agents_action_reward_and_return(game):
    viewer = EpisodeViewer(game)
    rows = agent_readout(viewer, 0) + agent_readout(viewer, 1)
    assert len(rows) == game.num_positions
    everywhere = "0 1 2 3 4 5 6"  # the board is empty: every column is legal
    assert rows[0] == {
        "acting": "player_0",
        "agents": [["player_0", "0", 0, 0, everywhere], ["player_1", "", 0, 0, ""]],
    }
    assert [row["acting"] for row in rows[:-1]] == game.acting_agent.tolist()
    win = int(np.flatnonzero(np.nan_to_num(game.agent_rewards[:, 0]) == 1)[0])
    assert rows[win]["acting"] == "player_0"
    assert rows[win]["agents"][0][2:4] == [1, 1]
    assert rows[win]["agents"][1][2:4] == [-1, -1]
    assert rows[-1] == {"acting": None, "agents": []}  # the last position: no step


def test_a_panel_sees_whose_turn_it_is_and_each_agents_observation(game):
    viewer = EpisodeViewer(game)
    step = Step(viewer._episode, 1)
    assert step.agent == "player_1"
    assert step.obs["player_1/action_mask"].tolist() == [1] * 7
    assert Step(viewer._episode, game.num_positions - 1).agent is None
    assert Step(game, 0).agent == "player_0"


def test_many_agents_draw_no_line_each():
    env = pettingzoo.make(
        "parallel", "butterfly/pistonball-v6", max_cycles=4, render_mode="rgb_array"
    )
    rollout = record(env, lambda agent, obs: np.zeros(1, np.float32), seed=0)
    assert len(rollout.agents) > MAX_AGENT_LINES
    viewer = EpisodeViewer(rollout)
    assert not any(name.startswith("extra:return[") for name in viewer.series)
    (first, *_) = agent_readout(viewer, 0)
    assert first["acting"] is None
    assert [row[:2] for row in first["agents"][:2]] == [["piston_0", "[0]"], ["piston_1", "[0]"]]


def test_two_agents_of_one_game_side_by_side(game):
    compare = CompareViewer({agent: game.for_agent(agent) for agent in game.agents})
    first, second = compare.viewers
    assert first.length == second.length == game.num_positions
    wins = unpack_series(first.series["rewards"]), unpack_series(second.series["rewards"])
    assert wins[0].max() == 1
    assert wins[1].min() == -1


def test_a_saved_picture_and_a_video_read_out_each_agent(game, tmp_path):
    viewer = EpisodeViewer(game)
    lines = readout_lines(viewer._episode, 1)
    assert lines[1:4] == [
        "acted: player_1",
        "player_0: action - · reward 0 · return 0",
        "player_1: action 0 · legal 0 1 2 3 4 5 6 · reward 0 · return 0",
    ]
    path = viewer.save_video(tmp_path / "game.mp4", readout=True, progress=False)
    frames = iio.imread(path, plugin="FFMPEG")
    assert len(frames) == game.num_positions


def test_a_range_of_a_game_keeps_each_agents_columns(game):
    """What to_html(start, stop) and save_video(start, stop) export: the range's own
    per-agent rewards, returns and readout, not a one-agent episode."""
    start, stop = 4, 11
    section = EpisodeViewer(game)._episode.section(start, stop)
    steps = slice(start, stop)

    assert section.acting_agent.tolist() == game.acting_agent[steps].tolist()
    rows = section.agent_readout(range(stop - start))
    whole = EpisodeViewer(game)._episode.agent_readout(range(start, stop))
    # Who acted and how, each agent's action and legal moves, as in the whole game
    # (rewards and returns count from the range's start).
    assert [row["acting"] for row in rows] == [row["acting"] for row in whole]
    assert [[a[:2] + a[4:] for a in row["agents"]] for row in rows] == [
        [a[:2] + a[4:] for a in row["agents"]] for row in whole
    ]
    for i, agent in enumerate(game.agents):
        line = section.series()[f"extra:return[{agent}]"]
        expected = np.nancumsum(game.agent_rewards[steps, i])
        np.testing.assert_array_equal(unpack_series(line), expected)


def test_the_readout_shows_each_agents_action_in_its_own_shape(tmp_path):
    """Beacon (its speaker's actions Discrete, its listener's a Box of shape (2,)),
    recorded and read back from its file: the acting agent's action as it took it."""
    recorded = record(beacon_aec(), guide(0), seed=0)
    rollout = load(recorded.save(tmp_path / "beacon.rollout"))
    viewer = EpisodeViewer(rollout)
    rows = agent_readout(viewer, 0)
    word, (x, y) = rollout.agent_action("speaker")[2], rollout.agent_action("listener")[3]
    assert [row["acting"] for row in rows[2:4]] == ["speaker", "listener"]
    assert [a[:2] for a in rows[2]["agents"]] == [["speaker", str(word)], ["listener", ""]]
    assert [a[:2] for a in rows[3]["agents"]] == [
        ["speaker", ""],
        ["listener", f"[{x:.4g}, {y:.4g}]"],
    ]
    acted, speaker, listener = readout_lines(viewer._episode, 3)[1:4]
    assert acted == "acted: listener"
    assert speaker.startswith("speaker: action - · reward ")
    assert listener.startswith(f"listener: action [{x:.4g}, {y:.4g}] · reward ")
    side = rollout.for_agent("listener")
    np.testing.assert_array_equal(side.actions, rollout.agent_action("listener"))
