"""Numbers as the front end writes them (js/shared/numbers.ts), for the pictures and
text the kernel makes in its place: saved copies, videos, a table saved without its
widget. Integers plain, others to 4 decimals without float noise (4 significant digits
below 0.001), the values of one column to one common number of decimals.
js/shared/numbers.cases.json holds the cases both are tested against.

Numbers are written as JavaScript writes them (``toFixed``, ``String``): from the exact
value of the float, halves rounded away from zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

_MAX_DECIMALS = 4


def common_decimals(values: Sequence[float]) -> int:
    """The decimals a column of ``values`` is printed with: enough for three significant
    digits of its smallest non-zero magnitude, no more than any value needs, at most 4
    (commonDecimals of js/shared/numbers.ts); non-finite values are left out."""
    values = [v for v in values if math.isfinite(v)]
    needed = max((_decimals_of(v) for v in values), default=0)
    smallest = min((abs(v) for v in values if v != 0), default=None)
    if smallest is None:
        return 0
    for_three_digits = max(0, 2 - math.floor(math.log10(smallest)))
    return min(_MAX_DECIMALS, needed, for_three_digits)


def _decimals_of(value: float) -> int:
    text = to_fixed(value, _MAX_DECIMALS).rstrip("0")
    return len(text) - text.index(".") - 1 if "." in text else 0


def to_fixed(value: float, decimals: int) -> str:
    """JavaScript's ``value.toFixed(decimals)``."""
    if abs(value) >= 1e21:
        return js_number(value)
    exact = Decimal(value + 0.0)  # + 0.0: -0 prints as 0, as in JavaScript
    return format(exact.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP), "f")


def js_number(value: float) -> str:
    """JavaScript's ``String(value)``: the shortest digits that read back, its exponent
    rules (1e-7, 0.000001, 1e+21)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = float(value) if abs(value) >= 1e21 else value
        if isinstance(value, int):
            return str(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    _, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    text = "".join(map(str, digits))
    k, n = len(text), len(text) + int(exponent)
    minus = "-" if value < 0 else ""
    if k <= n <= 21:
        return minus + text + "0" * (n - k)
    if 0 < n <= 21:
        return minus + text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * -n + text
    mantissa = text[0] + ("." + text[1:] if k > 1 else "")
    return f"{minus}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def format_number(value: float) -> str:
    """formatNumber of js/shared/numbers.ts: integers plain, others to 4 decimals
    without float noise (4 significant digits below 0.001)."""
    if isinstance(value, int) or not math.isfinite(value) or value.is_integer():
        return js_number(value)
    if abs(value) < 1e-3:
        return js_number(float(f"{value:.3e}"))
    return js_number(float(to_fixed(value, 4)))


def format_fixed(value: float, decimals: int | None) -> str:
    """formatFixed of js/shared/numbers.ts: ``value`` to ``decimals`` decimals, as
    format_number writes it when they are not given or it is not finite."""
    if decimals is None or not math.isfinite(value):
        return format_number(value)
    return to_fixed(value, decimals)
