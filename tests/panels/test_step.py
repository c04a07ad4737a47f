"""``Step``: one position of an episode as a panel function sees it, read lazily."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.format import ArrayFrames
from agent_widget.panels import Step


def episode(**overrides) -> Rollout:
    arrays = {
        "frames": np.arange(3 * 2 * 2 * 3, dtype=np.uint8).reshape(3, 2, 2, 3),
        "observations": np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]),
        "actions": [2, 0],
        "rewards": [1.5, -1.0],
        "terminated": [False, True],
        "truncated": [True, False],
        "infos": [{"lives": 3}, {"lives": 2}, {"lives": 1}],
        "extras": {"value": [0.25, 0.5]},
        "metadata": {"action_names": ["NOOP", "FIRE", "RIGHT"]},
    }
    return Rollout.from_arrays(**{**arrays, **overrides})


class CountingFrames(ArrayFrames):
    """Frames that count how often one is read."""

    reads = 0

    def _frame(self, t: int) -> np.ndarray:
        CountingFrames.reads += 1
        return super()._frame(t)


def test_a_step_reads_the_position_before_its_action():
    rollout = episode()
    step = Step(rollout, 1)
    assert step.t == 1
    np.testing.assert_array_equal(step.obs, [2.0, 3.0])
    np.testing.assert_array_equal(step.frame, rollout.frames[1])
    assert (int(step.action), step.reward) == (0, -1.0)
    assert (step.terminated, step.truncated) == (True, False)
    assert step.info == {"lives": 2}
    assert step.extras == {"value": 0.5}
    assert step.rollout is rollout


def test_the_return_is_what_was_collected_before_the_step():
    assert [Step(episode(), t).return_ for t in range(3)] == [0.0, 1.5, 0.5]


def test_the_last_position_has_no_action_reward_flags_or_extras():
    step = Step(episode(), 2)
    assert (step.action, step.reward, step.terminated, step.truncated) == (None, None, None, None)
    assert step.extras == {}
    assert step.info == {"lives": 1}
    assert step.return_ == 0.5


def test_action_names_come_from_the_metadata_unless_given():
    assert Step(episode(), 0).action_name == "RIGHT"
    assert Step(episode(), 0, ["a", "b", "c"]).action_name == "c"
    assert Step(episode(metadata={}), 0).action_name is None


def test_vector_actions_have_no_index_or_name():
    step = Step(episode(actions=[[0.5, -0.5], [0.0, 1.0]]), 0)
    np.testing.assert_array_equal(step.action, [0.5, -0.5])
    assert (step.action_index, step.action_name) == (None, None)


def test_a_rollout_recorded_without_actions_has_rewards_but_no_action():
    step = Step(episode(actions=None), 0)
    assert step.action is None
    assert step.reward == 1.5


def test_dict_observations_give_a_dict_of_this_steps_values():
    observations = {"image": np.zeros((3, 2, 2)), "speed": np.array([1.0, 2.0, 3.0])}
    step = Step(episode(observations=observations), 1)
    assert sorted(step.obs) == ["image", "speed"]
    assert step.obs["speed"] == 2.0


def test_missing_frames_and_observations_read_as_none():
    step = Step(Rollout.from_arrays(actions=[0]), 0)
    assert (step.frame, step.obs) == (None, None)


def test_a_frame_is_read_only_when_asked_for_and_then_once():
    CountingFrames.reads = 0
    step = Step(episode(frames=CountingFrames(np.zeros((3, 2, 2, 3), np.uint8))), 1)
    _ = step.obs, step.action, step.reward, step.info
    assert CountingFrames.reads == 0
    _ = step.frame, step.frame
    assert CountingFrames.reads == 1


def test_a_step_past_the_end_fails_when_read():
    with pytest.raises(IndexError):
        _ = Step(episode(), 3).frame
