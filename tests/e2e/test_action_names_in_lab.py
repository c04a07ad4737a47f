"""Actions named by the env in a real JupyterLab (issue #52): a HalfCheetah action's
components by their actuators, and each Knights-Archers-Zombies agent's action by its
documented name, in the readout."""

from __future__ import annotations

import pytest

CHEETAH, ZOMBIES = 1, 2
CELLS = [
    """import os
os.environ["MUJOCO_GL"] = "egl"
import gymnasium as gym
import numpy as np
from pettingzoo.butterfly import knights_archers_zombies_v11
from agent_widget import EpisodeViewer, record

cheetah = gym.make("HalfCheetah-v5", render_mode="rgb_array", width=160, height=120)
cheetah.action_space.seed(0)
running = record(cheetah, lambda obs: cheetah.action_space.sample(), seed=0, max_steps=6)
zombies = knights_archers_zombies_v11.parallel_env(render_mode="rgb_array", max_cycles=20)
rng = np.random.default_rng(0)
game = record(zombies, lambda agent, obs: int(rng.integers(6)), seed=0, max_steps=4)""",
    "EpisodeViewer(running)",
    "EpisodeViewer(game)",
]

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("action_names.ipynb", CELLS)]


def readout_at(notebook, cell: int, t: int, shows: str) -> list[str]:
    """The readout's lines once position ``t``'s chunk (its action text) has arrived."""
    view = notebook.view(cell)
    view.slide_to(t)
    view.wait_painted(t)
    notebook.wait_for(
        "([root, shows]) => root.querySelector('.aw-readout').textContent.includes(shows)",
        [view.root.element_handle(), shows],
        what=f"the readout of position {t} to show {shows!r}",
    )
    return view.readout().splitlines()


def test_a_half_cheetahs_action_reads_each_component_by_its_actuator(notebook):
    lines = readout_at(notebook, CHEETAH, 2, "bthigh")
    [action] = [line for line in lines if line.startswith("action")]
    legs = ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"]
    assert action.startswith("action: [bthigh ")
    components = action.removeprefix("action: [").removesuffix("]").split(", ")
    assert [component.split(" ")[0] for component in components] == legs
    assert all(-1 <= float(component.split(" ")[1]) <= 1 for component in components)


def test_each_zombie_hunters_action_reads_by_its_documented_name(notebook):
    lines = readout_at(notebook, ZOMBIES, 1, "archer_0")
    names = ("FORWARD", "BACKWARD", "TURN CCW", "TURN CW", "ATTACK", "NONE")
    agents = [line for line in lines if line.startswith(("archer_", "knight_"))]
    assert len(agents) == 4
    for line in agents:
        action = line.split(" · ")[0].split(": action ")[1]  # "3 (TURN CW)"
        number, name = action.split(" ", 1)
        assert name == f"({names[int(number)]})", line
