"""Scoring a whole run against judgments: :func:`evaluate` and its :class:`Report` (defined in :mod:`.report`)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import is_
from typing import Any, Literal

import numpy as np

from ._fastpath import ABSENT, judge_batch
from ._scoring import Missing, apply_missing, check_metrics, check_missing, finish
from ._validation import check_level
from .matching import TextMatcher, score_texts
from .measures import MetricLike
from .report import Report

__all__ = ["evaluate", "query_details", "Report"]


def evaluate(
    qrels: Mapping[Hashable, Mapping[Hashable, float]],
    run: Mapping[Hashable, Mapping[Hashable, float] | Sequence[Hashable]],
    metrics: MetricLike | Iterable[MetricLike],
    relevance_level: float = 1,
    missing: Missing = "zero",
    *,
    match: Literal["id", "text"] = "id",
    matcher: TextMatcher | None = None,
) -> Report:
    """Score every query of ``run`` against ``qrels`` with each metric.

    Parameters
    ----------
    qrels : mapping
        ``{query_id: {doc_id: grade}}``. A document is relevant when its grade is ``>= relevance_level``
        (binary metrics); DCG and nDCG use the grades as gains.
    run : mapping
        ``{query_id: {doc_id: score}}``, ranked by score descending with ties broken by doc id descending,
        exactly as trec_eval; or ``{query_id: [doc_id, ...]}`` already in rank order. A list of
        ``(doc_id, score)`` pairs is read as ``{doc_id: score}``; numpy arrays and pandas Series of ids are
        rankings (a Series with an index of doc ids is read as ``{doc_id: score}``); sets are refused, having
        no order.
    metrics : str, Metric, or a list of them
        Names such as ``"ndcg@10"``, ``"mrr"``, ``"map@100"``, or :mod:`~rag_eval_adapters.measures` objects.
    relevance_level : number
        The lowest grade that counts as relevant (trec_eval ``-l``).
    missing : {"zero", "skip", "error"}
        What a query of ``qrels`` absent from ``run`` does: score 0 (trec_eval ``-c``, the default), be left
        out (pytrec_eval), or raise ``ValueError`` (trec_eval without ``-c``).
    match : {"id", "text"}
        ``"text"``: the data set has texts instead of ids. ``qrels[q]`` is the list of expected texts (or a
        mapping expected text -> grade) and ``run[q]`` the retrieved texts in rank order; relevance is decided by
        ``matcher`` and each metric follows the text-matching rule of
        :func:`rag_eval_adapters.matching.score_texts` (the rule of the LlamaIndex and LangChain adapters).
    matcher : callable, optional
        ``matcher(retrieved_text, expected_text) -> bool`` for ``match="text"`` (default
        :func:`~rag_eval_adapters.matching.contains_match`).

    Queries of ``run`` that are not in ``qrels`` are ignored and counted in ``report.counts["not_in_qrels"]``.
    A query whose input is invalid is recorded in ``report.errors`` and the rest are still scored.

    Examples
    --------
    >>> report = evaluate({"q1": {"d1": 1, "d2": 2}}, {"q1": ["d2", "d9", "d1"]}, ["ndcg@10", "mrr"])
    >>> report.mean["mrr"]
    1.0
    >>> texts = evaluate({"q1": ["capital of France"]}, {"q1": ["Berlin is big.", "Paris is the capital of France."]},
    ...                  ["mrr"], match="text")
    >>> texts.mean["mrr"]
    0.5
    """
    measures = check_metrics(metrics)
    level = check_level(relevance_level)
    missing = check_missing(missing)
    if match not in ("id", "text"):
        raise ValueError(f"match must be 'id' (documents by id) or 'text' (by matching texts), got {match!r}")
    if not isinstance(qrels, Mapping):
        raise TypeError(f"qrels must be a mapping {{query_id: {{doc_id: grade}}}}, got {type(qrels).__name__}")
    if not isinstance(run, Mapping):
        raise TypeError(
            f"run must be a mapping {{query_id: {{doc_id: score}}}} or {{query_id: [doc_id, ...]}}, "
            f"got {type(run).__name__}"
        )
    if not qrels:
        raise ValueError("qrels is empty: there is nothing to evaluate against")

    query_ids = list(qrels)
    runs = _entries(run, query_ids)
    absent = list(compress(query_ids, map(is_, runs, repeat(ABSENT))))
    apply_missing(absent, len(query_ids), missing)
    counts = {"queries": len(qrels), "scored": 0, "missing_from_run": len(absent),
              "not_in_qrels": len(run) - (len(query_ids) - len(absent)), "errors": 0}
    expected = list(qrels.values()) if type(qrels) is dict else [qrels[q] for q in query_ids]
    if missing == "skip" and absent:
        keep = [r is not ABSENT for r in runs]
        query_ids, runs, expected = (list(compress(x, keep)) for x in (query_ids, runs, expected))
    if match == "text":
        return _evaluate_texts(measures, expected, runs, query_ids, level, matcher, counts)
    ok, judged, failures = judge_batch(expected, runs, query_ids, level)
    errors = {query_ids[i]: message for i, message in sorted(failures.items())}
    scored = query_ids if ok.shape[0] == len(query_ids) else [query_ids[i] for i in ok.tolist()]
    return finish(measures, judged, scored, errors, counts, level)


def query_details(
    qrels: Mapping[Hashable, Mapping[Hashable, float]],
    run: Mapping[Hashable, Any],
    relevance_level: float = 1,
) -> dict[Hashable, dict[str, Any]]:
    """Per query of ``qrels``: how many documents are relevant, how many were retrieved, and the rank of the
    first relevant one, ranked exactly as :func:`evaluate` ranks.

    Returns ``{query_id: {"relevant": int, "retrieved": int, "first_relevant_rank": int | None}}``; a query
    absent from ``run`` retrieved nothing. A query whose input is invalid is left out (:func:`evaluate` reports
    its error).

    >>> query_details({"q1": {"a": 1, "b": 0}}, {"q1": {"a": 0.2, "b": 0.9, "c": 0.5}})
    {'q1': {'relevant': 1, 'retrieved': 3, 'first_relevant_rank': 3}}
    """
    level = check_level(relevance_level)
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping):
        raise TypeError("qrels and run must be mappings {query_id: ...}")
    query_ids = list(qrels)
    ok, judged, _ = judge_batch([qrels[q] for q in query_ids], _entries(run, query_ids), query_ids, level)
    first = np.zeros(judged.n_queries, dtype=np.int64)
    relevant = judged.hit_grade >= level
    rows, at = np.unique(judged.hit_q[relevant], return_index=True)  # hits are sorted by query, then rank
    first[rows] = judged.hit_rank[relevant][at]
    return {
        query_ids[i]: {
            "relevant": int(judged.n_rel[j]),
            "retrieved": int(judged.n_ret[j]),
            "first_relevant_rank": int(first[j]) or None,
        }
        for j, i in enumerate(ok.tolist())
    }


def _evaluate_texts(measures, expected, runs, query_ids, level, matcher, counts) -> Report:
    """The text-matching path: each query judged by :func:`~rag_eval_adapters.matching.score_texts`."""
    rows, scored, errors = [], [], {}
    for qid, wanted, got in zip(query_ids, expected, runs, strict=False):
        grades = None
        if isinstance(wanted, Mapping):
            wanted, grades = list(wanted), dict(wanted)
        try:
            if got is ABSENT:
                got = []
            rows.append([score_texts(m, got, wanted, matcher=matcher, grades=grades, relevance_level=level,
                                     query_id=qid) for m in measures])
        except (TypeError, ValueError) as exc:
            errors[qid] = str(exc)
            continue
        scored.append(qid)
    values = np.asarray(rows, dtype=np.float64).reshape(len(scored), len(measures))
    return finish(measures, lambda metric: values[:, measures.index(metric)], scored, errors, counts, level)


def _entries(run: Mapping[Hashable, Any], query_ids: list[Hashable]) -> list[Any]:
    """``run[q]`` for each query id, :data:`ABSENT` where the run lacks it."""
    if type(run) is dict:
        return list(map(run.get, query_ids, repeat(ABSENT)))
    return [run[q] if q in run else ABSENT for q in query_ids]
