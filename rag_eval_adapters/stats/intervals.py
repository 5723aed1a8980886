"""A mean with its interval, and how the interval was made: ``t``, ``bootstrap``, ``normal`` or ``ppi++``.

Every mean the package prints can carry one :class:`MeanInterval`; its ``method`` names the interval so a
reader knows what was assumed:

* ``t``: Student's t interval ``mean +- t_{n-1, 1-a/2} sd / sqrt(n)``;
* ``normal``: the same with the normal quantile ``z_{1-a/2}`` (large samples);
* ``bootstrap``: the percentile bootstrap (items drawn with replacement, seeded);
* ``ppi++`` / ``ppi``: a judge's mean corrected with a few human labels (:mod:`rag_eval_adapters.stats.ppi`).

>>> mean_interval([0.2, 0.4, 0.6, 0.8], method="t")
MeanInterval(0.5 [0.08915, 0.9109], t 95%, n=4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .distributions import check_confidence, normal_quantile, t_quantile
from .interval import Interval, MeanInterval
from .values import check_resamples, check_values, power_of_two_scale

__all__ = ["INTERVAL_METHODS", "Interval", "MeanInterval", "mean_interval", "report_intervals", "check_values", "check_confidence",
           "in_unit_interval", "is_bounded", "normal_quantile", "t_quantile"]

INTERVAL_METHODS = ("t", "normal", "bootstrap")
"""The intervals of a plain mean :func:`mean_interval` makes (PPI intervals come from :mod:`~.ppi`)."""


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
        Resamples of the bootstrap; at least enough for one beyond each bound (39 at 95%), else ``ValueError``.
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
    n, scale = x.size, power_of_two_scale(x)
    if n == 1 or float(x.min()) == float(x.max()):
        mean = float(x[0]) if scale != 1.0 else float(x.mean())
        return MeanInterval(mean, mean, mean, confidence, method, n, 0.0 if method != "bootstrap" else None)
    if method == "bootstrap":
        from ..validation import check_seed

        return _bootstrap_mean(x, scale, check_resamples(n_bootstrap, confidence), confidence, check_seed(seed))
    scaled = x / scale if scale != 1.0 else x  # squares of values near 1e154 and sums near 1e308 overflow
    mean = float(scaled.mean()) * scale
    se = float(scaled.std(ddof=1)) / math.sqrt(n) * scale
    q = t_quantile(confidence, n - 1) if method == "t" else normal_quantile(confidence)
    low, high = mean - q * se, mean + q * se
    if bounds is not None:
        low, high = max(low, float(limits[0])), min(high, float(limits[1]))
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"the {method} interval of values of this size reaches beyond the largest float "
                         f"({mean:.3g} +- {q * se:.3g}); rescale the values")
    return MeanInterval(mean, low, high, confidence, method, n, se)


def _bootstrap_mean(x: np.ndarray, scale: float, n_bootstrap: int, confidence: float, seed: int | None
                    ) -> MeanInterval:
    """The percentile bootstrap interval of ``mean(x)`` (computed on ``x / scale``, a power of two)."""
    from .resampling import bootstrap_interval

    scaled = x / scale if scale != 1.0 else x
    mean = float(scaled.mean()) * scale
    low, high = bootstrap_interval(scaled.reshape(-1, 1), n_bootstrap, confidence, np.random.default_rng(seed))
    low_v, high_v = (min(max(float(v) * scale, float(x.min())), float(x.max())) for v in (low[0], high[0]))
    return MeanInterval(mean, low_v, high_v, confidence, "bootstrap", x.size, None)


def report_intervals(report: Any, *, method: str = "t", confidence: float = 0.95, n_bootstrap: int = 2000,
                     seed: int | None = 0, query_ids: Sequence[Any] | None = None) -> dict[str, MeanInterval]:
    """The interval of every metric's mean in a :class:`~rag_eval_adapters.Report` (scored queries only).

    ``method`` names the interval (``"t"``, ``"normal"``, ``"bootstrap"``); a metric's unmeasured cells (a judge
    that could not score a query) are left out, as its mean leaves them out. ``query_ids`` limits the means to
    those of the report's queries (e.g. one query type). The interval of a metric bounded by [0, 1] (every
    registry metric but DCG, named or given as an object) is cut to [0, 1]. For metrics with human labels on some
    queries,
    :func:`rag_eval_adapters.stats.ppi.corrected_means` gives the prediction-powered intervals instead.
    """
    from ..report import as_report

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


def is_bounded(metric: Any) -> bool:
    """Whether ``metric`` is a registry metric bounded by [0, 1] (its object, or a name the registry reads)."""
    if isinstance(metric, str):
        from ..measures import parse_metric

        try:
            metric = parse_metric(metric)
        except (TypeError, ValueError):
            return False
    return bool(getattr(metric, "bounded", False))


def in_unit_interval(metric: Any, column: np.ndarray) -> bool:
    """Whether ``metric`` is a registry metric bounded by [0, 1] (its object, or a name the registry reads) and
    ``column`` (its values) lies in [0, 1]."""
    return is_bounded(metric) and 0.0 <= float(column.min()) <= float(column.max()) <= 1.0
