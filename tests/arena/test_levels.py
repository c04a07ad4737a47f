"""``Ladder`` on real FrozenLake and MiniGrid: each (player, level) pair's episodes
recorded by record_many's worker processes into a run library, success rates and their
intervals counted from the library, the first failure found and opened, resumable."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pandas = pytest.importorskip("pandas")

from agent_widget.arena import Ladder, wilson_interval  # noqa: E402
from agent_widget.library import RunLibrary, percent_text  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

ROOT = Path(__file__).parents[2]

GOAL = 15  # the 4x4 lake's goal state
# The shortest path on the 4x4 lake (0 left, 1 down, 2 right, 3 up): down, down, right,
# down, right, right. Without slips it always arrives.
SHORTEST = {0: 1, 4: 1, 8: 2, 9: 1, 13: 2, 14: 2}
# Near the slippery lake's best policy (moves that slip sideways, never into a hole);
# against a wall from the start, it never leaves the non-slippery lake's first row.
CAREFUL = [2, 3, 3, 3, 0, 0, 0, 0, 3, 1, 0, 0, 0, 2, 1, 0]
EPISODES = 16  # careful on the slippery lake fails seeds 7 and 12 of them


def lake(**options):
    return lambda: gym.make("FrozenLake-v1", **options)


def shortest(observation):
    return SHORTEST.get(int(observation), 0)


def careful(observation):
    return CAREFUL[int(observation)]


def randomly(observation):
    """A random move: each worker process draws its own."""
    return int(np.random.default_rng().integers(4))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """The 4x4 lake without and with slips, three players, EPISODES episodes each."""
    levels = {"4x4": lake(is_slippery=False), "4x4 slippery": lake()}
    players = {"shortest": shortest, "careful": careful, "random": randomly}
    ladder = Ladder(levels, players, tmp_path_factory.mktemp("runs"))
    played = ladder.play(episodes=EPISODES, workers=1, engine="processes", progress=False)
    assert all(not recorded.failed for recorded in played.values())
    return ladder


def by_pair(table):
    return table.set_index(["player", "level"])


def test_the_shortest_path_always_arrives_at_4x4_and_random_mostly_fails(ladder):
    table = by_pair(ladder.table())
    assert len(table) == 6
    arrives = table.loc[("shortest", "4x4")]
    counts = (arrives["episodes"], arrives["successes"], arrives["success_rate"])
    assert counts == (EPISODES, EPISODES, 1.0)
    assert (arrives["lower"], arrives["upper"]) == wilson_interval(EPISODES, EPISODES)
    assert arrives["lower"] == pytest.approx(EPISODES / (EPISODES + 1.959964**2))  # n / (n + z²)
    assert pandas.isna(arrives["first_failure"])
    assert table.loc[("random", "4x4"), "success_rate"] < 0.5
    assert table.loc[("careful", "4x4"), "successes"] == 0  # stuck against the wall
    assert table.loc[("careful", "4x4 slippery"), "success_rate"] > 0.5


def test_success_rates_equal_a_count_by_hand_over_the_episodes(ladder):
    for row in ladder.table().itertuples():
        episodes = ladder.library.open(row.run)
        seeds, arrived = [], 0
        for i in range(len(episodes)):
            episode = episodes[i]
            seeds.append(episode.metadata["seed"])
            arrived += int(episode.observations[-1]) == GOAL  # standing on the goal at the end
        assert sorted(seeds) == list(range(EPISODES))
        assert (row.episodes, row.successes) == (EPISODES, arrived), row.run
        assert row.success_rate == arrived / EPISODES
        assert (row.lower, row.upper) == wilson_interval(arrived, EPISODES)


def test_the_library_keeps_each_episodes_success_for_sql(ladder):
    pytest.importorskip("duckdb")
    counted = ladder.library.query(
        "SELECT run, count(*) FILTER (WHERE success) AS successes FROM episodes GROUP BY run"
    )
    table = ladder.table().set_index("run")["successes"]
    assert counted.set_index("run")["successes"].sort_index().to_dict() == table.to_dict()


def test_the_first_failure_is_the_lowest_seed_that_failed_and_opens_at_its_end(ladder):
    first = by_pair(ladder.table()).loc[("careful", "4x4 slippery"), "first_failure"]
    results = ladder.results()
    pair = results[(results.player == "careful") & (results.level == "4x4 slippery")]
    failed_seeds = pair[~pair.success]["seed"].tolist()
    assert first == failed_seeds[0] > 0  # successes came before it
    assert len(failed_seeds) > 1  # and failures after it
    for seed in range(first):
        assert ladder.episode("careful", "4x4 slippery", seed).rewards.sum() == 1.0
    failed = ladder.episode("careful", "4x4 slippery", first)
    assert failed.metadata["seed"] == first
    assert failed.rewards.sum() == 0.0
    viewer = ladder.first_failure("careful", "4x4 slippery")
    assert f"seed {first}," in viewer.title
    assert viewer.length == failed.num_positions
    assert viewer.step == failed.num_positions - 1  # where it ended: in a hole, or timed out
    assert ladder.first_failure("shortest", "4x4") is None


def test_the_results_list_every_episode_by_seed(ladder):
    results = ladder.results()
    assert len(results) == 6 * EPISODES
    one = results[(results.player == "careful") & (results.level == "4x4 slippery")]
    assert one["seed"].tolist() == list(range(EPISODES))
    for _, row in one.iterrows():  # each row opens the episode it names
        episode = ladder.library.open(row["run"])[row["episode"]]
        assert episode.metadata["seed"] == row["seed"]
        assert episode.rewards.sum() == row["return"]
        assert row["success"] == (row["return"] > 0)


def test_the_board_shows_each_rate_with_its_interval_and_names_the_first_failure(ladder):
    board = ladder.board()
    cells = board.data
    assert list(cells.columns) == ["4x4", "4x4 slippery"]
    assert list(cells.index).index("shortest") < list(cells.index).index("careful")
    lower = percent_text(wilson_interval(EPISODES, EPISODES)[0])
    assert cells.loc["shortest", "4x4"] == f"100% ({lower}–100%), {EPISODES}/{EPISODES}"
    html = board.to_html()
    first = by_pair(ladder.table()).loc[("careful", "4x4 slippery"), "first_failure"]
    assert f"first failure: seed {first}, ladder.first_failure('careful', '4x4 slippery')" in html
    assert "no failure" in html
    assert "success rate (95% Wilson interval), successes/episodes" in html


def test_playing_again_adds_the_next_seeds_and_replays_none(tmp_path):
    ladder = Ladder({"4x4": lake(is_slippery=False)}, {"shortest": shortest}, tmp_path)
    ladder.play(episodes=3, workers=1, engine="processes", progress=False)
    again = ladder.play(episodes=4, workers=1, engine="processes", progress=False)
    assert sorted(again["shortest@4x4"].paths) == [3, 4, 5, 6]
    (run,) = ladder.library.runs()
    assert sorted(e.seed for e in run.episodes) == list(range(7))
    assert run.params == {"level": "4x4", "player": "shortest"}
    assert ladder.table()["episodes"].tolist() == [7]


def test_ctrl_c_keeps_the_episodes_played_and_stops_the_ladder(tmp_path):
    """A kernel's interrupt is a SIGINT to its process alone: the episodes added stay,
    each whole, the pairs after the one interrupted are not started, and playing again
    goes on from the seeds kept."""
    script = tmp_path / "play.py"
    script.write_text(
        f"""import sys
sys.path.insert(0, {str(ROOT)!r})
from agent_widget.arena import Ladder
from tests.arena.test_levels import careful, lake, shortest

if __name__ == "__main__":
    players = {{"shortest": shortest, "careful": careful}}
    ladder = Ladder({{"4x4": lake(is_slippery=False)}}, players, sys.argv[1])
    try:
        ladder.play(episodes=5000, workers=1, engine="processes", progress=False)
    except KeyboardInterrupt:
        sys.exit(3)
"""
    )
    library = RunLibrary(tmp_path / "runs")
    process = subprocess.Popen([sys.executable, str(script), str(library.root)])
    try:
        wait_until(lambda: sum(len(r.episodes) for r in library.runs()) >= 2, "two episodes kept")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=300) == 3
    finally:
        process.kill()
    (run,) = library.runs()  # the second player never started
    assert run.run == "shortest@4x4"
    kept = sorted(e.seed for e in run.episodes)
    assert 2 <= len(kept) < 5000
    assert all(e.success for e in run.episodes)  # each filed whole, its success kept
    players = {"shortest": shortest, "careful": careful}
    ladder = Ladder({"4x4": lake(is_slippery=False)}, players, library)
    ladder.play(episodes=2, workers=1, engine="processes", progress=False)
    seeds = {r.run: sorted(e.seed for e in r.episodes) for r in library.runs()}
    missing = [k for k in range(max(kept) + 3) if k not in kept][:2]
    assert seeds == {"shortest@4x4": sorted([*kept, *missing]), "careful@4x4": [0, 1]}


WALL = 2  # MiniGrid's object index of a wall


def follow_wall(observation):
    """Forward until a wall is ahead, then turn right: the Empty rooms' goal, in the
    corner diagonal from the start, is reached along the walls."""
    return 1 if observation["image"][3, 5, 0] == WALL else 2


def spin(observation):
    return 0  # turn left, forever


def empty_room(size):
    return lambda: gym.make(f"minigrid:MiniGrid-Empty-{size}x{size}-v0")  # imports minigrid


def test_a_minigrid_size_ladder_counts_a_positive_reward_as_success(tmp_path):
    pytest.importorskip("minigrid")
    levels = {"5x5": empty_room(5), "8x8": empty_room(8)}
    ladder = Ladder(levels, {"wall": follow_wall, "spin": spin}, tmp_path)
    ladder.play(episodes=3, workers=1, engine="processes", progress=False)
    table = by_pair(ladder.table())
    assert table["successes"].to_dict() == {
        ("wall", "5x5"): 3,
        ("spin", "5x5"): 0,
        ("wall", "8x8"): 3,
        ("spin", "8x8"): 0,
    }
    assert table.loc[("spin", "8x8"), "first_failure"] == 0
    assert ladder.table()["run"].str.startswith("MiniGrid-Empty-").all()
    results = ladder.results()
    arrived = results[results.player == "wall"]["return"]
    assert ((arrived > 0) & (arrived < 1)).all()  # MiniGrid pays less the longer it took


def test_a_ladder_refuses_games_clashing_names_and_no_episodes(tmp_path):
    pettingzoo = pytest.importorskip("pettingzoo")
    game = lambda: pettingzoo.make("aec", "classic/tictactoe-v3")  # noqa: E731
    with pytest.raises(ValueError, match="single-agent envs"):
        Ladder({"board": game}, {"a": shortest}, tmp_path)
    with pytest.raises(ValueError, match="one run name"):
        Ladder({"c": lake(), "b@c": lake()}, {"a@b": shortest, "a": shortest}, tmp_path)
    with pytest.raises(ValueError, match="at least 1"):
        Ladder({"4x4": lake()}, {"a": shortest}, tmp_path).play(episodes=0)
