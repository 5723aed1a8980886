r"""How many questions a gate needs: the power of its fail test, from the spread of the paired differences.

The fail test (:mod:`~rag_eval_adapters.stats.noninferiority`) rejects H0 ``mean(d) >= -m`` at level ``a`` when
``T = (dbar + m) / (s / sqrt(n)) < -c`` with ``c = t_{n-1, 1-a}``. For a true drop ``delta`` (mean difference
``-delta``) and per-question standard deviation ``sigma`` of the differences, ``T`` follows the noncentral t
distribution with ``n - 1`` degrees of freedom and noncentrality ``lambda = (m - delta) sqrt(n) / sigma``, so

``power(n, delta) = P(T < -c) = E_V[ Phi(-c sqrt(V / (n - 1)) - lambda) ]``, ``V ~ chi^2_{n-1}``,

computed here by integrating over ``V`` (the value of ``statsmodels``' ``TTestPower`` with
``alternative="smaller"``, to about 1e-6). With ``k`` metrics in the gate, Holm's correction tests the first one
at ``a / k``: the power is given at that level (the least it can be; ``k = 1`` is exact).

* :func:`questions_needed`: the least ``n`` with ``power >= 0.8`` (``None`` for a drop within the margin, which
  the gate must not fail);
* :func:`detectable_drop`: the least drop failed with ``power >= 0.8`` at the current ``n``.

A drop the gate cannot fail (``delta <= m``) has power at most ``a``. ``sigma`` is estimated from the observed
differences, so the numbers are planning figures, as good as that estimate.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .distributions import normal_upper_quantile, t_upper_quantile

__all__ = ["PowerAnalysis", "power_to_fail", "questions_needed", "detectable_drop", "power_analysis",
           "POWER_TARGET"]

POWER_TARGET = 0.8
"""The power :func:`questions_needed` and :func:`detectable_drop` aim at (80%)."""


@dataclass(frozen=True)
class PowerAnalysis:
    """The power of one metric's fail test, from its observed paired differences.

    Attributes
    ----------
    metric : str
    margin : float
    n : int
        Questions both scored.
    sd : float
        Standard deviation of the differences.
    alpha : float
        The level the power is computed at (the gate's ``alpha`` over the number of metrics: Holm's first step).
    detectable_drop : float or None
        The least drop failed with 80% power at ``n`` (``None`` when ``sd`` is 0).
    needed : dict
        ``{drop: questions needed for 80% power, or None}`` for each drop asked.
    power : dict
        ``{drop: power at n}``.
    """

    metric: str
    margin: float
    n: int
    sd: float
    alpha: float
    detectable_drop: float | None
    needed: dict[float, int | None]
    power: dict[float, float]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (the drops as strings)."""
        out = asdict(self)
        out["needed"] = {repr(k): v for k, v in self.needed.items()}
        out["power"] = {repr(k): v for k, v in self.power.items()}
        return out


_GRID = 4000
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _chi_grid(df: int) -> tuple[np.ndarray, np.ndarray]:
    """Points of ``U = sqrt(V / df)`` for ``V ~ chi^2_df`` and their quadrature weights (summing to 1): the
    midpoint rule on the density ``f(u) ~ u^(df-1) exp(-df u^2 / 2)``, over 12 standard deviations of ``U``."""
    spread = 12.0 / math.sqrt(2.0 * df)
    low, high = max(1.0 - spread, 0.0), 1.0 + spread + (8.0 if df < 8 else 0.0)
    step = (high - low) / _GRID
    u = low + step * (np.arange(_GRID) + 0.5)
    weights = np.exp((df - 1.0) * np.log(u) - df * u * u / 2.0 - ((df - 1.0) * np.log(u) - df * u * u / 2.0).max())
    return u, weights / weights.sum()


def power_to_fail(sd: float, n: int, drop: float, margin: float, alpha: float) -> float:
    """The chance that the fail test rejects at level ``alpha`` for a true drop ``drop`` (see the module doc).

    Parameters
    ----------
    sd : float
        Standard deviation of the per-question differences (``> 0``).
    n : int
        Questions (``>= 2``).
    drop : float
        The true drop (a mean difference of ``-drop``).
    margin : float
        The gate's margin.
    alpha : float
        The level of the test.
    """
    if not sd > 0 or n < 2:
        raise ValueError(f"power needs a positive standard deviation and at least 2 questions, got sd={sd!r}, n={n}")
    df = n - 1
    c = t_upper_quantile(alpha, df)
    ncp = (margin - drop) * math.sqrt(n) / sd
    scale, weights = _chi_grid(df)
    cdf = 0.5 * np.asarray(_erfc((c * scale + ncp) / math.sqrt(2.0)), dtype=np.float64)  # Phi(-c U - ncp)
    return float(np.clip(np.dot(weights, cdf), 0.0, 1.0))


def questions_needed(sd: float, drop: float, margin: float, alpha: float, power: float = POWER_TARGET,
                     limit: int = 10_000_000) -> int | None:
    """The least number of questions with which the fail test reaches ``power`` for ``drop``; ``None`` when the
    drop is within the margin (the gate must not fail it) or needs more than ``limit`` questions."""
    if drop <= margin:
        return None
    guess = ((normal_upper_quantile(alpha) + normal_upper_quantile(1.0 - power)) * sd / (drop - margin)) ** 2
    low, high = 2, max(3, int(guess) + 2)
    while power_to_fail(sd, high, drop, margin, alpha) < power:
        low, high = high, high * 2
        if high > limit:
            return None
    while high - low > 1:
        mid = (low + high) // 2
        if power_to_fail(sd, mid, drop, margin, alpha) >= power:
            high = mid
        else:
            low = mid
    return high if power_to_fail(sd, low, drop, margin, alpha) < power else low


def detectable_drop(sd: float, n: int, margin: float, alpha: float, power: float = POWER_TARGET) -> float:
    """The least drop the fail test fails with ``power`` at ``n`` questions (bisection on :func:`power_to_fail`)."""
    low, high = margin, margin + sd
    while power_to_fail(sd, n, high, margin, alpha) < power:
        high = margin + 2.0 * (high - margin)
    for _ in range(60):
        mid = 0.5 * (low + high)
        if power_to_fail(sd, n, mid, margin, alpha) >= power:
            high = mid
        else:
            low = mid
        if high - low < 1e-7:
            break
    return high


def power_analysis(metric: str, differences: np.ndarray, margin: float, alpha: float,
                   drops: tuple[float, ...]) -> PowerAnalysis:
    """The :class:`PowerAnalysis` of one metric from its per-question differences (at least 2)."""
    d = np.asarray(differences, dtype=np.float64)
    if d.size < 2:
        raise ValueError(f"{metric}: power needs at least 2 questions both scored, got {d.size}")
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return PowerAnalysis(metric, margin, int(d.size), 0.0, alpha, None,
                             {x: None for x in drops}, {x: float(x > margin) for x in drops})
    return PowerAnalysis(
        metric, margin, int(d.size), sd, alpha, detectable_drop(sd, int(d.size), margin, alpha),
        {x: questions_needed(sd, x, margin, alpha) for x in drops},
        {x: power_to_fail(sd, int(d.size), x, margin, alpha) for x in drops},
    )
