"""Checkpoints of a training run: evaluation episodes and the network's weights.

:class:`CheckpointRecorder` records, at each checkpoint of any training loop, one
episode per seed with the current policy and the network's weights as a safetensors
file, into a run of the :class:`~agent_widget.library.RunLibrary`; :class:`Checkpoints`
reads that run back by training step, frames rendered by replay when an episode is
first asked for; :func:`load_weights` loads a weights file into a module without
pickle; :class:`CheckpointViewer` steps through them, checkpoint by checkpoint, each
with its own network's panels (:class:`Networks` loads them, :class:`NetworkPanels`
makes their cards; TensorBoard's Agent tab uses both too). Needs the ``torch`` extra.
Above the library; SB3's callback is the layer above (:mod:`agent_widget.sb3`), and
nothing here imports SB3.
"""

from agent_widget.checkpoints._checkpoints import Checkpoints
from agent_widget.checkpoints._network_panels import NetworkPanels
from agent_widget.checkpoints._networks import Networks
from agent_widget.checkpoints._recorder import CheckpointRecorder
from agent_widget.checkpoints._viewer import CheckpointViewer
from agent_widget.checkpoints._weights import (
    WeightsFileError,
    load_weights,
    read_weights,
    save_weights,
)
from agent_widget.recording import render_frames

__all__ = [
    "CheckpointRecorder",
    "CheckpointViewer",
    "Checkpoints",
    "NetworkPanels",
    "Networks",
    "WeightsFileError",
    "load_weights",
    "read_weights",
    "render_frames",
    "save_weights",
]
