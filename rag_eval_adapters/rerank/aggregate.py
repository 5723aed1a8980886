"""``rerank_relevancy``: aggregate a scorer's per-text scores into one relevancy score per query."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..progress import progress_bar
from ..validation import check_count
from .base import RelevanceScorer, check_scores, validate_query_texts
from .errors import short_query

__all__ = [
    "AGGREGATIONS",
    "RelevancyResult",
    "BatchRelevancy",
    "aggregate_scores",
    "relevancy_key",
    "relevancy_repr_args",
    "check_relevancy_options",
    "rerank_relevancy",
    "arerank_relevancy",
    "rerank_relevancy_result",
    "arerank_relevancy_result",
    "rerank_relevancy_batch",
    "arerank_relevancy_batch",
]

Agg = Literal["max", "mean", "median"]
Normalize = Literal["sigmoid"] | None
AGGREGATIONS: tuple[str, ...] = ("max", "mean", "median")
_REDUCERS: dict[str, Callable[[np.ndarray], Any]] = {"max": np.max, "mean": np.mean, "median": np.median}
NORMALIZATIONS: tuple[str, ...] = ("sigmoid",)


@dataclass(frozen=True)
class RelevancyResult:
    """One query's relevancy: ``score`` = ``agg`` over ``scores`` (per text, input order, after ``normalize``)."""

    score: float
    scores: list[float]
    agg: str
    scorer: str
    normalize: str | None = None


@dataclass
class BatchRelevancy:
    """Relevancy of many queries: ``scores`` {qid: score}, ``details`` {qid: RelevancyResult} and ``errors``
    {qid: message} for the queries that failed (they have no score; the others are still scored). Query ids
    are the keys given to the batch, unchanged."""

    scores: dict[Hashable, float] = field(default_factory=dict)
    details: dict[Hashable, RelevancyResult] = field(default_factory=dict)
    errors: dict[Hashable, str] = field(default_factory=dict)

    def mean(self) -> float | None:
        """Mean score over the scored queries (None when none was scored)."""
        return float(np.mean(list(self.scores.values()))) if self.scores else None


def relevancy_key(base: str, agg: str = "max", normalize: str | None = None) -> str:
    """The result key of a relevancy: ``base`` with default options, else ``base_<agg>`` (agg other than max)
    then ``_<normalize>``, e.g. ``cohere_rerank_relevancy_mean_sigmoid``. Both adapters name results this way."""
    return base + ("" if agg == "max" else f"_{agg}") + (f"_{normalize}" if normalize else "")


def relevancy_repr_args(scorer_args: list[str], agg: str = "max", normalize: str | None = None) -> list[str]:
    """The arguments of a relevancy evaluator's ``repr``: ``scorer_args`` (``["scorer=..."]``, or a Cohere
    reranker's :func:`~rag_eval_adapters.rerank.cohere_repr_args`), then ``agg`` and ``normalize`` where they
    are not the defaults. Both adapters' evaluators and metrics show their options this way."""
    args = list(scorer_args)
    if agg != "max":
        args.append(f"agg={agg!r}")
    if normalize is not None:
        args.append(f"normalize={normalize!r}")
    return args


def check_relevancy_options(scorer: object, agg: object, normalize: object) -> None:
    """Raise a clear error unless ``scorer``, ``agg`` and ``normalize`` can make a relevancy in [0, 1]."""
    if agg not in AGGREGATIONS:
        raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
    if normalize is not None and normalize not in NORMALIZATIONS:
        raise ValueError(f"normalize must be None or 'sigmoid'; got {normalize!r}")
    if not isinstance(scorer, RelevanceScorer):
        raise TypeError(
            f"scorer must implement the RelevanceScorer protocol (name, calibrated, score, ascore); got "
            f"{type(scorer).__name__}. Use LexicalScorer(), CohereReranker(...) or CallableScorer(fn, ...)."
        )
    calibrated = bool(getattr(scorer, "calibrated", False))
    if not calibrated and normalize is None:
        raise ValueError(
            f"{scorer!r} returns uncalibrated scores (not in [0, 1]); a relevancy must lie in [0, 1]. "
            "Pass normalize='sigmoid' to map each score s to 1 / (1 + exp(-s)) first (right for logits, e.g. "
            "cross-encoders), or use a calibrated scorer."
        )
    if calibrated and normalize is not None:
        raise ValueError(
            f"{scorer!r} already returns calibrated scores in [0, 1]; normalize={normalize!r} would distort them. "
            "Drop normalize."
        )


def _sigmoid(s: float) -> float:
    if s >= 0:
        return 1.0 / (1.0 + math.exp(-s))
    e = math.exp(s)
    return e / (1.0 + e)


def aggregate_scores(scores: Sequence[float], agg: Agg = "max") -> float:
    """Aggregate per-text scores: ``max``, ``mean`` or ``median`` (even count: mean of the two middle values).

    No scores gives 0.0. Scores are aggregated in descending order with numpy, which is the order Cohere
    returns them in, so the number is bit-for-bit what LlamaIndex's ``CohereRerankRelevancyMetric``
    (``np.max`` / ``np.mean`` / ``np.median`` over the response) returns for the same response.
    """
    if agg not in AGGREGATIONS:
        raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
    if len(scores) == 0:
        return 0.0
    arr = np.asarray(sorted((float(s) for s in scores), reverse=True), dtype=float)
    return float(_REDUCERS[agg](arr))


def _finish(query: str, texts: list[str], raw: Sequence[float], scorer: RelevanceScorer, agg: Agg,
            normalize: Normalize) -> RelevancyResult:
    calibrated = bool(scorer.calibrated)
    scores = check_scores(query, texts, raw, calibrated=calibrated, source=repr(scorer))
    if normalize == "sigmoid":
        scores = [_sigmoid(s) for s in scores]
    score = aggregate_scores(scores, agg)
    if not 0.0 <= score <= 1.0 or not math.isfinite(score):  # cannot happen after the checks above
        raise ValueError(f"relevancy {score} for query {short_query(query)} is outside [0, 1]")
    return RelevancyResult(score=score, scores=scores, agg=agg, scorer=scorer.name, normalize=normalize)


def _checked_texts(query: str, texts: Sequence[str], scorer: RelevanceScorer, agg: Agg,
                   normalize: Normalize) -> list[str]:
    """The texts to score, after the options and the query and texts are checked."""
    check_relevancy_options(scorer, agg, normalize)
    return validate_query_texts(query, texts)


def _no_texts(scorer: RelevanceScorer, agg: Agg, normalize: Normalize) -> RelevancyResult:
    """The relevancy of a query with nothing retrieved: 0."""
    return RelevancyResult(score=0.0, scores=[], agg=agg, scorer=scorer.name, normalize=normalize)


def rerank_relevancy_result(
    query: str, texts: Sequence[str], scorer: RelevanceScorer, agg: Agg = "max", *, normalize: Normalize = None
) -> RelevancyResult:
    """Like :func:`rerank_relevancy` but returns the per-text scores too."""
    items = _checked_texts(query, texts, scorer, agg, normalize)
    if not items:
        return _no_texts(scorer, agg, normalize)
    return _finish(query, items, scorer.score(query, items), scorer, agg, normalize)


async def arerank_relevancy_result(
    query: str, texts: Sequence[str], scorer: RelevanceScorer, agg: Agg = "max", *, normalize: Normalize = None
) -> RelevancyResult:
    """Async :func:`rerank_relevancy_result` (uses ``scorer.ascore``)."""
    items = _checked_texts(query, texts, scorer, agg, normalize)
    if not items:
        return _no_texts(scorer, agg, normalize)
    return _finish(query, items, await scorer.ascore(query, items), scorer, agg, normalize)


def rerank_relevancy(
    query: str, texts: Sequence[str], scorer: RelevanceScorer, agg: Agg = "max", *, normalize: Normalize = None
) -> float:
    """Relevancy of a retrieval without expected ids: ``agg`` over the scorer's score of every (query, text).

    ``relevancy = agg_i score(query, texts[i])`` with ``agg`` in ``max`` (default; "is anything retrieved
    relevant?"), ``mean`` or ``median``. No texts scores 0.0 and sends no request. The result is in [0, 1]:
    scorers that are not calibrated (``scorer.calibrated`` False, e.g. cross-encoder logits) are refused with
    a ValueError unless ``normalize="sigmoid"`` maps each score ``s`` to ``1 / (1 + exp(-s))`` first.
    """
    return rerank_relevancy_result(query, texts, scorer, agg, normalize=normalize).score


async def arerank_relevancy(
    query: str, texts: Sequence[str], scorer: RelevanceScorer, agg: Agg = "max", *, normalize: Normalize = None
) -> float:
    """Async :func:`rerank_relevancy`."""
    return (await arerank_relevancy_result(query, texts, scorer, agg, normalize=normalize)).score


def _batch_items(items: Mapping[Hashable, tuple[str, Sequence[str]]]) -> list[tuple[Hashable, str, Sequence[str]]]:
    """The (qid, query, texts) rows, each query id kept exactly as given (``1`` and ``"1"`` stay two
    queries); a malformed pair is refused naming its id."""
    if not isinstance(items, Mapping):
        raise TypeError("items must be a mapping {query_id: (query, texts)}")
    out = []
    for qid, pair in items.items():
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"items[{qid!r}] must be a (query, texts) pair, got {type(pair).__name__}")
        out.append((qid, pair[0], pair[1]))
    return out


def rerank_relevancy_batch(
    items: Mapping[Hashable, tuple[str, Sequence[str]]],
    scorer: RelevanceScorer,
    agg: Agg = "max",
    *,
    normalize: Normalize = None,
    progress: bool | None = None,
) -> BatchRelevancy:
    """:func:`rerank_relevancy` for every ``{qid: (query, texts)}``, one after another (progress bar on a TTY).

    A query that fails for any reason (bad input, endpoint error after retries, a scorer's own exception) is
    recorded in ``errors`` with its message; the others are still scored. Results are keyed by the query ids
    exactly as given (``1`` and ``"1"`` are two queries). ``progress=False`` hides the bar; otherwise it is
    drawn on a terminal unless ``TQDM_DISABLE`` says no (:mod:`rag_eval_adapters.progress`).
    """
    check_relevancy_options(scorer, agg, normalize)
    rows = _batch_items(items)
    result = BatchRelevancy()
    for qid, query, texts in progress_bar(rows, desc="rerank relevancy", unit="query", show=progress):
        try:
            res = rerank_relevancy_result(query, texts, scorer, agg, normalize=normalize)
        except Exception as exc:  # noqa: BLE001 - one query's failure is recorded, the batch goes on
            result.errors[qid] = f"{type(exc).__name__}: {exc}"
            continue
        result.scores[qid], result.details[qid] = res.score, res
    return result


async def arerank_relevancy_batch(
    items: Mapping[Hashable, tuple[str, Sequence[str]]],
    scorer: RelevanceScorer,
    agg: Agg = "max",
    *,
    normalize: Normalize = None,
    max_concurrency: int = 16,
) -> BatchRelevancy:
    """Async :func:`rerank_relevancy_batch`: queries are scored concurrently, at most ``max_concurrency`` at
    once (a :class:`CohereReranker` also caps its own in-flight requests)."""
    check_relevancy_options(scorer, agg, normalize)
    max_concurrency = check_count(max_concurrency, "max_concurrency")
    rows = _batch_items(items)
    gate = asyncio.Semaphore(max_concurrency)

    async def one(query: str, texts: Sequence[str]) -> RelevancyResult:
        async with gate:
            return await arerank_relevancy_result(query, texts, scorer, agg, normalize=normalize)

    outcomes = await asyncio.gather(*(one(q, t) for _, q, t in rows), return_exceptions=True)
    result = BatchRelevancy()
    for (qid, _, _), outcome in zip(rows, outcomes, strict=False):
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, Exception):
                raise outcome
            result.errors[qid] = f"{type(outcome).__name__}: {outcome}"
        else:
            result.scores[qid], result.details[qid] = outcome.score, outcome
    return result

