"""first_divergence: the first step at which two episodes of one env and seed act differently."""

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import record
from agent_widget.compare import first_divergence
from agent_widget.episodes import Rollout


def actions(values):
    return Rollout.from_arrays(actions=values)


def test_the_first_step_whose_actions_differ_is_the_divergence():
    assert first_divergence(actions([0, 1, 1, 0, 2]), actions([0, 1, 1, 2, 2])) == 3


def test_a_difference_at_the_first_step_is_step_zero():
    assert first_divergence(actions([1, 1]), actions([0, 1])) == 0


def test_identical_actions_never_diverge():
    assert first_divergence(actions([0, 1, 2]), actions([0, 1, 2])) is None


def test_when_one_episode_is_a_prefix_of_the_other_they_part_where_it_ends():
    assert first_divergence(actions([0, 1, 2, 0]), actions([0, 1])) == 2
    assert first_divergence(actions([0, 1]), actions([0, 1, 2, 0])) == 2


def test_vector_actions_diverge_at_the_first_step_where_any_component_differs():
    a = np.zeros((5, 2))
    b = a.copy()
    b[4, 1] = 0.25
    b[3, 0] = -0.5
    assert first_divergence(actions(a), actions(b)) == 3


def test_actions_of_different_shapes_are_a_value_error():
    with pytest.raises(ValueError, match=r"shapes \(2,\) and \(3,\)"):
        first_divergence(actions(np.zeros((4, 2))), actions(np.zeros((4, 3))))


def test_two_recorded_agents_from_one_seed_diverge_where_their_policies_first_differ():
    env = gym.make("CartPole-v1")
    lean = record(env, lambda obs: int(obs[2] > 0), seed=3)
    steps = iter(range(10_000))
    # Follows the same rule until step 7, where it pushes the other way once.
    stubborn = record(env, lambda obs: int(obs[2] > 0) ^ (next(steps) == 7), seed=3)
    assert np.array_equal(lean.observations[:8], stubborn.observations[:8])
    assert first_divergence(lean, stubborn) == 7
