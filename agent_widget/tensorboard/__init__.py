"""TensorBoard's Agent tab: a run's episodes beside its scalars, stepped frame by frame.

Installed with the ``[tensorboard]`` extra; TensorBoard finds :class:`AgentPlugin`
through the ``tensorboard_plugins`` entry point, and ``tensorboard --logdir runs/``
shows the tab whenever an episode file lies under ``runs/``. The top layer: it serves
episodes in the viewer (:mod:`agent_widget.viewer`) and imports nothing above it.
"""

from agent_widget.tensorboard._plugin import AgentPlugin

__all__ = ["AgentPlugin"]
