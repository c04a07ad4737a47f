"""The torch panels on an 84x84x4 Nature CNN (the DQN of Mnih et al. 2015), on this CPU.

- gradient saliency of one step, mapped onto a 210x160 frame (Captum's Saliency);
- perturbation saliency of one step at the paper's settings (stride 5: 17 x 17 = 289
  masked passes, mask sigma 5, blur sigma 3), side by side with Captum's Occlusion
  scoring as many images (Captum needs a window at least as wide as its stride: a
  20x20 window at stride 4 gives the same 17 x 17 positions), in batches of the same
  size, interleaved repetition by repetition;
- the Q-values of a 1,000-step episode (1,001 observations): ``QValues.series``,
  in one batched pass and in the default batches of 256.

The network has random weights (the timings do not depend on them); observations
are random uint8 stacks.

    .venv/bin/python -m benchmarks.torch_panels        # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from captum.attr import Occlusion
from torch import nn

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.torch import QValues, Saliency
from agent_widget.torch._model import BATCH_SIZE as SERIES_BATCH
from agent_widget.torch._perturbation import BATCH_SIZE, grid_shape
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Torch panels"
SEED = 0
ACTIONS = 6
FRAME = (210, 160)
EPISODE_STEPS = 1_000
REPEATS = {"gradient": 31, "perturbation": 11, "logits": 3, "episode": 5}
BARS = {"gradient": 0.060, "perturbation": 1.0, "ratio": 1.2, "episode": 2.0}


class NatureCNN(nn.Module):
    """The DQN network: three convolutions and two linear layers over 4 stacked 84x84 frames.

    ``scored`` counts the images it has seen, to check that both sides score as many.
    """

    def __init__(self) -> None:
        super().__init__()
        self.scored = 0
        self.layers = nn.Sequential(
            nn.Conv2d(4, 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, ACTIONS),
        )  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.scored += len(x)
        return self.layers(x / 255.0)


def episode(steps: int) -> Rollout:
    rng = np.random.default_rng(SEED)
    return Rollout.from_arrays(
        frames=np.zeros((steps + 1, *FRAME, 3), np.uint8),
        observations=rng.integers(0, 256, (steps + 1, 4, 84, 84), dtype=np.uint8),
        actions=rng.integers(0, ACTIONS, steps),
    )


def seconds(function: Callable[[], object], repeats: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def side_by_side(first: Callable[[], object], second: Callable[[], object], repeats: int):
    """Alternate the two, so that both see the same load on a shared machine."""
    first(), second()  # warm up
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for function, record in zip((first, second), times, strict=True):
            start = time.perf_counter()
            function()
            record.append(time.perf_counter() - start)
    return times


def measured(value: float, name: str) -> str:
    return f"{value:.2f}x" if "Captum" in name else f"{value * 1000:,.0f} ms"


def main() -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args()
    load_start = os.getloadavg()[0]
    torch.manual_seed(SEED)
    net = NatureCNN().eval()
    step = Step(episode(1), 0)
    passes = int(np.prod(grid_shape(84, 84)))

    gradient = seconds(lambda: Saliency(net)(step), REPEATS["gradient"])

    perturbation = Saliency(net, method="perturbation")
    inputs = torch.as_tensor(step.obs[None], dtype=torch.float32)
    target = int(net(inputs).argmax())
    occlusion = Occlusion(net)

    def captum() -> None:
        with torch.no_grad():
            occlusion.attribute(
                inputs,
                sliding_window_shapes=(4, 20, 20),
                strides=(4, 4, 4),
                target=target,
                perturbations_per_eval=BATCH_SIZE,
            )

    counts = []
    for run in (lambda: perturbation(step), captum):
        net.scored = 0
        run()
        counts.append(net.scored)
    # Both score the image and its 289 perturbations; the panel also runs the image once
    # to find the action to explain (the argmax).
    assert counts == [passes + 2, passes + 1], counts
    ours, theirs = side_by_side(lambda: perturbation(step), captum, REPEATS["perturbation"])
    logits = seconds(
        lambda: Saliency(net, method="perturbation", target="logits")(step),
        REPEATS["logits"],
        warmup=1,
    )

    long = episode(EPISODE_STEPS)
    one_pass = seconds(
        lambda: QValues(net, batch_size=EPISODE_STEPS + 1).series(long), REPEATS["episode"], 1
    )
    batched = seconds(lambda: QValues(net).series(long), REPEATS["episode"], 1)

    median = statistics.median
    ratio = median(ours) / median(theirs)
    rows = [
        (f"gradient saliency, one step (onto {FRAME[0]}x{FRAME[1]})", gradient),
        (f"perturbation saliency, one step ({passes} masked passes)", ours),
        (f"Captum Occlusion, same {passes} passes, same batch", theirs),
        ("perturbation saliency, all logits (the paper's actor saliency)", logits),
        (f"Q-values of {EPISODE_STEPS:,} steps, one batched pass", one_pass),
        (f"Q-values of {EPISODE_STEPS:,} steps, batches of {SERIES_BATCH}", batched),
    ]
    table = "\n".join(
        f"| {name} | {median(times) * 1000:,.0f} | {min(times) * 1000:,.0f} | {len(times)} |"
        for name, times in rows
    )
    checks = [
        (f"gradient saliency under {BARS['gradient'] * 1e3:.0f} ms per step", median(gradient),
         BARS["gradient"]),
        (f"perturbation saliency under {BARS['perturbation']:g} s per step", median(ours),
         BARS["perturbation"]),
        (f"perturbation within {BARS['ratio']}x of Captum Occlusion", ratio, BARS["ratio"]),
        (f"Q-values of {EPISODE_STEPS:,} steps in one pass under {BARS['episode']:g} s",
         median(one_pass), BARS["episode"]),
    ]  # fmt: skip
    faster = "faster" if median(batched) < median(one_pass) else "slower"
    spread = median(ours) / min(ours)
    verdicts = "\n".join(
        f"- {name}: {measured(value, name)}, {'meets' if value < bar else 'MISSES'} the bar"
        for name, value, bar in checks
    )
    body = (
        f"`{command('benchmarks.torch_panels')}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}; torch {torch.__version__} on the CPU, "
        f"{torch.get_num_threads()} threads). An 84x84x4 Nature CNN (random weights, "
        f"{ACTIONS} actions), random uint8 observations, a {FRAME[0]}x{FRAME[1]} frame; each "
        "panel call "
        "as a viewer makes it (input conversion, eval mode, resizing onto the frame "
        "included). Perturbation and Occlusion run interleaved, repetition by repetition.\n\n"
        "| what | median (ms) | best (ms) | runs |\n|---|---:|---:|---:|\n"
        f"{table}\n\n{verdicts}\n\n"
        "The perturbation panel blurs the image once (two matrix products per channel) "
        f"and blends the {passes} precomputed masks into it in one batch, so nearly all of "
        "its time is the forward passes; Occlusion makes the same passes but builds each "
        "window's mask in Python, one by one, "
        "and spreads each score back over its window into an input-sized attribution. The "
        f"whole episode runs {faster} in batches of {SERIES_BATCH} than in one pass of "
        f"{EPISODE_STEPS + 1:,}. While other jobs hold a core, torch's two threads wait on "
        f"each other: the perturbation panel's median is {spread:.1f}x its best run here."
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
