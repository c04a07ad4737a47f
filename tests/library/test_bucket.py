"""RunLibrary in a bucket: moto's S3 server started here on loopback, s3fs the client.

Adding, listing and opening runs; concurrent writer processes; a writer killed mid-add;
the requests a view makes (counted in the server's log); foreign objects; wrong
credentials and dead endpoints; record_many streaming into the bucket.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import tracemalloc
from collections.abc import Iterator

import fsspec
import numpy as np
import pytest

from agent_widget import Rollout, RunLibrary, load, record, record_many
from agent_widget.format import RolloutFileError, url_to_fs
from agent_widget.library._bucket import MAX_MANIFEST_BYTES
from tests.cartpole import balance, cartpole
from tests.sample_episodes import episode
from tests.sample_frames import moving_frames
from tests.waiting import wait_until

pytest.importorskip("s3fs")
from harness.process import free_port
from harness.s3_server import S3Server, SilentEndpoint  # needs s3fs

BUCKET = "runs"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = S3Server(tmp_path_factory.mktemp("s3"))
    server.fs.mkdir(BUCKET)
    yield server
    server.stop()


@pytest.fixture
def url(request) -> str:
    """A library of its own for each test, in the shared bucket."""
    return f"s3://{BUCKET}/{request.node.name[:60]}"


@pytest.fixture
def lib(server, url) -> RunLibrary:
    return RunLibrary(url, storage_options=server.options)


def keys(server, url):
    return sorted(k.split("/", 2)[2] for k in server.fs.find(url.removeprefix("s3://")))


# ---------------------------------------------------------------------- add, list, open


def test_runs_added_to_a_bucket_are_listed_and_open_lazily(server, lib, url):
    lib.add([episode([1.0], seed=0), episode([2.0, 0.5], seed=1)], algorithm="dqn", run="a")
    lib.add(episode([4.0], seed=2), env_id="ALE/Pong-v5", algorithm="ppo", run="b")
    rows = RunLibrary(url, storage_options=server.options).table()  # another reader
    assert [(r["id"], r["episodes"], r["return_mean"]) for r in rows] == [
        ("ALE%2FPong-v5/ppo/b", 1, 4.0),
        ("Moving-v0/dqn/a", 2, 1.75),
    ]
    episodes = lib.open("Moving-v0/dqn/a")
    assert [e.seed for e in episodes.run.episodes] == [0, 1]
    np.testing.assert_array_equal(episodes[1].frames[2], moving_frames(3)[2])
    assert episodes[1].rewards.tolist() == [2.0, 0.5]
    assert episodes.run.path == f"{url}/Moving-v0/dqn/a"


def test_a_bucket_run_is_its_header_its_episodes_and_one_manifest_per_writer(server, lib, url):
    lib.add(episode([1.0]), algorithm="dqn", run="a", params={"lr": 0.1})
    lib.add(episode([2.0]), algorithm="dqn", run="a")
    layout = keys(server, url)
    tables = [k for k in layout if k.startswith(".tables/")]  # each add's steps, for queries
    assert len(tables) == 2
    assert all(k.startswith(".tables/Moving-v0/dqn/a/") for k in tables)
    layout = [k for k in layout if k not in tables]
    assert layout[0].startswith(".writers/")
    assert layout[0].endswith(".json")
    assert len(layout) == 4  # one manifest, two episodes, run.json
    assert all(k.startswith("Moving-v0/dqn/a/episode-") for k in layout[1:3])
    assert layout[3] == "Moving-v0/dqn/a/run.json"
    header = json.loads(server.fs.cat(f"{url}/Moving-v0/dqn/a/run.json".removeprefix("s3://")))
    assert header["params"] == {"lr": 0.1}
    assert "episodes" not in header  # the manifests list them


def test_adding_with_other_params_is_a_value_error_for_any_writer(server, lib, url):
    lib.add(episode([1.0]), algorithm="dqn", run="a", params={"lr": 0.1})
    other = RunLibrary(url, storage_options=server.options)  # reads run.json to check
    for writer in (lib, other):
        with pytest.raises(ValueError, match=r"already exists in s3://.* with params"):
            writer.add(episode([2.0]), algorithm="dqn", run="a", params={"lr": 0.2})
    assert other.add(episode([3.0]), algorithm="dqn", run="a").returns.tolist() == [1.0, 3.0]


def test_the_leaderboard_of_a_bucket_opens_its_runs_in_a_viewer(lib):
    lib.add([episode([1.0]), episode([2.0, 3.0])], algorithm="dqn", run="a")
    board = lib.leaderboard()
    assert [row["id"] for row in board.rows] == ["Moving-v0/dqn/a"]
    viewer = board.open_runs(["Moving-v0/dqn/a"], episode=1)
    assert viewer.length == 3
    assert board.message == ""


def test_any_fsspec_filesystem_holds_a_library(request):
    lib = RunLibrary(f"memory://{request.node.name}")  # fsspec's own, in this process
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    lib.add(episode([2.0]), algorithm="dqn", run="a")
    assert lib.open("Moving-v0/dqn/a")[1].rewards.tolist() == [2.0]


def test_writers_that_raced_to_create_a_run_with_other_params_get_it_reported(request):
    # Without conditional writes (fsspec checks, then writes), two writers creating one
    # run at the same moment both write run.json: here the second never saw the first's.
    url = f"memory://{request.node.name}"
    RunLibrary(url).add(episode([1.0]), algorithm="dqn", run="a", params={"lr": 0.1})
    fs = fsspec.filesystem("memory")
    fs.rm(f"/{request.node.name}/Moving-v0/dqn/a/run.json")
    with pytest.raises(ValueError, match="created this run at once with different params"):
        RunLibrary(url).add(episode([2.0]), algorithm="dqn", run="a", params={"lr": 0.2})
    lib = RunLibrary(url)
    with pytest.warns(UserWarning, match="created this run at once with different params"):
        assert lib.runs() == []
    assert lib.errors[0].path == f"{url}/Moving-v0/dqn/a"


def test_storage_options_are_only_for_urls(tmp_path):
    with pytest.raises(ValueError, match="storage_options are for URLs"):
        RunLibrary(tmp_path, storage_options={"anon": True})


def test_an_empty_bucket_library_has_no_runs_and_a_missing_run_says_so(lib, url):
    assert lib.runs() == []
    with pytest.raises(ValueError, match=rf"{url}/Moving-v0/dqn/a: no such run"):
        lib.open(("Moving-v0", "dqn", "a"))
    assert not lib.has_run("Moving-v0/dqn/a")
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    assert lib.has_run("Moving-v0/dqn/a")


# ---------------------------------------------------------------------- concurrent writers

WRITES = 8


def write_episodes(url, options, writer, barrier):
    lib = RunLibrary(url, storage_options=options)
    barrier.wait()  # both race to create the run
    for i in range(WRITES):
        lib.add(episode([float(writer * 100 + i)]), algorithm="dqn", run="shared")


def test_two_writer_processes_lose_and_duplicate_nothing(server, lib, url):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    writers = [
        context.Process(target=write_episodes, args=(url, server.options, w, barrier))
        for w in (1, 2)
    ]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=300)
    assert [p.exitcode for p in writers] == [0, 0]
    (run,) = lib.runs()
    assert lib.errors == []
    expected = sorted(float(w * 100 + i) for w in (1, 2) for i in range(WRITES))
    assert sorted(run.returns.tolist()) == expected
    assert len({e.file for e in run.episodes}) == 2 * WRITES
    assert sorted(float(e.rewards.sum()) for e in lib.open(run)) == expected  # objects read
    assert sum(k.startswith(".writers/") for k in keys(server, url)) == 2


# ---------------------------------------------------------------------- a killed writer

KILLED_WRITER = """
import sys
import numpy as np
from agent_widget import Rollout, RunLibrary

url, endpoint = sys.argv[1:]
lib = RunLibrary(url, storage_options={"key": "a", "secret": "b",
                                       "client_kwargs": {"endpoint_url": endpoint}})
rng = np.random.default_rng(0)
def noisy(n):
    return Rollout.from_arrays(frames=rng.integers(0, 256, (n, 96, 96, 3), np.uint8),
                               actions=np.zeros(n - 1, int), rewards=np.ones(n - 1),
                               metadata={"env_id": "Moving-v0"})
lib.add(noisy(2), algorithm="dqn", run="r")
print("first add done", flush=True)
lib.add([noisy(400) for _ in range(8)], algorithm="dqn", run="r")
"""


def test_a_writer_killed_mid_add_leaves_no_episode_half_visible(server, lib, url):
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(KILLED_WRITER), url, server.endpoint],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "first add done"
    prefix = f"{url}/Moving-v0/dqn/r".removeprefix("s3://")

    def mid_add() -> bool:
        assert child.poll() is None, "the writer finished before it could be killed"
        return len(server.fs.glob(f"{prefix}/episode-*", refresh=True)) >= 3

    wait_until(mid_add, "three of the second add's episodes uploaded")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    uploaded = server.fs.glob(f"{prefix}/episode-*", refresh=True)
    (run,) = lib.runs()
    assert lib.errors == []
    assert [e.steps for e in run.episodes] == [1]  # the first add only
    assert len(uploaded) >= 3  # the second add's objects are there, named by no manifest
    assert lib.open(run)[0].num_positions == 2


# ---------------------------------------------------------------------- what a view reads


def test_listing_reads_no_episode_and_a_view_reads_ranges_of_what_it_shows(server, lib):
    frames = moving_frames(20_000, 24, 32)
    frames[:, 0, 0, :2] = np.stack(np.divmod(np.arange(20_000), 256), axis=1)  # none alike
    long = Rollout.from_arrays(
        frames=frames,
        actions=np.zeros(19_999, int),
        rewards=np.ones(19_999),
        metadata={"env_id": "Moving-v0"},
    )
    lib.add(long, algorithm="dqn", run="long")
    before = len(server.requests())
    episodes = lib.open("Moving-v0/dqn/long")
    listing = server.requests()[before:]
    assert not [r for r in listing if ".rollout" in r], listing
    assert len(listing) <= 2  # the manifests' listing, one manifest
    rollout = episodes[0]
    opened = server.requests()[before + len(listing) :]
    np.testing.assert_array_equal(rollout.frames[19_000], frames[19_000])  # past the read-ahead
    shown = server.requests()[before + len(listing) + len(opened) :]
    # Opening: the object's size (HEAD), then ranged reads (206) of its end, its small
    # members and the chunks' header; a frame: the range of its part. Never the whole
    # object (200), nor a listing.
    assert all(".rollout" in r for r in opened + shown), opened + shown
    kinds = [r.split(" ")[0] + " " + r.split(" ")[-1] for r in opened + shown]
    assert kinds[0] == "HEAD 200"
    assert set(kinds[1:]) == {"GET 206"}
    assert len(opened) <= 5, opened
    assert len(shown) == 1, shown


# ---------------------------------------------------------------------- foreign objects


def test_foreign_objects_are_ignored_and_a_broken_manifest_reported(server, lib, url):
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    root = url.removeprefix("s3://")
    server.fs.pipe(
        {
            f"{root}/README.txt": b"hello",
            f"{root}/Moving-v0/dqn/a/notes.txt": b"notes",
            f"{root}/Other-v0/dqn/b/run.json": b"{}",  # no manifest names it
            f"{root}/Other-v0/dqn/b/episode-000.rollout": b"junk",
            f"{root}/.writers/.hidden.json": b"junk",
            f"{root}/.writers/notes.txt": b"junk",
        }
    )
    assert [r.id for r in lib.runs()] == ["Moving-v0/dqn/a"]
    assert lib.errors == []
    server.fs.pipe(f"{root}/.writers/broken.json", b"{not json")
    with pytest.warns(UserWarning, match="1 run"):
        assert [r.id for r in lib.runs()] == ["Moving-v0/dqn/a"]
    assert lib.errors[0].path == f"{url}/.writers/broken.json"
    assert "not valid JSON" in lib.errors[0].message


def test_a_manifest_naming_a_run_by_another_id_is_reported(server, lib, url):
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    (name,) = server.fs.ls(f"{url}/.writers".removeprefix("s3://"))
    manifest = json.loads(server.fs.cat(name))
    manifest["runs"]["Moving-v0/dqn/../x"] = manifest["runs"].pop("Moving-v0/dqn/a")
    server.fs.pipe(name, json.dumps(manifest).encode())
    with pytest.warns(UserWarning, match="1 run"):
        assert lib.runs() == []
    assert "its header names another run" in lib.errors[0].message


# ---------------------------------------------------------------------- manifest sizes


def padded_manifest(server, lib, url, size):
    """This library's one manifest, rewritten to exactly ``size`` bytes (a key that
    readers ignore pads it); its key in the bucket."""
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    (key,) = server.fs.ls(f"{url}/.writers".removeprefix("s3://"))
    text = json.dumps({**json.loads(server.fs.cat(key)), "pad": ""})
    server.fs.pipe(key, (text[:-2] + "x" * (size - len(text)) + text[-2:]).encode())
    return key


def test_a_manifest_of_the_cap_is_read(server, lib, url):
    padded_manifest(server, lib, url, MAX_MANIFEST_BYTES)
    assert [r.id for r in lib.runs()] == ["Moving-v0/dqn/a"]
    assert lib.errors == []


def test_a_manifest_listed_over_the_cap_is_reported_by_url_and_never_fetched(server, lib, url):
    key = padded_manifest(server, lib, url, MAX_MANIFEST_BYTES + 1)
    before = len(server.requests())
    with pytest.warns(UserWarning, match="1 run"):
        assert lib.runs() == []
    where = f"{url}/.writers/{key.rsplit('/', 1)[-1]}"
    assert lib.errors == [
        (where, f"{where}: over the 4,194,304-byte cap of a manifest (4,194,305 bytes)")
    ]
    assert [r.split("?")[0] for r in server.requests()[before:]] == ["GET /runs"]  # a listing


def test_a_manifest_grown_past_the_cap_since_the_listing_is_read_no_further(
    server, lib, url, monkeypatch
):
    key = padded_manifest(server, lib, url, MAX_MANIFEST_BYTES + 2**20)
    fs = lib._bucket._fs
    listed = fs.ls

    def understated(path, **kwargs):  # the size it had when listed, before it grew
        return [{**entry, "size": 100} for entry in listed(path, **kwargs)]

    monkeypatch.setattr(fs, "ls", understated)
    before = len(server.requests())
    with pytest.warns(UserWarning, match="1 run"):
        assert lib.runs() == []
    where = f"{url}/.writers/{key.rsplit('/', 1)[-1]}"
    assert lib.errors == [
        (where, f"{where}: over the 4,194,304-byte cap of a manifest (read no further)")
    ]
    # Asked for the listed size and some, then up to the cap: ranged reads (206) only.
    reads = [r for r in server.requests()[before:] if r.startswith(f"GET /{key}")]
    assert [r.rsplit(" ", 1)[1] for r in reads] == ["206", "206"]


def test_listing_holds_bounded_memory_whatever_the_manifests_hold(server, lib, url):
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    root = url.removeprefix("s3://")
    junk = b"x" * (MAX_MANIFEST_BYTES - 1)
    server.fs.pipe({f"{root}/.writers/junk-{i:02d}.json": junk for i in range(12)})
    tracemalloc.start()
    try:
        with pytest.warns(UserWarning, match="12 run"):
            assert [r.id for r in lib.runs()] == ["Moving-v0/dqn/a"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all("not valid JSON" in e.message for e in lib.errors)
    # 48 MiB of manifests; a batch asks for 16 MiB at most, which the client holds
    # twice while it joins the chunks that came, and one is parsed at a time.
    assert peak < 40 * 2**20


def test_an_add_that_no_manifest_could_list_is_refused_before_any_upload(server, lib, url):
    params = {"notes": "x" * MAX_MANIFEST_BYTES}
    with pytest.raises(ValueError, match=r"readers cap at 4,194,304: add the episodes in smaller"):
        lib.add(episode([1.0]), algorithm="dqn", run="big", params=params)
    assert keys(server, url) == []


def test_a_writer_starts_another_manifest_past_a_mebibyte(server, lib, url):
    params = {"notes": "x" * 2**19}
    lib.add(episode([1.0]), algorithm="dqn", run="a", params=params)
    lib.add(episode([1.0]), algorithm="dqn", run="b", params=params)  # past 1 MiB now
    lib.add(episode([1.0]), algorithm="dqn", run="c")
    sizes = [server.fs.size(k) for k in server.fs.ls(f"{url}/.writers".removeprefix("s3://"))]
    assert len(sizes) == 2
    assert max(sizes) < MAX_MANIFEST_BYTES
    assert [r.id for r in lib.runs()] == ["Moving-v0/dqn/a", "Moving-v0/dqn/b", "Moving-v0/dqn/c"]


# ---------------------------------------------------------------------- bad endpoints


def test_wrong_credentials_are_a_clear_error_naming_the_url_at_the_first_refusal(
    tmp_path_factory,
):
    guarded = S3Server(tmp_path_factory.mktemp("s3-auth"), authenticate=True)
    try:
        lib = RunLibrary("s3://runs/lib", storage_options=guarded.options)
        with pytest.raises(OSError, match=r"s3://runs/lib: cannot list the library"):
            lib.runs()
        with pytest.raises(OSError, match=r"s3://runs/lib: cannot write run.json"):
            lib.add(episode([1.0]), algorithm="dqn", run="a")
    finally:
        guarded.stop()
    # One request each, refused, and not tried again.
    assert [r.split(" ")[-1] for r in guarded.requests()] == ["403", "403"]


def test_the_leaderboard_says_when_its_bucket_is_out_of_reach_on_refresh(lib):
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    board = lib.leaderboard()
    dead = {
        "key": "a",
        "secret": "b",
        "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{free_port()}"},
    }
    board.library = RunLibrary("s3://runs/gone", storage_options=dead)
    board._on_message(board, {"type": "refresh"}, [])  # as the Refresh button sends it
    assert board.message.startswith("s3://runs/gone: cannot list the library")
    assert [row["id"] for row in board.rows] == ["Moving-v0/dqn/a"]  # the last table stays


def test_an_unreachable_endpoint_is_a_clear_error_with_default_options():
    """How soon it comes (retries and timeouts bounded): benchmarks/bucket.py."""
    nowhere = {
        "key": "a",
        "secret": "b",
        "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{free_port()}"},
    }
    lib = RunLibrary("s3://runs/lib", storage_options=nowhere)
    with pytest.raises(OSError, match=r"s3://runs/lib: cannot list the library \(.*connect"):
        lib.table()


def test_s3_clients_give_up_within_a_minute_in_all_retries_included():
    fs, _ = url_to_fs("s3://runs/lib", {"key": "a", "secret": "b"})
    config = fs.connect().meta.config  # the SDK's client, as s3fs made it
    attempts = config.retries["total_max_attempts"]
    assert (fs.retries, attempts, config.connect_timeout, config.read_timeout) == (1, 2, 5, 15)
    backoff = 5  # botocore's between its two attempts is under 2 s, s3fs's 0.1 s
    assert fs.retries * attempts * (config.connect_timeout + config.read_timeout) + backoff <= 60


@pytest.fixture
def silent():
    endpoint = SilentEndpoint()
    yield endpoint
    endpoint.close()


def silent_options(silent: SilentEndpoint) -> dict:
    """Storage options for the silent endpoint, its read timeout shortened to 1 s (15 s
    by default) for the tests."""
    return {
        "key": "a",
        "secret": "b",
        "client_kwargs": {"endpoint_url": silent.url},
        "config_kwargs": {"read_timeout": 1},
    }


def test_an_endpoint_that_never_answers_is_an_error_naming_the_url_after_two_attempts(silent):
    """How long it takes with the default timeouts: benchmarks/bucket.py."""
    options = silent_options(silent)
    lib = RunLibrary("s3://runs/lib", storage_options=options)
    with pytest.raises(OSError, match=r"s3://runs/lib: cannot list the library \(ReadTimeout"):
        lib.table()
    assert silent.connections == 2
    with pytest.raises(RolloutFileError, match=r"s3://runs/lib/a.rollout: cannot open"):
        load("s3://runs/lib/a.rollout", storage_options=options)
    assert silent.connections == 4


def test_an_add_to_an_endpoint_that_never_answers_is_an_error_naming_the_url(silent):
    """Uploads ask for "100-continue", which aiohttp waits for with no timeout."""
    options = silent_options(silent)
    lib = RunLibrary("s3://runs/lib", storage_options=options)
    failed: list[BaseException] = []

    def add() -> None:
        try:
            lib.add(episode([1.0]), algorithm="dqn", run="a")
        except OSError as error:
            failed.append(error)

    adding = threading.Thread(target=add, daemon=True)
    adding.start()
    adding.join(120)  # a hang guard, not a timing: it waited forever
    assert failed, "the add never returned"
    assert str(failed[0]).startswith(
        "s3://runs/lib: cannot write run.json (ReadTimeoutError: Read timeout"
    )
    assert silent.connections == 2


# ---------------------------------------------------------------------- record_many


def assert_recorded_as_alone(done, server):
    assert done.failed == {}
    for seed, path in done.paths.items():
        assert path.startswith("s3://"), path
        got = load(path, storage_options=server.options)
        want = record(cartpole(), balance, seed=seed, max_steps=60)
        np.testing.assert_array_equal(got.actions, want.actions)
        np.testing.assert_array_equal(got.frames[len(got.frames) - 1], want.frames[-1])


def test_record_many_processes_stream_into_a_bucket_run(server, lib, url):
    done = record_many(
        cartpole, balance, range(4), library=lib, run="eval", algorithm="pd",
        engine="processes", workers=2, max_steps=60, progress=False,
    )  # fmt: skip
    assert sorted(e.seed for e in done.run.episodes) == [0, 1, 2, 3]
    assert_recorded_as_alone(done, server)
    assert [r.metadata["seed"] for r in done.rollouts] == [0, 1, 2, 3]
    writers = [k for k in keys(server, url) if k.startswith(".writers/")]
    assert len(writers) == 2  # one manifest per worker process


def test_record_many_ray_actors_stream_into_a_bucket_run(server, lib):
    ray = pytest.importorskip("ray")
    try:
        done = record_many(
            cartpole, balance, range(4), library=lib, run="ray", algorithm="pd",
            engine="ray", workers=2, max_steps=60, progress=False,
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert sorted(e.seed for e in done.run.episodes) == [0, 1, 2, 3]
    assert_recorded_as_alone(done, server)


def test_a_bucket_library_pickles_as_its_url_and_options(server, lib):
    copy = pickle.loads(pickle.dumps(lib))
    assert (copy.root, copy.storage_options) == (lib.root, lib.storage_options)
    lib.add(episode([1.0]), algorithm="dqn", run="a")
    copy.add(episode([2.0]), algorithm="dqn", run="a")  # another writer: its own manifest
    assert lib.open("Moving-v0/dqn/a").run.returns.tolist() == [1.0, 2.0]
