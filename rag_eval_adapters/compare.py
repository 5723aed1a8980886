"""Paired significance tests between runs: moved to :mod:`rag_eval_adapters.stats.paired` (this path is kept)."""

from __future__ import annotations

from .stats.paired import (  # noqa: F401
    CI_TOLERANCE,
    EXCEEDANCES,
    Comparison,
    PairedComparison,
    compare_per_query,
    compare_reports,
    paired_test,
)

__all__ = ["PairedComparison", "Comparison", "paired_test", "compare_reports", "compare_per_query"]
