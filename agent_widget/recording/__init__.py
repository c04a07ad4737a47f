"""Recording episodes from envs: ``record``, ``RecordRollout``, ``record_vector``.

It steps gymnasium and PettingZoo envs (one, or a vector of them) with a policy and
keeps each episode as a :class:`~agent_widget.episodes.Rollout`, in memory or straight
to its ``.rollout`` file (a Ctrl-C or a kill loses no step already known), its frames
encoded by a helper process where there is a second core (:mod:`._encoder`). It also
replays episodes: frames rendered after the fact (``render_frames``), branches that
take another action at a step (``Rollout.branch``), and Minari's datasets
(``Rollout.from_minari``); it lends ``Rollout`` those two methods when imported.

It stands on :mod:`agent_widget.episodes` (plain data and files) and
:mod:`agent_widget.format` (the bytes), and knows nothing about widgets or panels.
"""

from agent_widget.episodes import lend
from agent_widget.recording._agent_policies import AgentPolicies as AgentPolicies
from agent_widget.recording._branch import branch
from agent_widget.recording._branch_agents import branch_agents
from agent_widget.recording._interrupts import interrupts_held as interrupts_held
from agent_widget.recording._minari import from_minari
from agent_widget.recording._normalization import NORMALIZATION_KEY as NORMALIZATION_KEY
from agent_widget.recording._normalization import Normalization as Normalization
from agent_widget.recording._normalization import ObservationStatistics as ObservationStatistics
from agent_widget.recording._normalization import normalization as normalization
from agent_widget.recording._record import record
from agent_widget.recording._record_agents import pettingzoo_api as pettingzoo_api
from agent_widget.recording._record_vector import record_vector
from agent_widget.recording._record_wrapper import RecordRollout
from agent_widget.recording._replay import ReplayDivergenceError, render_frames

lend(branch=branch, branch_agents=branch_agents, from_minari=from_minari)

__all__ = [
    "RecordRollout",
    "ReplayDivergenceError",
    "record",
    "record_vector",
    "render_frames",
]
