"""A PettingZoo episode in the viewer: one return line per agent on the timeline, the
readout per agent in each chunk reply, and ``step.agent`` for panels."""

from __future__ import annotations

import dataclasses
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
from tests.beacon import Beacon, beacon_aec, guide  # noqa: E402


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
        "player_0: action - · reward 0 · return 0 (after action 1)",
        "player_1: action 0 · legal 0 1 2 3 4 5 6 · reward 0 · return 0 (after action 1)",
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


WORDS = ["left", "top", "right"]  # Beacon's landmarks, the speaker's three words


def actions_read_out(viewer, t):
    """Position ``t``'s readout as (agent, action text) pairs."""
    chunk, i = divmod(t, 16)
    return [tuple(agent[:2]) for agent in agent_readout(viewer, chunk)[i]["agents"]]


@pytest.fixture(scope="module")
def beacon(tmp_path_factory):
    """Beacon turn by turn, read back from its file."""
    path = tmp_path_factory.mktemp("beacon") / "beacon.rollout"
    return load(record(beacon_aec(), guide(0), seed=0).save(path))


def test_names_that_fit_the_speakers_space_name_its_words_alone(beacon):
    word, (x, y) = beacon.agent_action("speaker")[2], beacon.agent_action("listener")[3]
    viewer = EpisodeViewer(beacon, action_names=WORDS)
    assert actions_read_out(viewer, 2) == [("speaker", f"{word} ({WORDS[word]})"), ("listener", "")]
    assert actions_read_out(viewer, 3) == [("speaker", ""), ("listener", f"[{x:.4g}, {y:.4g}]")]
    assert readout_lines(viewer._episode, 2)[2].startswith(
        f"speaker: action {word} ({WORDS[word]}) · reward "
    )


def test_names_that_fit_no_agents_space_name_nothing(beacon):
    """Four names fit neither the speaker's Discrete(3) nor the listener's Box."""
    word = beacon.agent_action("speaker")[2]
    viewer = EpisodeViewer(beacon, action_names=[*WORDS, "nowhere"])
    assert actions_read_out(viewer, 2) == [("speaker", str(word)), ("listener", "")]


def test_names_by_agent_name_each_agents_own_and_are_kept_with_the_episode(tmp_path):
    """A dict of names by agent, given to the viewer or kept in the recording's
    metadata (``agent_action_names``, saved with the file)."""
    names = {"speaker": WORDS}
    recorded = record(beacon_aec(), guide(0), seed=0, metadata={"agent_action_names": names})
    rollout = load(recorded.save(tmp_path / "named.rollout"))
    word = rollout.agent_action("speaker")[2]
    for viewer in (EpisodeViewer(rollout), EpisodeViewer(recorded, action_names=names)):
        assert actions_read_out(viewer, 2)[0] == ("speaker", f"{word} ({WORDS[word]})")
        assert viewer.action_names == []  # the one-agent list: none
    speaker = EpisodeViewer(rollout.for_agent("speaker"))  # its own, as one agent's
    assert speaker.action_names == WORDS
    assert EpisodeViewer(rollout.for_agent("listener")).action_names == []


def test_names_by_agent_for_a_box_agent_name_its_actions_components(beacon):
    """The listener moves by a Box of shape (2,): two names name its two components."""
    x, y = beacon.agent_action("listener")[3]
    viewer = EpisodeViewer(beacon, action_names={"listener": ["dx", "dy"]})
    assert actions_read_out(viewer, 3)[1] == ("listener", f"[dx {x:.4g}, dy {y:.4g}]")


def test_knights_archers_zombies_reads_each_agents_action_out_by_name():
    env = pettingzoo.make("parallel", "butterfly/knights_archers_zombies-v11", max_cycles=20)
    rng = np.random.default_rng(0)
    rollout = record(env, lambda agent, obs: int(rng.integers(6)), seed=0, max_steps=3)
    names = ["FORWARD", "BACKWARD", "TURN CCW", "TURN CW", "ATTACK", "NONE"]
    taken = [int(rollout.agent_action(agent)[1]) for agent in rollout.agents]
    assert actions_read_out(EpisodeViewer(rollout), 1) == [
        (agent, f"{a} ({names[a]})") for agent, a in zip(rollout.agents, taken, strict=True)
    ]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"speeker": WORDS}, r"agent\(s\) \['speeker'\] .*its agents: \['speaker', 'listener'\]"),
        ({"speaker": "left"}, r"a list of strings or a dict of them by agent, got 'left'"),
    ],
    ids=["unknown agent", "not a list"],
)
def test_names_by_agent_that_cannot_name_are_refused(beacon, names, message):
    with pytest.raises(ValueError, match=message):
        EpisodeViewer(beacon, action_names=names)


def test_names_of_a_space_the_agents_share_name_every_agents_action(game):
    columns = [f"column {c}" for c in range(7)]
    viewer = EpisodeViewer(game, action_names=columns)
    first, second = (int(game.agent_action(a)[t]) for a, t in (("player_0", 0), ("player_1", 1)))
    assert actions_read_out(viewer, 0)[0] == ("player_0", f"{first} (column {first})")
    assert actions_read_out(viewer, 1)[1] == ("player_1", f"{second} (column {second})")


def test_a_file_saved_before_spaces_were_kept_apart_names_as_it_did(beacon, tmp_path):
    """Its metadata gives the speaker's space as the episode's, none per agent: one list
    names every agent's actions, as the viewer did then."""
    old = {k: v for k, v in beacon.metadata.items() if k != "agent_action_spaces"}
    old["action_space"] = {"type": "Discrete", "n": 3, "start": 0}
    path = dataclasses.replace(beacon, metadata=old).save(tmp_path / "old.rollout")
    viewer = EpisodeViewer(load(path), action_names=[*WORDS, "nowhere"])
    word = beacon.agent_action("speaker")[2]
    assert actions_read_out(viewer, 2)[0] == ("speaker", f"{word} ({WORDS[word]})")


# ------------------------------------------------------------- steps appended live


def connect_four():
    return pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")


def play_a_turn(viewer, env):
    """One turn of ``env``'s game, played as a notebook's loop would and appended to
    ``viewer`` with the values ``record()`` keeps."""
    player = env.agent_selection
    obs, _, terminated, truncated, _ = env.last()
    leaving = terminated or truncated  # PettingZoo's step of None
    move = None if leaving else legal_first(player, obs)
    present = list(env.agents)
    env.step(move)
    viewer.append(
        frame=env.render(),
        agent=player,
        agents=present,
        agent_actions={} if leaving else {player: move},
        agent_rewards=env.rewards,
        agent_terminated=env.terminations,
        agent_truncated=env.truncations,
        action_masks={} if leaving else {player: obs["action_mask"]},
    )


def pushed(sent):
    """The readout per agent of each position the widget's last push carries, by
    position."""
    _, buffers = sent[-1]
    index = json.loads(zlib.decompress(bytes(buffers[-1])))
    chunks = zip(index["chunks"], index["counts"], strict=True)
    positions = [16 * k + i for k, n in chunks for i in range(n)]
    return dict(zip(positions, index["agents"], strict=True))


def test_turns_appended_live_are_read_out_as_recorded_ones(monkeypatch):
    """A game recorded for 6 turns, then played on turn by turn into its viewer: each
    turn's readout, pushed as it is appended, and its return lines are those of the
    game recorded whole."""
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    env = connect_four()
    viewer = EpisodeViewer(record(env, legal_first, seed=0, max_steps=6))
    sent = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    whole = record(connect_four(), legal_first, seed=0)
    recorded = EpisodeViewer(whole)._episode.agent_readout(range(whole.num_positions))
    for t in range(6, whole.num_steps):
        play_a_turn(viewer, env)
        assert viewer.length == t + 2
        assert pushed(sent)[t] == recorded[t], t
    assert viewer._episode.acting_agent.tolist() == whole.acting_agent.tolist()
    assert agent_readout(viewer, 0) + agent_readout(viewer, 1) == recorded
    for i, agent in enumerate(whole.agents):
        line = unpack_series(viewer.series[f"extra:return[{agent}]"])
        np.testing.assert_array_equal(line, np.nancumsum(whole.agent_rewards[:, i]))
    assert unpack_series(viewer.series["rewards"]).tolist() == whole.rewards.tolist()


def test_a_step_of_actions_of_different_shapes_appended_live_is_read_out():
    """Beacon's speaker (a word) and listener (a move of two numbers), a Parallel step
    appended to the viewer of its first steps."""
    first = record(Beacon(), guide(0), seed=0, max_steps=2)
    viewer = EpisodeViewer(first)
    viewer.append(
        frame=np.zeros((32, 32, 3), np.uint8),
        agent_actions={"speaker": 2, "listener": np.array([0.5, -0.25], np.float32)},
        agent_rewards={"speaker": -1.5, "listener": -1.5},
    )
    (row,) = viewer._episode.agent_readout([2])
    speaker, listener = np.nansum(first.agent_rewards, axis=0) - 1.5  # returns after it
    assert row == {
        "acting": None,
        "agents": [
            ["speaker", "2", -1.5, speaker, ""],
            ["listener", "[0.5, -0.25]", -1.5, listener, ""],
        ],
    }
    assert unpack_series(viewer.series["rewards"])[-1] == -3.0


def test_a_step_without_each_agents_values_is_refused_and_changes_nothing():
    viewer = EpisodeViewer(record(connect_four(), legal_first, seed=0, max_steps=4))
    with pytest.raises(
        ValueError,
        match=r"step 5: this viewer shows agents \['player_0', 'player_1'\]; the step's "
        r"agents are none",
    ):
        viewer.append(frame=np.zeros((4, 4, 3), np.uint8), action=0)
    with pytest.raises(ValueError, match=r"step 5: the env reports agent 'ghost'"):
        viewer.append(agent="ghost", agent_actions={"ghost": 1})
    assert viewer.length == 5
    assert viewer._episode.agent_columns.arrays["rewards"].shape == (4, 2)
    single = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)])
    with pytest.raises(ValueError, match="this viewer shows one agent"):
        single.append(frame=np.zeros((4, 4, 3), np.uint8), agent_rewards={"a": 1.0})
