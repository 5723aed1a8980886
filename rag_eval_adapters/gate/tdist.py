"""Student's t and the normal distribution, one-sided, for the gate's tests and its power (standard library only).

The t distribution function is the regularized incomplete beta function (continued fraction, modified Lentz):
``P(T <= t) = 1 - I_{df / (df + t^2)}(df / 2, 1 / 2) / 2`` for ``t >= 0``. The values agree with
``scipy.stats.t.cdf`` to about 1e-12 (``tests/test_gate_stats.py``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

__all__ = ["t_cdf", "t_upper_quantile", "normal_cdf", "normal_upper_quantile"]

_NORMAL = NormalDist()


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)),
                   -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b)``, the regularized incomplete beta function, for ``0 <= x <= 1``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom (``df > 0``); ``t`` may be infinite."""
    if math.isnan(t) or not df > 0:
        raise ValueError(f"t_cdf needs a number and df > 0, got t={t!r}, df={df!r}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))  # P(T >= |t|)
    return 1.0 - tail if t >= 0 else tail


def t_upper_quantile(alpha: float, df: float) -> float:
    """``c`` with ``P(T > c) = alpha`` (bisection on :func:`t_cdf`; ``0 < alpha < 1``; remembered for the last
    4,096 pairs asked)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    return _t_upper_quantile(float(alpha), float(df))


@lru_cache(maxsize=4096)
def _t_upper_quantile(alpha: float, df: float) -> float:
    if alpha == 0.5:
        return 0.0
    sign = 1.0 if alpha < 0.5 else -1.0
    tail = min(alpha, 1.0 - alpha)
    low, high = 0.0, 1.0
    while 1.0 - t_cdf(high, df) > tail:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if 1.0 - t_cdf(mid, df) > tail:
            low = mid
        else:
            high = mid
        if high - low <= 1e-13 * high:
            break
    return sign * 0.5 * (low + high)


def normal_cdf(z: float) -> float:
    """``P(Z <= z)`` for a standard normal ``Z``."""
    if math.isinf(z):
        return 1.0 if z > 0 else 0.0
    return _NORMAL.cdf(z)


def normal_upper_quantile(alpha: float) -> float:
    """``z`` with ``P(Z > z) = alpha``."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    return _NORMAL.inv_cdf(1.0 - alpha)
