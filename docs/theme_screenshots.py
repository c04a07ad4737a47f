"""Makes the pictures of docs/guides/appearance.md: each widget in JupyterLab's light and
dark themes.

Records two CartPole episodes (a pole-angle policy and a random one) in a JupyterLab
started for the purpose (harness/lab.py), shows a viewer with an action-preference
bars panel, a comparison of the two (the panel on one scale across its columns), a
run library's leaderboard, a TrainingViewer of Q-learning on FrozenLake and a
CheckpointViewer of a small DQN's checkpoints (harness/dqn_run.py), and screenshots each
widget's output in both themes into docs/guides/appearance/, or the folder given as
the first argument. ``make theme-screenshots`` runs it; it takes about two minutes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # harness

from harness.appearance import DARK, LIGHT, set_theme  # noqa: E402
from harness.chromium import chromium  # noqa: E402
from harness.dqn_run import train  # noqa: E402
from harness.lab import Server, opened  # noqa: E402

TARGET = ROOT / "docs" / "guides" / "appearance"
SETUP = """import tempfile
import gymnasium as gym
import numpy as np
from agent_widget import CompareViewer, EpisodeViewer, RunLibrary, record

def env():
    return gym.make("CartPole-v1", render_mode="rgb_array")

def lean(obs):
    return int(obs[2] + 0.5 * obs[3] > 0)

rng = np.random.default_rng(0)
leaning = record(env(), lean, seed=0, max_steps=120)
random = record(env(), lambda obs: int(rng.integers(2)), seed=0)

viewer = EpisodeViewer(leaning, title="CartPole-v1 · lean policy", height=240)

@viewer.panel("preference")
def preference(step):
    push = 1 / (1 + np.exp(-8 * (step.obs[2] + 0.5 * step.obs[3])))
    return {"LEFT": 1 - push, "RIGHT": push}

viewer.add_panel("pole", lambda step: f"angle {step.obs[2]:+.3f} rad")
viewer.step = 40
compare = CompareViewer({"lean": leaning, "random": random}, title="CartPole-v1 · lean vs random")
compare.add_panel("preference", preference)
compare.step = 12
lib = RunLibrary(tempfile.mkdtemp())
lib.add([leaning, record(env(), lean, seed=1, max_steps=120)], algorithm="heuristic", run="lean")
lib.add([random], algorithm="random", run="uniform")
board = lib.leaderboard()
board.selected = [board.rows[0]["id"]]

from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer

lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake, interval=0, value_range=(0, 1), algorithm="Q-learning")
QLearning(lake, seed=0).train(400, callback=training.snapshot)
training.timeline.step = 300"""
CHECKPOINTS = """from agent_widget import CheckpointViewer
from harness.dqn_run import RUN

checkpoints = CheckpointViewer({root!r}, RUN, checkpoint=2)"""
WIDGETS = {
    "viewer": (1, ".agent-widget"),
    "compare": (2, ".aw-compare"),
    "leaderboard": (3, ".aw-leaderboard"),
    "training": (4, ".aw-training"),
    "checkpoints": (6, ".aw-checkpoints"),
}


def main(target: Path = TARGET) -> None:
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, chromium() as browser:
        train(Path(folder, "runs"))
        checkpoints = CHECKPOINTS.format(root=str(Path(folder, "runs")))
        cells = [SETUP, "viewer", "compare", "board", "training", checkpoints, "checkpoints"]
        server = Server(Path(folder))
        try:
            page = browser.new_context(viewport={"width": 1100, "height": 1000}).new_page()
            with opened(server, page, "appearance.ipynb", cells) as notebook:
                notebook.view(1).wait_card("preference", 40, "bars")
                page.evaluate(
                    "() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0; }"
                )
                page.mouse.move(0, 0)
                for theme, name in [(LIGHT, "light"), (DARK, "dark")]:
                    set_theme(notebook, theme)
                    for widget, (index, selector) in WIDGETS.items():
                        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
                        cell.locator(selector).first.wait_for()
                        cell.scroll_into_view_if_needed()
                        page.wait_for_timeout(300)  # the canvases redraw in the next frame
                        path = target / f"{widget}-{name}.png"
                        cell.locator(".jp-OutputArea").first.screenshot(path=str(path))
                        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KB)")
                set_theme(notebook, LIGHT)
        finally:
            server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET)
