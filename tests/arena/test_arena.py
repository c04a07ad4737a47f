"""``Arena`` on real Connect Four: round robins recorded into a run library by
record_many's worker processes, seats balanced, every game kept and openable,
resumable, and refusing games it cannot play."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
pytest.importorskip("pandas")

from agent_widget.arena import Arena  # noqa: E402
from agent_widget.library import RunLibrary  # noqa: E402
from tests.games import connect_four, win_or_block  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

ROOT = Path(__file__).parents[2]


def leftmost(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


def randomly(observation):
    """A random legal move: each worker process draws its own, so games vary."""
    return int(np.random.default_rng().choice(np.flatnonzero(observation["action_mask"])))


def test_a_pairings_games_are_kept_with_seats_balanced_and_counted_as_played(tmp_path):
    arena = Arena(connect_four, {"heuristic": win_or_block, "random": randomly}, tmp_path)
    played = arena.play(games=12, workers=2, engine="processes", progress=False)
    assert all(not recorded.failed for recorded in played.values())
    (run,) = arena.library.runs()
    assert run.id == "connect_four_v3/arena/heuristic-vs-random"
    episodes = arena.library.open(run.id)
    by_hand = {"heuristic": 0, "random": 0}
    firsts = []
    for i, summary in enumerate(run.episodes):
        game = episodes[i]  # every game opens, its players named by seat
        players = game.metadata["players"]
        assert players == summary.players
        firsts.append(players["player_0"])
        totals = np.nansum(game.agent_rewards, axis=0)
        if totals.max() > 0:
            by_hand[players[game.agents[int(totals.argmax())]]] += 1
    assert sorted(firsts) == ["heuristic"] * 6 + ["random"] * 6  # seats swapped evenly
    assert sorted(e.seed for e in run.episodes) == list(range(12))
    table = arena.ratings().set_index("player")
    assert table["wins"].to_dict() == by_hand
    assert table.loc["heuristic", "lower"] > table.loc["random", "upper"]
    wins = arena.library.query(
        "SELECT count(*) FILTER (WHERE (player_player_0 = 'heuristic' AND outcome_player_0 = "
        "'win') OR (player_player_1 = 'heuristic' AND outcome_player_1 = 'win')) FROM episodes"
    )
    assert wins.iloc[0, 0] == by_hand["heuristic"]


def test_playing_again_adds_the_next_games_and_replays_none(tmp_path):
    players = {"heuristic": win_or_block, "leftmost": leftmost, "random": randomly}
    arena = Arena(connect_four, players, tmp_path / "a")
    arena.play(games=2, workers=1, engine="processes", progress=False)
    arena.play(games=3, workers=1, engine="processes", progress=False)
    runs = {run.run: run for run in arena.library.runs()}
    assert sorted(runs) == ["heuristic-vs-leftmost", "heuristic-vs-random", "leftmost-vs-random"]
    for run in runs.values():
        assert sorted(e.seed for e in run.episodes) == [0, 1, 2, 3, 4]
    assert len(arena.results()) == 15


def test_the_pairings_given_are_played_alone(tmp_path):
    players = {"heuristic": win_or_block, "leftmost": leftmost, "random": randomly}
    arena = Arena(connect_four, players, tmp_path)
    arena.play(games=2, pairings=[("random", "heuristic")], workers=1, engine="processes")
    assert [run.run for run in arena.library.runs()] == ["heuristic-vs-random"]
    with pytest.raises(ValueError, match=r"pairing \('dqn', 'random'\): expected two of"):
        arena.play(games=2, pairings=[("dqn", "random")])


def test_the_same_game_is_played_the_same_way_again(tmp_path):
    players = {"heuristic": win_or_block, "leftmost": leftmost}
    games = []
    for library in ("a", "b"):
        arena = Arena(connect_four, players, tmp_path / library)
        arena.play(games=2, workers=1, engine="processes", progress=False)
        (run,) = arena.library.runs()
        opened = arena.library.open(run.id)
        games.append({e.seed: opened[i] for i, e in enumerate(run.episodes)})
    for seed in (0, 1):
        a, b = games[0][seed], games[1][seed]
        assert a.metadata["players"] == b.metadata["players"]
        np.testing.assert_array_equal(a.agent_actions, b.agent_actions)
    assert games[0][0].metadata["players"]["player_0"] == "heuristic"
    assert games[0][1].metadata["players"]["player_0"] == "leftmost"


def test_ctrl_c_keeps_the_games_played_and_playing_again_goes_on(tmp_path):
    """A kernel's interrupt is a SIGINT to its process alone (the workers go on with
    the game they are recording): the games already added stay, each whole."""
    script = tmp_path / "play.py"
    script.write_text(
        f"""import sys
sys.path.insert(0, {str(ROOT)!r})
from agent_widget.arena import Arena
from tests.arena.test_arena import randomly
from tests.games import connect_four, win_or_block

if __name__ == "__main__":
    arena = Arena(connect_four, {{"heuristic": win_or_block, "random": randomly}}, sys.argv[1])
    try:
        arena.play(games=400, workers=1, engine="processes", progress=False)
    except KeyboardInterrupt:
        sys.exit(3)
"""
    )
    library = RunLibrary(tmp_path / "runs")
    process = subprocess.Popen([sys.executable, str(script), str(library.root)])
    try:
        wait_until(lambda: sum(len(r.episodes) for r in library.runs()) >= 2, "two games kept")
        process.send_signal(signal.SIGINT)
        before = sum(len(r.episodes) for r in library.runs())
        assert process.wait(timeout=300) == 3
    finally:
        process.kill()
    (run,) = library.runs()
    kept = sorted(e.seed for e in run.episodes)
    # The games the pool had handed its worker (the one being recorded and the few it
    # queues ahead, each a fraction of a second) finish; the ~200 others are dropped.
    assert before <= len(kept) <= before + 10
    assert all(seed % 2 == 0 for seed in kept)  # the first seating's games, in order
    opened = library.open(run.id)
    assert all(opened[i].outcomes is not None for i in range(len(kept)))  # each game whole
    arena = Arena(connect_four, {"heuristic": win_or_block, "random": randomly}, library)
    arena.play(games=2, workers=1, engine="processes", progress=False)
    (run,) = library.runs()
    assert sorted(e.seed for e in run.episodes) == sorted([*kept, 1, 3])


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda: gym.make("CartPole-v1"), "made TimeLimit, not a PettingZoo env"),
        (
            lambda: pettingzoo.make("parallel", "butterfly/pistonball-v6", n_pistons=3),
            r"made a Parallel PettingZoo env of agents \['piston_0', 'piston_1', 'piston_2'\]",
        ),
    ],
    ids=["gymnasium", "parallel"],
)
def test_an_env_that_is_not_a_two_player_aec_game_is_refused(tmp_path, make, what):
    with pytest.raises(ValueError, match="the arena plays two-player PettingZoo AEC games") as e:
        Arena(make, {"a": leftmost, "b": leftmost}, tmp_path)
    assert e.match(what)


def test_one_player_is_not_a_tournament(tmp_path):
    with pytest.raises(ValueError, match="at least two players"):
        Arena(connect_four, {"alone": leftmost}, tmp_path)
