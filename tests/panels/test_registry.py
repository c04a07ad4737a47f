"""The panel registry: panels defined once and included in every viewer created afterwards."""

from __future__ import annotations

import math

import pytest

from agent_widget.panels import DEFAULT_TIMEOUT, Panel, register, registered, unregister

pytestmark = pytest.mark.usefixtures("empty_panel_registry")


def notes(step):
    return f"t = {step.t}"


def test_registered_panels_keep_their_order_and_flags():
    register("notes", notes)
    register("saliency", notes, overlay=True, precompute=True)
    assert registered() == [
        Panel("notes", notes),
        Panel("saliency", notes, overlay=True, precompute=True),
    ]


def test_register_works_as_a_decorator_and_returns_the_function():
    @register("decorated", precompute=True)
    def decorated(step):
        return None

    assert decorated(None) is None
    assert registered() == [Panel("decorated", decorated, precompute=True)]


def test_registering_a_name_again_replaces_the_panel_in_its_place():
    register("a", notes)
    register("b", notes)
    register("a", print, overlay=True)
    assert registered() == [Panel("a", print, overlay=True), Panel("b", notes)]


def test_unregister_removes_a_panel():
    register("a", notes)
    unregister("a")
    assert registered() == []


def test_unregistering_an_unknown_name_says_which_are_registered():
    register("a", notes)
    with pytest.raises(KeyError, match=r"no panel 'b' is registered \(registered: 'a'\)"):
        unregister("b")


@pytest.mark.parametrize("name", ["", "   ", 3, None])
def test_a_panel_needs_a_name(name):
    with pytest.raises(ValueError, match="non-empty string"):
        register(name, notes)


def test_a_panel_function_must_be_callable():
    with pytest.raises(TypeError, match="panel 'q': fn must be callable with one step, got int"):
        register("q", 3)


def test_flags_must_be_booleans():
    with pytest.raises(ValueError, match="panel 'q': overlay must be True or False"):
        register("q", notes, overlay="yes")


def test_a_panel_has_a_time_limit_by_default_and_its_own_when_given():
    register("default", notes)
    register("patient", notes, timeout=600)
    register("unlimited", notes, timeout=None)
    assert [panel.timeout for panel in registered()] == [DEFAULT_TIMEOUT, 600, None]
    assert DEFAULT_TIMEOUT == 60.0


@pytest.mark.parametrize("timeout", [0, -1, math.nan, math.inf, True, "30"])
def test_a_time_limit_is_a_positive_number_of_seconds(timeout):
    with pytest.raises(ValueError, match="panel 'q': timeout must be a number of seconds"):
        register("q", notes, timeout=timeout)


def test_a_refused_panel_leaves_the_registry_as_it_was():
    register("q", notes)
    with pytest.raises(TypeError):
        register("q", None, overlay=True)(42)
    assert registered() == [Panel("q", notes)]
