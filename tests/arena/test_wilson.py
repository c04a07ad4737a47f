"""``wilson_interval`` against published values: Newcombe's worked examples (Statistics
in Medicine 17, 1998, Table II, method 3: the score interval without continuity
correction) and the 95% intervals R's ``binom.confint(x, 10, methods="wilson")`` gives."""

from __future__ import annotations

import math

import pytest

from agent_widget.arena import wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "lower", "upper"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_the_95_percent_interval_matches_the_published_one(successes, n, lower, upper):
    got = wilson_interval(successes, n)
    assert got == pytest.approx((lower, upper), abs=5e-5)


def test_none_and_all_succeeded_reach_the_bounds_exactly():
    assert wilson_interval(0, 7)[0] == 0.0
    assert wilson_interval(7, 7)[1] == 1.0


def test_a_higher_confidence_gives_a_wider_interval():
    narrow, wide = wilson_interval(5, 10, 0.9), wilson_interval(5, 10, 0.99)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]


def test_no_episodes_give_no_interval_and_impossible_counts_are_refused():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError, match="between 0 and n=3"):
        wilson_interval(4, 3)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 3, confidence=95)
