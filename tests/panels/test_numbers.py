"""The kernel writes numbers as the front end does (js/shared/numbers.ts): the cases both
are tested against (js/shared/numbers.cases.json), and JavaScript's own rules for
``String`` and ``toFixed``."""

import json
import math
from pathlib import Path

import pytest

from agent_widget.panels import common_decimals, format_fixed, format_number, js_number, to_fixed

CASES = json.loads(
    (Path(__file__).parents[2] / "js" / "shared" / "numbers.cases.json").read_text("utf-8")
)


@pytest.mark.parametrize(("value", "text"), CASES["formatNumber"])
def test_format_number_writes_the_shared_cases_as_the_page_does(value, text):
    assert format_number(value) == text


@pytest.mark.parametrize(("value", "decimals", "text"), CASES["formatFixed"])
def test_format_fixed_writes_the_shared_cases_as_the_page_does(value, decimals, text):
    assert format_fixed(value, decimals) == text


@pytest.mark.parametrize(("values", "decimals"), CASES["commonDecimals"])
def test_common_decimals_of_the_shared_cases_are_the_pages(values, decimals):
    assert common_decimals(values) == decimals


def test_what_is_not_finite_is_written_as_javascript_writes_it():
    assert [format_fixed(math.nan, 2), format_number(-math.inf)] == ["NaN", "-Infinity"]
    assert common_decimals([math.nan, 2.5]) == 1


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (2.5e-5, "0.000025"),
        (1e21, "1e+21"),
        (1e20, "1" + "0" * 20),
        (123.0, "123"),
        (-0.0, "0"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(value, text):
    assert js_number(value) == text


def test_to_fixed_rounds_the_floats_exact_value_halves_away_from_zero_as_javascript():
    assert [
        to_fixed(0.03125, 4),
        to_fixed(-0.03125, 4),
        to_fixed(-0.001, 2),
        to_fixed(-0.0, 2),
    ] == [
        "0.0313",
        "-0.0313",
        "-0.00",
        "0.00",
    ]
    assert to_fixed(1.005, 2) == "1.00"  # 1.005 is 1.00499999999999989...
