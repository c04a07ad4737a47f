"""Rollout: the step convention, defaults and validation (agent_widget.episodes._rollout,
_checked_input)."""

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.format import ArrayFrames


def frames(n):
    return np.zeros((n, 4, 4, 3), np.uint8)


def test_t_actions_give_t_plus_one_positions():
    rollout = Rollout.from_arrays(frames=frames(4), actions=[0, 1, 2])
    assert rollout.num_steps == 3
    assert rollout.num_positions == 4


def test_returns_are_the_reward_collected_before_each_position():
    rollout = Rollout.from_arrays(frames=frames(4), actions=[0, 1, 2], rewards=[1.0, 0.0, 2.5])
    assert rollout.returns.tolist() == [0.0, 1.0, 1.0, 3.5]
    assert rollout.returns.dtype == np.float64


def test_one_frame_per_action_is_accepted():
    rollout = Rollout.from_arrays(frames=frames(3), actions=[0, 1, 2], rewards=[1, 1, 1])
    assert rollout.num_positions == 3
    assert rollout.returns.tolist() == [0.0, 1.0, 2.0]


def test_missing_fields_get_defaults():
    rollout = Rollout.from_arrays(frames=frames(3), actions=[4, 5])
    assert rollout.rewards.tolist() == [0.0, 0.0]
    assert rollout.rewards.dtype == np.float64
    assert rollout.terminated.tolist() == rollout.truncated.tolist() == [False, False]
    assert list(rollout.infos) == [{}, {}, {}]
    assert rollout.extras == {}
    assert rollout.metadata["created"].endswith("+00:00")


def test_missing_actions_are_inferred_from_the_frames():
    rollout = Rollout.from_arrays(frames=frames(5))
    assert rollout.num_steps == 4
    assert rollout.actions.shape == (4, 0)


def test_frames_are_wrapped_in_array_frames():
    rollout = Rollout.from_arrays(frames=list(frames(2)), actions=[0])
    assert isinstance(rollout.frames, ArrayFrames)


def test_frame_size_change_needs_allow_resize():
    mixed = [np.zeros((4, 4, 3), np.uint8), np.zeros((2, 2, 3), np.uint8)]
    with pytest.raises(ValueError, match=r"step 1: size changed"):
        Rollout.from_arrays(frames=mixed, actions=[0])
    assert len(Rollout.from_arrays(frames=mixed, actions=[0], allow_resize=True).frames) == 2


def test_frame_count_must_match_the_actions():
    with pytest.raises(ValueError, match=r"frames has 5 entries; with 2 actions expected 3"):
        Rollout.from_arrays(frames=frames(5), actions=[0, 1])


def test_per_step_lengths_must_match_the_actions():
    with pytest.raises(ValueError, match=r"rewards has 1 entries, expected 2"):
        Rollout.from_arrays(frames=frames(3), actions=[0, 1], rewards=[1.0])


def test_observations_and_frames_must_agree():
    with pytest.raises(ValueError, match=r"observations has 2 entries but frames has 3"):
        Rollout.from_arrays(frames=frames(3), observations=np.zeros((2, 5)), actions=[0, 1])


def test_dict_observations_are_checked_per_key():
    observations = {"image": np.zeros((3, 2, 2)), "vector": np.zeros((2, 4))}
    with pytest.raises(ValueError, match=r"observations\['vector'\] has 2 entries"):
        Rollout.from_arrays(observations=observations, actions=[0, 1])


def test_extras_must_have_one_entry_per_action():
    with pytest.raises(ValueError, match=r"extras\['q'\] has 3 entries, expected 2"):
        Rollout.from_arrays(frames=frames(3), actions=[0, 1], extras={"q": np.zeros((3, 4))})


def test_a_non_finite_reward_is_kept_where_it_happened():
    rollout = Rollout.from_arrays(actions=[0, 1, 2], rewards=[1.0, np.nan, np.inf])
    assert rollout.rewards[0] == 1.0
    assert np.isnan(rollout.rewards[1])
    assert rollout.rewards[2] == np.inf
    assert rollout.returns[:2].tolist() == [0.0, 1.0]
    assert np.isnan(rollout.returns[2:]).all()


def test_non_numeric_actions_are_rejected():
    with pytest.raises(ValueError, match=r"actions: expected a per-step numeric array"):
        Rollout.from_arrays(actions=np.array([object(), object()]))


def test_info_numpy_values_become_plain_json():
    info = {"lives": np.int64(3), "x": np.float32(0.5), "mask": np.array([1, 0])}
    rollout = Rollout.from_arrays(actions=[0], infos=[info, {}])
    assert rollout.infos[0] == {"lives": 3, "x": 0.5, "mask": [1, 0]}
    assert type(rollout.infos[0]["lives"]) is int


def test_info_values_that_are_not_json_are_dropped_with_one_warning():
    infos = [{"ok": 1, "obj": object(), "nan": float("nan")} for _ in range(3)]
    with pytest.warns(UserWarning, match=r"'obj' \(first at step 0\), 'nan'") as caught:
        rollout = Rollout.from_arrays(actions=[0, 1], infos=infos)
    assert len(caught) == 1
    assert list(rollout.infos) == [{"ok": 1}] * 3


def test_metadata_values_that_are_not_json_are_dropped():
    with pytest.warns(UserWarning, match=r"metadata.*'policy'"):
        rollout = Rollout.from_arrays(actions=[0], metadata={"env_id": "X-v0", "policy": len})
    assert rollout.metadata["env_id"] == "X-v0"
    assert "policy" not in rollout.metadata


def test_repr_is_short():
    rollout = Rollout.from_arrays(frames=frames(1001), actions=np.zeros(1000, int))
    assert repr(rollout).startswith("Rollout(steps=1000, positions=1001, frames=4x4")
    assert len(repr(rollout)) < 200
