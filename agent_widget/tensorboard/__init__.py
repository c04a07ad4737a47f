"""TensorBoard's Agent tab: a run's episodes beside its scalars, stepped frame by frame.

Installed with the ``[tensorboard]`` extra; TensorBoard finds :class:`AgentLoader`
through the ``tensorboard_plugins`` entry point, and ``tensorboard --logdir runs/``
shows the tab whenever an episode file lies under ``runs/`` (``--agent_panels
my_panels.py`` adds the panels that file registers). The top layer: it serves
episodes in the viewer (:mod:`agent_widget.viewer`) and imports nothing above it.
"""

from agent_widget.tensorboard._loader import AgentLoader
from agent_widget.tensorboard._plugin import AgentPlugin

__all__ = ["AgentLoader", "AgentPlugin"]
