"""Distributions the statistics need, without scipy: Student's t (through the regularized incomplete beta
function) and the standard normal, two-sided (intervals, paired tests) and one-sided (the gate's
non-inferiority tests and their power, :mod:`~.noninferiority`, :mod:`~.power`).

``P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)``; the one-sided ``P(T <= t)`` is half of it (or one minus
half) by symmetry. The values agree with ``scipy.stats.t`` to about 1e-12 (``tests/test_gate_stats.py``).

>>> round(t_two_sided_p(2.0, 10), 6)
0.073388
>>> round(t_quantile(0.95, 10), 6)
2.228139
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

from ..validation import check_fraction

__all__ = ["t_two_sided_p", "t_quantile", "normal_quantile", "check_confidence", "t_cdf", "t_upper_quantile",
           "normal_cdf", "normal_upper_quantile"]

_NORMAL = NormalDist()


def check_confidence(confidence: float) -> float:
    """``confidence`` as a float strictly between 0 and 1 (the validation vocabulary's fraction)."""
    return check_fraction(confidence, "confidence")


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)),
                   -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta function ``I_x(a, b)``, given ``x`` and ``y = 1 - x`` both to full precision."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    if b == 0.5 and a > 1000.0:  # lgamma(a + 1/2) - lgamma(a) without the cancellation of two large numbers
        z = 1.0 / a
        log_ratio = 0.5 * math.log(a) + math.log1p(z * (-1 / 8 + z * (1 / 128 + z * (5 / 1024 - z * 21 / 32768))))
    else:
        log_ratio = math.lgamma(a + b) - math.lgamma(a)
    log_front = log_ratio - math.lgamma(b) + a * (math.log1p(-y) if y < 0.5 else math.log(x))
    log_front += b * (math.log1p(-x) if x < 0.5 else math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t distribution: ``P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2)``."""
    t2 = t * t
    p = _incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))
    return min(1.0, max(0.0, p))


def normal_quantile(confidence: float) -> float:
    """``z`` with ``P(|Z| <= z) = confidence`` for a standard normal ``Z``."""
    return _NORMAL.inv_cdf(0.5 + check_confidence(confidence) / 2.0)


def t_quantile(confidence: float, df: int) -> float:
    """``t`` with ``P(|T| <= t) = confidence`` for Student's t with ``df`` degrees of freedom (bisection)."""
    check_confidence(confidence)
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"the t distribution needs a whole number of degrees of freedom >= 1, got {df!r}")
    return _t_root(1.0 - float(confidence), normal_quantile(confidence), df)


@lru_cache(maxsize=4096)
def _t_root(alpha: float, start: float, df: float) -> float:
    """``t >= 0`` with ``P(|T| >= t) = alpha`` (bisection on :func:`t_two_sided_p`, from ``[0, max(1, start)]``
    widened until it holds the root; the two-sided and the one-sided quantiles both use it)."""
    low, high = 0.0, max(1.0, start)
    while t_two_sided_p(high, df) > alpha:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if t_two_sided_p(mid, df) > alpha:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return 0.5 * (low + high)


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom (``df > 0``, not necessarily whole); ``t``
    may be infinite."""
    if math.isnan(t) or not df > 0:
        raise ValueError(f"t_cdf needs a number and df > 0, got t={t!r}, df={df!r}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * t_two_sided_p(t, df)  # P(T >= |t|)
    return 1.0 - tail if t >= 0 else tail


def t_upper_quantile(alpha: float, df: float) -> float:
    """``c`` with ``P(T > c) = alpha`` for Student's t with ``df > 0`` degrees of freedom (``0 < alpha < 1``;
    the root of the two-sided p-value at ``2 alpha``, remembered for the last 4,096 asked)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not df > 0:
        raise ValueError(f"the t distribution needs df > 0, got {df!r}")
    if alpha == 0.5:
        return 0.0
    tail = min(alpha, 1.0 - alpha)
    root = _t_root(2.0 * tail, normal_upper_quantile(tail), float(df))  # P(T > c) = P(|T| >= c) / 2
    return root if alpha < 0.5 else -root


def normal_cdf(z: float) -> float:
    """``P(Z <= z)`` for a standard normal ``Z``."""
    if math.isinf(z):
        return 1.0 if z > 0 else 0.0
    return _NORMAL.cdf(z)


def normal_upper_quantile(alpha: float) -> float:
    """``z`` with ``P(Z > z) = alpha`` for a standard normal ``Z`` (``0 < alpha < 1``)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    return _NORMAL.inv_cdf(1.0 - alpha)
