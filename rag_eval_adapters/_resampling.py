"""The bootstrap and sign-flip kernels: moved to :mod:`rag_eval_adapters.stats.resampling` (this path is kept)."""

from __future__ import annotations

from .stats.resampling import (  # noqa: F401
    BOUND_RISK,
    TOL,
    bootstrap_interval,
    column_means,
    one_blas_thread,
    randomization_p_values,
    sequential_bootstrap,
    tail_bounds,
)

__all__ = ["TOL", "BOUND_RISK", "one_blas_thread", "tail_bounds", "randomization_p_values", "bootstrap_interval", "sequential_bootstrap", "column_means"]
