"""agent-widget: step through a reinforcement-learning episode inside a Jupyter notebook.

The public API is the handful of names below; every other module is internal.
"""

from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.rollout import Rollout
from agent_widget.storage import RolloutFileError, load, save
from agent_widget.viewer import EpisodeViewer

__version__ = "0.1.0"

__all__ = [
    "EpisodeViewer",
    "RecordRollout",
    "Rollout",
    "RolloutFileError",
    "load",
    "record",
    "record_vector",
    "save",
]
