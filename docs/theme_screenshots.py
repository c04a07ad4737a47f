"""Makes the pictures of docs/guides/appearance.md: every widget of the package in
JupyterLab's light and dark themes, in cells 1,400 and 420 px wide.

One JupyterLab (harness/lab.py), one kernel, one notebook: its first cell records the
episodes and builds every widget (a CartPole viewer with a bars and a text panel,
Connect Four's two players, Pendulum with its policy's mean as an extra, a comparison,
a what-if view, a run library's leaderboard and moments, a Connect Four arena's
leaderboard, a TrainingViewer of Q-learning on FrozenLake, and the checkpoints of a
small DQN), each next cell shows one. Each output is screenshot at each width and
theme into docs/guides/appearance/<widget>-<theme>-<width>.png (or the folder given as
the first argument; the widgets named after it only, when any are), in at most 256
colours (a screenshot of a widget has few), so that the pictures stay small in the
repository. ``make theme-screenshots`` runs it; it takes a few minutes, most of them
training the DQN.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # harness

from harness.appearance import DARK, LIGHT, set_cell_width, set_theme  # noqa: E402
from harness.chromium import chromium  # noqa: E402
from harness.lab import Notebook, Server, opened  # noqa: E402

TARGET = ROOT / "docs" / "guides" / "appearance"
WIDTHS = (1400, 420)
THEMES = {"light": LIGHT, "dark": DARK}
SETUP = """import tempfile
import gymnasium as gym
import numpy as np
import pettingzoo
from agent_widget import (Arena, CheckpointViewer, CompareViewer, EpisodeViewer, RunLibrary,
                          record, what_if)
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
from harness.dqn_run import RUN, dqn, train
from tests.games import connect_four as connect_four_env
from tests.games import win_or_block

def cartpole():
    return gym.make("CartPole-v1", render_mode="rgb_array")

def lean(obs):
    return int(obs[2] + 0.5 * obs[3] > 0)

rng = np.random.default_rng(0)
leaning = record(cartpole(), lean, seed=0, max_steps=120)
random = record(cartpole(), lambda obs: int(rng.integers(2)), seed=0)

viewer = EpisodeViewer(leaning, title="CartPole-v1 · lean policy", height=240)

@viewer.panel("preference")
def preference(step):
    push = 1 / (1 + np.exp(-8 * (step.obs[2] + 0.5 * step.obs[3])))
    return {"LEFT": 1 - push, "RIGHT": push}

viewer.add_panel("pole", lambda step: f"angle {step.obs[2]:+.3f} rad")
viewer.step = 40

def random_legal(agent, obs):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))

game = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
connect_four = record(game, random_legal, seed=0)
players = EpisodeViewer(connect_four, title="Connect Four · random players", height=320)
players.step = players.length - 1

def swing(obs):
    mean = np.clip([-2.0 * obs[1] * obs[2] - 0.5 * obs[2]], -2, 2).astype(np.float32)
    return mean, {"mean": mean}

pendulum = record(gym.make("Pendulum-v1", render_mode="rgb_array"), swing, seed=0, max_steps=120)
continuous = EpisodeViewer(pendulum, extras=["mean"], title="Pendulum-v1 · mean torque", height=240)
continuous.step = 60

compare = CompareViewer({"lean": leaning, "random": random}, title="CartPole-v1 · lean vs random")
compare.add_panel("preference", preference)
compare.step = 12
branching = what_if(leaning, env=cartpole, policy=lean, title="CartPole-v1 · what if")
branching.step = 30

lib = RunLibrary(tempfile.mkdtemp())
again = record(cartpole(), lean, seed=1, max_steps=120)
lib.add([leaning, again], algorithm="heuristic", run="lean")
lib.add([random], algorithm="random", run="uniform")
lake = gym.make("FrozenLake-v1", map_name="4x4")
lib.add([record(gym.make("FrozenLake-v1", map_name="4x4", render_mode="rgb_array"),
                lambda obs: 2, seed=s) for s in range(3)], algorithm="right", run="always")
board = lib.leaderboard()
board.selected = [board.rows[0]["id"]]
moments = lib.moments("SELECT run, episode, t, reward FROM steps "
                      "WHERE env_id = 'CartPole-v1' AND t % 25 = 0 ORDER BY run, episode, t")

def random_move(obs):  # each worker process draws its own moves
    return int(np.random.default_rng().choice(np.flatnonzero(obs["action_mask"])))

def leftmost(obs):
    return int(np.flatnonzero(obs["action_mask"])[0])

arena = Arena(connect_four_env, {"heuristic": win_or_block, "leftmost": leftmost,
                                 "random": random_move}, library=tempfile.mkdtemp())
arena.play(games=6, workers=2, engine="processes", progress=False)
arena_board = arena.leaderboard()
arena_board.pairing = ["random", "heuristic"]
arena_board.open_game(arena_board.games[0]["run"], arena_board.games[0]["episode"])

training = TrainingViewer(lake, interval=0, value_range=(0, 1), algorithm="Q-learning")
QLearning(lake, seed=0).train(400, callback=training.snapshot)

checkpoint_root = tempfile.mkdtemp()
train(checkpoint_root, steps=2_000, every=1_000, seeds=[0])
checkpoints = CheckpointViewer(checkpoint_root, RUN, model=dqn(), checkpoint=1)"""
# name: (the variable the cell shows, the widget's root element)
WIDGETS = {
    "viewer": ("viewer", ".agent-widget"),
    "multi-agent": ("players", ".agent-widget"),
    "continuous": ("continuous", ".agent-widget"),
    "compare": ("compare", ".aw-compare"),
    "what-if": ("branching", ".aw-compare"),
    "leaderboard": ("board", ".aw-leaderboard"),
    "moments": ("moments", ".aw-moments"),
    "arena": ("arena_board", ".aw-arena"),
    "training": ("training", ".aw-training"),
    "checkpoints": ("checkpoints", ".aw-checkpoints"),
}


def main(target: Path = TARGET, only: list[str] | None = None) -> None:
    """The pictures of every widget, or of those named in ``only``."""
    unknown = sorted(set(only or []) - set(WIDGETS))
    if unknown:
        raise SystemExit(f"no widget {', '.join(unknown)}: the widgets are {', '.join(WIDGETS)}")
    target.mkdir(parents=True, exist_ok=True)
    cells = [SETUP, *(variable for variable, _ in WIDGETS.values())]
    with tempfile.TemporaryDirectory() as folder, chromium() as browser:
        server = Server(Path(folder))
        try:
            page = browser.new_context(viewport={"width": 1700, "height": 1800}).new_page()
            with opened(server, page, "appearance.ipynb", cells) as notebook:
                prepare(notebook)
                for width in WIDTHS:
                    set_cell_width(notebook, root(notebook, "viewer"), width)
                    for theme, name in THEMES.items():
                        set_theme(notebook, name)
                        for widget in only or WIDGETS:
                            shoot(notebook, widget, target / f"{widget}-{theme}-{width}.png")
                set_theme(notebook, LIGHT)
        finally:
            server.stop()
    total = sum(path.stat().st_size for path in target.glob("*.png"))
    print(f"docs/guides/appearance: {total / 1e6:.1f} MB")


def root(notebook: Notebook, widget: str) -> Locator:
    """The root element of ``widget``'s output."""
    index = list(WIDGETS).index(widget) + 1
    cell = notebook.page.locator(".jp-Notebook .jp-Cell").nth(index)
    return cell.locator(WIDGETS[widget][1]).first


def prepare(notebook: Notebook) -> None:
    """Every widget drawn as the pictures show it: the viewer's cards computed, a moment
    opened, the pointer out of the way."""
    notebook.view(1).wait_card("preference", 40, "bars")
    # Once its cell has run: as the cell ends, the viewer shows the newest snapshot.
    notebook.execute("training.timeline.step = 300")
    moments = root(notebook, "moments")
    moments.locator("tbody tr").first.click()
    moments.locator(".aw-opened .agent-widget").wait_for(timeout=60_000)
    game = root(notebook, "arena").locator(".aw-opened .agent-widget[data-painted-step]")
    game.wait_for(timeout=60_000)
    for widget in WIDGETS:
        root(notebook, widget).wait_for(timeout=120_000)
    notebook.page.evaluate(
        "() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0; }"
    )
    notebook.page.mouse.move(0, 0)


def shoot(notebook: Notebook, widget: str, path: Path) -> None:
    """Screenshots ``widget``'s output area into ``path``, in 256 colours."""
    element = root(notebook, widget)
    element.scroll_into_view_if_needed()
    notebook.page.wait_for_timeout(300)  # the canvases redraw in the next frame
    area = notebook.page.locator(".jp-Notebook .jp-Cell").nth(list(WIDGETS).index(widget) + 1)
    area.locator(".jp-OutputArea").first.screenshot(path=str(path))
    with Image.open(path) as shot:
        small = shot.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT, dither=0)
    small.save(path, optimize=True)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else TARGET, sys.argv[2:])
