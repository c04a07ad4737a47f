"""Every action name says what the action does: each name, from the env's API or from
its documentation, is checked against the env's own behaviour, one step from a known
state, so a swapped pair fails."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.episodes._action_names import action_names, space_names


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


def test_minigrid_names_its_actions_from_its_actions_enum():
    pytest.importorskip("minigrid")
    env = gym.make("MiniGrid-Empty-8x8-v0")
    names = action_names(env)
    assert names == ["left", "right", "forward", "pickup", "drop", "toggle", "done"]

    def after(name: str) -> tuple[tuple[int, int], int]:
        env.reset(seed=0)
        env.unwrapped.agent_pos, env.unwrapped.agent_dir = (3, 3), 0  # facing east
        env.step(names.index(name))
        return tuple(int(x) for x in env.unwrapped.agent_pos), env.unwrapped.agent_dir

    assert after("forward") == ((4, 3), 0)
    assert after("left") == ((3, 3), 3)  # turned to face north
    assert after("right") == ((3, 3), 1)  # south
    assert after("done") == ((3, 3), 0)


def test_half_cheetah_names_each_action_dimension_by_the_actuator_it_drives(monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "egl")
    pytest.importorskip("mujoco")
    env = gym.make("HalfCheetah-v5")
    names = action_names(env)
    assert names == ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"]
    model, data = env.unwrapped.model, env.unwrapped.data

    def velocities(action: np.ndarray) -> np.ndarray:
        env.reset(seed=0)
        env.step(action)
        return data.qvel.copy()

    still = velocities(np.zeros(6, np.float32))
    for i, name in enumerate(names):
        push = np.zeros(6, np.float32)
        push[i] = 1.0
        change = np.abs(velocities(push) - still)
        # The joint of that name moves most: rootx, rootz and rooty (the body) aside.
        joints = [model.joint(j).name for j in range(3, model.njnt)]
        moved = joints[
            int(np.argmax([change[model.jnt_dofadr[model.joint(j).id]] for j in joints]))
        ]
        assert moved == name


@pytest.mark.parametrize("agent", ["archer_0", "knight_0"])
def test_knights_archers_zombies_names_every_agents_actions_as_documented(agent):
    kaz = pytest.importorskip("pettingzoo.butterfly.knights_archers_zombies_v11")

    def after(name: str) -> tuple[tuple[int, int], tuple[float, float], int]:
        env = kaz.parallel_env()
        env.reset(seed=0)
        names = space_names(env.unwrapped, env.action_space(agent))
        assert names is not None
        player = env.unwrapped.agent_map[agent]
        env.step({a: names.index(name if a == agent else "NONE") for a in env.agents})
        return tuple(player.rect.center), tuple(player.direction), len(player.weapons)

    (_, y), heading, weapons = after("NONE")
    assert (heading, weapons) == ((0.0, -1.0), 0)  # facing up the screen, unarmed
    assert after("FORWARD")[0][1] < y < after("BACKWARD")[0][1]  # up, down the screen
    assert after("TURN CCW")[1][0] < 0 < after("TURN CW")[1][0]  # turned left, right
    assert after("ATTACK")[2] == 1  # an arrow shot, or the mace swung


def test_a_dict_spaces_actions_are_named_by_its_keys():
    class Steering(gym.Env):
        """An env whose action has parts: how hard to steer, and whether to brake."""

        action_space = gym.spaces.Dict(
            {"steer": gym.spaces.Box(-1, 1, (1,)), "brake": gym.spaces.Discrete(2)}
        )
        observation_space = gym.spaces.Discrete(1)

    assert action_names(Steering()) == ["brake", "steer"]  # the space's order (sorted)
