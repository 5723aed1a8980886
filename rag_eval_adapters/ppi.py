"""Prediction-powered inference (PPI, PPI++): moved to :mod:`rag_eval_adapters.stats.ppi` (this path is kept)."""

from __future__ import annotations

from .stats.ppi import (  # noqa: F401
    CorrectedComparison,
    PPIInterval,
    corrected_comparison,
    corrected_means,
    ppi_mean,
    ppi_mean_by_id,
    ppi_paired,
    ppi_paired_by_id,
    tuned_lambda,
)

__all__ = ["PPIInterval", "ppi_mean", "ppi_paired", "ppi_mean_by_id", "ppi_paired_by_id", "tuned_lambda", "corrected_means", "CorrectedComparison", "corrected_comparison"]
