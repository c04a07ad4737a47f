"""Stable-Baselines3 support: checkpoints recorded by a callback of ``model.learn``.

The top layer, the only one that imports SB3 at import time (the torch panels import
it lazily, for SB3 models handed to them). Needs the ``sb3`` and ``torch`` extras.
"""

from agent_widget.sb3._callback import RecordCheckpoints

__all__ = ["RecordCheckpoints"]
