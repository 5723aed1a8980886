"""A mean with its interval, and how the interval was made: ``t``, ``bootstrap``, ``normal`` or ``ppi++``.

Every mean the package prints can carry one :class:`MeanInterval`; its ``method`` names the interval so a
reader knows what was assumed:

* ``t``: Student's t interval ``mean +- t_{n-1, 1-a/2} sd / sqrt(n)``;
* ``normal``: the same with the normal quantile ``z_{1-a/2}`` (large samples);
* ``bootstrap``: the percentile bootstrap (items drawn with replacement, seeded);
* ``ppi++`` / ``ppi``: a judge's mean corrected with a few human labels (:mod:`rag_eval_adapters.ppi`).

>>> mean_interval([0.2, 0.4, 0.6, 0.8], method="t")
MeanInterval(0.5 [0.08915, 0.9109], t 95%, n=4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = ["INTERVAL_METHODS", "MeanInterval", "mean_interval", "report_intervals", "check_values", "check_confidence",
           "in_unit_interval", "normal_quantile", "t_quantile"]

INTERVAL_METHODS = ("t", "normal", "bootstrap")
"""The intervals of a plain mean :func:`mean_interval` makes (PPI intervals come from :mod:`~.ppi`)."""


@dataclass(frozen=True)
class MeanInterval:
    """A mean and its confidence interval.

    Attributes
    ----------
    estimate : float
        The mean (for PPI: the judge's mean corrected with the human labels).
    low, high : float
        The interval's bounds.
    confidence : float
        Its nominal coverage (0.95: 95%).
    method : str
        ``"t"``, ``"normal"``, ``"bootstrap"``, ``"ppi++"`` or ``"ppi"``.
    n : int
        The items behind the mean (for PPI: the human-labelled items).
    std_error : float or None
        The standard error the interval is built from (``None`` for the bootstrap).
    """

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    n: int
    std_error: float | None = None

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in ``[low, high]``."""
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: every field, plus ``"interval"`` naming the method and coverage."""
        out = asdict(self)
        out["interval"] = f"{self.method} {self.confidence:.0%}"
        return out

    def format(self, digits: int = 3) -> str:
        """``"0.660 [0.610, 0.700]"``."""
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}], "
                f"{self.method} {self.confidence:.0%}, n={self.n})")


def check_confidence(confidence: float) -> float:
    """``confidence`` as a float strictly between 0 and 1 (the validation vocabulary's fraction)."""
    from .validation import check_fraction

    return check_fraction(confidence, "confidence")


def check_values(values: Any, what: str, *, minimum: int = 1) -> np.ndarray:
    """``values`` as a 1-D float64 array of finite numbers with at least ``minimum`` of them.

    Raises ``TypeError`` for a value that is not a number and ``ValueError`` naming the first NaN or infinite
    item (``what`` names the input in both messages).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of numbers, got a string")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a sequence of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] is {float(array[bad[0]])!r}; every value must be a finite number")
    if array.size < minimum:
        raise ValueError(f"{what} has {array.size} values; at least {minimum} are needed")
    return array


def normal_quantile(confidence: float) -> float:
    """``z`` with ``P(|Z| <= z) = confidence`` for a standard normal ``Z``."""
    return NormalDist().inv_cdf(0.5 + check_confidence(confidence) / 2.0)


def t_quantile(confidence: float, df: int) -> float:
    """``t`` with ``P(|T| <= t) = confidence`` for Student's t with ``df`` degrees of freedom (bisection)."""
    check_confidence(confidence)
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"the t distribution needs a whole number of degrees of freedom >= 1, got {df!r}")
    return _t_quantile(float(confidence), df)


@lru_cache(maxsize=256)
def _t_quantile(confidence: float, df: int) -> float:
    from .compare import _t_two_sided_p as t_two_sided_p

    alpha = 1.0 - confidence
    low, high = 0.0, max(1.0, normal_quantile(confidence))
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


def mean_interval(values: Sequence[float], *, method: str = "t", confidence: float = 0.95,
                  n_bootstrap: int = 2000, seed: int | None = 0,
                  bounds: tuple[float, float] | None = None) -> MeanInterval:
    """The mean of ``values`` and its interval by ``method`` (``"t"``, ``"normal"`` or ``"bootstrap"``).

    Parameters
    ----------
    values : sequence of float
        Finite numbers, at least one (one value gives a zero-width interval).
    method : {"t", "normal", "bootstrap"}
        See the module docstring.
    confidence : float
        Nominal coverage.
    n_bootstrap : int
        Resamples of the bootstrap.
    seed : int or None
        Seed of the bootstrap.
    bounds : (float, float), optional
        The range the true mean cannot leave (``(0, 1)`` for a metric in [0, 1]): a t or normal interval
        reaching past it is cut to it, which keeps every true value it covered (``1.04`` is never shown for a hit
        rate). The bootstrap's bounds are means of resamples, so they never leave the values' range.

    Returns
    -------
    MeanInterval

    Examples
    --------
    >>> mean_interval([1.0, 1.0, 1.0, 0.0], method="t", bounds=(0.0, 1.0))
    MeanInterval(0.75 [0, 1], t 95%, n=4)
    """
    if method not in INTERVAL_METHODS:
        raise ValueError(f"unknown interval {method!r}; choose one of {', '.join(INTERVAL_METHODS)}")
    confidence = check_confidence(confidence)
    x = check_values(values, "values")
    if bounds is not None:
        limits = check_values(bounds, "bounds", minimum=2)
        if limits.size != 2 or not limits[0] <= float(x.min()) <= float(x.max()) <= limits[1]:
            raise ValueError(f"bounds must be (lowest, highest) around every value, got {tuple(bounds)!r} for "
                             f"values in [{float(x.min()):g}, {float(x.max()):g}]")
    n, mean = x.size, float(x.mean())
    if n == 1 or float(np.ptp(x)) == 0.0:
        return MeanInterval(mean, mean, mean, confidence, method, n, 0.0 if method != "bootstrap" else None)
    if method == "bootstrap":
        from ._resampling import bootstrap_interval
        from .validation import check_count, check_seed

        rng = np.random.default_rng(check_seed(seed))
        low, high = bootstrap_interval(x.reshape(-1, 1), check_count(n_bootstrap, "n_bootstrap"), confidence, rng)
        low_v, high_v = (min(max(float(v), float(x.min())), float(x.max())) for v in (low[0], high[0]))
        return MeanInterval(mean, low_v, high_v, confidence, method, n, None)
    se = float(x.std(ddof=1)) / math.sqrt(n)
    q = t_quantile(confidence, n - 1) if method == "t" else normal_quantile(confidence)
    low, high = mean - q * se, mean + q * se
    if bounds is not None:
        low, high = max(low, float(limits[0])), min(high, float(limits[1]))
    return MeanInterval(mean, low, high, confidence, method, n, se)


def report_intervals(report: Any, *, method: str = "t", confidence: float = 0.95, n_bootstrap: int = 2000,
                     seed: int | None = 0, query_ids: Sequence[Any] | None = None) -> dict[str, MeanInterval]:
    """The interval of every metric's mean in a :class:`~rag_eval_adapters.Report` (scored queries only).

    ``method`` names the interval (``"t"``, ``"normal"``, ``"bootstrap"``); a metric's unmeasured cells (a judge
    that could not score a query) are left out, as its mean leaves them out. ``query_ids`` limits the means to
    those of the report's queries (e.g. one query type). The interval of a metric bounded by [0, 1] (every
    registry metric but DCG, named or given as an object) is cut to [0, 1]. For metrics with human labels on some
    queries,
    :func:`rag_eval_adapters.ppi.corrected_means` gives the prediction-powered intervals instead.
    """
    from .report import as_report

    report = as_report(report, "report")
    values = report.values
    if query_ids is not None:
        chosen = set(query_ids)
        values = values[[i for i, q in enumerate(report.query_ids) if q in chosen]]
    out = {}
    for j, key in enumerate(report.keys):
        column = values[:, j]
        column = column[~np.isnan(column)]  # a judge's unmeasured cells are NaN: the mean is of the measured ones
        if column.size:
            out[key] = mean_interval(column, method=method, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed,
                                     bounds=(0.0, 1.0) if in_unit_interval(report.metrics[j], column) else None)
    return out


def in_unit_interval(metric: Any, column: np.ndarray) -> bool:
    """Whether ``metric`` is a registry metric bounded by [0, 1] (its object, or a name the registry reads) and
    ``column`` (its values) lies in [0, 1]."""
    if isinstance(metric, str):
        from .measures import parse_metric

        try:
            metric = parse_metric(metric)
        except (TypeError, ValueError):
            return False
    return bool(getattr(metric, "bounded", False)) and 0.0 <= float(column.min()) <= float(column.max()) <= 1.0
