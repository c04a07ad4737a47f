"""The reference agents: they learn, they reproduce from a seed, they break ties at random."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.agents import QLearning, Sarsa, argmax, evaluate, greedy_policy

# Measured: seeds 0, 1 and 2 all reach 0.74 greedy success after 2,000 episodes (the
# optimal policy of slippery 4x4 succeeds about 74% of the time within 100 steps).
BUDGET = 2_000


def lake(size="4x4", slippery=True):
    return gym.make("FrozenLake-v1", map_name=size, is_slippery=slippery)


def test_q_learning_succeeds_over_70_percent_on_slippery_4x4_within_2000_episodes():
    agent = QLearning(lake(), alpha=0.1, gamma=0.99, epsilon=0.1, seed=0)
    agent.train(BUDGET)
    success = evaluate(lake(), agent.q_table, episodes=1_000, seed=123).mean()
    assert success > 0.7


@pytest.mark.parametrize("algorithm", [QLearning, Sarsa])
def test_training_is_reproduced_exactly_by_its_seed(algorithm):
    runs = [algorithm(lake(), seed=7) for _ in range(2)]
    returns = [agent.train(1_000) for agent in runs]
    assert np.array_equal(returns[0], returns[1])
    assert np.array_equal(runs[0].q_table, runs[1].q_table)
    assert runs[0].q_table.any()  # something was learned, so the comparison means something


def test_a_loop_of_run_episode_trains_exactly_as_train_does():
    looped, trained = QLearning(lake(), seed=3), QLearning(lake(), seed=3)
    returns = [looped.run_episode() for _ in range(500)]  # the env is seeded once, not each time
    assert returns == trained.train(500).tolist()
    assert looped.episodes == trained.episodes == 500


def test_different_seeds_train_differently():
    first, second = QLearning(lake(), seed=1), QLearning(lake(), seed=2)
    first.train(300)
    second.train(300)
    assert not np.array_equal(first.q_table, second.q_table)


def test_random_tie_breaking_finds_the_goal_where_first_index_argmax_never_does():
    # With no exploration, an all-zero table and argmax's first index, the agent walks
    # LEFT into the wall forever; random tie-breaking wanders until it finds the goal.
    stuck = Sarsa(lake(slippery=False), epsilon=0.0, tie_break="first", seed=0)
    wandering = Sarsa(lake(slippery=False), epsilon=0.0, tie_break="random", seed=0)
    assert stuck.train(200).sum() == 0
    assert wandering.train(200).sum() > 0


def test_the_callback_gets_the_table_episode_return_and_steps_after_each_episode():
    calls = []
    env = gym.wrappers.RecordEpisodeStatistics(lake())
    agent = QLearning(env, seed=0)
    returns = agent.train(5, callback=lambda q, **called: calls.append((q, called)))
    assert [called["episode"] for _, called in calls] == [0, 1, 2, 3, 4]
    assert [called["ret"] for _, called in calls] == returns.tolist()
    assert all(q is agent.q_table for q, _ in calls)
    # The env steps so far: each episode's length (as gymnasium counts it) added up.
    lengths = list(env.length_queue)
    assert [called["steps"] for _, called in calls] == np.cumsum(lengths).tolist()
    agent.train(1, callback=lambda q, **called: calls.append((q, called)))
    assert calls[-1][1]["episode"] == 5  # episodes keep counting across calls
    assert calls[-1][1]["steps"] == agent.steps == sum(env.length_queue)


class Chain(gym.Env):
    """State 0 leads to state 1 whatever the action; in state 1, action 1 pays 1 and ends."""

    observation_space = gym.spaces.Discrete(2)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = 0
        return 0, {}

    def step(self, action):
        if self.state == 0:
            self.state = 1
            return 1, 0.0, False, False, {}
        return 1, float(action), True, False, {}


def first_update(algorithm, seed):
    """Q(0, a) after one episode of random actions, from Q(1) = [0, 2], alpha 1, gamma 0.5."""
    agent = algorithm(Chain(), alpha=1.0, gamma=0.5, epsilon=1.0, seed=seed)
    agent.q_table[1] = [0.0, 2.0]
    agent.run_episode()
    return float(agent.q_table[0].max())


def test_q_learning_bootstraps_from_the_best_next_action():
    assert {first_update(QLearning, seed) for seed in range(10)} == {1.0}  # 0.5 * max(0, 2)


def test_sarsa_bootstraps_from_the_next_action_it_takes():
    assert {first_update(Sarsa, seed) for seed in range(10)} == {0.0, 1.0}  # 0.5 * Q(1, next)


def test_argmax_breaks_ties_uniformly_at_random():
    rng = np.random.default_rng(0)
    picks = np.bincount([argmax(np.array([1.0, 0.0, 1.0, 1.0]), rng) for _ in range(3_000)])
    assert picks[1] == 0
    assert np.all(np.abs(picks[[0, 2, 3]] - 1_000) < 100)


def test_a_greedy_policy_is_a_frozen_copy_of_the_table():
    table = np.array([[0.0, 1.0]])
    policy = greedy_policy(table, seed=0)
    table[0] = [5.0, 0.0]
    assert policy(0) == 1


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        (gym.make("CartPole-v1"), "discrete observations"),
        (gym.make("FrozenLake-v1"), "tie_break must be one of"),
    ],
)
def test_bad_settings_are_refused_naming_the_problem(env, problem):
    with pytest.raises(ValueError, match=problem):
        QLearning(env, tie_break="last" if "tie" in problem else "random")


def test_rates_outside_0_1_are_refused():
    with pytest.raises(ValueError, match="alpha must be between 0 and 1, got 2"):
        QLearning(lake(), alpha=2)
