"""RunLibrary: the folder layout, run.json, leaderboard rows, lazy opening, damage, concurrency."""

import builtins
import json
import multiprocessing
import os
import resource
import socket
import stat
import subprocess
import sys
import tracemalloc
from datetime import datetime, timedelta

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.library import RunLibrary
from agent_widget.library import _run_library as library_module
from agent_widget.library import _run_writer as run_writer
from agent_widget.library._run_file import FORMAT, VERSION
from tests.sample_episodes import episode
from tests.unprivileged import unprivileged


def run_json(lib, run_id):
    return json.loads((lib.root / run_id / "run.json").read_text())


@pytest.fixture
def lib(tmp_path):
    return RunLibrary(tmp_path / "runs")


# ----------------------------------------------------------------------------- layout


def test_a_run_is_a_folder_of_env_algorithm_and_run_with_run_json_and_numbered_episodes(lib):
    lib.add([episode([1.0]), episode([2.0, 0.5])], algorithm="sarsa", run="alpha0.1")
    folder = lib.root / "Moving-v0" / "sarsa" / "alpha0.1"
    assert sorted(p.name for p in folder.iterdir()) == [
        "episode-000.rollout",
        "episode-001.rollout",
        "run.json",
    ]
    assert sorted(p.name for p in folder.parent.iterdir()) == ["alpha0.1"]  # no staging left


def test_names_unsafe_in_file_names_are_percent_encoded_into_one_folder_each(lib):
    run = lib.add(episode([1.0]), env_id="ALE/Pong-v5", algorithm="dqn", run="../.x")
    assert run.id == "ALE%2FPong-v5/dqn/%2E.%2F.x"
    assert (lib.root / "ALE%2FPong-v5" / "dqn" / "%2E.%2F.x" / "run.json").is_file()
    assert (run.env_id, run.run) == ("ALE/Pong-v5", "../.x")


def test_a_name_starting_with_a_dot_does_not_become_a_hidden_folder(lib):
    run = lib.add(episode([1.0]), run=".hidden")
    assert run.id == "Moving-v0/random/%2Ehidden"
    assert [r.run for r in lib.runs()] == [".hidden"]


def test_adding_to_an_existing_run_numbers_the_new_episodes_after_the_last(lib):
    lib.add([episode([1.0]), episode([2.0])], run="r")
    run = lib.add(episode([3.0], seed=9), run="r")
    assert [e.file for e in run.episodes] == [
        "episode-000.rollout",
        "episode-001.rollout",
        "episode-002.rollout",
    ]
    assert run.returns.tolist() == [1.0, 2.0, 3.0]


# --------------------------------------------------------------------------- metadata


def test_run_json_holds_the_run_and_one_summary_per_episode(lib):
    rollouts = [episode([1.0, 0.5], seed=3), episode([0.0, 0.0, -1.0], seed=4)]
    lib.add(rollouts, env_id="Grid-v0", algorithm="sarsa", run="a", params={"alpha": 0.1})
    meta = run_json(lib, "Grid-v0/sarsa/a")
    created = meta.pop("created")
    assert meta == {
        "format": FORMAT,
        "version": VERSION,
        "env_id": "Grid-v0",
        "algorithm": "sarsa",
        "run": "a",
        "params": {"alpha": 0.1},
        "episodes": [
            {"file": "episode-000.rollout", "return": 1.5, "steps": 2, "success": None, "seed": 3},
            {"file": "episode-001.rollout", "return": -1.0, "steps": 3, "success": None, "seed": 4},
        ],
    }
    assert datetime.fromisoformat(created).utcoffset() == timedelta(0)


def test_env_id_and_algorithm_default_to_the_rollouts_metadata(lib):
    run = lib.add(episode([1.0], env_id="CartPole-v1", algorithm="ppo"))
    assert (run.env_id, run.algorithm) == ("CartPole-v1", "ppo")
    assert run.id.startswith("CartPole-v1/ppo/")


def test_rollouts_without_an_env_id_and_none_given_are_a_value_error(lib):
    with pytest.raises(ValueError, match=r"env_id not given .* pass env_id="):
        lib.add(Rollout.from_arrays(actions=[0, 1], metadata={"algorithm": "x"}))
    with pytest.raises(ValueError, match="env_id not given"):
        lib.add([episode([1.0], env_id="A-v0"), episode([1.0], env_id="B-v0")])


def test_success_comes_from_the_last_info_or_from_the_given_function(lib):
    said = Rollout.from_arrays(
        actions=[0, 1],
        infos=[{}, {}, {"is_success": True}],
        metadata={"env_id": "Moving-v0", "algorithm": "random"},
    )
    run = lib.add([said, episode([1.0]), episode([0.0])], run="infos")
    assert [e.success for e in run.episodes] == [True, None, None]
    run = lib.add([episode([1.0]), episode([0.0])], run="fn", success=lambda r: r.rewards.sum() > 0)
    assert [e.success for e in run.episodes] == [True, False]
    assert lib.open(run)[0].metadata["success"] is True  # the file itself says it


def test_params_must_be_json_able_and_numpy_scalars_become_numbers(lib):
    run = lib.add(episode([1.0]), run="np", params={"lr": np.float32(0.5), "layers": (64, 64)})
    assert run.params == {"lr": 0.5, "layers": [64, 64]}
    with pytest.raises(ValueError, match="params must be JSON-able"):
        lib.add(episode([1.0]), run="bad", params={"net": object()})


def test_adding_to_a_run_with_other_params_is_a_value_error(lib):
    lib.add(episode([1.0]), run="r", params={"alpha": 0.1})
    with pytest.raises(ValueError, match=r"already exists .* with params \{'alpha': 0.1\}"):
        lib.add(episode([2.0]), run="r", params={"alpha": 0.2})
    assert len(lib.add(episode([3.0]), run="r").episodes) == 2  # params left out: added


# -------------------------------------------------------------------- leaderboard rows


def test_table_has_one_row_per_run_with_return_statistics_success_and_steps(lib):
    lib.add([episode([1.0, 1.0]), episode([0.0, 0.0, 0.0, 0.0])], algorithm="a", run="r",
            params={"k": 1}, success=lambda r: r.rewards.sum() > 0)  # fmt: skip
    (row,) = lib.table()
    assert row["id"] == "Moving-v0/a/r"
    assert (row["env_id"], row["algorithm"], row["run"]) == ("Moving-v0", "a", "r")
    assert row["episodes"] == 2
    assert row["return_mean"] == 1.0
    assert row["return_std"] == 1.0  # population std of [2, 0]
    assert row["success_rate"] == 0.5
    assert row["steps"] == 6
    assert row["params"] == {"k": 1}


def test_runs_are_grouped_by_env_then_algorithm_then_run_and_can_be_filtered(lib):
    for env_id, algorithm, run in [("B-v0", "x", "2"), ("A-v0", "y", "1"), ("A-v0", "x", "9"),
                                   ("B-v0", "x", "1")]:  # fmt: skip
        lib.add(episode([1.0]), env_id=env_id, algorithm=algorithm, run=run)
    keys = [(r["env_id"], r["algorithm"], r["run"]) for r in lib.table()]
    assert keys == [("A-v0", "x", "9"), ("A-v0", "y", "1"), ("B-v0", "x", "1"), ("B-v0", "x", "2")]
    assert [r.run for r in lib.runs(env_id="B-v0")] == ["1", "2"]
    assert [r["run"] for r in lib.table(algorithm="x")] == ["9", "1", "2"]


def test_reading_the_table_opens_no_episode_file(lib, monkeypatch):
    lib.add([episode([1.0]), episode([2.0])], run="r")

    def refuse(path):
        raise AssertionError(f"read {path}")

    monkeypatch.setattr(library_module, "load", refuse)
    assert lib.table()[0]["return_mean"] == 1.5


def test_an_empty_or_missing_library_has_no_runs(lib):
    assert lib.table() == []
    assert lib.errors == []


def test_table_as_frame_is_a_pandas_data_frame(lib):
    pandas = pytest.importorskip("pandas")
    lib.add(episode([1.0]), run="r")
    frame = lib.table(as_frame=True)
    assert isinstance(frame, pandas.DataFrame)
    assert frame.loc[0, "return_mean"] == 1.0


def test_table_as_frame_without_pandas_says_to_install_it(lib, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        lib.table(as_frame=True)


# ------------------------------------------------------------------------------ open


def test_open_loads_each_episode_when_first_indexed(lib, monkeypatch):
    original = [episode([1.0, 2.0], seed=1), episode([3.0], seed=2)]
    run = lib.add(original, run="r")
    loaded = []
    real_load = library_module.load
    monkeypatch.setattr(
        library_module,
        "load",
        lambda p, **options: loaded.append(p.name) or real_load(p, **options),
    )
    episodes = lib.open(run)
    assert len(episodes) == 2
    assert loaded == []
    second = episodes[-1]
    assert loaded == ["episode-001.rollout"]
    assert np.array_equal(second.frames[1], original[1].frames[1])
    assert second.rewards.tolist() == [3.0]
    assert episodes[1] is second  # kept once loaded


def test_open_takes_a_run_its_id_or_env_algorithm_and_run(lib):
    run = lib.add(episode([1.0]), env_id="ALE/Pong-v5", algorithm="dqn", run="s0")
    for key in (run, "ALE%2FPong-v5/dqn/s0", ("ALE/Pong-v5", "dqn", "s0")):
        assert lib.open(key)[0].rewards.tolist() == [1.0]


def test_open_takes_env_algorithm_and_run_as_three_arguments(lib):
    lib.add(episode([2.0]), env_id="FrozenLake-v1", algorithm="sarsa", run="alpha0.1")
    assert lib.open("FrozenLake-v1", "sarsa", "alpha0.1")[0].rewards.tolist() == [2.0]


def test_open_with_only_two_names_is_a_type_error_saying_what_it_takes(lib):
    with pytest.raises(TypeError, match="three names as arguments"):
        lib.open("FrozenLake-v1", "sarsa")


def test_open_refuses_ids_outside_the_library(lib):
    with pytest.raises(ValueError, match="inside the library"):
        lib.open("../elsewhere/x/y")


def test_open_of_a_missing_run_is_a_value_error_naming_it(lib):
    with pytest.raises(ValueError, match=r"Moving-v0/a/nope: no run.json"):
        lib.open(("Moving-v0", "a", "nope"))


def test_has_run_is_whether_the_run_json_is_in_not_whether_the_folder_is(lib):
    assert not lib.has_run("Moving-v0/a/r")
    (lib.root / "Moving-v0" / "a" / "half").mkdir(parents=True)  # its run.json not in yet
    assert not lib.has_run("Moving-v0/a/half")
    lib.add(episode([1.0]), algorithm="a", run="r")
    assert lib.has_run("Moving-v0/a/r")
    with pytest.raises(ValueError, match="inside the library"):
        lib.has_run("../elsewhere/x/y")


# ------------------------------------------------------------------ other programs


def test_a_run_written_by_another_program_by_the_documented_layout_appears(lib):
    folder = lib.root / "Other-v0" / "es" / "gen7"
    folder.mkdir(parents=True)
    episode([2.0, 2.0]).save(folder / "episode-000.rollout")
    meta = {"format": FORMAT, "version": 1, "env_id": "Other-v0", "algorithm": "es",
            "run": "gen7", "params": {}, "created": "2026-01-01T00:00:00+00:00",
            "episodes": [{"file": "episode-000.rollout", "return": 4.0, "steps": 2}]}  # fmt: skip
    (folder / "run.json").write_text(json.dumps(meta))
    (row,) = lib.table()
    assert (row["id"], row["return_mean"], row["success_rate"]) == ("Other-v0/es/gen7", 4.0, None)
    assert lib.open(row["id"])[0].rewards.sum() == 4.0


def test_hidden_staging_folders_and_loose_files_are_ignored(lib):
    lib.add(episode([1.0]), run="r")
    (lib.root / "Moving-v0" / "random" / ".r.1234.tmp").mkdir()
    (lib.root / "README.md").write_text("runs")
    assert [r.run for r in lib.runs()] == ["r"]
    assert lib.errors == []


# ---------------------------------------------------------------------------- damage


def test_broken_runs_are_reported_and_skipped_without_hiding_the_others(lib):
    for name in ("good", "corrupt", "half", "lost"):
        lib.add(episode([1.0]), run=name)
    folder = lib.root / "Moving-v0" / "random"
    (folder / "corrupt" / "run.json").write_bytes(b'{"format": "agent-widget.run", "vers')
    (folder / "half" / "run.json").unlink()
    (folder / "lost" / "episode-000.rollout").unlink()
    with pytest.warns(UserWarning, match=r"3 run\(s\) in .* skipped"):
        runs = lib.runs()
    assert [r.run for r in runs] == ["good"]
    problems = {e.path.name: e.message for e in lib.errors}
    assert set(problems) == {"corrupt", "half", "lost"}
    assert "not valid JSON" in problems["corrupt"]
    assert "no run.json" in problems["half"]
    assert "episode-000.rollout, missing from the folder" in problems["lost"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"format": "other"}, "not an agent-widget.run file"),
        ({"version": 99}, "version 99 is newer"),
        ({"version": "2"}, "no format version (1 to 1): '2'"),
        ({"version": -5}, "no format version (1 to 1): -5"),
        ({"env_id": ""}, "'env_id' is missing"),
        ({"params": [1]}, "'params' is missing or not an object"),
        ({"episodes": [{"file": "../../etc/passwd", "return": 0, "steps": 0}]}, "'file' must be"),
        ({"episodes": [{"file": "episode-000.rollout", "return": "1", "steps": 0}]}, "'return'"),
        ({"episodes": [{"file": "episode-000.rollout", "return": 1, "steps": -1}]}, "'steps'"),
        ({"episodes": [{"file": "episode-000.rollout", "return": 1, "steps": 1}] * 2}, "twice"),
    ],
)
def test_a_malformed_run_json_is_reported_with_its_problem(lib, change, problem):
    run = lib.add(episode([1.0]), run="r")
    (run.path / "run.json").write_text(json.dumps({**run_json(lib, run.id), **change}))
    with pytest.warns(UserWarning, match=r"1 run\(s\) in .* skipped"):
        assert lib.runs() == []
    (error,) = lib.errors
    assert error.path == run.path
    assert problem in error.message
    assert str(run.path / "run.json") in error.message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "run.json: not read: 100,000 arrays and objects"),
        ("[" * 2_000 + "]" * 2_000 + " " * 40_000, "not valid JSON (RecursionError"),
        ('{"format": "agent-widget.run", "v": ' + "9" * 5000 + "}", "run.json: not valid JSON"),
    ],
)
def test_a_run_json_nested_too_deep_or_with_a_huge_number_hides_no_other_run(lib, text, problem):
    lib.add(episode([1.0]), run="good")
    bad = lib.add(episode([1.0]), run="bad")
    (bad.path / "run.json").write_text(text)
    with pytest.warns(UserWarning, match=r"1 run\(s\) in .* skipped"):
        assert [row["run"] for row in lib.table()] == ["good"]
    (error,) = lib.errors
    assert problem in error.message


def test_a_run_json_of_empty_arrays_is_refused_unparsed(lib):
    """Parsed, each 3 bytes of ``[],`` is ~80 bytes of Python: 63 MB took 1.7 GB."""
    lib.add(episode([1.0]), run="good")
    bad = lib.add(episode([1.0]), run="bad")
    empties = "[" + ",".join(["[]"] * 2_000_000) + "]"  # 6 MB; ~160 MB parsed
    header = run_json(lib, bad.id)
    (bad.path / "run.json").write_text(
        json.dumps({**header, "params": {"x": 0}}).replace("0", empties, 1)
    )
    tracemalloc.start()
    try:
        with pytest.warns(UserWarning, match=r"1 run\(s\) in .* skipped"):
            assert [row["run"] for row in lib.table()] == ["good"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "arrays and objects in 6,0" in lib.errors[0].message
    assert peak < 40 * 2**20  # the text read once, and counted


def test_params_nested_too_deep_are_a_clear_error(lib):
    params: dict = {}
    inner = params
    for _ in range(100_000):
        inner["x"] = {}
        inner = inner["x"]
    with pytest.raises(ValueError, match="params are nested too deeply"):
        lib.add(episode([1.0]), run="deep", params=params)


# ----------------------------------------------------------------- unreadable entries


def test_a_full_disk_in_add_names_the_run_and_leaves_no_temporary_file(lib):
    lib.add(episode([1.0]), run="r")  # the library's folders made
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    # Writing past it fails with EFBIG (Python ignores SIGXFSZ), as a full disk fails.
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, limit[1]))
    try:
        with pytest.raises(OSError, match="File too large") as caught:
            lib.add(episode([1.0] * 50), run="new")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    assert caught.value.filename == str(lib.root / "Moving-v0" / "random" / "new")
    assert [p.name for p in (lib.root / "Moving-v0" / "random").iterdir()] == ["r"]


@pytest.fixture
def opens_only_regular_files(monkeypatch):
    """Opening anything but a regular file or a folder fails the test at once: a FIFO
    would otherwise hang it, and a device would be read."""

    def guard(opener):
        def checked(path, *args, **kwargs):
            if isinstance(path, (str, os.PathLike)) and os.path.exists(path):
                mode = os.stat(path).st_mode
                assert stat.S_ISREG(mode) or stat.S_ISDIR(mode), f"opened {path}"
            return opener(path, *args, **kwargs)

        return checked

    monkeypatch.setattr(builtins, "open", guard(builtins.open))
    monkeypatch.setattr(os, "open", guard(os.open))


def make_socket(path):
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (os.mkfifo, "a FIFO"),
        (make_socket, "a socket"),
        (lambda path: path.symlink_to("/dev/zero"), "a character device"),
        (lambda path: path.symlink_to("/dev/null"), "a character device"),
        (os.mkdir, "a folder"),
    ],
    ids=["fifo", "socket", "link-to-dev-zero", "link-to-dev-null", "folder"],
)
def test_a_run_json_that_is_no_regular_file_is_reported_and_never_opened(
    lib, opens_only_regular_files, make, kind
):
    lib.add(episode([1.0]), run="good")
    bad = lib.add(episode([1.0]), run="bad")
    (bad.path / "run.json").unlink()
    make(bad.path / "run.json")
    with pytest.warns(UserWarning, match=r"1 run\(s\) in .* skipped"):
        assert [row["run"] for row in lib.table()] == ["good"]
    assert lib.errors == [
        (bad.path, f"{bad.path / 'run.json'}: {kind}, not a regular file (left unopened)")
    ]


def test_symlink_loops_and_links_to_nothing_at_any_depth_are_reported(lib):
    lib.add(episode([1.0]), run="good")
    algorithm = lib.root / "Moving-v0" / "random"
    bad = lib.add(episode([1.0]), run="bad")
    (bad.path / "run.json").unlink()
    (bad.path / "run.json").symlink_to(bad.path / "run.json")
    loops = [lib.root / "env-loop", lib.root / "Moving-v0" / "algo-loop", algorithm / "run-loop"]
    for loop in loops:
        loop.symlink_to(loop)
    (algorithm / "gone").symlink_to(lib.root / "nowhere")
    with pytest.warns(UserWarning, match=r"5 run\(s\) in .* skipped"):
        assert [row["run"] for row in lib.table()] == ["good"]
    problems = {error.path: error.message for error in lib.errors}
    too_many = "cannot read (Too many levels of symbolic links)"
    assert problems == {
        **{loop: f"{loop}: {too_many}" for loop in loops},
        algorithm / "gone": f"{algorithm / 'gone'}: a link to nothing",
        bad.path: f"{bad.path / 'run.json'}: {too_many}",
    }


UNPRIVILEGED_LISTING = """
import json, sys, warnings
from agent_widget.library import RunLibrary
lib = RunLibrary(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    runs = [row["id"] for row in lib.table()]
print(json.dumps({"runs": runs, "errors": [list(map(str, e)) for e in lib.errors]}))
"""


def unprivileged_table(root):
    """The run ids and errors of ``lib.table()`` in a process that file permissions bind:
    as root (these tests run as root in CI), without the capabilities that override them."""
    command = [*unprivileged(), sys.executable, "-c", UNPRIVILEGED_LISTING, str(root)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("locked", "mode", "reported", "problem"),
    [
        ("Secret-v0", 0o000, "Secret-v0", ": cannot list"),
        ("Secret-v0/dqn", 0o000, "Secret-v0/dqn", ": cannot list"),
        ("Secret-v0/dqn/r", 0o000, "Secret-v0/dqn/r", "/run.json: cannot read"),
        ("Secret-v0/dqn/r", 0o100, "Secret-v0/dqn/r", ": cannot list"),  # run.json readable
        ("Secret-v0/dqn/r/run.json", 0o000, "Secret-v0/dqn/r", "/run.json: cannot read"),
    ],
    ids=["env-folder", "algorithm-folder", "run-folder", "run-folder-unlistable", "run-json"],
)
def test_an_entry_without_read_permission_at_any_depth_is_reported(
    lib, locked, mode, reported, problem
):
    lib.add(episode([1.0]), run="good")
    lib.add(episode([1.0], env_id="Secret-v0", algorithm="dqn"), run="r")
    (lib.root / locked).chmod(mode)
    try:
        listed = unprivileged_table(lib.root)
    finally:
        (lib.root / locked).chmod(0o700)
    assert listed["runs"] == ["Moving-v0/random/good"]
    path = lib.root / reported
    assert listed["errors"] == [[str(path), f"{path}{problem} (Permission denied)"]]


# ------------------------------------------------------------------------ concurrency


def test_a_writer_whose_listing_went_stale_before_it_wrote_run_json_rewrites_it(lib, monkeypatch):
    # The interleaving that loses an update: writer A lists the episode files, writer
    # B adds an episode and rewrites run.json, then A writes its (stale) run.json.
    lib.add(episode([0.0]), run="r")
    real_write = run_writer.write_atomic
    interleaved = []

    def write_after_another_writer(path, data):
        if path.name == "run.json" and not interleaved:
            interleaved.append(path)
            lib.add(episode([2.0]), run="r")  # writer B, start to end
        real_write(path, data)

    monkeypatch.setattr(run_writer, "write_atomic", write_after_another_writer)
    lib.add(episode([1.0]), run="r")  # writer A
    assert interleaved
    assert sorted(lib.runs()[0].returns.tolist()) == [0.0, 1.0, 2.0]


def test_a_writer_whose_episode_number_was_taken_meanwhile_takes_the_next(lib, monkeypatch):
    lib.add(episode([0.0]), run="r")
    real_listing = run_writer.episode_files
    interleaved = []

    def list_then_let_another_writer_claim(folder):
        files = real_listing(folder)
        if not interleaved:
            interleaved.append(folder)
            lib.add(episode([2.0]), run="r")  # writer B claims episode-001 first
        return files

    monkeypatch.setattr(run_writer, "episode_files", list_then_let_another_writer_claim)
    run = lib.add(episode([1.0]), run="r")  # writer A saw episode-000 only
    assert interleaved
    assert [(e.file, e.total_return) for e in run.episodes] == [
        ("episode-000.rollout", 0.0),
        ("episode-001.rollout", 2.0),
        ("episode-002.rollout", 1.0),
    ]


ROUNDS = 30


def write_episodes(root, writer, barrier):
    """One writer process: in each round, adds an episode at the same moment as the other."""
    lib = RunLibrary(root)
    for k in range(ROUNDS):
        barrier.wait()
        lib.add(episode([float(writer)], seed=k, writer=writer), run=f"round-{k}")


def test_two_processes_writing_at_once_lose_and_corrupt_nothing(lib):
    # Even rounds add to an existing run (both rewrite its run.json), odd rounds race
    # to create the run (one creates it, the other adds to it).
    for k in range(0, ROUNDS, 2):
        lib.add(episode([0.0]), run=f"round-{k}")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    writers = [context.Process(target=write_episodes, args=(lib.root, w, barrier)) for w in (1, 2)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=300)
    assert [p.exitcode for p in writers] == [0, 0]

    runs = lib.runs()
    assert lib.errors == []
    assert [r.run for r in runs] == sorted(f"round-{k}" for k in range(ROUNDS))
    for run in runs:
        expected = [0.0, 1.0, 2.0] if int(run.run[6:]) % 2 == 0 else [1.0, 2.0]
        assert sorted(run.returns.tolist()) == expected, run.run
        assert sorted(float(e.rewards.sum()) for e in lib.open(run)) == expected  # files read
        assert [n for n in os.listdir(run.path) if n.startswith(".")] == []
    assert [n for n in os.listdir(runs[0].path.parent) if n.startswith(".")] == []


def test_long_names_work_up_to_what_a_file_system_takes_and_then_say_so(lib):
    japanese = ("日本語" * 10)[:28]  # 28 characters, 252 bytes once percent-encoded
    assert lib.add(episode([1.0]), run=japanese).run == japanese
    with pytest.raises(ValueError, match=r"folder name of 261 bytes .* at most 255"):
        lib.add(episode([1.0]), run=japanese + "日")
    with pytest.raises(ValueError, match=r"folder name of 300 bytes"):
        lib.add(episode([1.0]), run="r" * 300)
    assert [r.run for r in lib.runs()] == [japanese]


def test_what_killed_writers_left_is_removed_and_nothing_a_live_one_may_own(lib):
    from agent_widget.format import temporary_name

    lib.add(episode([1.0]), run="r")
    folder = lib.root / "Moving-v0" / "random"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a process id that no live process has
    mine = temporary_name(folder / "r")  # as this (live) process names its temporaries
    theirs = mine.name.split(".")[-2].split("-")  # host, pid, token
    stale_staging = folder / mine.name.replace(f"-{theirs[1]}-", f"-{dead.pid}-")
    stale_file = folder / "r" / (".episode-001.rollout" + stale_staging.name[len(".r") :])
    other_host = folder / mine.name.replace(f".{theirs[0]}-", ".zzzz-")
    for path in (stale_staging, mine, other_host):
        path.mkdir()
    stale_file.write_bytes(b"half an episode")
    lib.add(episode([2.0]), run="r")  # adding cleans up first
    left = sorted(p.name for p in folder.iterdir())
    assert left == sorted(["r", mine.name, other_host.name])
    assert not stale_file.exists()
    assert [row["episodes"] for row in lib.table()] == [2]
