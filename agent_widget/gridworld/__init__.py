"""Grid worlds: value maps of tabular agents (drawn from the env's own map, no pygame),
and a viewer that shows them over training, live.

Examples:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> from agent_widget.gridworld import ValueMap
    >>> env = gym.make("FrozenLake-v1", map_name="8x8")
    >>> ValueMap(env).image(np.zeros((64, 4))).shape
    (321, 397, 3)
"""

from agent_widget.gridworld._layout import Layout, layout_of
from agent_widget.gridworld._training import TrainingViewer
from agent_widget.gridworld._value_map import ValueMap

__all__ = ["Layout", "TrainingViewer", "ValueMap", "layout_of"]
