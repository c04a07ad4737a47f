"""The panel runner's time limit: a panel that never returns silences only itself.

The stuck panel spins until the test ends (tests/stuck_panel.py). Its limit is short
because the limit passing is the behaviour under test; no verdict reads the clock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from agent_widget.panels import Panel
from agent_widget.panels._runner import PanelRunner
from tests.panels.test_runner import Episode, Gate, Outbox, text
from tests.waiting import LIMIT

SHORT = 0.2  # seconds: the stuck panel's limit


@pytest.fixture
def outbox() -> Outbox:
    return Outbox()


@pytest.fixture
def runner(outbox: Outbox) -> Iterator[PanelRunner]:
    episode = Episode()
    runner = PanelRunner(episode.step_at, episode.num_positions, outbox)
    yield runner
    runner.close()


def answer(outbox: Outbox, name: str, index: int = -1) -> dict:
    return [m for m in outbox.contents() if m.get("name") == name][index]


def test_a_panel_past_its_limit_says_no_answer_and_the_others_answer(runner, outbox, stuck):
    runner.set(Panel("stuck", stuck, timeout=SHORT))
    runner.set(Panel("fast", text))
    runner.request(3, request_id=1)
    assert outbox.wait_answers("fast", 1) == [(3, "text")]
    card = answer(outbox, "stuck")
    assert (card["id"], card["step"], card["kind"]) == (1, 3, "error")
    assert (card["error"], card["message"]) == ("TimeoutError", "no answer after 0.2 s")
    assert card["retry"] is True
    assert "still running for step 3" in card["traceback"]
    assert "while not self._released.is_set()" in card["traceback"]  # where it is stuck


def test_a_stuck_panel_is_answered_at_once_and_not_called_again(runner, outbox, stuck):
    runner.set(Panel("stuck", stuck, timeout=SHORT))
    runner.set(Panel("fast", text))
    runner.request(3, request_id=1)
    outbox.wait_answers("stuck", 1)
    runner.request(5, request_id=2)
    assert outbox.answers("stuck") == [(3, "error"), (5, "error")]  # before request returned
    assert answer(outbox, "stuck")["message"] == "no answer after 0.2 s"
    assert outbox.wait_answers("fast", 2)[-1] == (5, "text")
    assert stuck.calls == [3]


def test_a_stuck_panel_answers_again_once_its_call_returns(runner, outbox, stuck):
    runner.set(Panel("stuck", stuck, timeout=SHORT))
    runner.request(3, request_id=1)
    outbox.wait_answers("stuck", 1)
    stuck.release()
    outbox.wait_answers("stuck", 2)
    late = answer(outbox, "stuck")  # pushed, answering no request
    assert (late.get("id"), late["step"], late["text"]) == (None, 3, "late t=3")
    runner.request(3, request_id=2)  # cached: answered before the request returns
    assert (answer(outbox, "stuck")["id"], outbox.answers("stuck")[-1]) == (2, (3, "text"))
    runner.request(4, request_id=3)
    assert outbox.wait_answers("stuck", 4)[-1] == (4, "text")
    assert stuck.calls == [3, 4]


def test_removing_a_panel_gives_up_on_its_call_at_once(runner, outbox, stuck):
    runner.set(Panel("stuck", stuck, timeout=LIMIT))  # far from its limit
    runner.set(Panel("fast", text))
    runner.request(3, ["stuck"], request_id=1)
    assert stuck.entered.wait(LIMIT)
    runner.request(3, ["fast"], request_id=2)
    runner.remove("stuck")
    assert outbox.wait_answers("fast", 1) == [(3, "text")]
    assert outbox.answers("stuck") == []  # the front end dropped it with the panel list


def test_a_fixed_function_replaces_a_stuck_panel_at_once(runner, outbox, stuck):
    runner.set(Panel("q", stuck, timeout=SHORT))
    runner.request(3, request_id=1)
    outbox.wait_answers("q", 1)
    runner.set(Panel("q", text))
    runner.request(3, request_id=2)
    assert outbox.wait_answers("q", 2)[-1] == (3, "text")
    assert answer(outbox, "q")["version"] == 2


def test_a_stuck_panel_is_not_precomputed_until_it_returns(runner, outbox, stuck):
    runner.set(Panel("stuck", stuck, precompute=True, timeout=SHORT))
    runner.set(Panel("fast", text))
    runner.request(0, ["fast"], request_id=1)  # shown: precompute starts
    outbox.wait_answers("fast", 1)
    assert stuck.entered.wait(LIMIT)
    runner.request(1, ["stuck"], request_id=2)
    outbox.wait_answers("stuck", 1)  # the limit passed: "no answer" from now on
    assert stuck.calls == [0]
    stuck.release()
    outbox.wait_for(
        lambda sent: any(m.get("done") == 20 for m in sent if m["type"] == "panel-progress"),
        "every step precomputed once the stuck call returned",
    )
    assert stuck.calls == list(range(20))


def test_card_now_waits_for_a_stuck_panel_once(runner, stuck):
    runner.set(Panel("stuck", stuck, timeout=SHORT))
    runner.set(Panel("fast", text))
    cards = [runner.card_now("stuck", t)[1] for t in range(3)]
    assert [card.meta["message"] for card in cards] == ["no answer after 0.2 s"] * 3
    assert stuck.calls == [0]
    assert runner.card_now("fast", 2)[1].meta == {"text": "t=2"}


def test_no_limit_waits_as_long_as_the_panel_runs(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate, timeout=None))
    runner.request(3, request_id=1)
    gate.wait_entered()
    assert not threading.Event().wait(2 * SHORT)  # deliberate: longer than a short limit
    assert outbox.answers("slow") == []
    gate.let_through()
    assert outbox.wait_answers("slow", 1) == [(3, "text")]
