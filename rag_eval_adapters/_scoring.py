"""The one path every batch front door shares once its input is turned into statistics.

:func:`rag_eval_adapters.evaluate` (Python dicts and lists) and :func:`rag_eval_adapters.evaluate_columns`
(columns) differ only in how they read and validate their input. From there on they share this module: the
``missing`` policy and its messages (:func:`check_missing`, :func:`apply_missing`), the assembly of the
:class:`~rag_eval_adapters._kernel.Judged` statistics (:func:`assemble`), and the metric loop, the counts and
the per-query errors of the :class:`~rag_eval_adapters.evaluation.Report` (:func:`finish`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np

from ._kernel import Judged
from ._ranking import group_sort, position_in_group, sort_desc_in_groups
from .measures import Metric, MetricLike, parse_metrics
from .validation import MISSING, check_missing  # the value vocabulary's; kept importable here

__all__ = ["Missing", "MISSING", "check_metrics", "check_missing", "apply_missing", "assemble", "finish"]

Missing = Literal["zero", "skip", "error"]


def check_metrics(metrics: MetricLike | Iterable[MetricLike] | None) -> list[Metric]:
    """The metrics asked for, parsed; ``None`` or an empty list is an error naming the argument
    (:func:`~rag_eval_adapters.measures.parse_metrics`)."""
    return parse_metrics(metrics)


def apply_missing(absent: Sequence[Hashable], n_queries: int, missing: str) -> None:
    """Raise what the ``missing`` policy says about the qrels queries ``absent`` from the run."""
    if missing == "error" and absent:
        shown = ", ".join(repr(q) for q in absent[:5]) + (" ..." if len(absent) > 5 else "")
        raise ValueError(
            f"{len(absent)} queries of qrels are missing from the run ({shown}); "
            "pass missing='zero' to score them 0 or missing='skip' to leave them out"
        )
    if missing == "skip" and len(absent) == n_queries:
        raise ValueError("the run has no query in common with the qrels: check the query ids of both")


def assemble(
    n_ret: np.ndarray,
    n_rel: np.ndarray,
    hit_q: np.ndarray,
    hit_rank: np.ndarray,
    hit_grade: np.ndarray,
    ideal_q: np.ndarray,
    ideal_grade: np.ndarray,
    relevance_level: float,
) -> Judged:
    """:class:`Judged` from hit and ideal rows in any order (sorted here by query, then rank / grade)."""
    order = group_sort(hit_q, hit_rank)
    sorted_grades = sort_desc_in_groups(ideal_q, ideal_grade)
    if sorted_grades is None:
        iorder = group_sort(ideal_q, -ideal_grade)
        ideal_q, sorted_grades = ideal_q[iorder], ideal_grade[iorder]
    return Judged(
        n_ret=np.asarray(n_ret, dtype=np.int64),
        n_rel=np.asarray(n_rel, dtype=np.int64),
        hit_q=hit_q[order],
        hit_rank=hit_rank[order],
        hit_grade=hit_grade[order],
        ideal_q=ideal_q,
        ideal_pos=position_in_group(ideal_q),
        ideal_grade=sorted_grades,
        relevance_level=float(relevance_level),
    )


def finish(
    measures: Sequence[Metric],
    compute: Callable[[Metric], np.ndarray] | Judged,
    query_ids: Sequence[Hashable],
    errors: Mapping[Hashable, str],
    counts: Mapping[str, int],
    relevance_level: float,
    top_grades: np.ndarray | None = None,
):
    """The :class:`~rag_eval_adapters.evaluation.Report` of the scored queries.

    ``compute(metric)`` gives one value per query of ``query_ids`` (a :class:`Judged` stands for
    ``metric.compute(judged)``). A query with a value that is not finite (a DCG overflowing float64) joins
    ``errors`` with a message naming the metric and its largest grade (``top_grades``), and the others are
    still reported. Raises ``ValueError`` when no query could be scored.
    """
    from .report import Report

    errors = dict(errors)
    query_ids = list(query_ids)
    judged = compute if isinstance(compute, Judged) else None
    values = np.empty((len(query_ids), len(measures)), dtype=np.float64)
    for j, measure in enumerate(measures):
        if query_ids:
            values[:, j] = measure.compute(compute) if isinstance(compute, Judged) else compute(measure)
    bad = ~np.isfinite(values).all(axis=1)
    if bad.any():
        if top_grades is None and judged is not None:
            top_grades = np.zeros(judged.n_queries)
            np.maximum.at(top_grades, judged.ideal_q, judged.ideal_grade)
        for i in np.flatnonzero(bad).tolist():
            key = measures[int(np.argmin(np.isfinite(values[i])))].label
            grade = "" if top_grades is None else f" its largest grade, {float(top_grades[i])!r}, is too large:"
            errors[query_ids[i]] = (
                f"query {query_ids[i]!r}: {key} is not a finite number;{grade} use grades whose gains and their "
                "sum fit in a float64 (below 1024 with exponential gain)"
            )
        keep = np.logical_not(bad)
        values = values[keep]
        query_ids = [q for q, k in zip(query_ids, keep.tolist(), strict=False) if k]
    if not query_ids:
        if not errors:
            raise ValueError("no query could be scored")
        first = next(iter(errors.values()))
        raise ValueError(f"no query could be scored; {len(errors)} errors, the first: {first}")
    counts = {**counts, "scored": len(query_ids), "errors": len(errors)}
    return Report(measures, query_ids, values, errors, counts, relevance_level)
