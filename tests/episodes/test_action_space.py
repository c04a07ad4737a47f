"""An episode keeps its action space in its metadata, as JSON, through save and load:
what a panel needs to read a network's outputs right (issue #41)."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from agent_widget import load, record
from agent_widget.episodes._action_space import (
    agent_names,
    box_shape,
    describe_space,
    names_fit,
    with_names,
)
from agent_widget.recording import record_vector
from tests.cartpole import cartpole, lean


def test_each_kind_of_space_is_described_as_json():
    box = spaces.Box(low=np.array([-1.0, 0.0]), high=np.array([1.0, np.inf]), dtype=np.float64)
    assert describe_space(box) == {
        "type": "Box",
        "shape": [2],
        "dtype": "float64",
        "low": [-1.0, 0.0],
        "high": [1.0, None],  # JSON has no infinity
    }
    assert describe_space(spaces.Discrete(4, start=1)) == {"type": "Discrete", "n": 4, "start": 1}
    assert describe_space(spaces.MultiDiscrete([2, 3])) == {"type": "MultiDiscrete", "nvec": [2, 3]}
    assert describe_space(spaces.Tuple([spaces.Discrete(2)])) == {"type": "Tuple"}
    json.dumps(describe_space(box), allow_nan=False)


def test_a_large_box_keeps_its_shape_but_not_its_bounds():
    described = describe_space(spaces.Box(0, 255, (84, 84, 3), np.uint8))
    assert described == {"type": "Box", "shape": [84, 84, 3], "dtype": "uint8"}


def test_a_recorded_pendulum_episode_keeps_its_box_through_save_and_load(tmp_path):
    env = gym.make("Pendulum-v1")
    rollout = record(env, lambda obs: np.array([0.5], np.float32), seed=0, max_steps=5)
    space = rollout.metadata["action_space"]
    assert space == {"type": "Box", "shape": [1], "dtype": "float32", "low": [-2.0], "high": [2.0]}
    rollout.save(tmp_path / "pendulum.rollout")
    loaded = load(tmp_path / "pendulum.rollout")
    assert box_shape(loaded.metadata) == (1,)


def test_discrete_and_vector_recordings_say_so():
    rollout = record(cartpole(None), lean, seed=0)
    assert rollout.metadata["action_space"] == {"type": "Discrete", "n": 2, "start": 0}
    assert box_shape(rollout.metadata) is None
    envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
    rollouts = record_vector(envs, lambda obs: np.zeros((2, 1), np.float32), seed=0, max_steps=3)
    assert [box_shape(r.metadata) for r in rollouts] == [(1,), (1,)]


def test_an_episode_without_a_known_space_is_not_taken_for_a_box():
    assert box_shape({}) is None
    assert box_shape({"action_space": {"type": "Box", "shape": "6"}}) is None
    assert box_shape({"action_space": "Box(6)"}) is None


def test_a_dict_space_is_described_with_its_keys():
    space = spaces.Dict({"steer": spaces.Box(-1, 1, (1,)), "brake": spaces.Discrete(2)})
    assert describe_space(space) == {"type": "Dict", "keys": ["brake", "steer"]}


def test_names_fit_a_discrete_spaces_actions_a_boxs_dimensions_and_a_dicts_keys():
    legs = ["thigh", "shin", "foot"]
    assert names_fit(legs, describe_space(spaces.Box(-1, 1, (3,))))
    assert not names_fit(legs, describe_space(spaces.Box(-1, 1, (2,))))
    assert not names_fit(legs, describe_space(spaces.Box(-1, 1, (3, 1))))
    assert names_fit(legs, describe_space(spaces.Discrete(3)))
    dict_space = spaces.Dict({"brake": spaces.Discrete(2), "steer": spaces.Discrete(3)})
    assert names_fit(["brake", "steer"], describe_space(dict_space))
    assert not names_fit(["steer", "brake"], describe_space(dict_space))


def test_agents_names_are_one_list_where_all_agents_share_them_else_kept_by_agent():
    moves = ["FORWARD", "BACKWARD"]
    assert agent_names({"archer_0": moves, "knight_0": moves}) == {"action_names": moves}
    assert agent_names({"archer_0": None, "knight_0": None}) == {"action_names": None}
    assert agent_names({"speaker": ["a", "b"], "listener": moves, "other": None}) == {
        "action_names": None,
        "agent_action_names": {"speaker": ["a", "b"], "listener": moves},
    }


def test_names_given_win_over_those_the_metadata_keeps_per_agent_or_as_one_list():
    kept = {"agent_action_names": {"speaker": ["a", "b"]}, "action_names": None, "seed": 0}
    assert with_names(kept, ["left", "right"]) == {"action_names": ["left", "right"], "seed": 0}
    by_agent = with_names(kept, {"speaker": ["left", "top", "right"]})
    assert by_agent["agent_action_names"] == {"speaker": ["left", "top", "right"]}
    assert with_names(kept, None) == kept
    with pytest.raises(ValueError, match=r"a list of strings or a dict of them by agent, got 'ab'"):
        with_names(kept, {"speaker": "ab"})
