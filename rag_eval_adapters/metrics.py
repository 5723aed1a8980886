"""Retrieval metrics for one query.

Each metric function is derived from its class in the registry :mod:`rag_eval_adapters.measures` (the formula,
reference and examples are in the class docstring): ``hit_rate``, ``mrr``, ``precision``, ``recall``, ``f1``,
``average_precision``, ``r_precision``, ``dcg``, ``ndcg``, ``judged``, with the cutoff and the options as positional
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
from .measures import DCG, F1, MRR, NDCG, AveragePrecision, HitRate, JudgedShare, Metric, Precision, Recall, RPrecision

__all__ = ["hit_rate", "mrr", "precision", "recall", "f1", "average_precision", "r_precision", "dcg", "ndcg", "judged",
           "idcg",
           "dcg_at_k", "idcg_at_k", "ndcg_at_k"]

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


def _function_for(cls: type[Metric]) -> Callable[..., float]:
    """The per-query function of a registry metric: ``f(retrieved_ids, expected, <options>, *, relevance_level,
    query_id)``, its options (cutoff first) positional, as its class declares them; signature and docstring
    derived from the class (the adapters' classes are made from the same declarations)."""
    options = cls.option_parameters(exclude=("rel",))
    names = [option.name for option in options]
    defaults = {option.name: option.default for option in options}
    title = cls.function

    def function(retrieved_ids: Retrieved, expected: Expected, *args: Any, relevance_level: float = 1,
                 query_id: Hashable | None = None, **kwargs: Any) -> float:
        if len(args) > len(names):
            raise TypeError(f"{title}() takes {2 + len(names)} positional arguments but {2 + len(args)} were given")
        given = dict(zip(names, args, strict=False))
        for name in kwargs:
            if name not in defaults:
                raise TypeError(f"{title}() got an unexpected keyword argument {name!r}")
            if name in given:
                raise TypeError(f"{title}() got multiple values for argument {name!r}")
        values = {**defaults, **given, **kwargs}
        metric = cls.of(**values)
        return metric.score(retrieved_ids, expected, relevance_level=relevance_level, query_id=query_id)

    P = inspect.Parameter
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [P("retrieved_ids", P.POSITIONAL_OR_KEYWORD, annotation=Retrieved),
         P("expected", P.POSITIONAL_OR_KEYWORD, annotation=Expected), *options,
         P("relevance_level", P.KEYWORD_ONLY, default=1, annotation=float),
         P("query_id", P.KEYWORD_ONLY, default=None, annotation=Hashable | None)],
        return_annotation=float,
    )
    function.__name__ = function.__qualname__ = title
    function.__module__ = __name__
    summary, _, rest = (inspect.getdoc(cls) or "").partition("\n")
    function.__doc__ = (
        f"{summary}\n\nThe per-query form of :class:`rag_eval_adapters.measures.{cls.__name__}`.\n"
        + _PARAMETERS_DOC.replace("{options}", "".join(_OPTION_DOC[name] for name in names))
        + "\n" + rest.strip("\n") + "\n"
    )
    return function


# one function per registry metric, each named here so that readers, IDEs and type checkers see it
hit_rate = _function_for(HitRate)
mrr = _function_for(MRR)
precision = _function_for(Precision)
recall = _function_for(Recall)
f1 = _function_for(F1)
average_precision = _function_for(AveragePrecision)
r_precision = _function_for(RPrecision)
dcg = _function_for(DCG)
ndcg = _function_for(NDCG)
judged = _function_for(JudgedShare)


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
