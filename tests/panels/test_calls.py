"""Calls waited for up to a limit: a call past it keeps its thread, the next gets a fresh one."""

from __future__ import annotations

import threading

import pytest

from agent_widget.panels._calls import Caller, GaveUp
from tests.waiting import LIMIT


def ignore(late_result: object) -> None:
    pass


def test_a_call_returns_its_result_or_raises_its_error():
    caller = Caller("test")
    assert caller.call(lambda: 42, timeout=LIMIT, late=ignore) == 42
    with pytest.raises(ZeroDivisionError):
        caller.call(lambda: 1 / 0, timeout=LIMIT, late=ignore)


def test_calls_share_a_thread_until_one_is_given_up_on():
    caller = Caller("test")
    release = threading.Event()
    late: list[object] = []
    first = caller.call(threading.current_thread, timeout=LIMIT, late=late.append)
    assert caller.call(threading.current_thread, timeout=LIMIT, late=late.append) is first
    with pytest.raises(GaveUp) as gave_up:
        caller.call(lambda: release.wait(LIMIT) and "late", timeout=0.05, late=late.append)
    assert gave_up.value.timed_out
    assert "release.wait(LIMIT)" in gave_up.value.where  # where the call is
    fresh = caller.call(threading.current_thread, timeout=LIMIT, late=late.append)
    assert fresh is not first
    release.set()
    first.join(LIMIT)  # the given-up call's thread ends once the call returns
    assert not first.is_alive()
    assert late == ["late"]


def test_giving_up_by_tag_wakes_the_caller_at_once():
    caller = Caller("test")
    release = threading.Event()
    entered = threading.Event()
    errors: list[GaveUp] = []

    def waiting() -> None:
        try:
            caller.call(lambda: entered.set() or release.wait(LIMIT), None, ignore, tag="slow")
        except GaveUp as error:
            errors.append(error)

    waiter = threading.Thread(target=waiting)
    waiter.start()
    assert entered.wait(LIMIT)
    caller.give_up("other")
    caller.give_up("slow")
    waiter.join(LIMIT)
    assert not waiter.is_alive()
    assert [error.timed_out for error in errors] == [False]
    release.set()
