"""``ActionBars``: per-action values with taken/greedy marks, a scale and stats."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.panels import Step
from agent_widget.panels._cards import compute
from agent_widget.torch import ActionBars
from agent_widget.torch._bars import action_labels
from tests.torch_nets import NAMES, vector_episode


def test_bars_read_as_a_mapping_of_label_to_value_and_as_an_array():
    bars = ActionBars([1.0, -2.0, 0.5], NAMES, taken=1)
    assert dict(bars) == {"NOOP": 1.0, "LEFT": -2.0, "RIGHT": 0.5}
    np.testing.assert_array_equal(np.asarray(bars), [1.0, -2.0, 0.5])
    assert bars["LEFT"] == -2.0
    with pytest.raises(KeyError):
        bars["UP"]


def test_the_greedy_action_is_the_highest_value():
    assert ActionBars([1.0, 3.0, 2.0], NAMES).greedy == 1


def test_the_caption_lists_stats_then_greedy_then_taken():
    bars = ActionBars([1.0, 3.0, 2.0], NAMES, taken=0, stats={"V": 3.0, "top-2 gap": 1.0})
    assert bars.caption == "V 3 · top-2 gap 1 · greedy LEFT · taken NOOP"


@pytest.mark.parametrize(
    ("labels", "taken", "phrase"),
    [(["a", "b"], None, "one distinct label"), (["a", "a", "b"], None, "one distinct label"),
     (NAMES, 3, "taken action 3")],
)  # fmt: skip
def test_inconsistent_bars_are_refused(labels, taken, phrase):
    with pytest.raises(ValueError, match=phrase):
        ActionBars([1.0, 2.0, 3.0], labels, taken=taken)


def test_labels_are_the_names_when_there_is_one_distinct_name_per_action():
    assert action_labels(3, NAMES) == NAMES
    assert action_labels(2, NAMES) == ["0", "1"]
    assert action_labels(2, ["FIRE", "FIRE"]) == ["0", "1"]


def test_a_card_carries_taken_greedy_scale_and_caption():
    step = Step(vector_episode(), 0)
    bars = ActionBars([1.0, 3.0, 2.0], NAMES, taken=0, scale=(0, 4), stats={"V": 3.0})
    card = compute(lambda _: bars, step)
    assert card.kind == "bars"
    assert card.meta["labels"] == NAMES
    assert card.meta["highlight"] == 0
    assert card.meta["greedy"] == 1
    assert card.meta["scale"] == [0.0, 4.0]
    assert card.meta["caption"] == "V 3 · greedy LEFT · taken NOOP"
    np.testing.assert_array_equal(np.frombuffer(card.buffers[0], "<f8"), [1.0, 3.0, 2.0])
