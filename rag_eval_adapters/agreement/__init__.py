"""Agreement with people: how far a scorer's numbers follow human labels.

* :func:`measure_agreement`: Pearson, Spearman, Kendall's tau-b, Cohen's kappa (unweighted and quadratic),
  accuracy and the confusion matrix of any scorer against pointwise grades or pairwise preferences, each with a
  bootstrap interval, overall and by group (``stats`` holds the formulas);
* :func:`meta_evaluate`: every scorer on pairwise judgements beside the trivial baselines (answer length,
  overlap with the reference) and the annotator-vs-annotator ceiling;
* :class:`JudgeScorer`: an LLM judge as one more scorer of :func:`meta_evaluate` (its unmeasured answers
  dropped and counted, never a number);
* :func:`load_ragchecker`: the RAGChecker meta-evaluation set shipped with the package (560 human labels);
* :func:`load_mtrag`, :func:`meta_evaluate_mtrag`: MTRAG's 477 multi-turn answers with their passages and human
  ratings, shipped too, and any scorer against the mean rating beside the annotators' own agreement;
* :func:`position_swap_consistency`: how often a pairwise judge's verdict flips when the answers swap places.

>>> from rag_eval_adapters.agreement import measure_agreement
>>> a = measure_agreement([0.9, 0.1, 0.6, 0.4, 0.8], [2, 0, 1, 1, 2], n_bootstrap=0)
>>> round(a["spearman"].value, 4), "kappa" in a.overall.estimates  # continuous scores: no categories
(0.9487, False)
"""

from __future__ import annotations

from .judge_scorer import JUDGE_SCORER_METRICS, JudgeScorer
from .measure import KINDS, STATISTICS, Agreement, AgreementStats, Estimate, measure_agreement
from .meta_eval import (
    BASELINES,
    AnswerScorer,
    MetaEvaluation,
    Scorer,
    annotator_ceiling,
    answer_length,
    meta_evaluate,
    meta_evaluate_scores,
    pairwise_differences,
    scored_pairs,
)
from .mtrag import (
    MTRAG_LABELS,
    MTRAGAnswer,
    MTRAGTask,
    load_mtrag,
    meta_evaluate_mtrag,
    mtrag_ceiling,
    mtrag_path,
    spearman_brown,
)
from .ragchecker import RAGCHECKER_LABELS, PairwiseJudgement, load_ragchecker, ragchecker_path
from .stats import accuracy, cohen_kappa, confusion_matrix, kendall_tau_b, pearson, spearman
from .swap import SwapConsistency, position_swap_consistency

__all__ = [
    "measure_agreement",
    "Agreement",
    "AgreementStats",
    "Estimate",
    "KINDS",
    "STATISTICS",
    "pearson",
    "spearman",
    "kendall_tau_b",
    "cohen_kappa",
    "accuracy",
    "confusion_matrix",
    "meta_evaluate",
    "meta_evaluate_scores",
    "MetaEvaluation",
    "AnswerScorer",
    "Scorer",
    "answer_length",
    "BASELINES",
    "annotator_ceiling",
    "pairwise_differences",
    "scored_pairs",
    "JudgeScorer",
    "JUDGE_SCORER_METRICS",
    "load_ragchecker",
    "load_mtrag",
    "mtrag_path",
    "MTRAGAnswer",
    "MTRAGTask",
    "MTRAG_LABELS",
    "meta_evaluate_mtrag",
    "mtrag_ceiling",
    "spearman_brown",
    "ragchecker_path",
    "PairwiseJudgement",
    "RAGCHECKER_LABELS",
    "position_swap_consistency",
    "SwapConsistency",
]
