"""Input checks shared by the per-query functions and the batch evaluation.

Every error names the field, and the query when one is known, and says how to fix the input. The checks of
single values (cutoff, level, gain, grade, score) live in :mod:`rag_eval_adapters.validation` and are
re-exported here.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from .validation import check_gain, check_grade, check_k, check_level, check_score, where

__all__ = [
    "where",
    "check_k",
    "check_gain",
    "check_level",
    "check_grade",
    "as_judgments",
    "as_ranking",
    "rank_by_score",
]


def _check_id(doc: Any, field: str, query_id: Any) -> None:
    if doc is None or not isinstance(doc, Hashable):
        raise TypeError(f"{where(query_id)}{field} holds {doc!r}, which is not a usable document id")


def as_judgments(expected: Any, query_id: Any = None, field: str = "expected") -> dict[Hashable, float]:
    """The expectation as {doc_id: grade}: a collection of ids (grade 1 each) or a mapping id -> grade."""
    if expected is None:
        raise ValueError(
            f"{where(query_id)}{field} is missing: pass the relevant document ids, or a mapping id -> grade"
        )
    if isinstance(expected, (str, bytes)):
        raise TypeError(
            f"{where(query_id)}{field} is a single string ({expected!r}); pass a list of ids, e.g. [{expected!r}]"
        )
    if isinstance(expected, Mapping):
        judged = {}
        for doc, grade in expected.items():
            _check_id(doc, field, query_id)
            judged[doc] = check_grade(grade, doc, field, query_id)
    elif isinstance(expected, Iterable):
        judged = {}
        for doc in expected:
            _check_id(doc, field, query_id)
            judged[doc] = 1.0
    else:
        raise TypeError(
            f"{where(query_id)}{field} must be a collection of ids or a mapping id -> grade, "
            f"got {type(expected).__name__}"
        )
    if not judged:
        raise ValueError(
            f"{where(query_id)}{field} is empty: a query needs at least one judged document to be scored"
        )
    return judged


def as_ranking(retrieved: Any, query_id: Any = None, field: str = "retrieved_ids") -> list[Hashable]:
    """The retrieved ids in rank order, each kept once at its first rank."""
    if retrieved is None:
        raise ValueError(f"{where(query_id)}{field} is missing: pass the retrieved ids in rank order ([] if none)")
    if isinstance(retrieved, (str, bytes)):
        raise TypeError(
            f"{where(query_id)}{field} is a single string ({retrieved!r}); pass a list of ids in rank order"
        )
    if isinstance(retrieved, Mapping):
        return rank_by_score(retrieved, query_id, field)
    if not isinstance(retrieved, Iterable):
        raise TypeError(
            f"{where(query_id)}{field} must be a list of ids in rank order, got {type(retrieved).__name__}"
        )
    ranking = list(retrieved)
    for doc in ranking:
        _check_id(doc, field, query_id)
    return list(dict.fromkeys(ranking))


def rank_by_score(scores: Mapping[Hashable, Any], query_id: Any = None, field: str = "run") -> list[Hashable]:
    """Doc ids ordered as trec_eval orders them: score descending, ties by doc id descending."""
    items = []
    for doc, score in scores.items():
        _check_id(doc, field, query_id)
        items.append((check_score(score, doc, field, query_id), doc))
    try:
        items.sort(reverse=True)
    except TypeError:
        raise TypeError(
            f"{where(query_id)}{field} mixes document id types that cannot be ordered to break score ties; "
            "use string ids"
        ) from None
    return [doc for _, doc in items]
