"""Input checks shared by the per-query functions and the batch evaluation.

Every error names the field, and the query when one is known, and says how to fix the input.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from ._kernel import GAINS

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


def where(query_id: Any) -> str:
    """The prefix naming the query in an error message."""
    return "" if query_id is None else f"query {query_id!r}: "


def check_k(k: Any, field: str = "k") -> int | None:
    """A cutoff: None (the whole list) or a positive int."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{field} must be a positive int or None (the whole list), got {k!r}")
    if k < 1:
        raise ValueError(f"{field} must be a positive int or None (the whole list), got {k!r}")
    return int(k)


def check_gain(gain: Any) -> str:
    if gain not in GAINS:
        raise ValueError(f"gain must be 'linear' (g = rel) or 'exponential' (g = 2**rel - 1), got {gain!r}")
    return gain


def check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not math.isfinite(level):
        raise TypeError(f"relevance_level must be a finite number (a grade threshold), got {level!r}")
    return float(level)


def check_grade(grade: Any, doc: Any, field: str, query_id: Any) -> float:
    if isinstance(grade, bool) or not isinstance(grade, numbers.Real):
        raise TypeError(
            f"{where(query_id)}{field}[{doc!r}] must be a number (a relevance grade), got {grade!r}"
        )
    value = float(grade)
    if not math.isfinite(value):
        raise ValueError(f"{where(query_id)}{field}[{doc!r}] must be a finite grade, got {grade!r}")
    return value


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
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            raise TypeError(f"{where(query_id)}{field}[{doc!r}] must be a numeric score, got {score!r}")
        value = float(score)
        if math.isnan(value):
            raise ValueError(f"{where(query_id)}{field}[{doc!r}] is NaN; scores must be numbers to rank by")
        items.append((value, doc))
    try:
        items.sort(reverse=True)
    except TypeError:
        raise TypeError(
            f"{where(query_id)}{field} mixes document id types that cannot be ordered to break score ties; "
            "use string ids"
        ) from None
    return [doc for _, doc in items]
