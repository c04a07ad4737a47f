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

With ``--switching``, the viewer's side instead: a CheckpointViewer of a DQN's
checkpoints, each switch of checkpoint timed until the Q-value card of the episode
step shown is computed with the new checkpoint's network (what the front end then
paints). Kinds of switch: to the next checkpoint, never shown (which the viewer
prepares while the one before is shown: its episode's frames rendered by replay, its
viewer made, its network loaded and its card computed), to a far one never shown
(all of that then), to one whose frames were
rendered before but whose viewer and network were let go (``kept`` is small), and
back to one still kept. Each network must be loaded once per time it was let go.

With ``--painted``, the same switch to the next checkpoint in Chromium on a real
JupyterLab: timed in the page from the click on the next-checkpoint button to the
Q-value card painted for the new checkpoint's episode (its title showing that
checkpoint, the card current, drawn as bars), the next checkpoint prepared ahead
beforehand (the kernel waits for it, as the moment the user looked).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import gymnasium as gym
import torch
from stable_baselines3 import DQN

from agent_widget.checkpoints import Checkpoints, CheckpointViewer
from agent_widget.checkpoints._viewer import KEPT_EPISODES
from agent_widget.library import RunLibrary
from agent_widget.sb3 import RecordCheckpoints
from agent_widget.torch import QValues
from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.dqn_run import RUN, dqn
from harness.dqn_run import train as train_dqn

TITLE = "Checkpoints during training"
SWITCH_TITLE = "Switching checkpoint in the viewer"
SWITCH_BAR = 0.150  # seconds from the switch to the Q-value card
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


def switch(viewer: CheckpointViewer, index: int) -> float:
    """Seconds from choosing checkpoint ``index`` to its Q-value card at the step shown."""
    start = time.perf_counter()
    viewer.checkpoint = index
    episode = viewer.episode
    assert episode is not None
    _, card = episode._panels.card_now("Q", episode.step)
    assert card.kind == "bars", card.meta
    return time.perf_counter() - start


def switching(args: argparse.Namespace, argv: list[str] | None) -> None:
    """The viewer's side (``--switching``): see the module's docstring."""
    load_start = os.getloadavg()[0]
    kinds: dict[str, list[float]] = {
        "next, never shown (prepared ahead)": [],
        "far, never shown (frames rendered then)": [],
        "shown before, network let go": [],
        "kept": [],
    }
    with tempfile.TemporaryDirectory() as scratch:
        train_dqn(scratch, steps=args.steps, every=args.every)
        viewer = CheckpointViewer(scratch, RUN, model=dqn(), kept=2, checkpoint=0)
        viewer.add_panel("Q", QValues)
        switch(viewer, 0)  # imports and first calls, out of the measures
        steps = viewer.training_steps
        count = len(steps)
        lengths = [viewer.checkpoints.recorded(s, 0).num_positions for s in steps]
        viewer.episode.step = min(lengths) // 2
        for index in range(1, count):
            # The user looks at the checkpoint before a while: its neighbours are prepared.
            assert viewer._ahead is not None
            viewer._ahead.join()
            kinds["next, never shown (prepared ahead)"].append(switch(viewer, index))
            kinds["kept"].append(switch(viewer, index - 1))  # kept=2: the one before is
            kinds["kept"].append(switch(viewer, index))
        viewer._ahead.join()
        viewer._prepares_ahead = False  # from here, switches to what nothing prepared
        loads = viewer.networks.loads
        # Let go: neither its network (kept=2) nor its viewer (and cards) are kept.
        for index in range(count - 1 - KEPT_EPISODES, -1, -1):
            kinds["shown before, network let go"].append(switch(viewer, index))
        reloads = viewer.networks.loads - loads
        assert reloads == count - KEPT_EPISODES, (reloads, count)
        viewer.seed = 1  # seed 1: only its episode at checkpoint 0 is rendered by this
        for index in range(3, count, 3):  # jumps: never beside the one shown
            kinds["far, never shown (frames rendered then)"].append(switch(viewer, index))
        viewer.close()
    rows = [
        "| switch to a checkpoint | switches | median (ms) | slowest (ms) |",
        "|---|---:|---:|---:|",
    ]
    for kind, seconds in kinds.items():
        rows.append(
            f"| {kind} | {len(seconds)} | {statistics.median(seconds) * 1e3:.0f} "
            f"| {max(seconds) * 1e3:.0f} |"
        )
    ahead = statistics.median(kinds["next, never shown (prepared ahead)"])
    verdict = "meets" if ahead <= SWITCH_BAR else "MISSES"
    body = (
        f"`{command('benchmarks.checkpoints', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, torch on one thread).\n\n"
        f"The DQN of harness/dqn_run.py trained {args.steps:,} steps on CartPole-v1 with a "
        f"checkpoint every {args.every:,} ({count}, seed 0 shown, episodes of "
        f"{min(lengths)} to {max(lengths)} positions), viewed in a CheckpointViewer with "
        "a QValues panel and kept=2 networks. A switch sets `checkpoint` and ends when the "
        "Q-value card of the episode step shown (kept across checkpoints) is computed with "
        "that checkpoint's network, in the kernel; the front end paints it when it comes. "
        f"Networks loaded once per checkpoint per time let go: {loads} loads for {count} "
        f"checkpoints, then {reloads} for the {count - KEPT_EPISODES} let go.\n\n"
        + "\n".join(rows)
        + "\n\nThe viewer prepares the checkpoints beside the one shown on a thread "
        "(frames, viewer, network, cards at the step shown), so the next or previous one "
        "is ready once the user has looked a moment (the benchmark waits for it, as that "
        "moment); a jump to a "
        "checkpoint far from the one shown waits for its episode's replay (about 1.7 ms a "
        "CartPole step), once. Bar (switching to the next checkpoint, never shown, to its "
        f"Q-value card, under {SWITCH_BAR * 1e3:.0f} ms, its network loaded once): "
        f"{ahead * 1e3:.0f} ms, {verdict} it."
    )
    publish(SWITCH_TITLE, body, not args.no_write)


PAINTED_TITLE = "Switching checkpoint in the browser"
# Resolves with the milliseconds from the click on "next checkpoint" to the Q card of
# training step `step`'s episode painted as the current step's bars.
CLICK_TO_CARD = """async (step) => {
    const root = document.querySelector(".aw-checkpoints");
    const title = `training step ${step.toLocaleString("en-US")} · seed 0`;
    const start = performance.now();
    root.querySelector("button.aw-checkpoint-next").click();
    for (;;) {
        await new Promise(requestAnimationFrame);
        const episode = [...root.querySelectorAll(".agent-widget")].find(
            (el) => el.querySelector(".aw-title")?.textContent === title);
        const card = episode?.querySelector('div.aw-card[data-name="Q"]');
        if (card?.dataset.kind === "bars" && card.dataset.current === "true")
            return performance.now() - start;
        if (performance.now() - start > 60000) throw new Error(`no card for ${title}`);
    }
}"""


def painted(args: argparse.Namespace, argv: list[str] | None) -> None:
    """The browser's side (``--painted``): see the module's docstring."""
    from harness.chromium import chromium
    from harness.lab import Notebook, Server

    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        train_dqn(Path(scratch) / "runs", steps=args.steps, every=args.every)
        cells = [
            f"""import torch
from agent_widget import CheckpointViewer
from agent_widget.torch import QValues
from harness.dqn_run import RUN, dqn
torch.set_num_threads(1)
viewer = CheckpointViewer({str(Path(scratch) / "runs")!r}, RUN, model=dqn(), checkpoint=0)
viewer.add_panel("Q", QValues)""",
            "viewer",
        ]
        server = Server(Path(scratch) / "jupyter")
        try:
            with chromium() as browser:
                page = browser.new_context(viewport={"width": 1100, "height": 1000}).new_page()
                notebook = Notebook(server, page, "switch.ipynb", cells)
                steps = notebook.python("viewer.training_steps")
                notebook.python("viewer.episode.step")  # the first episode shown
                times = []
                for index in range(1, len(steps)):
                    # The user looks a moment: the next episode is prepared ahead.
                    notebook.execute("viewer._ahead.join()")
                    times.append(page.evaluate(CLICK_TO_CARD, steps[index]) / 1e3)
                loads = notebook.python("viewer.networks.loads")
                notebook.close()
        finally:
            server.stop()
    median = statistics.median(times)
    verdict = "meets" if median <= SWITCH_BAR else "MISSES"
    body = (
        f"`{command('benchmarks.checkpoints', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, Chromium on a real JupyterLab, torch on one thread).\n\n"
        f"The DQN of harness/dqn_run.py trained {args.steps:,} steps with a checkpoint every "
        f"{args.every:,} ({len(steps)}), in a CheckpointViewer with a QValues panel, seed 0, "
        "at step 0. Each switch clicks the next-checkpoint button and ends, in the page, "
        "when that checkpoint's episode shows its Q-value card painted as bars for the "
        "step shown: the kernel swaps the episode's viewer, loads the network, computes "
        f"the card, and the page mounts the viewer and draws it. {len(times)} switches, "
        f"{loads} networks loaded for {len(steps)} checkpoints.\n\n"
        f"| click to Q card painted | median (ms) | fastest (ms) | slowest (ms) |\n"
        f"|---|---:|---:|---:|\n"
        f"| next checkpoint, never shown (prepared ahead) | {median * 1e3:.0f} "
        f"| {min(times) * 1e3:.0f} | {max(times) * 1e3:.0f} |\n\n"
        f"Bar (under {SWITCH_BAR * 1e3:.0f} ms, the network loaded once): "
        f"{median * 1e3:.0f} ms, {verdict} it."
    )
    publish(PAINTED_TITLE, body, not args.no_write)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="training steps")
    parser.add_argument("--every", type=int, default=5_000, help="steps between checkpoints")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per side")
    parser.add_argument(
        "--switching", action="store_true", help="time switching checkpoint in the viewer"
    )
    parser.add_argument(
        "--painted", action="store_true", help="time it in the browser, to the card painted"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.switching:
        switching(args, argv)
        return
    if args.painted:
        painted(args, argv)
        return
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
