"""Episodes as data: ``Rollout``, recording them from gymnasium, the ``.rollout`` file.

The lowest layer: it knows nothing about widgets or panels, and every other layer
reads episodes through it. Recording (``record``, ``RecordRollout``,
``record_vector``), Minari import (``Rollout.from_minari``), the frame containers
and their chunk codec, and the file format (``save``, ``load``) live here.
"""

from agent_widget.episodes._archive import RolloutFileError
from agent_widget.episodes._minari import ReplayDivergenceError
from agent_widget.episodes._recording import RecordRollout, record, record_vector
from agent_widget.episodes._rollout import Rollout
from agent_widget.episodes._storage import load, save

__all__ = [
    "RecordRollout",
    "ReplayDivergenceError",
    "Rollout",
    "RolloutFileError",
    "load",
    "record",
    "record_vector",
    "save",
]
