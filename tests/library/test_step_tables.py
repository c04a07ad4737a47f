"""The columns an episode brings to the steps table, from whatever it holds."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyarrow")

from agent_widget.episodes import Rollout
from agent_widget.library._step_tables import episode_metadata, step_columns
from agent_widget.library._tables import conform, unified_schema


def columns(**fields):
    return {
        name: column.to_pylist()
        for name, column in step_columns(Rollout.from_arrays(**fields)).items()
    }


def test_discrete_actions_are_integers_named_from_the_metadata():
    found = columns(
        actions=[0, 1, 2, 1], rewards=[1, 2, 3, 4], metadata={"action_names": ["A", "B"]}
    )
    assert found["t"] == [0, 1, 2, 3]
    assert found["action"] == [0, 1, 2, 1]
    assert found["action_name"] == ["A", "B", None, "B"]  # 2 has no name
    assert found["return_so_far"] == [0, 1, 3, 6]
    assert found["return_to_go"] == [10, 9, 7, 4]


def test_vector_actions_are_lists_and_action_is_null():
    found = columns(actions=np.array([[0.5, -1.0], [1.0, 0.0]]))
    assert found["action"] == [None, None]
    assert found["action_vector"] == [[0.5, -1.0], [1.0, 0.0]]


def test_extras_scalars_series_and_flags_and_what_is_left_out():
    found = columns(
        actions=[0, 1],
        extras={
            "value": np.array([0.5, 1.5], np.float32),
            "q": np.array([[1, 2, 3], [4, 5, 6]]),
            "dead": np.array([False, True]),
            "grid": np.zeros((2, 3, 3)),  # an image per step: not a column
        },
    )
    assert found["value"] == [0.5, 1.5]
    assert found["q"] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert found["dead"] == [False, True]
    assert "grid" not in found


def test_infos_are_the_ones_each_step_returned_null_where_missing():
    infos = [{"lives": 3}, {"lives": 3, "note": "x"}, {"lives": 2}, {"lives": 2, "mixed": "a"}]
    infos[1]["mixed"] = 1
    found = columns(actions=[0, 0, 0], infos=infos)
    assert found["lives"] == [3.0, 2.0, 2.0]  # positions 1..3, not the reset's
    assert found["note"] == ["x", None, None]
    assert "mixed" not in found  # a number at one step, a string at another


def test_names_taken_by_fixed_columns_or_extras_are_prefixed():
    found = columns(
        actions=[0],
        extras={"reward": np.array([5.0]), "lives": np.array([1.0]), "seed": np.array([2.0])},
        infos=[{}, {"lives": 0, "t": 9}],
    )
    assert found["reward"] == [0.0]
    assert found["extra_reward"] == [5.0]
    assert found["extra_seed"] == [2.0]  # the steps table takes seed from the episode
    assert found["lives"] == [1.0]
    assert found["info_lives"] == [0.0]
    assert found["info_t"] == [9.0]


def test_episode_metadata_keeps_the_training_step_and_checkpoint_only():
    rollout = Rollout.from_arrays(
        actions=[0], metadata={"training_step": 5000, "checkpoint": "c5", "lr": 0.1}
    )
    assert episode_metadata(rollout) == {"training_step": 5000, "checkpoint": "c5"}


def test_episodes_with_different_columns_share_one_schema():
    import pyarrow as pa

    ints = pa.table({"action": pa.array([1], pa.int64()), "lives": pa.array([1.0])})
    floats = pa.table({"action": pa.array([0.5]), "lives": pa.array(["x"]), "v": pa.array([2.0])})
    schema = unified_schema([ints.schema, floats.schema])
    assert schema == pa.schema([("action", pa.float64()), ("v", pa.float64())])
    assert conform(ints, schema).to_pylist() == [{"action": 1.0, "v": None}]


def test_an_episode_without_steps_has_no_rows_whatever_its_actions():
    """A checkpoint's evaluation whose env raised at reset: no action, of a Box space,
    or none at all (``(0, 0)``, as a Rollout without actions holds them)."""
    for actions in (np.zeros((0, 2)), None):
        found = columns(actions=actions, infos=[{"lives": 3}])
        assert found["t"] == []
        assert found["action_vector"] == []


def test_data_without_actions_has_null_actions():
    found = columns(rewards=[1.0, 2.0])  # actions (2, 0)
    assert found["action"] == [None, None]
    assert found["action_vector"] == [None, None]
    assert found["reward"] == [1.0, 2.0]
