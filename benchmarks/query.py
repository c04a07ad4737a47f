"""SQL over every step: RunLibrary.query on 1,000 episodes x 1,000 steps (1M steps).

Builds a library of 10 runs x 100 episodes of 1,000 steps (16x16 frames, a scalar
extra ``value``, a q-value series ``q`` of 4, an info ``lives``), with
``RunLibrary.add`` (10 episodes per add, fsync off: it is setup). Then, with frame
decoding replaced by a function that fails (a query must never decode one):

- a filter query and an aggregate over the 1M steps, once the tables exist, from a
  fresh ``RunLibrary`` (its first query reads the segments' footers) and repeated,
  each repetition beside DuckDB reading the same Parquet files itself
  (``read_parquet`` on ``.tables``, episodes named by file: no join), interleaved;
- ``add()`` of 10 episodes with the step tables and without them (fsync on,
  interleaved), the tables' share of add's time;
- the first query of the same library with its tables removed (as one added before
  they existed): every episode opened, its steps written as Parquet;
- the same library in moto's S3 bucket (started here on loopback): the filter query
  from a fresh reader, and the requests it made.

    .venv/bin/python -m benchmarks.query            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format import _lazy_columns
from agent_widget.library import RunLibrary
from agent_widget.library._tables import TABLES
from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.s3_server import S3Server

TITLE = "SQL over every step"
RUNS = 10
EPISODES = 100  # per run
STEPS = 1_000
BATCH = 10  # episodes per add
REPEATS = 7
ADDS = 15
FILTER = "SELECT run, episode, t FROM steps WHERE value > 3.5 AND action = 2"
AGGREGATE = "SELECT run, avg(reward) AS mean, max(lives) AS lives FROM steps GROUP BY run"
DIRECT = {  # the same questions, DuckDB reading the segments itself
    "filter": "SELECT run, file, t FROM {steps} WHERE value > 3.5 AND action = 2",
    "aggregate": AGGREGATE.replace("FROM steps", "FROM {steps}"),
}
BAR_QUERY = 0.5  # seconds, the filter once the tables exist
BAR_DIRECT = 1.5  # a repeated query against DuckDB reading the same Parquet itself
BAR_ADD = 0.25  # the tables' share of add's time
BAR_BUILD = 30.0  # seconds, the first query of a library without tables
BAR_BUCKET = 5.0  # seconds, the filter on the bucket from a fresh reader


def episode(rng: np.random.Generator, seed: int) -> Rollout:
    """1,000 steps of made-up data with every kind of per-step column."""
    frame = rng.integers(0, 256, (1, 16, 16, 3), np.uint8)
    lives = np.repeat(np.arange(3, 0, -1), -(-(STEPS + 1) // 3))[: STEPS + 1]
    return Rollout.from_arrays(
        frames=frame.repeat(STEPS + 1, axis=0),
        actions=rng.integers(0, 4, STEPS),
        rewards=rng.normal(size=STEPS),
        terminated=np.arange(STEPS) == STEPS - 1,
        infos=[{"lives": int(n)} for n in lives],
        extras={
            "value": rng.normal(size=STEPS).astype(np.float32),
            "q": rng.normal(size=(STEPS, 4)).astype(np.float32),
        },
        metadata={"seed": seed},
    )


def batches(seed: int) -> Iterator[tuple[str, list[Rollout]]]:
    """(run name, 10 episodes) until every run has its episodes; a few in memory at once."""
    rng = np.random.default_rng(seed)
    for run in range(RUNS):
        for start in range(0, EPISODES, BATCH):
            yield f"run{run}", [episode(rng, start + i) for i in range(BATCH)]


def build(lib: RunLibrary) -> float:
    """Add the whole library to ``lib`` (fsync off); seconds in add()."""
    fsync, os.fsync = os.fsync, lambda fd: None
    spent = 0.0
    try:
        for run, rollouts in batches(0):
            start = time.perf_counter()
            lib.add(rollouts, env_id="Bench-v0", algorithm="dqn", run=run)
            spent += time.perf_counter() - start
    finally:
        os.fsync = fsync
    return spent


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def add_times(root: Path) -> dict[str, list[float]]:
    """Seconds per add() of 10 episodes with the step tables and without (fsync on)."""
    rng = np.random.default_rng(1)
    times: dict[str, list[float]] = {"with": [], "without": []}
    for i in range(ADDS):
        for kind in times:
            lib = RunLibrary(root)
            if kind == "without":
                lib._segment_store = lambda: None  # type: ignore[method-assign]
            rollouts = [episode(rng, j) for j in range(BATCH)]
            start = time.perf_counter()
            lib.add(rollouts, env_id="Add-v0", algorithm=kind, run=f"{i}")
            seconds = time.perf_counter() - start
            times[kind].append(seconds)
    return times


def repeated(root: Path) -> dict[str, list[float]]:
    """Seconds per repeated filter and aggregate, by a ``RunLibrary`` and by DuckDB
    reading the library's Parquet files directly, interleaved."""
    import duckdb

    lib = RunLibrary(root)
    lib.query("SELECT 1")
    direct = duckdb.connect()
    steps = f"read_parquet('{root / TABLES}/**/*.parquet')"
    times: dict[str, list[float]] = {}
    for _ in range(REPEATS):
        for kind, sql in (("filter", FILTER), ("aggregate", AGGREGATE)):
            by_duckdb = DIRECT[kind].format(steps=steps)
            times.setdefault(kind, []).append(timed(partial(lib.query, sql))[0])
            answer = timed(lambda sql=by_duckdb: direct.sql(sql).df())[0]  # bound, read, converted
            times.setdefault(f"direct {kind}", []).append(answer)
    return times


def refuse_frames(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a query decoded a frame")


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    root = Path(tempfile.mkdtemp(prefix="aw-query-"))
    figures: dict[str, Any] = {}
    server = S3Server(root)
    try:
        lib = RunLibrary(root / "lib")
        figures["build"] = build(lib)
        figures["parquet"] = sum(p.stat().st_size for p in (root / "lib" / TABLES).rglob("*"))
        figures["rollouts"] = sum(p.stat().st_size for p in (root / "lib").glob("*/*/*/*.rollout"))
        _lazy_columns.StoredFrames._frame = refuse_frames  # type: ignore[method-assign]
        _lazy_columns.StoredFrames._part = refuse_frames  # type: ignore[method-assign]
        figures["first"], found = timed(lambda: RunLibrary(root / "lib").query(FILTER))
        figures.update(repeated(root / "lib"))
        figures["found"] = len(found)
        shutil.rmtree(root / "lib" / TABLES)
        figures["rebuild"], rebuilt = timed(
            lambda: RunLibrary(root / "lib").query(FILTER, progress=False)
        )
        assert rebuilt.equals(found), "the rebuilt tables answer otherwise"
        figures["adds"] = add_times(root / "adds")

        server.fs.mkdir("runs")
        bucket = RunLibrary("s3://runs/lib", storage_options=server.options)
        figures["bucket_build"] = build(bucket)
        before = len(server.requests())
        figures["bucket_first"], far = timed(
            lambda: RunLibrary("s3://runs/lib", storage_options=server.options).query(FILTER)
        )
        made = server.requests()[before:]
        figures["bucket_gets"] = sum(r.startswith("GET ") for r in made)
        figures["bucket_requests"] = len(made)
        assert not any(".rollout" in r for r in made), "a query read an episode's object"
        figures["segments"] = len(server.fs.find(f"runs/lib/{TABLES}"))
        assert len(far) == len(found), (len(far), len(found))
        reader = RunLibrary("s3://runs/lib", storage_options=server.options)
        reader.query("SELECT 1")
        figures["bucket_again"] = [timed(lambda: reader.query(FILTER))[0] for _ in range(REPEATS)]
    finally:
        server.stop()
        shutil.rmtree(root)
    publish(TITLE, report(figures, load_start, argv), write=not args.no_write)


def report(f: dict[str, Any], load_start: float, argv: list[str] | None) -> str:
    steps = RUNS * EPISODES * STEPS
    filter_median = statistics.median(f["filter"])
    direct_filter = statistics.median(f["direct filter"])
    aggregate = statistics.median(f["aggregate"])
    direct_aggregate = statistics.median(f["direct aggregate"])
    with_tables = statistics.median(f["adds"]["with"])
    without = statistics.median(f["adds"]["without"])
    share = with_tables / without - 1
    mib = 2**20
    rows = [
        ("the filter query, first on a fresh `RunLibrary` (footers read)", f["first"]),
        (f"the filter query again, median of {REPEATS}", filter_median),
        ("DuckDB's `read_parquet` on `.tables`, the filter, interleaved", direct_filter),
        (f"the aggregate, median of {REPEATS}", aggregate),
        ("DuckDB's `read_parquet` on `.tables`, the aggregate, interleaved", direct_aggregate),
        (
            "first query with the tables removed (every episode opened, Parquet written)",
            f["rebuild"],
        ),
        (f"`add()` of {BATCH} episodes with the tables (fsync on), median of {ADDS}", with_tables),
        (f"`add()` of {BATCH} episodes without them, interleaved, median of {ADDS}", without),
        ("the filter query on the bucket, from a fresh reader", f["bucket_first"]),
        (f"again on the bucket, median of {REPEATS}", statistics.median(f["bucket_again"])),
    ]
    table = "\n".join(f"| {what} | {seconds * 1e3:,.0f} |" for what, seconds in rows)

    def bar(name: str, value: float, limit: float, unit: str = "s") -> str:
        shown = f"{value:.0%}" if unit == "%" else f"{value:.2f} s"
        wanted = f"{limit:.0%}" if unit == "%" else f"{limit:g} s"
        return f"- {name} under {wanted}: {shown}, {'meets' if value < limit else 'MISSES'} the bar"

    def ratio(name: str, value: float) -> str:
        met = "meets" if value <= BAR_DIRECT else "MISSES"
        return (
            f"- {name} repeated within {BAR_DIRECT}x DuckDB's own reading: {value:.1f}x, {met} it"
        )

    return (
        f"`{command('benchmarks.query', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, files in the page cache).\n"
        f"{RUNS} runs x {EPISODES} episodes x {STEPS:,} steps = {steps:,} steps "
        f"({f['rollouts'] / mib:.0f} MiB of .rollout files; step tables "
        f"{f['parquet'] / mib:.0f} MiB of Parquet, {RUNS * EPISODES // BATCH} segments), "
        f"added {BATCH} episodes at a time in {f['build']:.0f} s (fsync off). Frame "
        "decoding was replaced by a function that fails: no query decoded a frame.\n\n"
        f"Filter: `{FILTER}` ({f['found']} rows). Aggregate: `{AGGREGATE}`. DuckDB "
        "directly: the same over `read_parquet('<root>/.tables/**/*.parquet')`, `file` for "
        "`episode`, in one connection of its own, unlocked.\n\n"
        f"| {steps:,} steps | ms |\n|---|---:|\n{table}\n\n"
        f"The bucket's first query made {f['bucket_requests']} requests "
        f"({f['bucket_gets']} GETs) for {f['segments']} segments: a listing, then for each "
        "segment its footer and the byte ranges of the columns the query reads (`value`, "
        "`action` and the keys joining a step to its episode); no episode object was "
        "read. A query repeated reads the footers no more.\n\n"
        + "\n".join(
            [
                bar("the filter once the tables exist", filter_median, BAR_QUERY),
                ratio("the filter", filter_median / direct_filter),
                ratio("the aggregate", aggregate / direct_aggregate),
                bar("the tables' share of `add()`", share, BAR_ADD, "%"),
                bar("the first query of a library without tables", f["rebuild"], BAR_BUILD),
                bar("the filter on the bucket from a fresh reader", f["bucket_first"], BAR_BUCKET),
            ]
        )
    )


if __name__ == "__main__":
    main()
