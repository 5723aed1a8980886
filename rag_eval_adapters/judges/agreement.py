"""Agreement between given relevance labels and LLM grades: Cohen's kappa and the confusion matrix.

The statistics live in :mod:`rag_eval_adapters.stats.agreement`; the names here are kept for existing imports:
``Agreement`` is :class:`~rag_eval_adapters.stats.agreement.LabelAgreement`, ``agreement`` is
:func:`~rag_eval_adapters.stats.agreement.label_agreement` and ``cohen_kappa`` the package's one kappa.
"""

from __future__ import annotations

from ..stats.agreement import LabelAgreement, cohen_kappa, label_agreement

Agreement = LabelAgreement
agreement = label_agreement

__all__ = ["Agreement", "cohen_kappa", "agreement"]
