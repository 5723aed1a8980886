"""Multiple-testing corrections: moved to :mod:`rag_eval_adapters.stats.multitest` (this path is kept)."""

from __future__ import annotations

from .stats.multitest import (  # noqa: F401
    CORRECTIONS,
    Correction,
    adjust_p_values,
    check_correction,
    correction_name,
)

__all__ = ["CORRECTIONS", "Correction", "adjust_p_values", "check_correction", "correction_name"]
