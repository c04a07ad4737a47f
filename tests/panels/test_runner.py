"""The panel runner: cards computed off the comm thread, newest request first, cached.

Panel functions here block on events where a test needs to hold the worker inside
a call, so the order of events is fixed, never left to timing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.panels import Panel, Step
from agent_widget.panels._cards import Card
from agent_widget.panels._runner import PanelRunner, card_message
from tests.waiting import LIMIT

N = 20


class Outbox:
    """What the runner sent, from whichever thread, with a way to wait for more."""

    def __init__(self) -> None:
        self.messages: list[tuple[dict, list[bytes]]] = []
        self._changed = threading.Condition()

    def __call__(self, content: dict, buffers: list[bytes]) -> None:
        with self._changed:
            self.messages.append((content, buffers))
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[dict]], bool], what: str) -> None:
        with self._changed:
            ok = self._changed.wait_for(lambda: predicate(self.contents()), LIMIT)
        assert ok, f"timed out waiting for {what}; sent: {self.contents()}"

    def contents(self) -> list[dict]:
        """What was sent, but the acknowledgements of queued requests (see ``queued``)."""
        return [content for content, _ in self.messages if content["type"] != "panel-queued"]

    def queued(self) -> list[tuple[int, list[str]]]:
        """(request id, names) of each ``panel-queued`` acknowledgement, in order."""
        return [(c["id"], c["names"]) for c, _ in self.messages if c["type"] == "panel-queued"]

    def answers(self, name: str) -> list[tuple[int, str]]:
        """(step, kind) of each answer about panel ``name``, in order."""
        return [(m["step"], m["kind"]) for m in self.contents() if m.get("name") == name]

    def wait_answers(self, name: str, count: int) -> list[tuple[int, str]]:
        self.wait_for(lambda _: len(self.answers(name)) >= count, f"{count} answers for {name}")
        return self.answers(name)


class Gate:
    """A panel function that records its calls and waits at each until let through."""

    def __init__(self, result: Callable[[Step], object] = lambda step: f"t={step.t}") -> None:
        self.calls: list[int] = []
        self.entered = threading.Semaphore(0)
        self.release = threading.Semaphore(0)
        self.result = result

    def __call__(self, step: Step) -> object:
        self.calls.append(step.t)
        self.entered.release()
        assert self.release.acquire(timeout=LIMIT), "the test never let the panel through"
        return self.result(step)

    def wait_entered(self) -> None:
        assert self.entered.acquire(timeout=LIMIT), "the panel was never called"

    def let_through(self, count: int = 1) -> None:
        for _ in range(count):
            self.release.release()


class Episode:
    """A growable episode: the runner reads its current rollout through ``step_at``."""

    def __init__(self, positions: int = N) -> None:
        self.rollout = rollout_of(positions)

    def step_at(self, t: int) -> Step:
        return Step(self.rollout, t)

    def num_positions(self) -> int:
        return self.rollout.num_positions


def rollout_of(positions: int) -> Rollout:
    return Rollout.from_arrays(
        observations=np.arange(positions, dtype=float)[:, None],
        actions=np.arange(positions - 1) % 3,
        metadata={"action_names": ["a", "b", "c"]},
    )


@pytest.fixture
def outbox() -> Outbox:
    return Outbox()


@pytest.fixture
def episode() -> Episode:
    return Episode()


@pytest.fixture
def runner(outbox: Outbox, episode: Episode) -> Iterator[PanelRunner]:
    runner = PanelRunner(episode.step_at, episode.num_positions, outbox)
    yield runner
    runner.close()


def text(step: Step) -> str:
    return f"t={step.t}"


# Answers


def test_a_request_is_answered_with_the_card_of_that_step(runner, outbox):
    runner.set(Panel("q", lambda step: np.array([1.0, 2.0, 3.0]) * step.t))
    runner.request(4, ["q"], request_id=7)
    outbox.wait_answers("q", 1)
    [(content, buffers)] = [m for m in outbox.messages if m[0]["type"] == "panel"]
    assert content == {
        "type": "panel",
        "id": 7,
        "name": "q",
        "step": 4,
        "version": 1,
        "kind": "bars",
        "labels": ["a", "b", "c"],
        "highlight": 1,
    }
    assert np.frombuffer(buffers[0], "<f8").tolist() == [4.0, 8.0, 12.0]


def test_without_names_every_panel_is_answered_in_order(runner, outbox):
    runner.set(Panel("first", text))
    runner.set(Panel("second", lambda step: None))
    runner.request(2)
    outbox.wait_for(lambda sent: len(sent) == 2, "two answers")
    assert [(m["name"], m["kind"]) for m in outbox.contents()] == [
        ("first", "text"),
        ("second", "empty"),
    ]


def test_a_panel_runs_off_the_requesting_thread_which_returns_at_once(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.request(1, ["slow"])
    gate.wait_entered()  # the request returned while the panel is still running
    assert outbox.contents() == []
    gate.let_through()
    assert outbox.wait_answers("slow", 1) == [(1, "text")]


def test_a_cached_card_is_sent_before_the_request_returns(runner, outbox):
    gate = Gate()
    runner.set(Panel("q", gate))
    runner.request(3, ["q"], request_id=1)
    gate.let_through()
    outbox.wait_answers("q", 1)
    runner.request(3, ["q"], request_id=2)
    assert [m["id"] for m in outbox.contents()] == [1, 2]
    assert outbox.contents()[1]["text"] == "t=3"
    assert gate.calls == [3]


def test_a_panel_error_is_answered_with_an_error_card_and_the_next_step_works(runner, outbox):
    runner.set(Panel("q", lambda step: f"{1 / (step.t - 5)}"))
    runner.request(5, ["q"])
    outbox.wait_answers("q", 1)
    runner.request(6, ["q"])
    assert outbox.wait_answers("q", 2) == [(5, "error"), (6, "text")]
    error = outbox.contents()[0]
    assert (error["error"], error["message"]) == ("ZeroDivisionError", "division by zero")


def test_a_panel_that_no_longer_exists_is_answered_skipped(runner, outbox):
    runner.request(0, ["gone"], request_id=3)
    assert outbox.contents() == [
        {"type": "panel", "id": 3, "name": "gone", "step": 0, "version": 0, "kind": "skipped"}
    ]


@pytest.mark.parametrize("t", [-1, N, 2.0, True, "3"])
def test_a_step_out_of_range_is_refused(runner, t):
    with pytest.raises(ValueError, match=f"the episode has {N} positions"):
        runner.request(t, [])


# The newest request wins


def test_requests_for_steps_the_user_has_left_are_skipped_and_never_computed(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.request(1, ["slow"])
    gate.wait_entered()
    for t in (2, 3, 4):
        runner.request(t, ["slow"])
    assert outbox.answers("slow") == [(2, "skipped"), (3, "skipped")]
    gate.let_through(2)
    assert outbox.wait_answers("slow", 4)[2:] == [(1, "text"), (4, "text")]
    assert gate.calls == [1, 4]


def test_the_same_step_asked_for_twice_is_computed_once(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.request(0, ["slow"])
    gate.wait_entered()
    runner.request(7, ["slow"], request_id=1)
    runner.request(7, ["slow"], request_id=2)
    gate.let_through(2)
    assert outbox.wait_answers("slow", 2) == [(0, "text"), (7, "text")]
    assert gate.calls == [0, 7]


def test_panels_take_turns_oldest_request_first(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.set(Panel("fast", text))
    runner.request(1)  # slow starts at 1; fast waits its turn
    gate.wait_entered()
    runner.request(2, ["slow"])  # goes behind fast's request
    gate.let_through(2)
    outbox.wait_for(lambda sent: len(sent) == 3, "three answers")
    assert [(m["name"], m["step"]) for m in outbox.contents()] == [
        ("slow", 1),
        ("fast", 1),
        ("slow", 2),
    ]


def test_a_panel_that_just_ran_goes_after_one_that_waited(runner, outbox):
    """The front end's replacement of fast's queued request (step 1 -> 2) arrives after
    a new request of slow; fast still goes first: slow has had its turn."""
    gate = Gate()
    runner.set(Panel("slow", gate))
    fast_calls: list[int] = []
    runner.set(Panel("fast", lambda step: fast_calls.append(step.t) or text(step)))
    runner.request(1)  # slow starts at 1; fast waits its turn
    gate.wait_entered()
    runner.request(2, ["slow", "fast"])  # the user moved on: fast's step 1 is replaced
    gate.let_through(2)
    outbox.wait_for(lambda sent: len(sent) == 4, "four answers")
    assert [(m["name"], m["step"], m["kind"]) for m in outbox.contents()] == [
        ("fast", 1, "skipped"),
        ("slow", 1, "text"),
        ("fast", 2, "text"),
        ("slow", 2, "text"),
    ]
    assert fast_calls == [2]
    assert [(c["step"], c["names"]) for c, _ in outbox.messages if c["type"] == "panel-queued"] == [
        (1, ["slow", "fast"]),
        (2, ["slow", "fast"]),
    ]


# Replacing and removing


def test_replacing_a_panel_gives_a_new_version_and_forgets_the_old_cards(runner, outbox):
    runner.set(Panel("q", lambda step: "old"))
    runner.request(2, ["q"])
    outbox.wait_answers("q", 1)
    runner.set(Panel("q", lambda step: "new", overlay=True))
    assert runner.describe() == [{"name": "q", "overlay": True, "precompute": False, "version": 2}]
    runner.request(2, ["q"])
    outbox.wait_answers("q", 2)
    assert [(m["version"], m["text"]) for m in outbox.contents()] == [(1, "old"), (2, "new")]


def test_a_result_of_the_replaced_function_is_dropped_and_the_new_one_answers(runner, outbox):
    gate = Gate(lambda step: "old")
    runner.set(Panel("q", gate))
    runner.request(5, ["q"], request_id=9)
    gate.wait_entered()
    runner.set(Panel("q", lambda step: "fixed"))
    gate.let_through()
    outbox.wait_answers("q", 1)
    assert [(m["id"], m["version"], m["text"]) for m in outbox.contents()] == [(9, 2, "fixed")]


def test_replacing_a_failing_panel_replaces_its_error_card(runner, outbox):
    runner.set(Panel("q", lambda step: {}["missing"]))
    runner.request(0, ["q"])
    outbox.wait_answers("q", 1)
    runner.set(Panel("q", text))
    runner.request(0, ["q"])
    assert outbox.wait_answers("q", 2) == [(0, "error"), (0, "text")]


def test_a_replaced_panel_keeps_its_place(runner):
    for name in ("a", "b"):
        runner.set(Panel(name, text))
    runner.set(Panel("a", print))
    assert [panel["name"] for panel in runner.describe()] == ["a", "b"]


def test_a_removed_panel_is_gone_and_answered_skipped(runner, outbox):
    runner.set(Panel("q", text))
    runner.remove("q")
    runner.request(0, ["q"])
    assert (runner.describe(), outbox.answers("q")) == ([], [(0, "skipped")])


def test_removing_an_unknown_panel_names_the_panels(runner):
    runner.set(Panel("q", text))
    with pytest.raises(KeyError, match=r"no panel 'x' \(it has: 'q'\)"):
        runner.remove("x")


# Precompute


def test_precompute_waits_until_a_front_end_asks_for_something(runner, outbox):
    calls: list[int] = []
    runner.set(Panel("all", lambda step: calls.append(step.t), precompute=True))
    runner.request(0, [])  # the view is shown: it asks, even for no panels
    outbox.wait_for(lambda sent: any(m.get("done") == N for m in sent), "precompute to finish")
    assert sorted(calls) == list(range(N))


def test_precompute_is_not_started_before_the_viewer_is_shown(episode, outbox):
    runner = PanelRunner(episode.step_at, episode.num_positions, outbox)
    gate = Gate()
    runner.set(Panel("all", gate, precompute=True))
    assert not gate.entered.acquire(timeout=0.2)
    runner.close()
    assert gate.calls == []


def test_precomputed_cards_are_answered_at_once(runner, outbox):
    runner.set(Panel("all", text, precompute=True))
    runner.request(0, [])
    outbox.wait_for(lambda sent: any(m.get("done") == N for m in sent), "precompute")
    before = len(outbox.contents())
    for t in range(N):
        runner.request(t, ["all"])
    assert [m["text"] for m in outbox.contents()[before:]] == [f"t={t}" for t in range(N)]


def test_precompute_reports_its_progress_ending_with_all_steps(runner, outbox):
    runner.set(Panel("all", text, precompute=True))
    runner.request(0, [])
    outbox.wait_for(lambda sent: any(m.get("done") == N for m in sent), "precompute")
    progress = [m for m in outbox.contents() if m["type"] == "panel-progress"]
    assert progress[-1] == {
        "type": "panel-progress",
        "name": "all",
        "version": 1,
        "done": N,
        "total": N,
    }
    assert [m["done"] for m in progress] == sorted(m["done"] for m in progress)


def test_a_request_goes_before_the_remaining_precompute(episode, outbox):
    gate = Gate()
    calls_when_answered: list[int] = []

    def send(content: dict, buffers: list[bytes]) -> None:
        if content.get("name") == "asked":
            calls_when_answered.extend(gate.calls)
        outbox(content, buffers)

    runner = PanelRunner(episode.step_at, episode.num_positions, send)
    runner.set(Panel("all", gate, precompute=True))
    runner.set(Panel("asked", text))
    runner.request(0, [])
    gate.wait_entered()  # precomputing step 0
    runner.request(9, ["asked"])
    gate.let_through(N)
    outbox.wait_answers("asked", 1)
    runner.close()
    assert calls_when_answered == [0]


# Growth and closing


def test_the_old_last_step_is_computed_again_when_the_episode_grows(outbox):
    episode = Episode(3)
    runner = PanelRunner(episode.step_at, episode.num_positions, outbox)
    runner.set(Panel("q", lambda step: np.zeros(3)))
    runner.request(2, ["q"])
    outbox.wait_answers("q", 1)
    episode.rollout = rollout_of(4)  # position 2 now has an action: 2 % 3 = 2
    runner.grew()
    runner.request(2, ["q"])
    outbox.wait_answers("q", 2)
    runner.close()
    assert [m["highlight"] for m in outbox.contents()] == [None, 2]


def test_a_closed_runner_computes_nothing_more(runner, outbox):
    gate = Gate()
    runner.set(Panel("q", gate))
    runner.close()
    runner.request(1, ["q"])
    assert not gate.entered.acquire(timeout=0.2)
    assert outbox.contents() == []


def test_a_failing_send_does_not_stop_the_worker(episode, outbox, caplog):
    failures = iter([RuntimeError("comm closed")])

    def send(content: dict, buffers: list[bytes]) -> None:
        error = next(failures, None)
        if error is not None:
            raise error
        outbox(content, buffers)

    runner = PanelRunner(episode.step_at, episode.num_positions, send)
    runner.set(Panel("q", text))
    runner.request(1, ["q"])
    runner.request(2, ["q"])
    outbox.wait_answers("q", 1)
    runner.close()
    assert "could not send a panel message" in caplog.text


def test_a_card_message_is_flat_with_its_buffers_alongside():
    card = Card("image", {"width": 2, "height": 1, "overlay": False}, (b"png",))
    assert card_message("frame", 3, 12, card, request_id=4) == (
        {
            "type": "panel",
            "id": 4,
            "name": "frame",
            "step": 12,
            "version": 3,
            "kind": "image",
            "width": 2,
            "height": 1,
            "overlay": False,
        },
        [b"png"],
    )


def test_an_idle_worker_ends_and_a_new_one_starts_when_asked(runner, outbox, monkeypatch):
    monkeypatch.setattr("agent_widget.panels._runner.IDLE_EXIT", 0.05)
    monkeypatch.setattr("agent_widget.panels._calls.IDLE_EXIT", 0.05)  # the call thread's
    workers: list[threading.Thread] = []
    runner.set(Panel("q", lambda step: workers.append(threading.current_thread())))
    runner.request(1, ["q"])
    outbox.wait_answers("q", 1)
    workers[0].join(LIMIT)
    assert not workers[0].is_alive()
    runner.request(2, ["q"])
    assert outbox.wait_answers("q", 2) == [(1, "empty"), (2, "empty")]
    assert workers[1] is not workers[0]


# Cards for exports


def test_card_now_computes_while_the_caller_waits_and_caches(runner, outbox):
    calls = []
    runner.set(Panel("notes", lambda step: calls.append(step.t) or text(step)))
    version, card = runner.card_now("notes", 4)
    assert (version, card.kind, card.meta) == (1, "text", {"text": "t=4"})
    assert calls == [4]
    assert runner.card_now("notes", 4)[1] is card
    assert len(calls) == 1
    runner.request(4, ["notes"], request_id=9)  # a front end's request finds it cached
    assert outbox.answers("notes") == [(4, "text")]


def test_card_now_keeps_an_error_card_and_names_unknown_panels(runner):
    runner.set(Panel("boom", lambda step: 1 / 0))
    assert runner.card_now("boom", 2)[1].meta["error"] == "ZeroDivisionError"
    with pytest.raises(KeyError, match="has no panel 'nope' \\(it has: 'boom'\\)"):
        runner.card_now("nope", 2)


def test_card_now_waits_while_the_worker_runs_a_user_function(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.set(Panel("other", text))
    runner.request(1, ["slow"], request_id=1)
    gate.wait_entered()
    done = threading.Event()
    worker = threading.Thread(target=lambda: (runner.card_now("other", 3), done.set()))
    worker.start()
    assert not done.wait(0.2)  # one user function at a time
    gate.let_through()
    assert done.wait(LIMIT)
    worker.join()


def test_a_request_left_to_the_worker_is_acknowledged_at_once(runner, outbox):
    gate = Gate()
    runner.set(Panel("slow", gate))
    runner.set(Panel("fast", text))
    runner.request(2, request_id=4)
    assert outbox.queued() == [(4, ["slow", "fast"])]  # before either card is ready
    gate.wait_entered()
    gate.let_through()
    outbox.wait_answers("fast", 1)
    runner.request(2, request_id=5)  # both cached now: answered, nothing queued
    assert outbox.queued() == [(4, ["slow", "fast"])]
    assert outbox.answers("slow")[-1] == (2, "text")


# A worker that never dies


class BrokenMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


def raising(error: BaseException) -> Callable[[Step], object]:
    def panel(step: Step) -> object:
        raise error

    return panel


@pytest.mark.parametrize(
    ("error", "name"),
    [
        (SystemExit(3), "SystemExit"),
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (GeneratorExit(), "GeneratorExit"),
        (BrokenMessage(), "BrokenMessage"),
    ],
)
def test_whatever_a_panel_raises_is_its_error_card_and_the_worker_goes_on(
    runner, outbox, error, name
):
    runner.set(Panel("bad", raising(error)))
    runner.set(Panel("good", text))
    runner.request(3, ["bad", "good"], request_id=1)
    outbox.wait_answers("good", 1)
    [bad] = [m for m in outbox.contents() if m.get("name") == "bad"]
    assert (bad["kind"], bad["error"]) == ("error", name)
    if name == "BrokenMessage":
        assert "could not be shown" in bad["message"]
    runner.request(4, ["bad", "good"], request_id=2)
    assert outbox.wait_answers("good", 2)[-1] == (4, "text")


def test_a_job_that_fails_in_the_runner_is_answered_and_the_next_one_runs(
    runner, outbox, monkeypatch, caplog
):
    runner.set(Panel("notes", text))
    finish = runner._finish
    calls = []

    def failing_once(job, card):
        calls.append(job.t)
        if len(calls) == 1:
            raise RuntimeError("a bug of ours")
        finish(job, card)

    monkeypatch.setattr(runner, "_finish", failing_once)
    runner.request(1, ["notes"], request_id=1)
    assert outbox.wait_answers("notes", 1) == [(1, "error")]
    assert "a panel job failed" in caplog.text
    runner.request(2, ["notes"], request_id=2)
    assert outbox.wait_answers("notes", 2)[-1] == (2, "text")
