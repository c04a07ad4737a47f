"""Every action-name table says what each action does: each name is checked against the
env's own behaviour, one step from a known state, so a swapped pair fails."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.episodes._action_names import action_names


def after(env_id: str, name: str, set_up: Any = None, seed: int = 0, **kwargs: Any) -> tuple:
    """(observation, reward, terminated) one step after the action called ``name``, from
    the state ``set_up(env)`` leaves after a seeded reset."""
    env = gym.make(env_id, **kwargs)
    env.reset(seed=seed)
    if set_up is not None:
        set_up(env.unwrapped)
    names = action_names(env)
    assert names is not None
    observation, reward, terminated, _, _ = env.step(names.index(name))
    env.close()
    return observation, reward, terminated


def test_frozen_lake():
    # From the start (row 0, column 0) of the 4x4 lake, without slipping.
    moves = {n: after("FrozenLake-v1", n, is_slippery=False)[0] for n in ("RIGHT", "DOWN")}
    assert moves == {"RIGHT": 1, "DOWN": 4}
    for stuck in ("LEFT", "UP"):
        assert after("FrozenLake-v1", stuck, is_slippery=False)[0] == 0


def test_cliff_walking():
    def at(state):
        return lambda env: setattr(env, "s", state)

    # 4 rows of 12: state 25 is row 2, column 1, right above the cliff.
    assert after("CliffWalking-v1", "UP", at(25))[0] == 13
    assert after("CliffWalking-v1", "RIGHT", at(25))[0] == 26
    assert after("CliffWalking-v1", "LEFT", at(25))[0] == 24
    observation, reward, _ = after("CliffWalking-v1", "DOWN", at(25))
    assert (observation, reward) == (36, -100)  # into the cliff, back to the start


def test_taxi():
    def taxi(row, col, passenger, destination):
        return lambda env: setattr(env, "s", env.encode(row, col, passenger, destination))

    decode = gym.make("Taxi-v4").unwrapped.decode
    for name, (row, col) in {
        "SOUTH": (3, 2),
        "NORTH": (1, 2),
        "EAST": (2, 3),
        "WEST": (2, 1),
    }.items():
        state = after("Taxi-v4", name, taxi(2, 2, 0, 1))[0]
        assert tuple(decode(state))[:2] == (row, col), name
    # At R (0, 0) with the passenger waiting there: PICKUP puts it in the taxi (4).
    assert tuple(decode(after("Taxi-v4", "PICKUP", taxi(0, 0, 0, 1))[0]))[2] == 4
    # At G (0, 4), its destination, with the passenger aboard: DROPOFF ends the ride.
    _, reward, terminated = after("Taxi-v4", "DROPOFF", taxi(0, 4, 4, 1))
    assert (reward, terminated) == (20, True)


def test_blackjack():
    assert after("Blackjack-v1", "STICK")[2] is True
    hit = [after("Blackjack-v1", "HIT", seed=s) for s in range(20)]
    assert any(not terminated for _, _, terminated in hit)  # a card drawn, the hand goes on


def test_cartpole():
    velocity = {n: after("CartPole-v1", n)[0][1] for n in ("LEFT", "RIGHT")}
    assert velocity["LEFT"] < 0 < velocity["RIGHT"]


def test_mountain_car():
    velocity = {n: after("MountainCar-v0", n)[0][1] for n in ("LEFT", "NOOP", "RIGHT")}
    assert velocity["LEFT"] < velocity["NOOP"] < velocity["RIGHT"]


def test_acrobot():
    # Observation 5 is the second joint's angular velocity, pushed by the torque.
    spin = {n: after("Acrobot-v1", n)[0][5] for n in ("TORQUE -1", "TORQUE 0", "TORQUE +1")}
    assert spin["TORQUE -1"] < spin["TORQUE 0"] < spin["TORQUE +1"]


def test_lunar_lander():
    pytest.importorskip("Box2D")
    after_each = {n: after("LunarLander-v3", n)[0] for n in ("NOOP", "LEFT", "MAIN", "RIGHT")}
    vertical = {n: o[3] for n, o in after_each.items()}
    assert max(vertical, key=vertical.get) == "MAIN"  # the main engine slows the fall
    # The side engines push opposite ways: "LEFT" (the left engine) slows the drift right.
    horizontal = {n: o[2] for n, o in after_each.items()}
    assert horizontal["LEFT"] < horizontal["NOOP"] < horizontal["RIGHT"]
    assert np.isclose(vertical["LEFT"], vertical["NOOP"], atol=0.01)
