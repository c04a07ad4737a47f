"""Episodes as data: ``Rollout``, recording them from gymnasium, the ``.rollout`` file.

It knows nothing about widgets or panels, and every layer above reads episodes
through it. Recording (``record``, ``RecordRollout``,
``record_vector``), branching (``Rollout.branch``), Minari import
(``Rollout.from_minari``), frames rendered later by replay (``render_frames``) and
episodes in files (``save``, ``load``) live here; the file format itself, and the
frame containers, are the layer below (:mod:`agent_widget.format`).
"""

# For the layers above (the grid world and what-if name actions, torch panels read the
# action space, the viewer makes the per-agent rows of steps appended live); not the
# user API.
from agent_widget.episodes._action_names import action_names as action_names
from agent_widget.episodes._action_space import ActionNames as ActionNames
from agent_widget.episodes._action_space import box_shape as box_shape
from agent_widget.episodes._action_space import describe_space as describe_space
from agent_widget.episodes._action_space import kept_names as kept_names
from agent_widget.episodes._action_space import names_fit as names_fit
from agent_widget.episodes._action_space import own_names as own_names
from agent_widget.episodes._agent_policies import AgentPolicies as AgentPolicies
from agent_widget.episodes._agent_rows import AgentRows as AgentRows
from agent_widget.episodes._files import load, save
from agent_widget.episodes._record import record
from agent_widget.episodes._record_agents import pettingzoo_api as pettingzoo_api
from agent_widget.episodes._record_vector import record_vector
from agent_widget.episodes._record_wrapper import RecordRollout
from agent_widget.episodes._replay import ReplayDivergenceError, render_frames
from agent_widget.episodes._rollout import Rollout
from agent_widget.format import RolloutFileError

__all__ = [
    "RecordRollout",
    "ReplayDivergenceError",
    "Rollout",
    "RolloutFileError",
    "load",
    "record",
    "record_vector",
    "render_frames",
    "save",
]
