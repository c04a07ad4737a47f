"""The Wilson score interval of a success rate: honest at 0 and at n successes of n.

The plain ``p ± z·sqrt(p(1-p)/n)`` interval shrinks to a point where every episode
failed or every one succeeded (0/10 would claim a rate of exactly 0), and strays below
0 and above 1 near them. Wilson's interval inverts the normal test of the rate instead:
it is the rates ``q`` the count does not reject, ``|p - q| <= z·sqrt(q(1-q)/n)``, so it
stays inside [0, 1] and 0/10 still allows up to 28%. Its coverage stays near the level
asked for down to a handful of episodes (Brown, Cai and DasGupta, "Interval Estimation
for a Binomial Proportion", Statistical Science 2001, recommend it for small n).

Written here, not taken from a library: neither scipy (``binomtest(...).proportion_ci``)
nor statsmodels (``proportion_confint``) is among the package's dependencies, and the
formula is three lines.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` of ``n`` at ``confidence``; NaNs when
    ``n`` is 0 (no episode says anything).

    Examples:
        >>> [round(x, 4) for x in wilson_interval(5, 10)]
        [0.2366, 0.7634]
        >>> [round(x, 4) for x in wilson_interval(0, 10)]
        [0.0, 0.2775]
    """
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n == 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p, shrink = successes / n, z * z / n
    centre = (p + shrink / 2) / (1 + shrink)
    half = z / (1 + shrink) * math.sqrt(p * (1 - p) / n + shrink / (4 * n))
    # 0 and n are the bounds exactly (the formula lands a rounding error away)
    lower = 0.0 if successes == 0 else centre - half
    upper = 1.0 if successes == n else centre + half
    return lower, upper
