"""A mean with its named interval: moved to :mod:`rag_eval_adapters.stats.intervals` (this path is kept)."""

from __future__ import annotations

from .stats.intervals import (  # noqa: F401
    INTERVAL_METHODS,
    Interval,
    MeanInterval,
    check_confidence,
    check_values,
    in_unit_interval,
    mean_interval,
    normal_quantile,
    report_intervals,
    t_quantile,
)

__all__ = ["INTERVAL_METHODS", "Interval", "MeanInterval", "mean_interval", "report_intervals", "check_values", "check_confidence", "in_unit_interval", "normal_quantile", "t_quantile"]
