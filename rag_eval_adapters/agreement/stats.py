"""Agreement statistics: moved to :mod:`rag_eval_adapters.stats.agreement` (this path is kept)."""

from __future__ import annotations

from ..stats.agreement import (  # noqa: F401
    Estimate,
    LabelAgreement,
    accuracy,
    categories_of,
    check_pair,
    codes,
    cohen_kappa,
    confusion_matrix,
    kendall_tau_b,
    label_agreement,
    pearson,
    spearman,
    weighted_confusion,
    weighted_kappa,
    weighted_kendall,
    weighted_pearson,
    weighted_ranks,
)

__all__ = ["pearson", "spearman", "kendall_tau_b", "cohen_kappa", "accuracy", "confusion_matrix", "Estimate", "LabelAgreement", "label_agreement", "weighted_pearson", "weighted_ranks", "weighted_kendall", "weighted_confusion", "weighted_kappa", "categories_of", "codes", "check_pair"]
