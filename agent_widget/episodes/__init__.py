"""Episodes as plain data: ``Rollout``, and episodes in ``.rollout`` files (``save``, ``load``).

It knows nothing about envs being stepped, widgets or panels, and every layer above
reads episodes through it. Recording them (``record``, ``RecordRollout``,
``record_vector``, branching, the Minari import) is the layer above,
:mod:`agent_widget.recording`, which lends ``Rollout.branch`` and
``Rollout.from_minari`` their work when imported; the file format itself and the frame
containers are the layer below (:mod:`agent_widget.format`).
"""

# For the layers above (recording, the viewer, the grid world, what-if and torch panels
# name actions and read action spaces); not the user API.
from agent_widget.episodes._action_names import action_names as action_names
from agent_widget.episodes._action_names import known_action_names as known_action_names
from agent_widget.episodes._action_names import space_names as space_names
from agent_widget.episodes._action_space import ActionNames as ActionNames
from agent_widget.episodes._action_space import agent_names as agent_names
from agent_widget.episodes._action_space import agent_spaces as agent_spaces
from agent_widget.episodes._action_space import box_shape as box_shape
from agent_widget.episodes._action_space import describe_space as describe_space
from agent_widget.episodes._action_space import given_names as given_names
from agent_widget.episodes._action_space import kept_names as kept_names
from agent_widget.episodes._action_space import names_fit as names_fit
from agent_widget.episodes._action_space import own_names as own_names
from agent_widget.episodes._agent_rows import AgentRows as AgentRows
from agent_widget.episodes._checked_input import json_dicts as json_dicts
from agent_widget.episodes._checked_input import warn_dropped as warn_dropped
from agent_widget.episodes._files import load, save
from agent_widget.episodes._lent import lend as lend
from agent_widget.episodes._outcomes import OUTCOMES as OUTCOMES
from agent_widget.episodes._outcomes import Outcome as Outcome
from agent_widget.episodes._outcomes import zero_sum as zero_sum
from agent_widget.episodes._rollout import Rollout
from agent_widget.episodes._rollout import named as named
from agent_widget.format import RolloutFileError

__all__ = ["Rollout", "RolloutFileError", "load", "save"]
