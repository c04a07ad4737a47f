"""Side by side: a 4-way CompareViewer of Pong episodes, played at 30 fps in JupyterLab.

Four ALE/Pong-v5 episodes (seeded random policies, 600 steps each), saved as .rollout
files and loaded lazily, are shown in one CompareViewer in a real JupyterLab and
Chromium (the e2e harness). The shared Play runs for 12 s at 30 fps while the page
records every paint of every child; then the first episode plays alone in an
EpisodeViewer, the same way, for reference.

    .venv/bin/python -m benchmarks.compare            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from agent_widget.recording import record
from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.chromium import chromium
from harness.lab import Server, opened

TITLE = "Side by side"
STEPS = 600
FPS = 30
SECONDS = 12
SEEDS = (1, 6, 7, 8)

# Every paint of each view under a cell's output, as [ms, position], while its Play
# button plays: a MutationObserver sees each change of `data-painted-step`, however
# close together. The comparison's views are its children; a lone viewer is its own.
SAMPLE = """([cell, seconds]) => new Promise((resolve) => {
    const output = window.jupyterapp.shell.currentWidget.content.widgets[cell].node;
    const views = [...output.querySelectorAll(".agent-widget")];
    const controls = output.querySelector(".aw-compare .aw-shared") ?? views[0];
    const start = performance.now();
    const painted = views.map(() => []);
    const observer = new MutationObserver((records) => {
        const now = performance.now() - start;
        for (const {target} of records) {
            painted[views.indexOf(target)].push([now, Number(target.dataset.paintedStep)]);
        }
    });
    for (const view of views) {
        observer.observe(view, {attributes: true, attributeFilter: ["data-painted-step"]});
    }
    controls.querySelector("button.aw-play").click();
    setTimeout(() => {
        observer.disconnect();
        resolve(painted);
    }, seconds * 1000);
})"""


def record_episodes(folder: Path) -> list[Path]:
    import ale_py
    import gymnasium as gym

    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    paths = []
    for seed in SEEDS:
        env.action_space.seed(seed)
        rollout = record(env, lambda _obs: env.action_space.sample(), seed=seed, max_steps=STEPS)
        paths.append(rollout.save(folder / f"pong-{seed}.rollout"))
    env.close()
    return paths


def cells(paths: list[Path]) -> list[str]:
    """A comparison of the episodes (cell 1), and the first one alone (cell 2)."""
    names = {f"seed {seed}": str(path) for seed, path in zip(SEEDS, paths, strict=True)}
    return [
        f"""from agent_widget.compare import CompareViewer
from agent_widget.episodes import load
from agent_widget.viewer import EpisodeViewer
compare = CompareViewer({{name: load(path) for name, path in {names!r}.items()}}, fps={FPS})
alone = EpisodeViewer(load({str(paths[0])!r}), fps={FPS})""",
        "compare",
        "alone",
    ]


def rate(events: list[list[float]]) -> dict[str, float]:
    """Positions per second over a run of [ms, position] events, and positions skipped."""
    times, positions = np.array(events, np.float64).T
    span = range(int(positions[0]), int(positions[-1]) + 1)
    seen = set(positions.tolist())
    return {
        "fps": (positions[-1] - positions[0]) / ((times[-1] - times[0]) / 1000),
        "positions": len(span),
        "skipped": sum(1 for t in span if t not in seen),
    }


def measure(paths: list[Path], root: Path) -> tuple[list[dict], dict]:
    """Paint rates of the comparison's children, and of the first episode played alone."""
    server = Server(root)
    try:
        with chromium() as browser:
            page = browser.new_context(viewport={"width": 1100, "height": 2400}).new_page()
            with opened(server, page, "compare.ipynb", cells(paths)) as notebook:
                notebook.wait_for(
                    """() => [...document.querySelectorAll(".agent-widget")]
                        .filter((c) => c.dataset.paintedStep === "0").length === 5""",
                    what="every view at step 0",
                )
                compared = page.evaluate(SAMPLE, [1, SECONDS])
                alone = page.evaluate(SAMPLE, [2, SECONDS])
    finally:
        server.stop()
    return [rate(events) for events in compared], rate(alone[0])


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    folder = Path(tempfile.mkdtemp(prefix="aw-compare-"))
    try:
        paths = record_episodes(folder)
        children, alone = measure(paths, folder / "lab")
    finally:
        shutil.rmtree(folder)
    lowest = min(c["fps"] for c in children)
    views = [(f"compared: seed {seed}", c) for seed, c in zip(SEEDS, children, strict=True)]
    views.append((f"alone: seed {SEEDS[0]}", alone))
    rows = "\n".join(
        f"| {name} | {c['positions']} | {c['fps']:.1f} | {c['skipped']} |" for name, c in views
    )
    ok = lowest >= FPS - 0.5
    body = (
        f"`{command('benchmarks.compare', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}: JupyterLab server, kernel and headless Chromium on the "
        "same cores).\n"
        f"A CompareViewer of {len(SEEDS)} ALE/Pong-v5 episodes ({STEPS} steps each, seeded "
        "random policies, loaded lazily from .rollout files) played from step 0 with the "
        f"shared Play at {FPS} fps for {SECONDS} s, then the first episode alone in an "
        "EpisodeViewer the same way. Every paint of every view was recorded (a "
        "MutationObserver on `data-painted-step`).\n\n"
        "| view | positions played | painted per second | positions skipped |\n"
        f"|---|---:|---:|---:|\n{rows}\n\n"
        f"The comparison moves its children in the browser and waits for all {len(SEEDS)} to have "
        "painted before its clock moves on; like a single viewer's, the clock skips a "
        "position rather than fall behind when an animation frame comes late (the "
        "skipped positions above, on a machine whose two cores also run the server and "
        "kernel).\n\n"
        f"- {len(SEEDS)}-way Pong comparison sustains {FPS} fps: slowest child "
        f"{lowest:.1f} positions per second, {'meets' if ok else 'MISSES'} the bar"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
