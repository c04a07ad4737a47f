"""The widgets every anywidget host is tested with (Voila, marimo): a viewer with a
text panel, a comparison of two episodes, and a run library's leaderboard, built
from synthetic episodes whose frames name their position (so a canvas checksum says
which frame is painted); and a TrainingViewer of Q-learning on FrozenLake, whose
frames the test trains the same seeded agent to know."""

from __future__ import annotations

import hashlib
from pathlib import Path

import gymnasium as gym
import numpy as np

from agent_widget.agents import QLearning
from agent_widget.gridworld import ValueMap
from agent_widget.gridworld._snapshots import Snapshots
from agent_widget.gridworld._training import CELL_SIZE
from tests.e2e.episodes import frame_digests, synthetic_frames

E2E = Path(__file__).parent
N = 60  # the viewer's positions
LONG, SHORT = 40, 25  # the comparison's episodes
FAST, SLOW = 20, 30  # the library's runs
SHORT_FROM, SLOW_FROM = 1000, 2000  # where their frames start in the synthetic sequence
TRAINED = 200  # episodes of the training shown
# Episodes of a training watched at the default pace, its positions as many as the host's
# timing allows (issue #53: 57 in Lab, 74 in Voila, 25 in marimo), its curve the same.
CURVE_EPISODES = 3_000

SETUP = f"""import sys
sys.path.insert(0, {str(E2E)!r})
import tempfile
import numpy as np
from episodes import synthetic_episode, synthetic_frames
from agent_widget import CompareViewer, EpisodeViewer, RunLibrary
from agent_widget.episodes import Rollout

def episode(frames, reward=1.0):
    steps = len(frames) - 1
    return Rollout.from_arrays(frames=frames, actions=np.arange(steps) % 4,
                               rewards=np.full(steps, reward),
                               metadata={{"env_id": "Synthetic-v0", "seed": 0}})

viewer = EpisodeViewer(synthetic_episode({N}), title="solo viewer", fps=20)
viewer.add_panel("note", lambda step: f"python saw t={{step.t}}, reward {{step.reward}}")
compare = CompareViewer({{"long": episode(synthetic_frames({LONG})),
                         "short": episode(synthetic_frames({SHORT_FROM + SHORT})[{SHORT_FROM}:])}},
                        title="side by side")
lib = RunLibrary(tempfile.mkdtemp())
lib.add(episode(synthetic_frames({FAST}), 1.0), algorithm="dqn", run="fast")
slow = episode(synthetic_frames({SLOW_FROM + SLOW})[{SLOW_FROM}:], 0.5)
lib.add(slow, algorithm="ppo", run="slow")
board = lib.leaderboard()"""

TRAINING = f"""import gymnasium as gym
from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer
lake = gym.make("FrozenLake-v1", map_name="4x4")
training = TrainingViewer(lake, interval=0, value_range=(0, 1), algorithm="scene")
QLearning(lake, seed=0).train({TRAINED}, callback=training.snapshot)
curve_run = TrainingViewer(lake, algorithm="curve")
QLearning(lake, seed=0).train({CURVE_EPISODES}, callback=curve_run.snapshot)"""

SHOWN = ["viewer", "compare", "board", "training", "curve_run"]

# SHA-256 of each frame's RGB bytes -> its position, per episode.
VIEWER_DIGESTS = frame_digests(synthetic_frames(N))
LONG_DIGESTS = frame_digests(synthetic_frames(LONG))
FAST_DIGESTS = LONG_DIGESTS  # the same synthetic sequence from 0


def _from(start: int, n: int) -> dict[str, int]:
    digests = frame_digests(synthetic_frames(start + n))
    return {digest: t - start for digest, t in digests.items() if t >= start}


SHORT_DIGESTS = _from(SHORT_FROM, SHORT)
SLOW_DIGESTS = _from(SLOW_FROM, SLOW)


def _training_digests() -> list[str]:
    """SHA-256 of the RGB bytes of each training position's frame, in order: the grid of
    the table before training, then of each snapshot as the viewer keeps it."""
    lake = gym.make("FrozenLake-v1", map_name="4x4")
    snapshots = Snapshots()
    QLearning(lake, seed=0).train(TRAINED, callback=snapshots.append)
    value_map = ValueMap(lake, cell_size=CELL_SIZE, value_range=(0, 1))
    tables = [np.zeros((16, 4)), *(snapshots[k] for k in range(len(snapshots)))]
    return [hashlib.sha256(value_map.grid(table)[0].tobytes()).hexdigest() for table in tables]


TRAINING_DIGESTS = _training_digests()
CURVE_RETURNS = QLearning(gym.make("FrozenLake-v1", map_name="4x4"), seed=0).train(CURVE_EPISODES)


def voila_cells() -> list[str]:
    return [SETUP, TRAINING, *SHOWN]


def marimo_cells() -> list[str]:
    shown = (f"mo.ui.anywidget({name})" for name in SHOWN)
    return ["import marimo as mo", SETUP, TRAINING, *shown]
