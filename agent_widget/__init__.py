"""agent-widget: step through a reinforcement-learning episode inside a Jupyter notebook.

The names below are the everyday API. The subpackages hold the rest, one layer each,
lower layers never importing higher ones (docs/architecture.md): :mod:`~agent_widget.episodes`
(rollouts and their files), :mod:`~agent_widget.recording` (recording them from envs),
:mod:`~agent_widget.panels`, :mod:`~agent_widget.viewer`,
:mod:`~agent_widget.torch`, :mod:`~agent_widget.compare`, :mod:`~agent_widget.gridworld`,
:mod:`~agent_widget.library`, :mod:`~agent_widget.arena` (players of a two-player game
rated by their games), :mod:`~agent_widget.checkpoints` (checkpoints recorded
during training), :mod:`~agent_widget.sb3` (Stable-Baselines3's callback), and
:mod:`~agent_widget.agents` (reference tabular agents).
Modules whose names start with ``_`` are internal.
"""

from importlib.metadata import version
from typing import Any

from agent_widget.arena import Arena, Ladder, ratings
from agent_widget.compare import CompareViewer, first_divergence, what_if
from agent_widget.episodes import Rollout, RolloutFileError, load, save
from agent_widget.library import RunLibrary, record_many
from agent_widget.panels import Step
from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.viewer import EpisodeViewer

# The installed distribution's: the git tag it was built from (pyproject.toml).
__version__ = version("agent-widget")

__all__ = [
    "Arena",
    "CheckpointViewer",
    "CompareViewer",
    "EpisodeViewer",
    "Ladder",
    "RecordRollout",
    "Rollout",
    "RolloutFileError",
    "RunLibrary",
    "Step",
    "first_divergence",
    "load",
    "ratings",
    "record",
    "record_many",
    "record_vector",
    "save",
    "what_if",
]


def __getattr__(name: str) -> Any:
    """``CheckpointViewer`` imported when first named: it needs torch (the ``torch``
    extra), which ``import agent_widget`` alone must not."""
    if name == "CheckpointViewer":
        from agent_widget.checkpoints import CheckpointViewer

        return CheckpointViewer
    raise AttributeError(f"module 'agent_widget' has no attribute {name!r}")
