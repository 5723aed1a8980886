"""The statistics of the package, below every service: one value type and the formulas on plain numbers.

* :mod:`~.interval`: :class:`Interval` (estimate, low, high, confidence, method, n), the one value type of an
  estimate with its interval; :class:`MeanInterval` a mean's;
* :mod:`~.distributions`: Student's t and the normal distribution, two- and one-sided (no scipy);
* :mod:`~.resampling`: the whole-matrix bootstrap and sign-flip kernels and correctly rounded column means;
* :mod:`~.multitest`: Holm, Benjamini-Hochberg and Bonferroni corrections;
* :mod:`~.agreement`: Pearson, Spearman, Kendall's tau-b (O(n log n)), Cohen's kappa (the package's one),
  accuracy, confusion matrices, and given labels against LLM grades;
* :mod:`~.intervals`: a mean's t, normal or bootstrap interval (``mean_interval``, ``report_intervals``);
* :mod:`~.paired`: paired tests of runs (``paired_test``, ``compare_reports``, ``compare_per_query``);
* :mod:`~.ppi`: a judge's mean corrected with a few human labels (PPI, PPI++);
* :mod:`~.noninferiority`: two one-sided paired tests of a mean difference at a margin (the gate's);
* :mod:`~.power`: the power of the fail test, the questions needed and the least drop detectable.

This ``__init__`` imports only the modules that use nothing of the package above the core's vocabulary
(``validation.py``), because the core's :class:`~rag_eval_adapters.Report` itself uses :mod:`~.resampling` and
:mod:`~.interval`; :mod:`~.intervals`, :mod:`~.paired` and :mod:`~.ppi`, which take a ``Report``, are imported
as submodules (``from rag_eval_adapters.stats.paired import compare_reports``).
"""

from __future__ import annotations

from .agreement import (
    Estimate,
    LabelAgreement,
    accuracy,
    cohen_kappa,
    confusion_matrix,
    kendall_tau_b,
    label_agreement,
    pearson,
    spearman,
)
from .distributions import (
    check_confidence,
    normal_cdf,
    normal_quantile,
    normal_upper_quantile,
    t_cdf,
    t_quantile,
    t_two_sided_p,
    t_upper_quantile,
)
from .interval import Interval, MeanInterval
from .multitest import CORRECTIONS, Correction, adjust_p_values, check_correction, correction_name
from .resampling import bootstrap_interval, column_means
from .values import check_values

__all__ = [
    "Interval", "MeanInterval", "Estimate",
    "t_two_sided_p", "t_quantile", "normal_quantile", "check_confidence", "check_values",
    "t_cdf", "t_upper_quantile", "normal_cdf", "normal_upper_quantile",
    "bootstrap_interval", "column_means",
    "CORRECTIONS", "Correction", "adjust_p_values", "check_correction", "correction_name",
    "pearson", "spearman", "kendall_tau_b", "cohen_kappa", "accuracy", "confusion_matrix",
    "LabelAgreement", "label_agreement",
]
