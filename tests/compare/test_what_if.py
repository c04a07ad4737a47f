"""``what_if``: a comparison whose "What if…" bar branches the episode at the shared step,
the branches computed on a worker thread and added as they finish."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import record, what_if
from tests.cartpole import balance, cartpole
from tests.panel_comm import deliver
from tests.waiting import LIMIT, wait_for_trait


def wait_idle(viewer):
    """The bar's state once the branches asked for are done (on the worker thread)."""
    return wait_for_trait(viewer, "what_if", lambda state: not state["busy"])


@pytest.fixture
def episode():
    return record(cartpole(), balance, seed=3, max_steps=80, agent="pd")


def test_the_bar_offers_the_envs_actions_by_name(episode):
    viewer = what_if(episode, env=cartpole, policy=balance)
    assert viewer.what_if == {
        "actions": ["LEFT", "RIGHT"],
        "busy": False,
        "done": 0,
        "total": 0,
        "status": "",
    }
    assert viewer.labels == ["pd"]


def test_a_branch_asked_for_is_added_beside_the_episode_diverging_at_its_step(episode):
    viewer = what_if(episode, env=cartpole, policy=balance)
    viewer.add_panel("angle", lambda step: float(step.obs[2]))
    t = 30
    other = 1 - int(episode.actions[t])
    deliver(viewer, {"type": "what-if", "step": t, "action": other})
    state = wait_idle(viewer)
    assert state["done"] == state["total"] == 1
    assert "1 branch at t = 30" in state["status"]
    assert viewer.labels == ["pd", f"{['LEFT', 'RIGHT'][other]} at t = 30"]
    assert viewer.divergence == t
    branch = viewer.viewers[1]
    assert [p["name"] for p in branch.panels] == ["angle"]  # the shared panels came along
    assert viewer.length == max(episode.num_positions, branch.length)


def test_every_action_branches_on_each_but_the_recorded_one():
    lake = gym.make("FrozenLake-v1", is_slippery=True, render_mode="rgb_array")
    moves = iter(np.random.default_rng(0).integers(4, size=100).tolist())
    episode = record(lake, lambda obs: next(moves), seed=1)
    viewer = what_if(episode, env=lake, policy=lambda obs: 1)
    deliver(viewer, {"type": "what-if", "step": 2, "action": "every"})
    state = wait_idle(viewer)
    assert state["done"] == 3
    recorded = ["LEFT", "DOWN", "RIGHT", "UP"][int(episode.actions[2])]
    assert len(viewer.labels) == 4
    assert f"{recorded} at t = 2" not in viewer.labels


def test_a_cancel_stops_the_branches_left_and_keeps_those_done(episode):
    branching, cancelled = threading.Event(), threading.Event()

    def until_cancelled(obs):
        """The branch's policy, held at its first call until the cancel is in."""
        branching.set()
        assert cancelled.wait(LIMIT), "the test never cancelled"
        return balance(obs)

    viewer = what_if(episode, env=cartpole, policy=until_cancelled)
    deliver(viewer, {"type": "what-if", "step": 5, "action": "every"})
    assert branching.wait(LIMIT), "the branch never started"
    deliver(viewer, {"type": "what-if-cancel"})
    cancelled.set()
    state = wait_idle(viewer)
    assert state["status"].startswith("cancelled")
    assert len(viewer.labels) == 1 + state["done"]


def test_bad_requests_and_failed_branches_are_said_in_the_bar(episode):
    viewer = what_if(episode, env=cartpole, policy=balance)
    deliver(viewer, {"type": "what-if", "step": 999, "action": 0})
    assert "cannot branch at 999" in viewer.what_if["status"]
    deliver(viewer, {"type": "what-if", "step": 3, "action": 7})
    assert "no action 7" in viewer.what_if["status"]

    class IgnoresSeed(gym.Wrapper):
        def reset(self, **kwargs):
            kwargs.pop("seed", None)
            return self.env.reset(**kwargs)

    broken = what_if(episode, env=lambda: IgnoresSeed(cartpole()), policy=balance)
    deliver(broken, {"type": "what-if", "step": 10, "action": 0})
    state = wait_idle(broken)
    assert "ReplayDivergenceError" in state["status"]
    assert "not deterministic from this seed" in state["status"]
    assert broken.labels == ["pd"]


def test_what_if_needs_discrete_actions():
    env = gym.make("Pendulum-v1", render_mode="rgb_array")
    episode = record(env, lambda obs: np.zeros(1, np.float32), seed=0, max_steps=5)
    with pytest.raises(ValueError, match="Discrete"):
        what_if(episode, env=env, policy=lambda obs: np.zeros(1, np.float32))
