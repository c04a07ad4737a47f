"""Reference tabular agents, Q-learning and SARSA, written to be read.

Both keep a table ``q_table[state, action]`` of estimated returns and improve it one
step at a time with the temporal-difference update

    Q(s, a) += alpha * (target - Q(s, a))

and differ only in the target. Q-learning bootstraps from the best next action,
whatever the agent does next (off-policy); SARSA from the action it will actually
take next (on-policy), so it learns the value of its own exploring behaviour and
keeps further from holes and cliffs.

Exploration is epsilon-greedy, and the greedy choice breaks ties at random. That
matters on FrozenLake: the table starts all zero, and an argmax that always picks
the first of equal actions walks LEFT forever and never finds the goal.

Everything random (exploration, tie-breaking, the env) draws from generators seeded
from ``seed``, so a run is reproduced exactly by its seed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

TIE_BREAKS = ("random", "first")
Callback = Callable[..., Any]


class TabularAgent(ABC):
    """What Q-learning and SARSA share: the table, the policy and the training loop.

    Args:
        env: an env with discrete observations and actions (FrozenLake, CliffWalking,
            Taxi, ...).
        alpha: learning rate, the step size of each update.
        gamma: discount of future rewards.
        epsilon: probability of a random action while training.
        tie_break: ``"random"`` picks uniformly among equally good actions,
            ``"first"`` takes the lowest index (numpy's argmax).
        seed: seeds the agent's random choices and the env's first reset.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        alpha: float = 0.1,
        gamma: float = 0.99,
        epsilon: float = 0.1,
        tie_break: str = "random",
        seed: int | None = None,
    ) -> None:
        observations, actions = env.observation_space, env.action_space
        if not isinstance(observations, gym.spaces.Discrete):
            raise ValueError(f"a tabular agent needs discrete observations, got {observations}")
        if not isinstance(actions, gym.spaces.Discrete):
            raise ValueError(f"a tabular agent needs discrete actions, got {actions}")
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
        for name, value in (("alpha", alpha), ("gamma", gamma), ("epsilon", epsilon)):
            if not 0 <= value <= 1:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        self.env = env
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.tie_break = tie_break
        self.seed = seed
        self.q_table = np.zeros((int(observations.n), int(actions.n)))
        self.rng = np.random.default_rng(seed)
        self.episodes = 0  # started so far
        self.steps = 0  # env steps taken so far

    def greedy(self, state: int) -> int:
        """The best action in ``state`` by the table, ties broken by ``tie_break``."""
        return argmax(self.q_table[state], self.rng if self.tie_break == "random" else None)

    def act(self, state: int) -> int:
        """Epsilon-greedy: a random action with probability epsilon, else the greedy one."""
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(self.q_table.shape[1]))
        return self.greedy(state)

    def train(self, episodes: int, callback: Callback | None = None) -> np.ndarray:
        """Train for ``episodes`` episodes; returns each episode's return.

        After each episode, ``callback(q_table, episode=i, ret=return, steps=n)`` is
        called, ``n`` the env steps taken so far: the signature of ``Snapshots.append``
        and ``TrainingViewer.snapshot``.

        Examples:
            >>> env = gym.make("FrozenLake-v1", map_name="4x4")
            >>> agent = QLearning(env, seed=0)
            >>> returns = agent.train(100)
            >>> returns.shape, agent.episodes
            ((100,), 100)
        """
        returns = np.zeros(episodes)
        for i in range(episodes):
            returns[i] = self.run_episode()
            if callback is not None:
                episode, ret = self.episodes - 1, float(returns[i])
                callback(self.q_table, episode=episode, ret=ret, steps=self.steps)
        return returns

    @abstractmethod
    def run_episode(self) -> float:
        """Play and learn from one episode; returns its return."""

    def step(self, action: int) -> tuple[Any, ...]:
        """``env.step(action)``, counted in :attr:`steps`."""
        self.steps += 1
        return tuple(self.env.step(action))

    def reset(self) -> int:
        """Start an episode (and count it); the env is seeded on the agent's first one only."""
        state, _ = self.env.reset(seed=self.seed if self.episodes == 0 else None)
        self.episodes += 1
        return int(state)


class QLearning(TabularAgent):
    """Q-learning (Watkins, 1989): off-policy TD control.

    Examples:
        >>> env = gym.make("FrozenLake-v1", map_name="4x4", is_slippery=True)
        >>> agent = QLearning(env, alpha=0.1, gamma=0.99, epsilon=0.1, seed=0)
        >>> returns = agent.train(2_000)
        >>> agent.q_table.shape
        (16, 4)
    """

    def run_episode(self) -> float:
        state, ret, done = self.reset(), 0.0, False
        while not done:
            action = self.act(state)
            next_state, reward, terminated, truncated, _ = self.step(action)
            # The best next action's value, whatever we actually do next; none after the end.
            future = 0.0 if terminated else self.q_table[next_state].max()
            target = float(reward) + self.gamma * future
            self.q_table[state, action] += self.alpha * (target - self.q_table[state, action])
            state, ret, done = int(next_state), ret + float(reward), terminated or truncated
        return ret


class Sarsa(TabularAgent):
    """SARSA (Rummery and Niranjan, 1994): on-policy TD control.

    Examples:
        >>> env = gym.make("CliffWalking-v1")
        >>> agent = Sarsa(env, alpha=0.5, gamma=1.0, epsilon=0.1, seed=0)
        >>> returns = agent.train(50)
        >>> agent.q_table.shape
        (48, 4)
    """

    def run_episode(self) -> float:
        state, ret, done = self.reset(), 0.0, False
        action = self.act(state)
        while not done:
            next_state, reward, terminated, truncated, _ = self.step(action)
            next_state = int(next_state)
            next_action = self.act(next_state)
            # The value of the action we will take next; none after the end.
            future = 0.0 if terminated else self.q_table[next_state, next_action]
            target = float(reward) + self.gamma * future
            self.q_table[state, action] += self.alpha * (target - self.q_table[state, action])
            state, action = next_state, next_action
            ret, done = ret + float(reward), terminated or truncated
        return ret


def argmax(values: np.ndarray, rng: np.random.Generator | None = None) -> int:
    """Index of the largest value; among equal ones, a random one when ``rng`` is given.

    Examples:
        >>> argmax(np.array([0.0, 1.0, 1.0]))
        1
        >>> sorted({argmax(np.zeros(4), np.random.default_rng(s)) for s in range(20)})
        [0, 1, 2, 3]
    """
    if rng is None:
        return int(np.argmax(values))
    best = np.flatnonzero(values == values.max())
    return int(best[0]) if len(best) == 1 else int(best[rng.integers(len(best))])


def greedy_policy(q_table: np.ndarray, seed: int | None = None) -> Callable[[Any], int]:
    """``obs -> action``: greedy in ``q_table``, ties broken at random (seeded), for ``record()``.

    Examples:
        >>> policy = greedy_policy(np.array([[0.0, 1.0], [2.0, 0.0]]))
        >>> policy(0), policy(1)
        (1, 0)
    """
    table = np.array(q_table, dtype=np.float64)  # a copy: later training leaves it alone
    rng = np.random.default_rng(seed)
    return lambda obs: argmax(table[int(obs)], rng)


def evaluate(
    env: gym.Env[Any, Any], q_table: np.ndarray, episodes: int = 1_000, seed: int = 0
) -> np.ndarray:
    """Returns of ``episodes`` episodes of the greedy policy (no exploration, no learning).

    On FrozenLake the mean is the success rate, since only the goal pays (1).

    Examples:
        >>> env = gym.make("FrozenLake-v1", map_name="4x4")
        >>> evaluate(env, np.zeros((16, 4)), episodes=10).shape
        (10,)
    """
    policy = greedy_policy(q_table, seed)
    returns = np.zeros(episodes)
    for i in range(episodes):
        state, _ = env.reset(seed=seed if i == 0 else None)
        done = False
        while not done:
            state, reward, terminated, truncated, _ = env.step(policy(state))
            returns[i] += float(reward)
            done = terminated or truncated
    return returns
