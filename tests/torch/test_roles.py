"""What a model's outputs are (issue #52): an actor's logits are never shown as Q-values,
and every built-in card says what it computed from. Real SB3 models on CartPole and
Pendulum, their numbers checked against their own forward passes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import A2C, DDPG, DQN, PPO, SAC, TD3

from agent_widget import record
from agent_widget.panels import Step
from agent_widget.panels._cards import to_card
from agent_widget.torch import Policy, QValues, mark_policy
from tests.cartpole import balance, cartpole
from tests.torch_nets import ActorCritic, mlp, vector_episode


def cartpole_step(t: int = 2) -> Step:
    return Step(record(cartpole(None), balance, seed=0, max_steps=6), t)


def pendulum_step(t: int = 2) -> Step:
    policy = lambda obs: np.array([1.5], np.float32)  # noqa: E731
    return Step(record(gym.make("Pendulum-v1"), policy, seed=0, max_steps=5), t)


@pytest.mark.parametrize("algorithm", [PPO, A2C])
def test_q_values_of_a_discrete_actor_critic_are_refused_pointing_to_policy(algorithm):
    model = algorithm("MlpPolicy", cartpole(None), seed=0)
    with pytest.raises(TypeError, match=rf"a {algorithm.__name__} is an actor.*use Policy"):
        QValues(model)


def test_policy_of_ppo_shows_the_critics_v_and_says_so():
    model, step = PPO("MlpPolicy", cartpole(None), seed=0), cartpole_step()
    obs, _ = model.policy.obs_to_tensor(step.obs)
    with torch.no_grad():
        value = float(model.policy.predict_values(obs)[0, 0])
    bars = Policy(model)(step)
    assert bars.stats["V"] == pytest.approx(value, rel=1e-6)
    assert to_card(bars, step).meta["caption"].startswith("from the actor; V from the critic · V ")


def test_q_values_of_a_module_marked_as_a_policy_are_refused():
    actor = mark_policy(mlp())
    with pytest.raises(TypeError, match=r"a module marked as a policy is an actor.*use Policy"):
        QValues(actor)
    assert np.asarray(Policy(actor)(Step(vector_episode(), 0))).sum() == pytest.approx(1.0)


def test_mark_policy_refuses_what_is_not_a_module():
    with pytest.raises(TypeError, match=r"marks a torch nn\.Module, got function"):
        mark_policy(lambda x: x)


def test_q_values_of_a_module_returning_logits_and_value_are_refused_at_the_step_and_series():
    rollout = vector_episode()
    with pytest.raises(TypeError, match=r"returned a pair \(logits, value\).*use Policy"):
        QValues(ActorCritic())(Step(rollout, 0))
    with pytest.raises(TypeError, match=r"returned a pair \(logits, value\)"):
        QValues(ActorCritic()).series(rollout)


def test_a_dqns_q_values_say_they_come_from_its_q_network():
    model, step = DQN("MlpPolicy", cartpole(None), seed=0), cartpole_step()
    with torch.no_grad():
        q = model.q_net(torch.as_tensor(step.obs[None])).double().numpy()[0]
    bars = QValues(model)(step)
    np.testing.assert_allclose(np.asarray(bars), q, rtol=1e-6)
    assert to_card(bars, step).meta["caption"].startswith("from the Q-network · V ")


def test_a_module_without_a_value_heads_policy_says_it_comes_from_the_actor():
    bars = Policy(mlp())(Step(vector_episode(), 0))
    assert bars.caption.startswith("from the actor · entropy ")


@pytest.mark.parametrize(("algorithm", "critics"), [(SAC, "critics 1, 2"), (DDPG, "critic 1")])
def test_a_continuous_actor_critics_cards_name_the_critics_and_the_actor(algorithm, critics):
    model, step = algorithm("MlpPolicy", gym.make("Pendulum-v1"), seed=0), pendulum_step()
    q = QValues(model)(step)
    assert q.caption.startswith(f"from {critics}; π is the actor's action · min Q(s, a) ")
    assert Policy(model)(step).caption.startswith("from the actor")


def test_td3s_policy_card_says_it_comes_from_the_actor():
    model, step = TD3("MlpPolicy", gym.make("Pendulum-v1"), seed=0), pendulum_step()
    with torch.no_grad():
        action = model.actor(torch.as_tensor(step.obs[None])).numpy()[0] * 2.0  # [-2, 2]
    bars = Policy(model)(step)
    np.testing.assert_allclose(np.asarray(bars), action, rtol=1e-5, atol=1e-7)
    assert to_card(bars, step).meta["caption"].startswith("from the actor")
