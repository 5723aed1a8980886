"""Scoring a whole run against judgments: :func:`evaluate` and its :class:`Report` (defined in :mod:`.report`)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import compress, repeat
from operator import countOf
from typing import Any, Literal

import numpy as np

from ._fastpath import ABSENT, judge_batch
from ._kernel import Judged
from ._validation import check_level
from .measures import Metric, MetricLike, parse_metrics
from .report import Report

__all__ = ["evaluate", "Report"]

Missing = Literal["zero", "skip", "error"]


def evaluate(
    qrels: Mapping[Hashable, Mapping[Hashable, float]],
    run: Mapping[Hashable, Mapping[Hashable, float] | Sequence[Hashable]],
    metrics: MetricLike | Iterable[MetricLike],
    relevance_level: float = 1,
    missing: Missing = "zero",
) -> Report:
    """Score every query of ``run`` against ``qrels`` with each metric.

    Parameters
    ----------
    qrels : mapping
        ``{query_id: {doc_id: grade}}``. A document is relevant when its grade is ``>= relevance_level``
        (binary metrics); DCG and nDCG use the grades as gains.
    run : mapping
        ``{query_id: {doc_id: score}}``, ranked by score descending with ties broken by doc id descending,
        exactly as trec_eval; or ``{query_id: [doc_id, ...]}`` already in rank order.
    metrics : str, Metric, or a list of them
        Names such as ``"ndcg@10"``, ``"mrr"``, ``"map@100"``, or :mod:`~rag_eval_adapters.measures` objects.
    relevance_level : number
        The lowest grade that counts as relevant (trec_eval ``-l``).
    missing : {"zero", "skip", "error"}
        What a query of ``qrels`` absent from ``run`` does: score 0 (trec_eval ``-c``, the default), be left
        out (pytrec_eval), or raise ``ValueError`` (trec_eval without ``-c``).

    Queries of ``run`` that are not in ``qrels`` are ignored and counted in ``report.counts["not_in_qrels"]``.
    A query whose input is invalid is recorded in ``report.errors`` and the rest are still scored.

    Examples
    --------
    >>> report = evaluate({"q1": {"d1": 1, "d2": 2}}, {"q1": ["d2", "d9", "d1"]}, ["ndcg@10", "mrr"])
    >>> report.mean["mrr"]
    1.0
    """
    measures = parse_metrics(metrics)
    level = check_level(relevance_level)
    if missing not in ("zero", "skip", "error"):
        raise ValueError(f"missing must be 'zero', 'skip' or 'error', got {missing!r}")
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
    n_absent = countOf(runs, ABSENT)
    if missing == "error" and n_absent:
        absent = [q for q, r in zip(query_ids, runs) if r is ABSENT]
        shown = ", ".join(repr(q) for q in absent[:5]) + (" ..." if len(absent) > 5 else "")
        raise ValueError(
            f"{len(absent)} queries of qrels are missing from the run ({shown}); "
            "pass missing='zero' to score them 0 or missing='skip' to leave them out"
        )
    if missing == "skip" and n_absent == len(qrels):
        raise ValueError("the run has no query in common with the qrels: check the query ids of both")

    expected = list(qrels.values()) if type(qrels) is dict else [qrels[q] for q in query_ids]
    if missing == "skip" and n_absent:
        keep = [r is not ABSENT for r in runs]
        query_ids, runs, expected = (list(compress(x, keep)) for x in (query_ids, runs, expected))
    ok, judged_stats, failures = judge_batch(expected, runs, query_ids, level)
    errors = {query_ids[i]: message for i, message in sorted(failures.items())}
    query_ids = [query_ids[i] for i in ok.tolist()]
    if not query_ids:
        first = next(iter(errors.items()))
        raise ValueError(f"no query could be scored; {len(errors)} errors, the first: {first[1]}")

    values = np.empty((len(query_ids), len(measures)), dtype=np.float64)
    for j, measure in enumerate(measures):
        values[:, j] = measure.compute(judged_stats)

    counts = {
        "queries": len(qrels),
        "scored": len(query_ids),
        "missing_from_run": n_absent,
        "not_in_qrels": _count_not_in(run, qrels),
        "errors": len(errors),
    }
    return Report(measures, query_ids, values, errors, counts, level)


def _entries(run: Mapping[Hashable, Any], query_ids: list[Hashable]) -> list[Any]:
    """``run[q]`` for each query id, :data:`ABSENT` where the run lacks it."""
    if type(run) is dict:
        return list(map(run.get, query_ids, repeat(ABSENT)))
    return [run[q] if q in run else ABSENT for q in query_ids]


def _count_not_in(run: Mapping[Hashable, Any], qrels: Mapping[Hashable, Any]) -> int:
    if type(run) is dict and type(qrels) is dict:
        return len(run.keys() - qrels.keys())
    return sum(1 for q in run if q not in qrels)
