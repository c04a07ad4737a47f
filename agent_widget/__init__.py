"""agent-widget: step through a reinforcement-learning episode inside a Jupyter notebook.

The public API is the handful of names below; every other module is internal.
Grid worlds live in :mod:`agent_widget.gridworld`, torch panels in
:mod:`agent_widget.torch`, the panel registry in :mod:`agent_widget.panels`.
"""

from agent_widget.compare import CompareViewer
from agent_widget.divergence import first_divergence
from agent_widget.library import RunLibrary
from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.rollout import Rollout
from agent_widget.step import Step
from agent_widget.storage import RolloutFileError, load, save
from agent_widget.viewer import EpisodeViewer

__version__ = "0.1.0"

__all__ = [
    "CompareViewer",
    "EpisodeViewer",
    "RecordRollout",
    "Rollout",
    "RolloutFileError",
    "RunLibrary",
    "Step",
    "first_divergence",
    "load",
    "record",
    "record_vector",
    "save",
]
