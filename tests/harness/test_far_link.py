"""The harness's far-link proxy delays and limits as the link it stands for would.

Timed on a shared machine, so each bound below is what the link forbids (nothing
arrives sooner than its delay and rate allow) with a wide margin above it.
"""

from __future__ import annotations

import pytest

from harness.far_link import SLACK, Link, check

LINK = Link.parse("40ms-80mbit")
SIZE = 2**20
MARGIN = 0.15  # seconds a loaded machine may add


@pytest.fixture(scope="module")
def measured() -> dict[str, float]:
    return check(LINK, SIZE)


def test_a_round_trip_takes_the_links_round_trip(measured: dict[str, float]) -> None:
    assert LINK.rtt <= measured["echo"] < LINK.rtt + MARGIN


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_a_megabyte_takes_its_size_over_the_rate(
    measured: dict[str, float], direction: str
) -> None:
    floor = LINK.rtt + 8 * SIZE / LINK.rate - SLACK  # the bucket's slack may go ahead
    assert floor <= measured[direction] < 1.5 * floor + MARGIN


def test_link_names_say_round_trip_and_rate() -> None:
    assert Link.parse("150ms-10mbit") == Link("150ms-10mbit", 0.150, 10e6)
    with pytest.raises(ValueError, match="150ms-10mbit"):
        Link.parse("150ms")
