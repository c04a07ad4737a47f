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


def first_legal(agent, obs):
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_a_turn_based_game_branches_the_move_of_the_player_whose_turn_it_was():
    """Connect Four: the bar offers the seven columns, and the move picked at step t is
    the acting player's; the branch replays the moves before it and plays on."""
    connect_four = pytest.importorskip("pettingzoo.classic.connect_four_v3")
    rng = np.random.default_rng(0)

    def random_legal(agent, obs):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    def game():
        return connect_four.env(render_mode="rgb_array")

    episode = record(game(), random_legal, seed=0, agent="random")
    viewer = what_if(episode, env=game, policy=first_legal)
    assert viewer.what_if["actions"] == [str(column) for column in range(7)]
    t = 4
    other = (int(episode.actions[t]) + 1) % 7
    deliver(viewer, {"type": "what-if", "step": t, "action": other})
    state = wait_idle(viewer)
    assert state["done"] == 1, state["status"]
    branch = viewer.rollouts[1]
    acting = str(episode.acting_agent[t])
    assert str(branch.acting_agent[t]) == acting
    assert int(branch.agent_action(acting)[t]) == other
    np.testing.assert_array_equal(branch.actions[:t], episode.actions[:t])
    assert branch.metadata["branch"]["action"] == {acting: other}
    assert viewer.divergence == t


def test_what_if_says_what_to_call_for_games_it_cannot_offer_one_list_of_moves():
    pytest.importorskip("pettingzoo")
    from tests.beacon import Beacon, beacon_aec, guide

    episode = record(beacon_aec(), guide(0), seed=0)
    with pytest.raises(ValueError, match="action spaces differ"):
        what_if(episode, env=beacon_aec, policy=guide(0))
    parallel = record(Beacon(), guide(0), seed=0)
    with pytest.raises(ValueError, match=r"Parallel env call rollout\.branch"):
        what_if(parallel, env=Beacon, policy=guide(0))
