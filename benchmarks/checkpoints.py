"""Checkpoints during training: SB3 DQN on CartPole trained with and without
``RecordCheckpoints`` (one episode per seed and the weights, every N steps), and what
rendering the frames at record time would have cost instead of later, by replay.

Three sides, each training the same DQN (same seed, so the same updates) from
scratch: no callback; checkpoints recorded without frames (what ``RecordCheckpoints``
does); checkpoints recorded in an env rendering ``rgb_array`` frames. The machine is
shared, and whole trainings vary by more than the checkpoints cost, so the time spent
inside the callback's checkpoints is measured too (wall and this process's CPU), and
the bar is read on it against the training around it. Then the frames of the
frameless side's episodes are rendered afterwards by replay (``render_frames``): the
cost moved out of training. Torch on one thread (a network this small loses time to
a second one on a shared machine); repetitions rotate the sides, medians reported.

    .venv/bin/python -m benchmarks.checkpoints            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import gymnasium as gym
import torch
from stable_baselines3 import DQN

from agent_widget.checkpoints import Checkpoints
from agent_widget.library import RunLibrary
from agent_widget.sb3 import RecordCheckpoints
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Checkpoints during training"
SEEDS = [0, 1]
BAR = 0.15  # checkpoints at most 15% of the training's own time
# rl-baselines3-zoo's DQN hyperparameters for CartPole-v1: it balances (500-step
# evaluation episodes) within 10,000 steps, so the checkpoints record long episodes, as
# a run worth watching does (SB3's defaults still fall within ~10 steps at 20,000).
ZOO = {
    "learning_rate": 2.3e-3,
    "batch_size": 64,
    "buffer_size": 100_000,
    "learning_starts": 1_000,
    "gamma": 0.99,
    "target_update_interval": 10,
    "train_freq": 256,
    "gradient_steps": 128,
    "exploration_fraction": 0.16,
    "exploration_final_eps": 0.04,
    "policy_kwargs": {"net_arch": [256, 256]},
}
SIDES = {
    "no checkpoints": None,
    "checkpoints, frames rendered later (RecordCheckpoints)": False,
    "checkpoints, frames rendered at record time": True,
}


class Measure(NamedTuple):
    wall: float
    cpu: float
    checkpoints_wall: float
    checkpoints_cpu: float


class TimedCheckpoints(RecordCheckpoints):
    """RecordCheckpoints, adding up the time its steps take (the checkpoints' recording;
    the other steps only compare two numbers)."""

    wall = cpu = 0.0

    def _on_step(self) -> bool:
        wall, cpu = time.perf_counter(), time.process_time()
        go_on = super()._on_step()
        self.wall += time.perf_counter() - wall
        self.cpu += time.process_time() - cpu
        return go_on


def train(folder: Path, steps: int, every: int, render: bool | None) -> Measure:
    """The DQN trained for ``steps``: without checkpoints (``render`` None), or with
    them in an env that renders frames or not."""
    callback = None
    if render is not None:
        mode = "rgb_array" if render else None
        callback = TimedCheckpoints(
            lambda: gym.make("CartPole-v1", render_mode=mode),
            every=every,
            seeds=SEEDS,
            library=folder,
            run="bench",
        )
    wall, cpu = time.perf_counter(), time.process_time()
    model = DQN("MlpPolicy", "CartPole-v1", seed=0, device="cpu", **ZOO)  # type: ignore[arg-type]
    model.learn(steps, callback=callback)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return Measure(wall, cpu, callback.wall if callback else 0.0, callback.cpu if callback else 0.0)


def render_later(folder: Path) -> tuple[float, int]:
    """Seconds to render every episode of the run by replay, and the steps replayed."""
    checkpoints = Checkpoints(RunLibrary(folder), "CartPole-v1/DQN/bench")
    start, replayed = time.perf_counter(), 0
    for step in checkpoints.steps:
        for seed in checkpoints.seeds(step):
            replayed += checkpoints.episode(step, seed).num_steps
    return time.perf_counter() - start, replayed


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="training steps")
    parser.add_argument("--every", type=int, default=5_000, help="steps between checkpoints")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per side")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as scratch:
        train(Path(scratch), 1_000, 500, False)  # imports and first calls, out of the measures
    load_start = os.getloadavg()[0]
    measures: dict[str, list[Measure]] = {name: [] for name in SIDES}
    later: list[float] = []
    replayed = 0
    order = list(SIDES)
    for rep in range(args.reps):
        for name in order[rep % len(order) :] + order[: rep % len(order)]:
            with tempfile.TemporaryDirectory() as scratch:
                measures[name].append(train(Path(scratch), args.steps, args.every, SIDES[name]))
                if SIDES[name] is False:
                    seconds, replayed = render_later(Path(scratch))
                    later.append(seconds)
            print(name, measures[name][-1], flush=True)
    median = {
        name: Measure(*(statistics.median(column) for column in zip(*values, strict=True)))
        for name, values in measures.items()
    }
    rows = [
        "| training | wall (s) | in checkpoints (s) | share "
        "| CPU (s) | in checkpoints (s) | share |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    wall_share, cpu_share = {}, {}
    for name, m in median.items():
        wall_share[name] = m.checkpoints_wall / (m.wall - m.checkpoints_wall)
        cpu_share[name] = m.checkpoints_cpu / (m.cpu - m.checkpoints_cpu)
        rows.append(
            f"| {name} | {m.wall:.1f} | {m.checkpoints_wall:.2f} | {wall_share[name]:.1%} "
            f"| {m.cpu:.1f} | {m.checkpoints_cpu:.2f} | {cpu_share[name]:.1%} |"
        )
    bare = wall_share["checkpoints, frames rendered later (RecordCheckpoints)"]
    rendered = wall_share["checkpoints, frames rendered at record time"]
    rendered_cpu = cpu_share["checkpoints, frames rendered at record time"]
    verdict = "meets" if bare <= BAR else "MISSES"
    body = (
        f"`{command('benchmarks.checkpoints', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, {args.reps} repetitions per side in rotated order, "
        "medians, torch on one thread).\n\n"
        f"SB3 DQN (MlpPolicy, rl-baselines3-zoo's CartPole hyperparameters) trained "
        f"{args.steps:,} steps on CartPole-v1; checkpoints every {args.every:,} steps "
        f"({args.steps // args.every}): one deterministic episode for each of {len(SEEDS)} "
        "seeds and the policy's weights as safetensors, into a run of a fresh library "
        f"({replayed:,} evaluation steps in all). Whole trainings on this shared machine "
        "vary by more than the checkpoints cost (compare the rows' totals), so the time "
        "inside the checkpoints is measured too; share is that time over the rest of the "
        "training, i.e. how much slower the checkpoints make it. Wall time inside the "
        "checkpoints includes the library's fsyncs (episodes, run.json, weights).\n\n"
        + "\n".join(rows)
        + "\n\nRendering the frames afterwards by replay, when the episodes are shown: "
        f"{statistics.median(later):.1f} s (wall) for the run's {replayed:,} steps, out of "
        f"training. Rendered at record time instead, the checkpoints make training "
        f"{rendered:.1%} slower (CPU: {rendered_cpu:.1%}).\n\n"
        f"Bar (training at most {BAR:.0%} slower with checkpoints, wall): {bare:.1%}, "
        f"{verdict} it."
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
