"""Run library: the leaderboard of 1,000 runs, read from run.json files only.

Builds a library of 1,000 runs (5 envs x 4 algorithms x 50 runs, 10 episodes each,
every episode a real .rollout file with 16x16 frames) with ``RunLibrary.add``, then
times ``RunLibrary(root).table()`` from a fresh object, with episode loading
disabled so that any read of an episode would fail the run. The build skips fsync
(it is setup, and 10,000 fsyncs take minutes here); ``add`` is timed on its own,
with fsync, on a few more runs. Side by side with the clean library, interleaved:
the same library with 10 unreadable entries beside its runs (see ``spoil``).

    .venv/bin/python -m benchmarks.library            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.library import Leaderboard, RunLibrary
from agent_widget.library import _run_library as library
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Run library"
ENVS = ("CartPole-v1", "FrozenLake-v1", "ALE/Pong-v5", "LunarLander-v3", "Acrobot-v1")
ALGORITHMS = ("dqn", "ppo", "sarsa", "random")
RUNS_PER_PAIR = 50
EPISODES = 10
REPEATS = 7
BAD_ENTRIES = 10
ADDS = 20
BAR_SECONDS = 1.0  # the leaderboard of every run, read
BAR_SPOILED_RATIO = 2.0  # ten unreadable entries beside them, against none


def episode(rng: np.random.Generator, seed: int) -> Rollout:
    steps = int(rng.integers(20, 200))
    return Rollout.from_arrays(
        frames=rng.integers(0, 256, (1, 16, 16, 3), np.uint8).repeat(steps + 1, axis=0),
        actions=rng.integers(0, 4, steps),
        rewards=rng.normal(size=steps),
        infos=[{}] * steps + [{"is_success": bool(rng.random() < 0.5)}],
        metadata={"seed": seed},
    )


def add_run(lib: RunLibrary, rng: np.random.Generator, env_id: str, algorithm: str, run: str):
    lib.add(
        [episode(rng, seed) for seed in range(EPISODES)],
        env_id=env_id,
        algorithm=algorithm,
        run=run,
        params={"lr": 10 ** -float(rng.uniform(2, 5)), "gamma": 0.99},
    )


def build(root: Path) -> None:
    """The 1,000-run library, written without fsync (setup only)."""
    rng = np.random.default_rng(0)
    lib = RunLibrary(root)
    fsync = os.fsync
    os.fsync = lambda fd: None
    try:
        for env_id in ENVS:
            for algorithm in ALGORITHMS:
                for i in range(RUNS_PER_PAIR):
                    add_run(lib, rng, env_id, algorithm, f"lr{i}")
    finally:
        os.fsync = fsync


def add_times(root: Path) -> list[float]:
    """Seconds per add() of a 10-episode run, fsync included."""
    rng = np.random.default_rng(1)
    lib = RunLibrary(root)
    times = []
    for i in range(ADDS):
        start = time.perf_counter()
        add_run(lib, rng, "Timed-v0", "dqn", f"run{i}")
        times.append(time.perf_counter() - start)
    return times


def spoil(root: Path) -> list[Path]:
    """Ten entries that cannot be read, at every depth of ``root``, as a shared folder
    gathers them; what to remove to make it clean again. Symlink loops as an env, an
    algorithm and a run, a link to nothing, and runs whose run.json is a FIFO, a
    socket, a link to /dev/zero or /dev/null, a loop or a folder. (Permissions do not
    bind this root process: the tests take those cases.)"""
    env, algorithm = root / ENVS[0], root / ENVS[0] / ALGORITHMS[0]
    for loop in (root / "env-loop", env / "algorithm-loop", algorithm / "run-loop"):
        loop.symlink_to(loop)
    (algorithm / "gone").symlink_to(root / "nowhere")
    broken = root / "Broken-v0" / "dqn"
    makers = {
        "fifo": os.mkfifo,
        "socket": bind_socket,
        "zero": lambda path: path.symlink_to("/dev/zero"),
        "null": lambda path: path.symlink_to("/dev/null"),
        "loop": lambda path: path.symlink_to(path),
        "folder": os.mkdir,
    }
    for name, make in makers.items():
        (broken / name).mkdir(parents=True)
        make(broken / name / "run.json")
    return [
        root / "env-loop", env / "algorithm-loop", algorithm / "run-loop", algorithm / "gone",
        root / "Broken-v0",
    ]  # fmt: skip


def bind_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


def clean(entries: list[Path]) -> None:
    for path in entries:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def side_by_side(root: Path) -> dict[str, list[float]]:
    """Seconds per ``table()`` of the clean library and of it spoiled, interleaved."""
    times: dict[str, list[float]] = {"clean": [], "spoiled": []}
    for _ in range(REPEATS):
        for kind in times:
            spoiled = spoil(root) if kind == "spoiled" else []
            lib = RunLibrary(root)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the spoiled one warns of its 10 entries
                start = time.perf_counter()
                rows = lib.table()
                times[kind].append(time.perf_counter() - start)
            clean(spoiled)
            assert len(rows) == len(ENVS) * len(ALGORITHMS) * RUNS_PER_PAIR, kind
            assert len(lib.errors) == (BAD_ENTRIES if spoiled else 0), (kind, lib.errors)
    return times


def refuse(path: Path, **options) -> Rollout:
    raise AssertionError(f"the leaderboard read an episode: {path}")


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    root = Path(tempfile.mkdtemp(prefix="aw-library-"))
    try:
        build(root)
        library.load = refuse  # type: ignore[assignment]  # any episode read now fails
        times, rows = [], []
        for _ in range(REPEATS):
            start = time.perf_counter()
            rows = RunLibrary(root).table()
            times.append(time.perf_counter() - start)
        widget = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            Leaderboard(RunLibrary(root)).get_state()
            widget.append(time.perf_counter() - start)
        spoiled = side_by_side(root)
        json_bytes = sum(p.stat().st_size for p in root.glob("*/*/*/run.json"))
        episode_bytes = sum(p.stat().st_size for p in root.glob("*/*/*/*.rollout"))
        adds = add_times(root / "timed")
    finally:
        shutil.rmtree(root)
    runs = len(ENVS) * len(ALGORITHMS) * RUNS_PER_PAIR
    assert len(rows) == runs
    assert all(r["episodes"] == EPISODES for r in rows)
    median = statistics.median(times)
    clean_median = statistics.median(spoiled["clean"])
    spoiled_median = statistics.median(spoiled["spoiled"])
    ratio = spoiled_median / clean_median
    body = (
        f"`{command('benchmarks.library', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, files in the page cache).\n"
        f"{len(rows):,} runs ({len(ENVS)} envs x {len(ALGORITHMS)} algorithms x "
        f"{RUNS_PER_PAIR} runs, {EPISODES} episodes each: {len(rows) * EPISODES:,} .rollout "
        f"files, {episode_bytes / 2**20:.0f} MiB) written with `RunLibrary.add`.\n\n"
        f"| leaderboard of {runs:,} runs | ms |\n|---|---:|\n"
        f"| `RunLibrary(root).table()`, median of {REPEATS} | {median * 1e3:.0f} |\n"
        f"| first of them | {times[0] * 1e3:.0f} |\n"
        f"| slowest | {max(times) * 1e3:.0f} |\n"
        f"| the `Leaderboard` widget's state (table read and serialized), median "
        f"| {statistics.median(widget) * 1e3:.0f} |\n"
        f"| `add()` of a run of {EPISODES} episodes (fsync on), median of {ADDS} "
        f"| {statistics.median(adds) * 1e3:.0f} |\n\n"
        f"It reads the {runs:,} run.json files ({json_bytes / 2**10:.0f} KiB in all) and lists "
        "the folders; episode loading was replaced by a function that fails, so no "
        "episode file was opened. `add()` time is mostly fsync: each episode file, "
        "run.json and their folders are made durable before the run is renamed into "
        "place.\n\n"
        f"| side by side, interleaved: {runs:,} runs | ms, median of {REPEATS} |\n"
        f"|---|---:|\n| `table()` of the clean library | {clean_median * 1e3:.0f} |\n"
        f"| `table()` with {BAD_ENTRIES} unreadable entries beside the runs "
        f"| {spoiled_median * 1e3:.0f} |\n\n"
        "The unreadable entries: symlink loops as an env, an algorithm and a run, a link "
        "to nothing, and six runs whose run.json is a FIFO, a socket, a link to /dev/zero, "
        "one to /dev/null, a loop or a folder; each is listed in `errors` with its path "
        "and why, and none is opened. Permissions do not bind root, so folders without "
        "them are in the tests only.\n\n"
        f"- leaderboard of {runs:,} runs under {BAR_SECONDS:.0f} s: {median * 1e3:.0f} ms, "
        f"{'meets' if median < BAR_SECONDS else 'MISSES'} the bar\n"
        f"- with {BAD_ENTRIES} unreadable entries within {BAR_SPOILED_RATIO:.0f}x the clean "
        f"one's time: {ratio:.2f}x, {'meets' if ratio < BAR_SPOILED_RATIO else 'MISSES'} "
        "the bar"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
