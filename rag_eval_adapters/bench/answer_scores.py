"""Scoring the benchmark's answers against the reference answers, with the answer metrics of
:mod:`rag_eval_adapters.answers`: token F1 (SQuAD's, right in every language) and semantic similarity (the
cosine of the E5 passage embeddings of answer and reference; E5's floor is high: unrelated texts score
about 0.75)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ANSWER_METRICS", "JUDGED_METRICS", "answer_metric_keys", "score_answers"]

ANSWER_METRICS = ("token_f1", "semantic_similarity")
JUDGED_METRICS = ("faithfulness", "answer_correctness")


def answer_metric_keys(judge: Any = None) -> list[str]:
    """The keys of the answers' report: :data:`ANSWER_METRICS`, and :data:`JUDGED_METRICS` with a judge."""
    return list(ANSWER_METRICS) + (list(JUDGED_METRICS) if judge is not None else [])


def score_answers(records: Sequence[dict[str, Any]], embedder: Any, judge: Any = None) -> Any:
    """:func:`rag_eval_adapters.answers.evaluate_answers` of ``{query_id, prediction, reference, query_type}``
    records with :data:`ANSWER_METRICS` (and, given an LLM ``judge``, faithfulness to the records' ``contexts``
    and answer correctness): a Report with per-query values, ``query_type`` attributes, errors and unmeasured
    cells."""
    from ..answers import SemanticSimilarity, evaluate_answers

    # Both sides embedded as passages: an extractive answer is a sentence the answerer has already embedded.
    metrics: list[Any] = ["token_f1", SemanticSimilarity(side="passage")]
    if judge is not None:
        metrics += list(JUDGED_METRICS)
    return evaluate_answers(records, metrics, embedder, progress=False, judge=judge)
