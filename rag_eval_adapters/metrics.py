"""Retrieval metrics for one query.

Conventions shared by every function (the full definitions, with formulas, are in ``docs/metrics.md``):

* ``retrieved_ids`` is the ranking, best first (a mapping ``{id: score}`` is ranked as trec_eval ranks it:
  score descending, ties by id descending). A repeated id counts once, at its first rank.
* ``expected`` is a collection of relevant ids (each of grade 1) or a mapping ``{id: grade}``. A document is
  relevant when its grade is ``>= relevance_level``. DCG and nDCG use the raw grades as gains, negative
  grades counting 0. An empty or missing expectation is a ``ValueError``.
* ``k=None`` means the whole ranking. Every score but DCG lies in ``[0, 1]``; an empty ranking scores 0.
* ``query_id`` only names the query in error messages.

Example
-------
>>> from rag_eval_adapters.metrics import ndcg, precision
>>> precision(["d1", "d7", "d3"], {"d1", "d3"}, k=2)
0.5
>>> round(ndcg(["d1", "d7", "d3"], {"d1": 2, "d3": 1}), 4)
0.9502
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Union

from ._kernel import Judged
from ._validation import as_judgments, as_ranking, check_gain, check_grade, check_k, check_level

__all__ = [
    "hit_rate",
    "mrr",
    "precision",
    "recall",
    "f1",
    "average_precision",
    "r_precision",
    "dcg",
    "idcg",
    "ndcg",
    "dcg_at_k",
    "idcg_at_k",
    "ndcg_at_k",
]

Expected = Union[Iterable[Hashable], Mapping[Hashable, float]]
Retrieved = Union[Sequence[Hashable], Mapping[Hashable, float]]


def _finite(value: float, name: str, query_id: Hashable | None) -> float:
    """``value``, or a ValueError when a DCG overflows float64 (grades too large for the gain)."""
    if value != value or value in (float("inf"), float("-inf")):
        where = "" if query_id is None else f"query {query_id!r}: "
        raise ValueError(
            f"{where}{name} is not a finite number: the grades are too large; use grades whose gains and their "
            "sum fit in a float64 (below 1024 with exponential gain)"
        )
    return value


def _judge(retrieved_ids, expected, relevance_level, query_id) -> Judged:
    judged = as_judgments(expected, query_id)
    ranking = as_ranking(retrieved_ids, query_id)
    return Judged.from_rankings([ranking], [judged], check_level(relevance_level))


def hit_rate(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    granular: bool = False,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """Hit rate at ``k``: 1.0 if any relevant id is ranked within ``k``, else 0.0.

    With ``granular=True``: (distinct relevant ids within ``k``) / (number of relevant ids), as LlamaIndex's
    ``HitRate(use_granular_hit_rate=True)``.

    >>> hit_rate(["a", "b", "c"], ["c", "x"], k=2)
    0.0
    >>> hit_rate(["a", "b", "c"], ["c", "x"], granular=True)
    0.5
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).hit_rate(k, bool(granular))[0])


def mrr(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    granular: bool = False,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """Reciprocal rank at ``k``: 1/rank of the first relevant id ranked within ``k``, else 0.0.

    With ``granular=True``: the mean of 1/rank over the relevant ids found within ``k`` (LlamaIndex's
    ``MRR(use_granular_mrr=True)``). Without a cutoff this is trec_eval's ``recip_rank``.

    >>> mrr(["a", "b", "c"], ["b", "c"])
    0.5
    >>> round(mrr(["a", "b", "c"], ["b", "c"], granular=True), 4)
    0.4167
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).mrr(k, bool(granular))[0])


def precision(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """Precision at ``k``: (relevant ids within ``k``) / ``k``, as trec_eval's ``P_k``.

    With ``k=None`` the denominator is the number of distinct retrieved ids.

    >>> precision(["a", "b"], ["a"], k=4)
    0.25
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).precision(k)[0])


def recall(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """Recall at ``k``: (relevant ids within ``k``) / (number of relevant ids), as trec_eval's ``recall_k``.

    >>> recall(["a", "b", "c"], ["a", "c", "z"], k=2)
    0.3333333333333333
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).recall(k)[0])


def f1(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """F1 at ``k``: 2PR / (P + R) of precision and recall at ``k``; 0.0 when both are 0.

    >>> f1(["a", "b"], ["a", "c"])
    0.5
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).f1(k)[0])


def average_precision(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """Average precision at ``k``: sum of precision@i over relevant ranks i <= k, over the number of relevant ids.

    trec_eval's ``map`` (``k=None``) and ``map_cut_k``.

    >>> average_precision(["a", "x", "b"], ["a", "b"])
    0.8333333333333333
    """
    k = check_k(k)
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).average_precision(k)[0])


def r_precision(
    retrieved_ids: Retrieved,
    expected: Expected,
    *,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """R-precision: (relevant ids within the top R) / R, with R the number of relevant ids (trec_eval ``Rprec``).

    >>> r_precision(["a", "x", "b"], ["a", "b"])
    0.5
    """
    return float(_judge(retrieved_ids, expected, relevance_level, query_id).r_precision()[0])


def dcg(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    gain: str = "linear",
    *,
    query_id: Hashable | None = None,
) -> float:
    """Discounted cumulative gain at ``k``: sum over ranks i <= k of gain(rel_i) / log2(i + 1).

    ``gain="linear"``: gain(rel) = rel (trec_eval); ``"exponential"``: 2**rel - 1. Unjudged ids have rel 0.

    >>> round(dcg(["a", "b"], {"a": 3, "b": 2}), 4)
    4.2619
    """
    k, gain = check_k(k), check_gain(gain)
    return _finite(float(_judge(retrieved_ids, expected, 1, query_id).dcg(k, gain)[0]), "dcg", query_id)


def idcg(
    expected: Expected,
    k: int | None = None,
    gain: str = "linear",
    *,
    query_id: Hashable | None = None,
) -> float:
    """Ideal DCG at ``k``: the DCG of every judged grade in descending order, cut at ``k``.

    >>> round(idcg({"a": 1, "b": 3}, k=1), 4)
    3.0
    """
    k, gain = check_k(k), check_gain(gain)
    return _finite(float(Judged.from_rankings([[]], [as_judgments(expected, query_id)]).idcg(k, gain)[0]), "idcg",
                   query_id)


def ndcg(
    retrieved_ids: Retrieved,
    expected: Expected,
    k: int | None = None,
    gain: str = "linear",
    *,
    query_id: Hashable | None = None,
) -> float:
    """Normalized DCG at ``k``: dcg@k / idcg@k, 0.0 when idcg@k is 0 (trec_eval ``ndcg`` and ``ndcg_cut_k``).

    >>> ndcg(["b", "a"], {"a": 1, "b": 1})
    1.0
    """
    k, gain = check_k(k), check_gain(gain)
    return float(_judge(retrieved_ids, expected, 1, query_id).ndcg(k, gain)[0])


def _grades(relevances: Iterable[float]) -> list[float]:
    if relevances is None or isinstance(relevances, (str, bytes, Mapping)) or not isinstance(relevances, Iterable):
        raise TypeError(f"relevances must be a list of grades in rank order, e.g. [3, 2, 0, 1], got {relevances!r}")
    return [check_grade(g, i, "relevances", None) for i, g in enumerate(relevances)]


def dcg_at_k(relevances: Sequence[float], k: int | None = None, gain: str = "linear") -> float:
    """DCG at ``k`` of grades given in rank order: sum over i <= k of gain(rel_i) / log2(i + 1).

    >>> round(dcg_at_k([3, 2, 3, 0, 1], 5), 4)
    6.1487
    """
    k, gain = check_k(k), check_gain(gain)
    return _finite(float(Judged.from_grades(_grades(relevances)).dcg(k, gain)[0]), "dcg", None)


def idcg_at_k(relevances: Sequence[float], k: int | None = None, gain: str = "linear") -> float:
    """Ideal DCG at ``k`` of grades given in rank order: the DCG of the same grades sorted in descending order.

    >>> round(idcg_at_k([3, 2, 3, 0, 1], 5), 4)
    6.3235
    """
    k, gain = check_k(k), check_gain(gain)
    return _finite(float(Judged.from_grades(_grades(relevances)).idcg(k, gain)[0]), "idcg", None)


def ndcg_at_k(relevances: Sequence[float], k: int | None = None, gain: str = "linear") -> float:
    """nDCG at ``k`` of grades given in rank order: dcg_at_k / idcg_at_k, 0.0 when the ideal is 0.

    >>> round(ndcg_at_k([3, 2, 3, 0, 1], 5), 4)
    0.9724
    """
    k, gain = check_k(k), check_gain(gain)
    return float(Judged.from_grades(_grades(relevances)).ndcg(k, gain)[0])
