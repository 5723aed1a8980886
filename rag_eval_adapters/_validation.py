"""Input checks shared by the per-query functions and the batch evaluation.

Every error names the field, and the query when one is known, and says how to fix the input. The checks of
single values (cutoff, level, gain, grade, score) live in :mod:`rag_eval_adapters.validation` and are
re-exported here.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Set
from typing import Any

from ._ranking import trec_order
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
    "as_entry",
    "twice_message",
    "finite",
]


def finite(value: float, name: str, query_id: Any = None) -> float:
    """``value``, or a ``ValueError`` naming the query when a metric overflows float64 (a DCG of huge grades)."""
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(
            f"{where(query_id)}{name} is not a finite number: the grades are too large; use grades whose gains "
            "and their sum fit in a float64 (below 1024 with exponential gain)"
        )
    return value


def twice_message(query_id: Any, field: str, doc: Any, what: str) -> str:
    """The error of an input that gives one document two grades or two scores."""
    verb = "judges" if what == "grade" else f"{what}s"
    return f"{where(query_id)}{field} {verb} a document twice ({doc!r}); keep one {what} per document"


def _is_pandas(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "pandas"


def _default_index(series: Any) -> bool:
    index = series.index
    return type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1


def as_entry(value: Any, query_id: Any, field: str) -> Any:
    """A run or qrels entry in plain Python form: what the validators below take.

    * a pandas Series with an index of doc ids is the mapping ``{doc_id: value}``; with the default index
      (0, 1, ...) its values are a list of ids;
    * a 1-D numpy array is a list of ids (``.tolist()``, so numpy scalars become Python ids);
    * a list or tuple of ``(doc_id, number)`` pairs is ``{doc_id: number}``; a document given twice is an error.

    Anything else is returned as it is.
    """
    if _is_pandas(value) and hasattr(value, "index") and hasattr(value, "tolist"):
        if getattr(value, "ndim", 1) != 1:
            raise TypeError(f"{where(query_id)}{field} is a {type(value).__name__}; pass a list of ids, a mapping "
                            "or a pandas Series")
        return value.tolist() if _default_index(value) else dict(zip(value.index.tolist(), value.tolist(), strict=False))
    if type(value).__module__ == "numpy" and hasattr(value, "ndim"):
        if value.ndim != 1:
            raise TypeError(
                f"{where(query_id)}{field} is a {value.ndim}-D array of shape {value.shape}; pass a 1-D array of "
                "ids in rank order (or a mapping id -> score)"
            )
        return value.tolist()
    if isinstance(value, (list, tuple)) and value and all(map(_is_pair, value)):
        pairs: dict[Hashable, Any] = {}
        for doc, number in value:
            _check_id(doc, field, query_id)
            if doc in pairs:
                raise ValueError(twice_message(query_id, field, doc, "score" if field != "qrels" else "grade"))
            pairs[doc] = number
        return pairs
    return value


def _is_pair(item: Any) -> bool:
    return (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], numbers.Number)
            and not isinstance(item[1], bool))


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
    expected = as_entry(expected, query_id, field)
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
    retrieved = as_entry(retrieved, query_id, field)
    if isinstance(retrieved, Mapping):
        return rank_by_score(retrieved, query_id, field)
    if isinstance(retrieved, Set):
        raise TypeError(
            f"{where(query_id)}{field} is a {type(retrieved).__name__}, which has no order; pass the ids in rank "
            "order (a list) or a mapping id -> score"
        )
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
        return trec_order(items)
    except TypeError:
        raise TypeError(
            f"{where(query_id)}{field} mixes document id types that cannot be ordered to break score ties; "
            "use string ids"
        ) from None
