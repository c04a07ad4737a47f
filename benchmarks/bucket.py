"""Run library in a bucket: the leaderboard of 1,000 runs, and a long episode's first frame.

moto's S3 server (started here on loopback, as the tests do) is the bucket, s3fs the
client; both share this machine's 2 cores, so every request costs CPU on both sides.

- Leaderboard: 1,000 runs (5 envs x 4 algorithms x 50 runs, 10 episodes each: the
  episodes of benchmarks/library.py) written by 5 writers at once, one per env, as
  ``RunLibrary.add`` writes them; then ``RunLibrary(url).table()`` from a fresh object
  with episode loading refused, and the requests it made from the server's log. Beside
  it, what any layout with an object per run pays at least: ``fs.cat`` of the 1,000
  ``run.json`` headers at once.
- First frame: a 100,000-step Pong episode (1,000 recorded steps' chunks repeated),
  in a local file and in the bucket: ``EpisodeViewer(load(...))``, which builds the
  replies to the first chunk requests (embedded in the widget, what a view paints
  first). Then a jump: on a 100,000-step episode whose chunks all differ (small
  frames, each stamped with its step: the Pong file stores its repeated chunks
  once, so any of them is read by then), the reply to a far chunk not yet read.
- Out of reach: once the server has stopped, how long the table and ``load()`` take to
  say so, with the default options (agent_widget bounds S3's retries and timeouts);
  and the same from an endpoint that accepts connections and never answers (a local
  socket), where only the read timeout ends each attempt.

    .venv/bin/python -m benchmarks.bucket            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from agent_widget.episodes import Rollout, load
from agent_widget.library import RunLibrary
from agent_widget.library import _run_library as library
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import chunk_reply
from benchmarks import scenes
from benchmarks.library import ALGORITHMS, ENVS, EPISODES, RUNS_PER_PAIR, episode, refuse
from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.long_episodes import repeated
from harness.s3_server import S3Server, SilentEndpoint

TITLE = "Run library in a bucket"
URL = "s3://runs/lib"
REPEATS = 7
LONG = 100_001  # positions: 100,000 steps
FAR_CHUNK = 5_000
PONG_STEPS = 1_000  # recorded, then their chunks repeated to LONG positions
HEADER_READS = 3  # fs.cat of every run.json, timed this many times
RUNS = len(ENVS) * len(ALGORITHMS) * RUNS_PER_PAIR
BAR_SECONDS = 2.0  # the leaderboard of every run, from the bucket
BAR_UNREACHABLE_SECONDS = 5.0  # an error from a bucket out of reach (botocore alone: 13 s)
BAR_SILENT_SECONDS = 60.0  # an error from an endpoint that never answers (before: 462 s)
SILENT_REPEATS = 3  # each takes half a minute


def build(server: S3Server) -> float:
    """The 1,000-run library, by one writer per env in threads; seconds it took."""

    def write(env_id: str, seed: int) -> None:
        rng = np.random.default_rng(seed)
        lib = RunLibrary(URL, storage_options=server.options)
        for algorithm in ALGORITHMS:
            for i in range(RUNS_PER_PAIR):
                params = {"lr": 10 ** -float(rng.uniform(2, 5)), "gamma": 0.99}
                rollouts = [episode(rng, s) for s in range(EPISODES)]
                names = {"env_id": env_id, "algorithm": algorithm, "run": f"lr{i}"}
                lib._write(rollouts, params=params, **names)  # add() but its read back

    start = time.perf_counter()
    writers = [threading.Thread(target=write, args=(e, i)) for i, e in enumerate(ENVS)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    return time.perf_counter() - start


def leaderboard(server: S3Server) -> dict:
    library.load = refuse  # type: ignore[assignment]  # any episode read now fails
    times, rows, requests = [], [], []
    for _ in range(REPEATS):
        before = len(server.requests())
        start = time.perf_counter()
        rows = RunLibrary(URL, storage_options=server.options).table()
        times.append(time.perf_counter() - start)
        requests.append(len(server.requests()) - before)
    assert len(rows) == RUNS
    assert all(r["episodes"] == EPISODES for r in rows)
    headers = [f"runs/lib/{r['id']}/run.json" for r in rows]
    per_run = []
    for _ in range(HEADER_READS):
        start = time.perf_counter()
        server.fs.cat(headers)
        per_run.append(time.perf_counter() - start)
    manifests = server.fs.ls("runs/lib/.writers", detail=True, refresh=True)
    return {
        "median": statistics.median(times),
        "slowest": max(times),
        "requests": statistics.median(requests),
        "manifests": len(manifests),
        "manifest_bytes": sum(m["size"] for m in manifests),
        "per_run": statistics.median(per_run),
    }


def distinct(positions: int) -> Rollout:
    """``positions`` 12x16 frames, each stamped with its step, so no two chunks are alike."""
    frames = np.full((positions, 12, 16, 3), 90, np.uint8)
    t = np.arange(positions)
    frames[:, 0, 0] = np.stack([t >> 16, t >> 8, t], axis=1) & 255
    steps = positions - 1
    return Rollout.from_arrays(
        frames=frames, actions=np.zeros(steps, int), rewards=np.zeros(steps), metadata={}
    )


def sources(server: S3Server, rollout: Rollout, path: Path) -> dict[str, tuple]:
    """The episode as a local file and as an object in the bucket, with their options."""
    local = rollout.save(path)
    remote = f"{URL}/{path.name}"
    server.fs.put_file(str(local), remote.removeprefix("s3://"))
    return {"local file": (local, None), "bucket": (remote, server.options)}


def first_frame(server: S3Server, folder: Path) -> dict:
    pong = sources(server, repeated(scenes.pong(PONG_STEPS), LONG), folder / "pong.rollout")
    stamped = sources(server, distinct(LONG), folder / "stamped.rollout")
    times: dict[str, list[float]] = {name: [] for name in pong}
    jumps: dict[str, list[float]] = {name: [] for name in pong}
    requests: dict[str, dict[str, int]] = {"first": {}, "jump": {}}
    for _ in range(REPEATS):
        for name, (path, options) in pong.items():
            before = len(server.requests())
            start = time.perf_counter()
            viewer = EpisodeViewer(load(path, storage_options=options))
            times[name].append(time.perf_counter() - start)
            assert viewer.embedded
            assert viewer.length == LONG
            requests["first"][name] = len(server.requests()) - before
            viewer.close()
        for name, (path, options) in stamped.items():
            viewer = EpisodeViewer(load(path, storage_options=options))
            before = len(server.requests())
            start = time.perf_counter()
            chunk_reply({"type": "chunks", "id": 1, "chunks": [FAR_CHUNK]}, viewer._episode)
            jumps[name].append(time.perf_counter() - start)
            requests["jump"][name] = len(server.requests()) - before
            viewer.close()
    return {
        "size": pong["local file"][0].stat().st_size,
        "first": {n: statistics.median(t) for n, t in times.items()},
        "jump": {n: statistics.median(t) for n, t in jumps.items()},
        "requests": requests,
    }


def unreachable(options: dict, repeats: int = REPEATS) -> dict[str, float]:
    """Seconds until the error, from a bucket where nothing listens any more (or nothing
    answers); medians of ``repeats``."""
    calls = {
        "`RunLibrary(url).table()`": lambda: RunLibrary(URL, storage_options=options).table(),
        "`load(url)` of an episode": lambda: load(f"{URL}/a.rollout", storage_options=options),
    }
    times: dict[str, float] = {}
    for name, call in calls.items():
        took = []
        for _ in range(repeats):
            start = time.perf_counter()
            try:
                call()
            except (OSError, ValueError):  # the library's OSError, load()'s RolloutFileError
                took.append(time.perf_counter() - start)
            else:
                raise AssertionError(f"{name} answered from a stopped server")
        times[name] = statistics.median(took)
    return times


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="aw-bucket-") as scratch:
        server = S3Server(Path(scratch))
        try:
            server.fs.mkdir("runs")
            built = build(server)
            board = leaderboard(server)
            frame = first_frame(server, Path(scratch))
        finally:
            server.stop()
        out_of_reach = unreachable(server.options)
    endpoint = SilentEndpoint()
    try:
        silent = unreachable(
            {**server.options, "client_kwargs": {"endpoint_url": endpoint.url}}, SILENT_REPEATS
        )
        connections = endpoint.connections / SILENT_REPEATS / len(silent)
    finally:
        endpoint.close()
    first, jump = frame["first"], frame["jump"]
    slowest = max(out_of_reach.values())
    reach_rows = "".join(f"| {name} | {took:.2f} |\n" for name, took in out_of_reach.items())
    silent_rows = "".join(f"| {name} | {took:.1f} |\n" for name, took in silent.items())
    silent_slowest = max(silent.values())
    ratio = first["bucket"] / first["local file"]
    body = (
        f"`{command('benchmarks.bucket', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}; moto's S3 server on loopback as the bucket, s3fs the "
        "client, both on these cores).\n\n"
        f"{RUNS:,} runs ({len(ENVS)} envs x {len(ALGORITHMS)} algorithms x {RUNS_PER_PAIR} "
        f"runs, {EPISODES} episodes each) written by {len(ENVS)} writers at once in "
        f"{built:.0f} s; {board['manifests']} writer manifests, "
        f"{board['manifest_bytes'] / 2**10:.0f} KiB in all.\n\n"
        f"| leaderboard of {RUNS:,} runs from the bucket | s |\n|---|---:|\n"
        f"| `RunLibrary(url).table()`, median of {REPEATS} | {board['median']:.2f} |\n"
        f"| slowest | {board['slowest']:.2f} |\n"
        f"| requests it makes | {board['requests']:.0f} |\n"
        f"| `fs.cat` of the {RUNS:,} `run.json` headers at once (an object per run), "
        f"median of {HEADER_READS} | {board['per_run']:.2f} |\n\n"
        "The table reads the writers' manifests only (a listing of `.writers/`, then the "
        "manifests together, in batches asking for 16 MiB at most); episode loading was "
        "replaced by a function that fails. "
        "Reading one object per run costs a request each: moto answered "
        f"{RUNS / board['per_run']:.0f} a second here (a real store answers faster, "
        "but the count is what grows), so a layout with a header or summary object per "
        "run (or per episode) could not meet the bar, whatever its concurrency.\n\n"
        f"| {LONG - 1:,}-step Pong episode ({frame['size'] / 2**20:.1f} MiB file) "
        "| local file (ms) | bucket (ms) | bucket / local |\n|---|---:|---:|---:|\n"
        f"| `EpisodeViewer(load(...))`: opened, first chunk replies built, median of "
        f"{REPEATS} | {first['local file'] * 1e3:.0f} | {first['bucket'] * 1e3:.0f} "
        f"| {ratio:.1f}x |\n"
        f"| requests to the bucket for it | 0 | {frame['requests']['first']['bucket']} | |\n"
        f"| a jump: the reply to chunk {FAR_CHUNK:,}, not yet read, of a {LONG - 1:,}-step "
        f"episode whose chunks all differ, median | {jump['local file'] * 1e3:.1f} "
        f"| {jump['bucket'] * 1e3:.1f} | {jump['bucket'] / jump['local file']:.0f}x |\n"
        f"| requests to the bucket for it | 0 | {frame['requests']['jump']['bucket']} | |\n\n"
        f"Opening an episode in the bucket took {frame['requests']['first']['bucket']} "
        "requests: a HEAD, then ranged reads (its end, its small members in one range, the "
        "block holding the chunks' header); the first chunks the viewer embeds come from "
        "that block and the next. A chunk not yet read is one ranged request for the "
        "blocks holding it, kept for the next reads. The Pong file stores each distinct "
        f"chunk once ({PONG_STEPS:,} recorded steps repeated), hence the stamped episode "
        "for the jump.\n\n"
        f"| a bucket out of reach (the server stopped), default options: seconds until "
        f"the error, median of {REPEATS} | s |\n|---|---:|\n{reach_rows}\n"
        "The default options try twice and connect within 5 s "
        "(agent_widget/format/_filesystems.py); botocore's own try 5 times with "
        "backoff: 13 s where nothing listens.\n\n"
        "| an endpoint that accepts connections and never answers (a local socket), "
        f"default options: seconds until the error, median of {SILENT_REPEATS} | s |\n"
        f"|---|---:|\n{silent_rows}\n"
        f"{connections:.0f} connections (attempts) per call: botocore's 2 attempts, each "
        "ended by the 15 s read timeout, and s3fs's one call. s3fs's own default calls "
        "botocore 5 times on a timeout, and botocore's tried 3 times with a 30 s read "
        "timeout: 462 s.\n\n"
        f"- leaderboard of {RUNS:,} runs from the bucket under {BAR_SECONDS:.0f} s: "
        f"{board['median']:.2f} s, {'meets' if board['median'] < BAR_SECONDS else 'MISSES'} "
        "the bar\n"
        f"- an error from a bucket out of reach within {BAR_UNREACHABLE_SECONDS:.0f} s: "
        f"{slowest:.2f} s (the slower median), "
        f"{'meets' if slowest < BAR_UNREACHABLE_SECONDS else 'MISSES'} the bar\n"
        f"- an error from an endpoint that never answers within {BAR_SILENT_SECONDS:.0f} s: "
        f"{silent_slowest:.1f} s (the slower median), "
        f"{'meets' if silent_slowest < BAR_SILENT_SECONDS else 'MISSES'} the bar"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
