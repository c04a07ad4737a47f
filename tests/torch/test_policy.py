"""``Policy``: a policy network's probabilities for one step, and the episode's series."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agent_widget.panels import Step
from agent_widget.torch import Policy
from tests.torch_nets import NAMES, ActorCritic, mlp, vector_episode


def actor_critic_outputs(model: ActorCritic, observations: np.ndarray):
    with torch.no_grad():
        logits, value = model(torch.as_tensor(observations))
    return logits.double().numpy(), value[:, 0].double().numpy()


def test_the_bars_are_the_softmax_of_a_direct_forward_pass():
    model, rollout = mlp(), vector_episode()
    with torch.no_grad():
        expected = torch.softmax(model(torch.as_tensor(rollout.observations[2:3])), -1)[0]
    bars = Policy(model)(Step(rollout, 2))
    np.testing.assert_allclose(np.asarray(bars), expected.double().numpy(), rtol=1e-6)
    assert list(bars) == NAMES


def test_probabilities_share_one_axis_from_0_to_1():
    assert Policy(mlp())(Step(vector_episode(), 0)).scale == (0.0, 1.0)


def test_taken_and_most_probable_actions_are_both_known():
    model, rollout = mlp(), vector_episode()
    bars = Policy(model)(Step(rollout, 4))
    assert bars.taken == rollout.actions[4]
    assert bars.greedy == int(np.argmax(np.asarray(bars)))


def test_the_stats_hold_the_critic_value_the_entropy_and_the_top_2_gap():
    model, rollout = ActorCritic(), vector_episode()
    logits, value = actor_critic_outputs(model, rollout.observations)
    p = np.exp(logits[1]) / np.exp(logits[1]).sum()
    bars = Policy(model)(Step(rollout, 1))
    assert bars.stats["V"] == pytest.approx(value[1])
    assert bars.stats["entropy"] == pytest.approx(-(p * np.log(p)).sum())
    assert bars.stats["top-2 gap"] == pytest.approx(np.sort(p)[-1] - np.sort(p)[-2])


def test_a_policy_without_critic_shows_no_value():
    assert "V" not in Policy(mlp())(Step(vector_episode(), 0)).stats


def test_series_hold_entropy_probability_taken_value_and_td_error():
    model, rollout = ActorCritic(), vector_episode()
    logits, value = actor_critic_outputs(model, rollout.observations)
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    series = Policy(model).series(rollout, gamma=0.5)
    following = np.where(rollout.terminated, 0.0, value[1:])
    np.testing.assert_allclose(series["entropy"], -(p * np.log(p)).sum(axis=1)[:6], rtol=1e-6)
    np.testing.assert_allclose(series["prob_taken"], p[np.arange(6), rollout.actions], rtol=1e-6)
    np.testing.assert_allclose(series["value"], value[:6], rtol=1e-6)
    td_error = rollout.rewards + 0.5 * following - value[:6]
    np.testing.assert_allclose(series["td_error"], td_error, rtol=1e-6)


def test_series_without_critic_have_no_value_or_td_error():
    assert set(Policy(mlp()).series(vector_episode())) == {"entropy", "prob_taken"}


def test_continuous_actions_need_an_actor_of_their_shape_for_series():
    rollout = vector_episode(actions=np.zeros((6, 2)))
    with pytest.raises(ValueError, match=r"for actions of shape \(2,\) expected \(batch, 2\)"):
        Policy(mlp()).series(rollout)  # a discrete policy's 3 logits are no 2-d action


def test_a_model_with_an_odd_output_is_refused_with_what_to_return():
    odd = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Flatten(0))
    with pytest.raises(ValueError, match=r"expected \(batch, actions\)"):
        Policy(odd)(Step(vector_episode(), 0))


def test_something_that_is_no_model_is_refused():
    with pytest.raises(TypeError, match=r"nn\.Module"):
        Policy(lambda x: x)
