"""record_many(): episodes per second on 1 and 2 workers, Ray actors against spawned
processes, against a plain loop of record() in this process (what a user writes
without it). CartPole with rendering, a balancing rule (500 steps an episode), each
episode streamed into a run of a fresh library.

Wall time from the call to its return, worker start-up included (a Ray instance is
started once beforehand, as a cluster would be running); repetitions alternate the
sides, medians reported.

    .venv/bin/python -m benchmarks.record_many            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym

from agent_widget import RunLibrary, record, record_many
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Recording many seeds"
EPISODES = 24  # enough that the workers' start-up (about a second) is a small part
BAR = 1.8  # 2 workers against 1


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1", render_mode="rgb_array")


def balance(obs) -> int:
    return int(3 * obs[2] + obs[3] > 0)


def loop(folder: Path) -> list[int]:
    """What a user writes without record_many: one process, one seed after another.
    Returns the episodes' lengths (steps)."""
    library, env, lengths = RunLibrary(folder), cartpole(), []
    for seed in range(EPISODES):
        rollout = record(env, balance, seed=seed)
        library.add(rollout, run="loop", algorithm="pd")
        lengths.append(rollout.num_steps)
    return lengths


def many(engine: str, workers: int) -> Callable[[Path], None]:
    def run(folder: Path) -> None:
        done = record_many(
            cartpole,
            balance,
            range(EPISODES),
            library=folder,
            run=engine,
            algorithm="pd",
            engine=engine,  # type: ignore[arg-type]
            workers=workers,
            progress=False,
        )
        if done.failed or len(done.paths) != EPISODES:
            raise RuntimeError(f"record_many left seeds out: {done.failed}")

    return run


def steps_text(lengths: list[int]) -> str:
    low, high = min(lengths), max(lengths)
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="repetitions per side")
    args = parser.parse_args(argv)
    import ray

    load_start = os.getloadavg()[0]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    sides: dict[str, Callable[[Path], object]] = {"record() in a loop, this process": loop}
    for engine in ("processes", "ray"):
        for workers in (1, 2):
            sides[f"record_many, {engine}, {workers} worker{'s' * (workers > 1)}"] = many(
                engine, workers
            )
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}
    lengths: list[int] = []
    try:
        for rep in range(args.reps):
            for name in names[rep % len(names) :] + names[: rep % len(names)]:
                with tempfile.TemporaryDirectory() as scratch:
                    start = time.perf_counter()
                    done = sides[name](Path(scratch))
                    times[name].append(time.perf_counter() - start)
                if isinstance(done, list):
                    lengths = done
                print(name, f"{times[name][-1]:.1f} s", flush=True)
    finally:
        ray.shutdown()
    seconds = {name: statistics.median(values) for name, values in times.items()}
    rows = [
        f"| how | {EPISODES} episodes (s, median) | episodes per second | vs 1 worker |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        single = name.replace("2 workers", "1 worker")
        ratio = f"{seconds[single] / seconds[name]:.2f}x" if single != name else "—"
        rows.append(f"| {name} | {seconds[name]:.1f} | {EPISODES / seconds[name]:.2f} | {ratio} |")
    scaling = {
        engine: seconds[f"record_many, {engine}, 1 worker"]
        / seconds[f"record_many, {engine}, 2 workers"]
        for engine in ("processes", "ray")
    }
    verdict = "meets" if max(scaling.values()) >= BAR else "MISSES"
    body = (
        f"`{command('benchmarks.record_many', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, {args.reps} repetitions per side in rotated order, "
        f"medians).\n\n"
        f"{EPISODES} CartPole-v1 episodes with rendering (a balancing rule: "
        f"{steps_text(lengths)} steps each), every one into a run of a fresh library; "
        "wall time from the call to its "
        "return, worker start-up included (the Ray instance started once beforehand).\n\n"
        + "\n".join(rows)
        + f"\n\nBar (2 workers at least {BAR}x the episodes per second of 1, CartPole with "
        f"rendering): processes {scaling['processes']:.2f}x, Ray {scaling['ray']:.2f}x, "
        f"{verdict} it."
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
