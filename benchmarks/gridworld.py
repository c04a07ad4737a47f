"""Grid worlds: what keeping a Q-table snapshot per episode, and watching it, costs training.

Q-learning on FrozenLake 8x8 slippery (alpha 0.1, gamma 0.99, epsilon 0.1, seed 0):

- a long run with ``Snapshots.append`` as the training callback, every call timed,
  then the snapshots' size in memory and on disk;
- a run with a ``TrainingViewer`` attached (``viewer.snapshot`` as the callback),
  every call timed: most calls only keep the table, one every 0.25 s also draws and
  appends a position (no browser is attached, so its messages go nowhere);
- value maps appended live, one position at a time, each followed by handing out the
  growing chunk as the viewer's growth push does: the time of each, the bytes held
  (the frames a TrainingViewer draws: the grid alone, ``CELL_SIZE`` px cells, its
  text written by the browser);
- the training loop with no callback, with ``Snapshots.append`` and with
  ``TrainingViewer.snapshot``, side by side: the same seeded run (so the same
  episodes and steps) on each side, interleaved repetitions, CPU time;
- ``ValueMap.grid`` of an 8x8 table (what drawing one position costs).

    .venv/bin/python -m benchmarks.gridworld            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

from agent_widget.agents import QLearning
from agent_widget.format import ArrayFrames
from agent_widget.gridworld import TrainingViewer, ValueMap
from agent_widget.gridworld._snapshots import BLOCK, DEFAULT_TOLERANCE, Snapshots
from agent_widget.gridworld._training import CELL_SIZE, INTERVAL
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Grid worlds"
SEED = 0
LEARNING = {"alpha": 0.1, "gamma": 0.99, "epsilon": 0.1}  # Q-learning's parameters
LAST = 1_000  # training episodes the success rate is taken over
LIVE_EVERY = 25  # training episodes between the value maps appended live
BARE, KEPT, WATCHED = "no callback", "Snapshots.append", "TrainingViewer.snapshot"


def lake() -> gym.Env:
    return gym.make("FrozenLake-v1", map_name="8x8", is_slippery=True)


def agent() -> QLearning:
    return QLearning(lake(), **LEARNING, seed=SEED)


def timed(callback: Callable[..., None], times: list[float]) -> Callable[..., None]:
    """``callback``, recording the seconds of each call in ``times``."""

    def call(q_table: np.ndarray, episode: int, ret: float) -> None:
        start = time.perf_counter()
        callback(q_table, episode=episode, ret=ret)
        times.append(time.perf_counter() - start)

    return call


def long_run(episodes: int) -> dict:
    """Train with every snapshot kept, timing each append; then the sizes."""
    snapshots = Snapshots()
    times: list[float] = []
    start = time.perf_counter()
    returns = agent().train(episodes, callback=timed(snapshots.append, times))
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        file_bytes = snapshots.save(Path(folder) / "run.snapshots").stat().st_size
    return {
        "episodes": episodes,
        "seconds": seconds,
        "times": np.array(times),
        "nbytes": snapshots.nbytes,
        "file_bytes": file_bytes,
        "success": float(returns[-LAST:].mean()),
    }


def viewer_run(episodes: int) -> dict:
    """Train with a TrainingViewer attached, timing each ``snapshot()``."""
    viewer = TrainingViewer(lake())
    times: list[float] = []
    agent().train(episodes, callback=timed(viewer.snapshot, times))
    time.sleep(0.3)  # the newest snapshot gets its position once the interval has passed
    positions = viewer.num_positions
    viewer.close()
    return {"times": np.array(times), "positions": positions}


def live_frames(positions: int) -> dict:
    """Value maps of a run, appended one by one, each followed by the newest chunk handed out
    (what a growth push costs the kernel); then the bytes the frames hold."""
    learner, value_map = agent(), ValueMap(lake(), cell_size=CELL_SIZE)
    maps = []
    for _ in range(positions):
        learner.train(LIVE_EVERY)
        maps.append(value_map.grid(learner.q_table)[0])
    frames = ArrayFrames()
    times = []
    for frame in maps:
        start = time.perf_counter()
        frames.append(frame)
        frames.chunk(frames.num_chunks - 1)
        times.append(time.perf_counter() - start)
    return {"times": np.array(times), "nbytes": frames.nbytes, "frame_bytes": maps[0].nbytes}


def side_by_side(episodes: int, repetitions: int) -> dict[str, list[float]]:
    """CPU seconds to train ``episodes`` episodes on each side, interleaved.

    Only ``train()`` is timed, not making the viewer. CPU time of this process
    (drawing on the viewer's timer thread included), not wall time: the machine is
    shared, and other jobs taking the core swing wall times by more than the
    differences measured.
    """
    seconds: dict[str, list[float]] = {name: [] for name in (BARE, KEPT, WATCHED)}
    for _ in range(repetitions):
        for name in seconds:
            learner = agent()
            viewer = TrainingViewer(lake()) if name == WATCHED else None
            callback = viewer.snapshot if viewer is not None else None
            if name == KEPT:
                callback = Snapshots().append
            start = time.process_time()
            learner.train(episodes, callback=callback)
            seconds[name].append(time.process_time() - start)
            if viewer is not None:
                viewer.close()
    return seconds


def draw_time(q_table: np.ndarray, repetitions: int = 200) -> float:
    """Seconds to draw one position's frame, as a TrainingViewer does."""
    value_map = ValueMap(lake(), cell_size=CELL_SIZE)
    value_map.grid(q_table)  # glyphs are drawn once, then cached
    start = time.perf_counter()
    for _ in range(repetitions):
        value_map.grid(q_table)
    return (time.perf_counter() - start) / repetitions


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f}"


def calls(times: np.ndarray) -> str:
    return (
        f"median {us(float(np.median(times)))} us, mean {us(float(times.mean()))} us, "
        f"p99 {us(float(np.percentile(times, 99)))} us, max {times.max() * 1e3:.2f} ms"
    )


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=100_000, help="episodes of the long run")
    parser.add_argument("--episodes", type=int, default=2_000, help="episodes per side")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--positions", type=int, default=320, help="value maps appended live")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]

    long = long_run(args.long)
    live = viewer_run(args.episodes)
    grown = live_frames(args.positions)
    trained = agent()
    trained.train(args.episodes)
    draw = draw_time(trained.q_table)
    height, width = ValueMap(lake(), cell_size=CELL_SIZE).grid(trained.q_table)[0].shape[:2]
    lake_rows, lake_cols = ValueMap(lake()).layout.shape
    table_shape = "x".join(map(str, trained.q_table.shape))
    seconds = side_by_side(args.episodes, args.repetitions)
    # Each repetition's sides ran back to back, so their ratio is the steadiest measure.
    slowdowns = {
        name: statistics.median(s / b for b, s in zip(seconds[BARE], values, strict=True)) - 1
        for name, values in seconds.items()
    }
    rows = "\n".join(
        f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {slowdowns[name]:+.1%} |"
        for name, values in seconds.items()
    )
    live_mean = float(live["times"].mean())
    per_position = grown["nbytes"] / args.positions
    bars = [
        (f"{WATCHED}() under 200 us per call (mean, drawing included)", live_mean < 200e-6,
         f"{us(live_mean)} us"),
        ("training slowdown with a viewer attached under 10%", slowdowns[WATCHED] < 0.10,
         f"{slowdowns[WATCHED]:+.1%}"),
        ("live value maps held within 10 KB per position", per_position < 10e3,
         f"{per_position / 1e3:.1f} KB"),
        (f"100,000 snapshots of a {table_shape} table saved in under 5 MiB",
         long["episodes"] >= 100_000 and long["file_bytes"] < 5 * 2**20,
         f"{long['file_bytes'] / 2**20:.2f} MiB for {long['episodes']:,}"),
    ]  # fmt: skip
    verdicts = "\n".join(
        f"- {bar}: {value}, {'meets' if ok else 'MISSES'} the bar" for bar, ok, value in bars
    )
    n = long["episodes"]
    body = (
        f"`{command('benchmarks.gridworld', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}). "
        f"Q-learning on FrozenLake {lake_rows}x{lake_cols} slippery "
        f"({', '.join(f'{k} {v}' for k, v in LEARNING.items())}, seed {SEED}), one Q-table "
        f"snapshot ({table_shape} {trained.q_table.dtype}) per episode, kept within "
        f"{DEFAULT_TOLERANCE:g} by `Snapshots`.\n\n"
        f"**Long run, every snapshot kept**: {n:,} episodes in {long['seconds']:.0f} s "
        f"({long['seconds'] / n * 1e3:.2f} ms per episode). `Snapshots.append`: "
        f"{calls(long['times'])} (every {BLOCK}th call deflates a finished block); "
        f"{long['times'].sum() / long['seconds']:.1%} of the run. Size: "
        f"{long['nbytes'] / 2**20:.2f} MiB in memory ({long['nbytes'] / n:.0f} B per "
        "snapshot), "
        f"{long['file_bytes'] / 2**20:.2f} MiB saved ({long['file_bytes'] / n:.0f} B per "
        f"snapshot); as {trained.q_table.dtype} the tables alone take "
        f"{n * trained.q_table.nbytes / 2**20:.0f} MiB. "
        f"Success over the last {LAST:,} training episodes (exploring): {long['success']:.1%}.\n\n"
        f"**A TrainingViewer attached** ({args.episodes:,} episodes, a position at most "
        f"every {INTERVAL} s, frames of {CELL_SIZE} px cells, no browser): `snapshot()` "
        f"{calls(live['times'])}; the slow calls "
        f"are those that draw a value map and append a position ({live['positions']} "
        f"positions). Drawing one {lake_rows}x{lake_cols} value map (`ValueMap.grid`, "
        f"{width}x{height} px): "
        f"{draw * 1e3:.2f} ms.\n\n"
        f"**Value maps appended live** ({args.positions} positions, one every {LIVE_EVERY} "
        "episodes, "
        "each appended to `ArrayFrames` and the growing chunk then handed out, as a growth "
        f"push does): {calls(grown['times'])}; {per_position / 1e3:.1f} KB held per "
        f"position (a raw frame is {grown['frame_bytes'] / 1e3:.0f} KB).\n\n"
        f"**Side by side**: {args.episodes:,} episodes, the same seeded run on every side, "
        f"{args.repetitions} interleaved repetitions, CPU time of the process.\n\n"
        "| training loop | median CPU (s) | best (s) | vs no callback (median of paired ratios) |\n"
        "|---|---:|---:|---:|\n"
        f"{rows}\n\n"
        f"{verdicts}"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
