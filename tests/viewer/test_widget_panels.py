"""Panels on an EpisodeViewer, driven through its comm handler as a front end drives them.

Requests go in as custom comm messages; cards come back from the panel worker
thread, so replies are collected by a thread-safe outbox and waited for (see
panel_comm.py).
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Iterator

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.panels import _registry as panels
from agent_widget.viewer import EpisodeViewer
from tests.panel_comm import Outbox, ask, deliver
from tests.waiting import LIMIT

pytestmark = pytest.mark.usefixtures("empty_panel_registry")

NAMES = ["LEFT", "RIGHT"]


def episode(n: int = 5) -> Rollout:
    """n positions of 4x6 frames, actions alternating 1, 0, observations [t, -t]."""
    return Rollout.from_arrays(
        frames=np.zeros((n, 4, 6, 3), np.uint8),
        observations=np.stack([np.arange(n), -np.arange(n)], axis=1).astype(float),
        actions=(np.arange(n - 1) + 1) % 2,
        metadata={"action_names": NAMES},
    )


@pytest.fixture
def viewer() -> Iterator[EpisodeViewer]:
    viewer = EpisodeViewer(episode())
    yield viewer
    viewer.close()


@pytest.fixture
def outbox(viewer: EpisodeViewer, monkeypatch) -> Outbox:
    outbox = Outbox()
    monkeypatch.setattr(viewer, "send", outbox)
    return outbox


# The panel API


def test_the_panel_decorator_adds_a_panel_and_returns_the_function(viewer):
    @viewer.panel("Q-values", precompute=True)
    def q_values(step):
        return step.obs

    assert q_values.__name__ == "q_values"
    assert viewer.panels == [
        {"name": "Q-values", "overlay": False, "precompute": True, "version": 1}
    ]


def test_adding_a_panel_of_the_same_name_replaces_it_in_place_with_a_new_version(viewer):
    viewer.add_panel("a", str)
    viewer.add_panel("b", str)
    viewer.add_panel("a", repr, overlay=True)
    assert [(p["name"], p["overlay"], p["version"]) for p in viewer.panels] == [
        ("a", True, 3),
        ("b", False, 2),
    ]


def test_remove_panel_removes_it_and_refuses_an_unknown_name(viewer):
    viewer.add_panel("a", str)
    viewer.remove_panel("a")
    assert viewer.panels == []
    with pytest.raises(KeyError, match="no panel 'a'"):
        viewer.remove_panel("a")


def test_a_bad_panel_is_refused_at_once(viewer):
    with pytest.raises(TypeError, match="must be callable"):
        viewer.add_panel("q", "not a function")
    with pytest.raises(ValueError, match="non-empty string"):
        viewer.panel("")(str)


def test_globally_registered_panels_are_in_every_new_viewer_only(viewer):
    panels.register("everywhere", str, overlay=True)
    fresh = EpisodeViewer(episode())
    assert [p["name"] for p in fresh.panels] == ["everywhere"]
    assert fresh.panels[0]["overlay"] is True
    assert viewer.panels == []
    fresh.close()


# Cards over the comm


def test_a_panel_request_is_answered_with_a_bars_card_and_its_packed_values(viewer, outbox):
    viewer.add_panel("Q", lambda step: np.array([0.25, -step.t]))
    ask(viewer, 2, ["Q"], request_id=11)
    [(content, buffers)] = outbox.wait(1)
    assert content == {
        "type": "panel",
        "id": 11,
        "name": "Q",
        "step": 2,
        "version": 1,
        "kind": "bars",
        "labels": NAMES,
        "highlight": 1,  # action 2 is (2 + 1) % 2
    }
    assert np.frombuffer(buffers[0], "<f8").tolist() == [0.25, -2.0]


def test_a_request_without_names_is_answered_for_every_panel(viewer, outbox):
    viewer.add_panel("first", lambda step: f"t={step.t}")
    viewer.add_panel("second", lambda step: None)
    ask(viewer, 0)
    answers = outbox.wait(2)
    assert [(c["name"], c["kind"]) for c, _ in answers] == [("first", "text"), ("second", "empty")]


def test_an_overlay_heatmap_travels_as_levels_at_the_map_size(viewer, outbox):
    viewer.add_panel("saliency", lambda step: np.array([[0.0, 1.0, np.nan]]), overlay=True)
    ask(viewer, 0)
    [(content, buffers)] = outbox.wait(1)
    assert (content["kind"], content["width"], content["height"]) == ("heatmap", 3, 1)
    assert content["overlay"] is True
    assert list(zlib.decompress(bytes(buffers[0]))) == [1, 255, 0]


def test_a_failing_panel_answers_an_error_card_and_frames_are_still_served(viewer, outbox):
    viewer.add_panel("broken", lambda step: step.info["missing"])
    ask(viewer, 1)
    [(card, _)] = outbox.wait(1)
    assert (card["kind"], card["error"], card["message"]) == ("error", "KeyError", "'missing'")
    deliver(viewer, {"type": "chunks", "id": 5, "chunks": [0]})
    [(_reply, buffers)] = outbox.wait(1, kind="chunks")
    index = json.loads(zlib.decompress(bytes(buffers[-1])))
    assert [(p["start"], p["count"]) for p in index["parts"]] == [(0, 5)]
    assert (index["chunks"], index["counts"], len(index["infos"]["key_set"])) == ([0], [5], 5)


def test_frames_are_served_while_a_slow_panel_runs(viewer, outbox):
    release = threading.Event()
    viewer.add_panel("slow", lambda step: release.wait(LIMIT) and "done")
    ask(viewer, 0)
    deliver(viewer, {"type": "chunks", "id": 5, "chunks": [0]})
    outbox.wait(1, kind="chunks")  # answered while the panel is still waiting
    assert not [m for m in outbox.messages if m[0]["type"] == "panel"]
    release.set()
    [(card, _)] = outbox.wait(1)
    assert card["text"] == "done"


def test_a_panel_that_never_returns_says_no_answer_and_the_others_answer(viewer, outbox, stuck):
    @viewer.panel("stuck", timeout=0.2)  # deliberate: the limit passing is under test
    def spinning(step):
        return stuck(step)

    viewer.add_panel("Q", lambda step: step.obs)
    ask(viewer, 2, request_id=1)
    cards = {card["name"]: card for card, _ in outbox.wait(2)}
    assert (cards["Q"]["kind"], cards["Q"]["step"]) == ("bars", 2)
    assert cards["stuck"]["message"] == "no answer after 0.2 s"
    ask(viewer, 3, request_id=2)
    cards = {card["name"]: card for card, _ in outbox.wait(4)[2:]}
    assert (cards["Q"]["step"], cards["stuck"]["message"]) == (3, "no answer after 0.2 s")
    assert stuck.calls == [2]


def test_remove_panel_takes_effect_at_once_while_its_call_runs(viewer, outbox, stuck):
    viewer.add_panel("stuck", stuck, timeout=LIMIT)
    viewer.add_panel("Q", lambda step: step.obs)
    ask(viewer, 2, ["stuck"], request_id=1)
    assert stuck.entered.wait(LIMIT)
    viewer.remove_panel("stuck")
    assert [panel["name"] for panel in viewer.panels] == ["Q"]
    ask(viewer, 2, ["Q"], request_id=2)
    [(card, _)] = outbox.wait(1)
    assert (card["name"], card["kind"]) == ("Q", "bars")


def test_replacing_a_failing_panel_answers_with_the_new_function(viewer, outbox):
    viewer.add_panel("p", lambda step: 1 / 0)
    ask(viewer, 3, ["p"])
    outbox.wait(1)
    viewer.add_panel("p", lambda step: "fixed")
    ask(viewer, 3, ["p"])
    first, second = outbox.wait(2)
    assert (first[0]["kind"], first[0]["version"]) == ("error", 1)
    assert (second[0]["kind"], second[0]["text"], second[0]["version"]) == ("text", "fixed", 2)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"type": "panel", "step": 0}, "needs an integer 'id'"),
        ({"type": "panel", "id": 4, "step": "0"}, "needs an integer 'step'"),
        ({"type": "panel", "id": 4, "step": True}, "needs an integer 'step'"),
        ({"type": "panel", "id": 4, "step": 0, "names": "Q"}, "'names' must be a list"),
        ({"type": "panel", "id": 4, "step": 5}, "out of range: the episode has 5 positions"),
    ],
)
def test_a_malformed_panel_request_gets_a_panel_error_reply(viewer, outbox, content, problem):
    deliver(viewer, content)
    [(reply, _)] = outbox.wait(1, kind="panel-error")
    assert reply["id"] == content.get("id")
    assert problem in reply["message"]


# Steps of a growing episode


def test_a_panel_reads_a_step_appended_live(viewer, outbox):
    viewer.add_panel("obs", lambda step: f"{step.obs.tolist()} {step.info} {step.action}")
    viewer.append(frame=np.zeros((4, 6, 3), np.uint8), action=1, obs=[7.0, 8.0], info={"a": 1})
    ask(viewer, 5)
    [(card, _)] = outbox.wait(1)
    assert card["text"] == "[7.0, 8.0] {'a': 1} None"


def test_the_old_last_step_is_recomputed_once_it_has_an_action(viewer, outbox):
    viewer.add_panel("Q", lambda step: np.zeros(2))
    ask(viewer, 4)
    outbox.wait(1)
    viewer.append(frame=np.zeros((4, 6, 3), np.uint8), action=0)
    ask(viewer, 4)
    before, after = outbox.wait(2)
    assert (before[0]["highlight"], after[0]["highlight"]) == (None, 0)


def test_appended_steps_without_observations_read_as_none(viewer, outbox):
    viewer.add_panel("obs", lambda step: repr(step.obs))
    viewer.append(frame=np.zeros((4, 6, 3), np.uint8), action=1)
    ask(viewer, 5)
    [(card, _)] = outbox.wait(1)
    assert card["text"] == "None"


def test_a_steps_rollout_in_a_viewer_reads_like_a_rollout_including_appended_steps(viewer, outbox):
    viewer.add_panel(
        "rollout",
        lambda step: (
            f"{step.rollout.num_steps} {step.rollout.num_positions} "
            f"{step.rollout.returns.tolist()} {len(list(step.rollout.observations))}"
        ),
    )
    viewer.append(frame=np.zeros((4, 6, 3), np.uint8), action=1, reward=2.0)
    ask(viewer, 0)
    [(card, _)] = outbox.wait(1)
    assert card["text"] == "5 6 [0.0, 0.0, 0.0, 0.0, 0.0, 2.0] 6"
