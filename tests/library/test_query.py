"""RunLibrary.query on a folder: results against numpy over the same rollouts, the
tables kept in step with adds and removals, built for a library that has none, the
engine's refusals, and a broken episode left out."""

from __future__ import annotations

import linecache
import os
import shutil
import signal
import sys
import threading
import warnings

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import Rollout, RunLibrary, record
from agent_widget.library._query import QueryError
from agent_widget.library._tables import TABLES
from tests.cartpole import balance, cartpole, lean, with_angle
from tests.waiting import wait_until

pytest.importorskip("duckdb")


def lake_policy(obs):
    """Walk FrozenLake by the state's number; the extras give made-up q-values whose top
    two are close in every third state."""
    q = np.array([obs % 5, 1.0, 2.0, 2.0 + (0.005 if obs % 3 == 0 else 0.5)])
    return int(obs % 4), {"q": q.astype(np.float32)}


def lake_episodes(seeds, **metadata):
    env = gym.make("FrozenLake-v1", map_name="4x4", is_slippery=True)
    return [record(env, lake_policy, seed=s, metadata=metadata) for s in seeds]


@pytest.fixture(scope="module")
def recorded():
    """Two CartPole runs (one with the pole's angle as an extra) and a FrozenLake run
    (infos with ``prob``, a q-value series, a training step), as the library holds them."""
    return {
        "CartPole-v1/lean/a": [record(cartpole(None), with_angle(lean), seed=s) for s in range(4)],
        "CartPole-v1/balance/b": [
            record(cartpole(None), balance, seed=s, max_steps=60) for s in range(3)
        ],
        "FrozenLake-v1/walk/c": lake_episodes(range(5), training_step=1000),
    }


@pytest.fixture
def lib(tmp_path, recorded):
    lib = RunLibrary(tmp_path / "runs")
    for run_id, episodes in recorded.items():
        env_id, algorithm, run = run_id.split("/")
        lib.add(episodes, env_id=env_id, algorithm=algorithm, run=run)
    return lib


def everything(recorded):
    """(run, episode, t) of every step, in order."""
    return [
        (run, i, t)
        for run, episodes in recorded.items()
        for i, rollout in enumerate(episodes)
        for t in range(rollout.num_steps)
    ]


def pairs(frame):
    return [tuple(row) for row in frame.itertuples(index=False)]


# ------------------------------------------------------------------ results against numpy


def test_counts_and_sums_per_episode_are_numpys(lib, recorded):
    found = lib.query(
        "SELECT run, episode, count(*) AS n, sum(reward) AS total, max(return_to_go) AS first "
        "FROM steps GROUP BY run, episode ORDER BY run, episode"
    )
    expected = sorted(
        (run, i, r.num_steps, float(np.sum(r.rewards)), float(np.sum(r.rewards)))
        for run, episodes in recorded.items()
        for i, r in enumerate(episodes)
    )
    assert pairs(found) == expected


def test_every_step_is_a_row_with_the_rollouts_columns(lib, recorded):
    steps = lib.query("SELECT * FROM steps ORDER BY run, episode, t")
    assert [tuple(r) for r in steps[["run", "episode", "t"]].itertuples(index=False)] == sorted(
        everything(recorded)
    )
    lean_steps = steps[steps.run == "CartPole-v1/lean/a"]
    rollouts = recorded["CartPole-v1/lean/a"]
    assert np.array_equal(lean_steps.action, np.concatenate([r.actions for r in rollouts]))
    assert np.allclose(lean_steps.angle, np.concatenate([r.extras["angle"] for r in rollouts]))
    assert list(lean_steps.action_name) == [["LEFT", "RIGHT"][a] for a in lean_steps.action]
    assert np.array_equal(lean_steps.terminated, np.concatenate([r.terminated for r in rollouts]))
    # return so far + return to go is the episode's return, at every step
    assert np.allclose(
        steps.return_so_far + steps.return_to_go,
        steps.groupby(["run", "episode"]).reward.transform("sum"),
    )
    # an extra another run lacks is NULL there
    assert steps[steps.run != "CartPole-v1/lean/a"].angle.isna().all()


def test_a_filter_finds_the_steps_numpy_finds(lib, recorded):
    found = lib.query(
        "SELECT episode, t FROM steps WHERE run = 'CartPole-v1/lean/a' AND angle > 0.05 "
        "ORDER BY episode, t"
    )
    expected = [
        (i, int(t))
        for i, r in enumerate(recorded["CartPole-v1/lean/a"])
        for t in np.flatnonzero(r.extras["angle"] > 0.05)
    ]
    assert expected
    assert pairs(found) == expected


def test_infos_the_step_returned_are_columns(lib, recorded):
    """FrozenLake's info says the transition's probability: position t + 1's, with step t."""
    found = lib.query(
        "SELECT episode, t, prob FROM steps WHERE run = 'FrozenLake-v1/walk/c' ORDER BY 1, 2"
    )
    expected = [
        info["prob"] for r in recorded["FrozenLake-v1/walk/c"] for info in list(r.infos)[1:]
    ]
    assert np.allclose(found.prob, expected)
    assert lib.query("SELECT count(prob) FROM steps WHERE env_id = 'CartPole-v1'").iloc[0, 0] == 0


def test_a_series_extra_is_a_list_the_top_two_q_values_query_reads(lib, recorded):
    found = lib.query(
        "SELECT episode, t FROM steps WHERE len(q) = 4 AND "
        "list_sort(q, 'DESC')[1] - list_sort(q, 'DESC')[2] < 0.01 ORDER BY episode, t"
    )
    expected = []
    for i, r in enumerate(recorded["FrozenLake-v1/walk/c"]):
        top = np.sort(r.extras["q"].astype(np.float64), axis=1)[:, ::-1]
        expected += [(i, int(t)) for t in np.flatnonzero(top[:, 0] - top[:, 1] < 0.01)]
    assert expected
    assert pairs(found) == expected


def test_episodes_and_runs_tables(lib, recorded):
    episodes = lib.query("SELECT * FROM episodes ORDER BY run, episode")
    expected = sorted(
        (run, i, r.num_steps, float(np.sum(r.rewards)), r.metadata.get("seed"))
        for run, rs in recorded.items()
        for i, r in enumerate(rs)
    )
    assert pairs(episodes[["run", "episode", "length", "return", "seed"]]) == expected
    walk = episodes[episodes.run == "FrozenLake-v1/walk/c"]
    assert list(walk.training_step) == [1000] * 5
    assert episodes[episodes.run != "FrozenLake-v1/walk/c"].training_step.isna().all()
    assert all(file.endswith(".rollout") for file in episodes.file)
    runs = lib.query("SELECT id, episodes, return_mean, steps FROM runs ORDER BY id")
    table = sorted(lib.table(), key=lambda row: row["id"])
    assert pairs(runs) == [(r["id"], r["episodes"], r["return_mean"], r["steps"]) for r in table]


# ------------------------------------------------------------------ tables kept in step


def test_added_episodes_are_in_the_next_query_and_a_removed_run_is_not(lib, recorded):
    lib.add(lake_episodes([7]), env_id="FrozenLake-v1", algorithm="walk", run="c")
    count = lib.query("SELECT count(*) FROM steps WHERE run = 'FrozenLake-v1/walk/c'").iloc[0, 0]
    lake = recorded["FrozenLake-v1/walk/c"] + lake_episodes([7])
    assert count == sum(r.num_steps for r in lake)
    shutil.rmtree(lib.root / "CartPole-v1" / "balance")
    runs = lib.query("SELECT DISTINCT run FROM steps ORDER BY run")
    assert list(runs.run) == ["CartPole-v1/lean/a", "FrozenLake-v1/walk/c"]


def test_the_tables_are_invisible_to_the_librarys_listing(lib):
    assert (lib.root / TABLES).is_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(lib.runs()) == 3
    assert lib.errors == []


def test_a_library_without_tables_gets_them_built_once_by_the_first_query(lib, recorded, capsys):
    shutil.rmtree(lib.root / TABLES)
    fresh = RunLibrary(lib.root)
    total = fresh.query("SELECT count(*) FROM steps").iloc[0, 0]
    assert total == len(everything(recorded))
    assert "step tables" in capsys.readouterr().err  # the progress bar
    segments = sorted((lib.root / TABLES).rglob("*.parquet"))
    assert len(segments) == 3  # one per run
    again = RunLibrary(lib.root)
    assert again.query("SELECT count(*) FROM steps").iloc[0, 0] == total
    assert sorted((lib.root / TABLES).rglob("*.parquet")) == segments  # nothing rebuilt


def test_an_episode_in_two_segments_is_counted_once(lib, recorded):
    """Two programs that built one episode's table at once leave two segments."""
    rollouts = recorded["CartPole-v1/lean/a"]
    lib._segment_store().keep("CartPole-v1/lean/a", ["episode-000.rollout"], rollouts[:1])
    count = lib.query("SELECT count(*) FROM steps WHERE run = 'CartPole-v1/lean/a'").iloc[0, 0]
    assert count == sum(r.num_steps for r in rollouts)


# ------------------------------------------------------------------ refusals and damage


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "COPY (SELECT 1) TO '{root}/out.csv'",
        "EXPORT DATABASE '{root}/out'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "ATTACH '{root}/other.db'",
        "SET enable_external_access = true",
        "SET threads = 1",
        "SELECT * FROM 'https://example.com/data.parquet'",
    ],
)
def test_a_query_reads_the_tables_and_nothing_else(lib, sql, tmp_path):
    with pytest.raises(QueryError, match=r"Permission Error|locked|disabled") as refused:
        lib.query(sql.format(root=tmp_path))
    assert "nothing else" in str(refused.value)
    assert not (tmp_path / "out.csv").exists()
    assert not (tmp_path / "other.db").exists()
    assert lib.query("SELECT count(*) FROM steps").iloc[0, 0] > 0  # the tables still read


def test_a_malformed_query_shows_the_engines_message(lib):
    with pytest.raises(QueryError, match='syntax error at or near "SELEC"'):
        lib.query("SELEC t FROM steps")
    with pytest.raises(QueryError, match='Referenced column "nope" not found'):
        lib.query("SELECT nope FROM steps")


def test_a_broken_episode_is_listed_in_errors_and_left_out(lib, recorded):
    shutil.rmtree(lib.root / TABLES)
    broken = lib.root / "CartPole-v1" / "lean" / "a" / "episode-001.rollout"
    broken.write_bytes(b"not a rollout")
    fresh = RunLibrary(lib.root)
    with pytest.warns(UserWarning, match="left out"):
        found = fresh.query("SELECT run, episode, count(*) FROM steps GROUP BY ALL ORDER BY 1, 2")
    assert [(e.path, "left out" in e.message) for e in fresh.errors] == [(str(broken), True)]
    kept = [(run, i) for run, rs in recorded.items() for i in range(len(rs))]
    kept.remove(("CartPole-v1/lean/a", 1))
    assert [(r, e) for r, e, _ in pairs(found)] == sorted(kept)
    with pytest.warns(UserWarning, match="left out"):  # said again by every query
        assert fresh.query("SELECT count(*) FROM episodes").iloc[0, 0] == len(kept)


# ------------------------------------------------------------------ the guide's queries

LIVES_LOST = """
WITH lost AS (
  SELECT run, episode, t FROM (
    SELECT run, episode, t, lives,
           lag(lives) OVER (PARTITION BY run, episode ORDER BY t) AS before
    FROM steps)
  WHERE lives < before)
SELECT s.run, s.episode, s.t, lost.t AS lost_at
FROM steps s JOIN lost ON s.run = lost.run AND s.episode = lost.episode
  AND s.t BETWEEN lost.t - 19 AND lost.t
ORDER BY s.run, s.episode, s.t
"""
LOW_RETURNS = """
SELECT run, episode, return FROM episodes e
WHERE return < (SELECT quantile_cont(return, 0.05) FROM episodes WHERE run = e.run)
"""
FIRST_DIFFERENCE = """
SELECT a.seed, min(a.t) AS t FROM steps a
JOIN steps b ON a.seed = b.seed AND a.t = b.t
WHERE a.run = 'CartPole-v1/lean/a' AND b.run = 'CartPole-v1/balance/b' AND a.action <> b.action
GROUP BY a.seed ORDER BY a.seed
"""


def test_the_20_steps_before_each_life_lost(tmp_path):
    lives = [5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3]
    lib = RunLibrary(tmp_path / "runs")
    steps = len(lives) - 1
    lib.add(
        Rollout.from_arrays(actions=np.zeros(steps, int), infos=[{"lives": n} for n in lives]),
        env_id="Lives-v0",
        algorithm="none",
        run="a",
    )
    found = lib.query(LIVES_LOST)
    # lives after step t is position t + 1's: lost at steps 2 and 24
    expected = [("Lives-v0/none/a", 0, t, 2) for t in range(3)]
    expected += [("Lives-v0/none/a", 0, t, 24) for t in range(5, 25)]
    assert pairs(found) == expected


def test_episodes_below_their_runs_5th_percentile(lib, recorded):
    expected = []
    for run, rollouts in sorted(recorded.items()):
        returns = np.array([r.rewards.sum() for r in rollouts])
        low = np.percentile(returns, 5)
        expected += [(run, i, float(g)) for i, g in enumerate(returns) if g < low]
    assert expected
    assert sorted(pairs(lib.query(LOW_RETURNS))) == expected


def test_the_first_step_two_runs_of_a_seed_act_differently(lib, recorded):
    expected = []
    for seed, (a, b) in enumerate(
        zip(recorded["CartPole-v1/lean/a"], recorded["CartPole-v1/balance/b"], strict=False)
    ):
        n = min(a.num_steps, b.num_steps)
        differ = np.flatnonzero(a.actions[:n] != b.actions[:n])
        if len(differ):
            expected.append((seed, int(differ[0])))
    assert expected
    assert pairs(lib.query(FIRST_DIFFERENCE)) == expected


def test_a_library_that_cannot_be_written_to_keeps_its_built_tables_in_memory(lib, recorded):
    """A stranger's library, read-only: here its tables' folder is a file."""
    shutil.rmtree(lib.root / TABLES)
    (lib.root / TABLES).write_bytes(b"")
    reader = RunLibrary(lib.root)
    total = len(everything(recorded))
    assert reader.query("SELECT count(*) FROM steps", progress=False).iloc[0, 0] == total
    reader._segment_store().write = None  # a second build would fail: the first is kept
    assert reader.query("SELECT count(*) FROM steps").iloc[0, 0] == total
    assert (lib.root / TABLES).read_bytes() == b""


def test_a_damaged_step_table_is_listed_and_its_episodes_built_again(lib, recorded):
    damaged = sorted((lib.root / TABLES).rglob("*.parquet"))[0]
    damaged.write_bytes(b"PAR1 not parquet")
    reader = RunLibrary(lib.root)
    with pytest.warns(UserWarning, match="not a readable step table"):
        total = reader.query("SELECT count(*) FROM steps", progress=False).iloc[0, 0]
    assert total == len(everything(recorded))
    assert [e.path for e in reader.errors] == [str(damaged)]


def test_special_files_and_links_among_the_tables_are_listed_and_never_opened(lib, recorded):
    folder = sorted((lib.root / TABLES).rglob("*.parquet"))[0].parent
    outside = lib.root.parent / "elsewhere.parquet"
    shutil.copy(sorted(folder.glob("*.parquet"))[0], outside)  # a whole table, out of reach
    os.mkfifo(folder / "fifo.parquet")
    (folder / "zero.parquet").symlink_to("/dev/zero")
    (folder / "out.parquet").symlink_to(outside)
    reader = RunLibrary(lib.root)
    answer: list = []

    def count() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            answer.append(reader.query("SELECT count(*) FROM steps", progress=False))
        answer.append([str(w.message) for w in caught])

    # A hang guard, not a timing: opening the FIFO would wait for a writer forever.
    query = threading.Thread(target=count, daemon=True)
    query.start()
    query.join(120)
    assert answer, "the query hung on the FIFO"
    assert answer[0].iloc[0, 0] == len(everything(recorded))  # the link's rows not counted twice
    assert any("not a regular file" in message for message in answer[1])
    assert sorted((e.path, e.message) for e in reader.errors) == [
        (str(folder / name), f"{folder / name}: {kind}, not a regular file (left unopened)")
        for name, kind in [
            ("fifo.parquet", "a FIFO"),
            ("out.parquet", "a link"),
            ("zero.parquet", "a link"),
        ]
    ]


def test_building_and_querying_the_tables_never_decodes_a_frame(tmp_path, monkeypatch):
    from agent_widget.format import _lazy_columns

    rollouts = [record(cartpole(), lean, seed=s) for s in range(2)]  # with frames
    lib = RunLibrary(tmp_path / "runs")
    lib.add(rollouts, algorithm="lean", run="framed")
    shutil.rmtree(lib.root / TABLES)

    def refuse(*args, **kwargs):
        raise AssertionError("a frame was decoded")

    monkeypatch.setattr(_lazy_columns.StoredFrames, "_frame", refuse)
    monkeypatch.setattr(_lazy_columns.StoredFrames, "_part", refuse)
    reader = RunLibrary(lib.root)
    found = reader.query("SELECT count(*) FROM steps", progress=False).iloc[0, 0]
    assert found == sum(r.num_steps for r in rollouts)
    assert reader.errors == []
    with pytest.raises(AssertionError, match="a frame was decoded"):  # the trap holds
        reader.open("CartPole-v1/lean/framed")[0].frames[0]


# ------------------------------------------------------------------ many agents


def test_a_pettingzoo_episode_has_a_column_of_each_kind_per_agent(tmp_path):
    pettingzoo = pytest.importorskip("pettingzoo")
    env = pettingzoo.make("aec", "classic/connect_four-v3")

    def random_legal(seed):
        rng = np.random.default_rng(seed)
        return lambda agent, obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))

    rollouts = [record(env, random_legal(s), seed=s) for s in range(3)]
    lib = RunLibrary(tmp_path / "runs")
    lib.add(rollouts, algorithm="random", run="a")
    turns = lib.query(
        "SELECT episode, acting_agent, count(*) AS n, count(action_player_0) AS moves0, "
        "sum(reward_player_1) AS reward1 FROM steps WHERE acting_agent IS NOT NULL "
        "GROUP BY ALL ORDER BY ALL"
    )
    expected = []
    for i, r in enumerate(rollouts):
        acting = np.asarray(r.acting_agent)
        for agent in sorted(set(acting) - {""}):
            mine = acting == agent
            rewards = r.agent_rewards[mine, 1]
            expected.append(
                (
                    i,
                    agent,
                    int(mine.sum()),
                    int(r.agent_acted[mine, 0].sum()),
                    float(np.nansum(rewards)) if np.isfinite(rewards).any() else None,
                )
            )
    found = [tuple(None if v != v else v for v in row) for row in pairs(turns)]  # NaN: NULL
    assert found == expected
    totals = lib.query(
        "SELECT episode, sum(reward_player_0), sum(reward_player_1) FROM steps GROUP BY 1 "
        "ORDER BY 1"
    )
    assert pairs(totals) == [
        (i, *np.nansum(r.agent_rewards, axis=0)) for i, r in enumerate(rollouts)
    ]
    assert sorted(np.nansum(rollouts[0].agent_rewards, axis=0)) == [-1.0, 1.0]  # a win


def test_agents_whose_actions_differ_in_shape_have_each_their_action_column(tmp_path):
    """Beacon's speaker says a word (an int), its listener moves (two numbers a step):
    ``action_speaker`` an integer column, NULL where it did not act, ``action_listener``
    a list of two a step."""
    pytest.importorskip("pettingzoo")
    from tests.beacon import beacon_aec, guide

    rollout = record(beacon_aec(), guide(0), seed=0)
    lib = RunLibrary(tmp_path / "runs")
    lib.add([rollout], algorithm="guide", run="a")
    found = lib.query(
        "SELECT t, coalesce(action_speaker, -9) AS word, action_listener FROM steps ORDER BY t"
    )
    speaker, listener = rollout.agent_action("speaker"), rollout.agent_action("listener")
    words = np.where(rollout.agent_acted[:, 0], speaker, -9)
    assert found["word"].tolist() == words.tolist()
    np.testing.assert_array_equal(np.stack(found["action_listener"]), listener)


@pytest.mark.parametrize("names", ["by agent", "one list"])
def test_each_agents_actions_are_named_by_the_names_that_fit_its_own_space(tmp_path, names):
    """The speaker's words get ``action_name_speaker`` (NULL where it did not speak),
    from names by agent or from the one list that fits its Discrete(3); the listener's
    moves (a Box) get no names column."""
    pytest.importorskip("pettingzoo")
    from tests.beacon import beacon_aec, guide

    words = ["west", "north", "east"]
    given = {"agent_action_names": {"speaker": words}} if names == "by agent" else {}
    rollout = record(beacon_aec(), guide(0), seed=0, metadata=given)
    if names == "one list":
        rollout.metadata["action_names"] = words
    lib = RunLibrary(tmp_path / "runs")
    lib.add([rollout], algorithm="guide", run="a")
    found = lib.query("SELECT * FROM steps ORDER BY t")
    spoke = rollout.agent_acted[:, 0]
    said = zip(rollout.agent_action("speaker"), spoke, strict=True)
    expected = [words[w] if s else "-" for w, s in said]
    assert found["action_name_speaker"].fillna("-").tolist() == expected
    assert "-" in expected
    assert set(expected) & set(words)
    assert "action_name_listener" not in found.columns


def test_an_episode_no_table_can_hold_fails_neither_add_nor_the_query(tmp_path, monkeypatch):
    """Should building an episode's steps raise (a kind of data this code has not met),
    add() still adds it, saying so, and the query leaves that episode out."""
    from agent_widget.library import _step_tables

    def refuse_odd(rollout):
        if rollout.metadata.get("odd"):
            raise TypeError("a column of a kind never met")
        return {}

    monkeypatch.setattr(
        _step_tables, "COLUMN_SOURCES", (*_step_tables.COLUMN_SOURCES, (refuse_odd, "x_"))
    )
    rollouts = lake_episodes([0, 1])
    rollouts[1].metadata["odd"] = True
    lib = RunLibrary(tmp_path / "runs")
    with pytest.warns(UserWarning, match="the first query builds them"):
        lib.add(rollouts, env_id="FrozenLake-v1", algorithm="walk", run="c")
    assert len(lib.open("FrozenLake-v1/walk/c")) == 2
    with pytest.warns(UserWarning, match="left out"):
        found = lib.query("SELECT episode, count(*) FROM steps GROUP BY 1", progress=False)
    assert pairs(found) == [(0, rollouts[0].num_steps)]
    assert [e.message for e in lib.errors] == [
        f"{lib.root}/FrozenLake-v1/walk/c/episode-001.rollout: a column of a kind never met "
        "(left out of the step tables)"
    ]


def test_ctrl_c_in_a_query_is_a_query_error(lib):
    main = threading.main_thread()
    reader = RunLibrary(lib.root)
    reader.query("SELECT 1", progress=False)  # the tables built: the next query runs at once

    def waiting_on_duckdb() -> bool:
        """Whether the main thread waits for the query's thread to answer."""
        frame = sys._current_frames().get(main.ident)
        while frame is not None and "agent_widget" not in frame.f_code.co_filename:
            frame = frame.f_back  # out of threading's own Python, to the package's caller
        return frame is not None and "answered.wait(seconds)" in linecache.getline(
            frame.f_code.co_filename, frame.f_lineno
        )

    def interrupt_once_running() -> None:
        wait_until(waiting_on_duckdb, "the query running in DuckDB")
        os.kill(os.getpid(), signal.SIGINT)

    # Ctrl-C as Python has it by default (a test before may have left another handler,
    # as ray.init does); the timeout only ends the query if the interrupt never lands.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt_once_running, daemon=True).start()
    sql = "SELECT sum(hash(range)) FROM range(1000000000000)"
    try:
        with pytest.raises(QueryError, match="the query was stopped by Ctrl-C"):
            reader.query(sql, progress=False, timeout=120)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert "agent-widget-query" not in [thread.name for thread in threading.enumerate()]
    assert reader.query("SELECT 1 AS one", progress=False).one.tolist() == [1]


def test_a_query_past_its_timeout_stops_with_a_query_error(lib):
    # Hours of hashing otherwise: the timeout is what ends it.
    with pytest.raises(QueryError, match=r"ran over its timeout of 0.5 s, and was stopped"):
        lib.query("SELECT sum(hash(range)) FROM range(1000000000000)", timeout=0.5, progress=False)
    assert lib.query("SELECT 1 AS one", timeout=60, progress=False).one.tolist() == [1]


def test_a_query_past_its_memory_limit_says_how_to_allow_more(lib):
    def sql(rows: int) -> str:  # a string of rows kB
        return f"SELECT length(string_agg(repeat('x', 1000), '')) AS n FROM range({rows})"

    with pytest.raises(QueryError, match="Out of Memory") as error:
        lib.query(sql(1_000_000), memory_limit="100MB", progress=False)
    assert "memory_limit='16GB') allows more" in str(error.value)
    assert "SET " not in str(error.value)  # DuckDB's advice: settings the lock refuses
    assert lib.query(sql(50_000), memory_limit="1GB", progress=False).n.tolist() == [50_000_000]


# ------------------------------------------------------------------ the connection kept

TRANSACTION = "SELECT txid_current() AS id"  # a database's own count: a new one starts over


def transaction(lib) -> int:
    return int(lib.query(TRANSACTION, progress=False).id.iloc[0])


def test_a_repeated_query_runs_on_the_same_engine_until_an_episode_is_added(lib, recorded):
    first = transaction(lib)
    assert transaction(lib) > first  # the same database, its transactions counted on
    lib.add(lake_episodes([7]), env_id="FrozenLake-v1", algorithm="walk", run="c")
    assert transaction(lib) == first  # a new one, the tables registered again
    count = lib.query("SELECT count(*) FROM steps WHERE run = 'FrozenLake-v1/walk/c'").iloc[0, 0]
    lake = recorded["FrozenLake-v1/walk/c"] + lake_episodes([7])
    assert count == sum(r.num_steps for r in lake)
    episodes = lib.query("SELECT max(episode) FROM episodes WHERE run = 'FrozenLake-v1/walk/c'")
    assert episodes.iloc[0, 0] == len(lake) - 1


def test_a_reader_sees_what_another_program_added_since_its_last_query(lib, recorded):
    reader = RunLibrary(lib.root)
    before = reader.query("SELECT count(*) FROM steps", progress=False).iloc[0, 0]
    lib.add(lake_episodes([7]), env_id="FrozenLake-v1", algorithm="walk", run="c")
    after = reader.query("SELECT count(*) FROM steps", progress=False).iloc[0, 0]
    assert after == before + lake_episodes([7])[0].num_steps


@pytest.mark.parametrize(
    "sql",
    [
        "DROP VIEW steps",
        "CREATE OR REPLACE TEMP VIEW steps AS SELECT 42 AS answer",
        "CREATE TEMP TABLE kept AS SELECT 1 AS one",
    ],
)
def test_a_statement_that_changes_the_engine_changes_no_later_query(lib, recorded, sql):
    lib.query("SELECT 1", progress=False)
    lib.query(sql, progress=False)
    total = lib.query("SELECT count(*) AS n FROM steps", progress=False)
    assert total.n.tolist() == [len(everything(recorded))]
    with pytest.raises(QueryError, match="kept does not exist"):
        lib.query("SELECT * FROM kept", progress=False)


def test_queries_from_several_threads_at_once_take_turns(lib, recorded):
    lib.query("SELECT 1", progress=False)  # the connection kept, shared from here on
    sql = "SELECT count(*) AS n, sum(t) AS ts FROM steps"
    expected = lib.query(sql, progress=False)
    answers: list = []

    def query() -> None:
        try:
            answers.append(lib.query(sql, progress=False))
        except Exception as error:  # shown by the assertion below
            answers.append(error)

    threads = [threading.Thread(target=query) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.equals(expected) if hasattr(a, "equals") else a for a in answers] == [True] * 6
