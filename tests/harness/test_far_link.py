"""The harness's far-link proxy delays and limits as the link it stands for would.

Only what the link forbids is checked: nothing arrives sooner than its delay and rate
allow, which no load on the machine can make happen. How close to that floor the proxy
stays is a speed figure, and a loaded machine adds to it: benchmarks/viewer.py checks
the proxy before each far-link run (RESULTS.md, "The proxy checked against its link").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.far_link import SLACK, Link, check

LINK = Link.parse("40ms-80mbit")
SIZE = 2**20


@pytest.fixture(scope="module")
def measured() -> dict[str, float]:
    return check(LINK, SIZE)


def test_a_round_trip_takes_at_least_the_links_round_trip(measured: dict[str, float]) -> None:
    assert measured["echo"] >= LINK.rtt


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_a_megabyte_takes_at_least_its_size_over_the_rate(
    measured: dict[str, float], direction: str
) -> None:
    floor = LINK.rtt + 8 * SIZE / LINK.rate - SLACK  # the bucket's slack may go ahead
    assert measured[direction] >= floor


def test_link_names_say_round_trip_and_rate() -> None:
    assert Link.parse("150ms-10mbit") == Link("150ms-10mbit", 0.150, 10e6)
    with pytest.raises(ValueError, match="150ms-10mbit"):
        Link.parse("150ms")


def test_help_says_the_whole_first_paragraph() -> None:
    """``python -m harness.far_link --help`` describes the proxy in full sentences."""
    root = Path(__file__).parent.parent.parent
    shown = subprocess.run(
        [sys.executable, "-m", "harness.far_link", "--help"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "each direction on its own, as a distant kernel's link does." in " ".join(shown.split())
