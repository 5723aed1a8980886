"""Retrieval metrics for one query.

Each metric function is derived from its class in the registry :mod:`rag_eval_adapters.measures` (the formula,
reference and examples are in the class docstring): ``hit_rate``, ``mrr``, ``precision``, ``recall``, ``f1``,
``average_precision``, ``r_precision``, ``dcg``, ``ndcg``, with the cutoff and the options as positional
parameters. ``idcg`` and the ``*_at_k`` functions of grades in rank order are written here.

Conventions shared by every function (the full definitions, with formulas, are in ``docs/metrics.md``):

* ``retrieved_ids`` is the ranking, best first (a mapping ``{id: score}`` is ranked as trec_eval ranks it:
  score descending, ties by id descending). A repeated id counts once, at its first rank.
* ``expected`` is a collection of relevant ids (each of grade 1) or a mapping ``{id: grade}``. A judged
  document is relevant when its grade is ``>= relevance_level``; an unjudged one never is (as in trec_eval,
  whatever the level). DCG and nDCG use the raw grades as gains, negative grades and unjudged ids counting 0.
  An empty or missing expectation is a ``ValueError``.
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

import inspect
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from ._kernel import Judged
from ._validation import as_judgments, check_gain, check_grade, check_k, finite
from .measures import METRICS, Metric

__all__ = [cls.function for cls in METRICS.values()] + ["idcg", "dcg_at_k", "idcg_at_k", "ndcg_at_k"]

Expected = Iterable[Hashable] | Mapping[Hashable, float]
Retrieved = Sequence[Hashable] | Mapping[Hashable, float]

_PARAMETERS_DOC = """
Parameters
----------
retrieved_ids : sequence or mapping
    The ranking, best first (a mapping ``{id: score}`` is ranked as trec_eval ranks).
expected : collection or mapping
    The relevant ids (grade 1 each) or ``{id: grade}``.
{options}relevance_level : float, keyword only
    The lowest grade that counts as relevant (unjudged ids never are).
query_id : hashable, keyword only
    Names the query in error messages.

Returns
-------
float
    The metric for this query.
"""
_OPTION_DOC = {
    "k": "k : int or None\n    The cutoff; None scores the whole ranking.\n",
    "granular": "granular : bool\n    The granular variant (see below).\n",
    "gain": "gain : {'linear', 'exponential'}\n    The gain of a grade: the grade itself, or 2**grade - 1.\n",
}


def _function(cls: type[Metric]) -> Callable[..., float]:
    """The per-query function of a registry metric: its options (cutoff first) as positional parameters."""
    options = [name for name in cls.model_fields if name != "rel" and (name != "k" or cls.cutoff)]
    defaults = {f"_{name}": cls.model_fields[name].default for name in options}
    source = (
        f"def {cls.function}(retrieved_ids, expected, "
        + "".join(f"{name}=_{name}, " for name in options)
        + "*, relevance_level=1, query_id=None):\n"
        + f"    return _metric({', '.join(f'{name}={name}' for name in options)})"
        + ".score(retrieved_ids, expected, relevance_level=relevance_level, query_id=query_id)\n"
    )
    namespace: dict[str, Any] = {"_metric": cls.of, "_cls": cls, **defaults}
    exec(source, namespace)  # a real function, with the registry's signature, as dataclasses builds __init__
    function = namespace[cls.function]
    function.__module__ = __name__
    function.__annotations__ = {"retrieved_ids": Retrieved, "expected": Expected, "relevance_level": float,
                                "query_id": Hashable | None, "return": float}
    summary, _, rest = inspect.getdoc(cls).partition("\n")
    function.__doc__ = (
        f"{summary}\n\nThe per-query form of :class:`rag_eval_adapters.measures.{cls.__name__}`.\n"
        + _PARAMETERS_DOC.replace("{options}", "".join(_OPTION_DOC[name] for name in options))
        + "\n" + rest.strip("\n") + "\n"
    )
    return function


_FUNCTIONS = {cls.function: _function(cls) for cls in METRICS.values()}
globals().update(_FUNCTIONS)  # every registry metric's function; the names below are spelled out for readers
hit_rate = _FUNCTIONS["hit_rate"]
mrr = _FUNCTIONS["mrr"]
precision = _FUNCTIONS["precision"]
recall = _FUNCTIONS["recall"]
f1 = _FUNCTIONS["f1"]
average_precision = _FUNCTIONS["average_precision"]
r_precision = _FUNCTIONS["r_precision"]
dcg = _FUNCTIONS["dcg"]
ndcg = _FUNCTIONS["ndcg"]


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
    return finite(float(Judged.from_rankings([[]], [as_judgments(expected, query_id)]).idcg(k, gain)[0]), "idcg",
                  query_id)


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
    return finite(float(Judged.from_grades(_grades(relevances)).dcg(k, gain)[0]), "dcg")


def idcg_at_k(relevances: Sequence[float], k: int | None = None, gain: str = "linear") -> float:
    """Ideal DCG at ``k`` of grades given in rank order: the DCG of the same grades sorted in descending order.

    >>> round(idcg_at_k([3, 2, 3, 0, 1], 5), 4)
    6.3235
    """
    k, gain = check_k(k), check_gain(gain)
    return finite(float(Judged.from_grades(_grades(relevances)).idcg(k, gain)[0]), "idcg")


def ndcg_at_k(relevances: Sequence[float], k: int | None = None, gain: str = "linear") -> float:
    """nDCG at ``k`` of grades given in rank order: dcg_at_k / idcg_at_k, 0.0 when the ideal is 0.

    >>> round(ndcg_at_k([3, 2, 3, 0, 1], 5), 4)
    0.9724
    """
    k, gain = check_k(k), check_gain(gain)
    return float(Judged.from_grades(_grades(relevances)).ndcg(k, gain)[0])
