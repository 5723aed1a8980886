"""Reranker relevancy as LlamaIndex retrieval metrics (no expected ids needed)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from llama_index.core.bridge.pydantic import (
    Field,
    PrivateAttr,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    RetrievalMetricResult,
)

from ..rerank import (
    AGGREGATIONS,
    DEFAULT_COHERE_MODEL,
    CohereReranker,
    RelevanceScorer,
    RerankUsage,
    check_relevancy_options,
    cohere_repr_args,
    relevancy_key,
    relevancy_repr_args,
    rerank_relevancy_result,
)
from .metrics import _KeyedMetric, _where

__all__ = ["RerankRelevancyMetric", "CohereRerankRelevancyMetric"]


class RerankRelevancyMetric(_KeyedMetric):
    """Relevancy of the retrieved texts to the query, judged by a reranker: no expected ids needed.

    ``score = agg_i scorer(query, retrieved_texts[i])`` with ``agg`` in ``max`` (default), ``mean`` or ``median``
    (see :func:`rag_eval_adapters.rerank.rerank_relevancy`). The score is in [0, 1]: a scorer returning raw
    logits (``scorer.calibrated`` False, e.g. a cross-encoder) needs ``normalize="sigmoid"``
    (``1 / (1 + exp(-s))`` per text). No retrieved texts scores 0.0 without calling the scorer.

    ``agg`` is set on the instance because ``RetrieverEvaluator`` never forwards it to :meth:`compute`
    (``compute(..., agg="mean")`` still overrides it for one call). The result key (``metric_name`` of the
    instance) is ``rerank_relevancy`` for default options, else ``rerank_relevancy_<agg>`` and/or a
    ``_sigmoid`` suffix (``rerank_relevancy_mean``), so instances differing in options do not overwrite each
    other in ``RetrievalEvalResult.metric_dict``. Two instances differing only in scorer need ``key=``.

    Scorer errors (a :class:`~rag_eval_adapters.rerank.RerankError` once retries are exhausted) and invalid
    input propagate: :func:`evaluate_dataset` records that query as failed and scores the others.
    """

    _llama_name: ClassVar[str] = "rerank_relevancy"
    _keywords: ClassVar[tuple[str, ...]] = ("agg",)

    agg: Literal["max", "mean", "median"] = Field(default="max", description="Aggregation of the per-text scores.")
    normalize: Literal["sigmoid"] | None = Field(
        default=None, description="'sigmoid' maps uncalibrated scores (logits) into [0, 1] before aggregating."
    )
    _scorer: Any = PrivateAttr()
    _key: str | None = PrivateAttr(default=None)

    def __init__(
        self,
        scorer: RelevanceScorer,
        agg: Literal["max", "mean", "median"] = "max",
        normalize: Literal["sigmoid"] | None = None,
        *,
        key: str | None = None,
    ) -> None:
        check_relevancy_options(scorer, agg, normalize)
        if key is not None and (not isinstance(key, str) or not key):
            raise TypeError(f"key must be a non-empty string (the result key), got {key!r}")
        super().__init__(agg=agg, normalize=normalize)  # type: ignore[call-arg]  # pydantic: mypy reads the parent's fields only
        self._scorer = scorer
        self._key = key

    @property
    def scorer(self) -> RelevanceScorer:
        """The scorer judging each (query, text) pair."""
        return self._scorer

    @property
    def key(self) -> str:
        """The key of this metric's results in ``RetrievalEvalResult.metric_dict`` (see the class docstring)."""
        if self._key is not None:
            return self._key
        return relevancy_key(type(self)._llama_name, self.agg, self.normalize)

    def _scorer_repr_args(self) -> list[str]:
        return [f"scorer={self._scorer!r}"]

    def _repr_args(self) -> list[str]:
        args = relevancy_repr_args(self._scorer_repr_args(), self.agg, self.normalize)
        return [*args, f"key={self._key!r}"] if self._key is not None else args

    def _score(self, query: Any, expected_ids: Any, retrieved_ids: Any, expected_texts: Any, retrieved_texts: Any,
               agg: Literal["max", "mean", "median"] | None = None) -> RetrievalMetricResult:
        """The relevancy of ``retrieved_texts`` to ``query`` (see :meth:`compute`); no expectation is read."""
        if retrieved_texts is None:
            raise ValueError(
                f"{_where(query)}retrieved_texts is missing: {type(self).__name__} scores the retrieved texts "
                "against the query. RetrieverEvaluator passes them (mode='text', the default); in a direct "
                "call pass retrieved_texts=[node.get_content() for node in nodes] ([] scores 0.0)"
            )
        agg = self.agg if agg is None else agg
        result = rerank_relevancy_result(query, retrieved_texts, self._scorer, agg, normalize=self.normalize)
        return RetrievalMetricResult(
            score=result.score,
            metadata={"key": self.key, "agg": agg, "scores": result.scores, "scorer": result.scorer,
                      "normalize": result.normalize},
        )


class CohereRerankRelevancyMetric(RerankRelevancyMetric):
    """LlamaIndex's ``CohereRerankRelevancyMetric``, on :class:`~rag_eval_adapters.rerank.CohereReranker`.

    Same ``metric_name`` (``cohere_rerank_relevancy``) and, pointed at the same endpoint, the same numbers
    (``max`` / ``mean`` / ``median`` of Cohere's ``relevance_score`` over the retrieved texts). Differences: the
    default model is ``rerank-v3.5`` (LlamaIndex's ``rerank-english-v2.0`` is shut down), the v2 API, ``agg``
    settable on the instance (``RetrieverEvaluator`` never forwards it), key from ``api_key`` /
    ``$CO_API_KEY`` / ``$COHERE_API_KEY`` with a ``ValueError`` saying how to fix a missing one, ``base_url``
    for any Cohere-compatible endpoint, retries with back-off, batching beyond 1,000 texts, response
    validation, cost in :attr:`usage`, and no retrieved texts scores 0.0 (LlamaIndex's crashes or gives NaN).

    ``agg="mean"`` gives the key ``cohere_rerank_relevancy_mean`` (see :class:`RerankRelevancyMetric`). Other
    keyword arguments (``timeout``, ``max_retries``, ``max_docs_per_request``, ``cache``, ``client``, ...) go
    to :class:`~rag_eval_adapters.rerank.CohereReranker`.
    """

    _llama_name: ClassVar[str] = "cohere_rerank_relevancy"

    def __init__(
        self,
        model: str = DEFAULT_COHERE_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        agg: Literal["max", "mean", "median"] = "max",
        *,
        normalize: Literal["sigmoid"] | None = None,
        key: str | None = None,
        **reranker_kwargs: Any,
    ) -> None:
        if agg not in AGGREGATIONS:  # before the reranker asks for a key
            raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
        reranker = CohereReranker(model=model, api_key=api_key, base_url=base_url, **reranker_kwargs)
        super().__init__(reranker, agg=agg, normalize=normalize, key=key)

    @property
    def model(self) -> str:
        """The Cohere rerank model."""
        return self._scorer.model

    @property
    def usage(self) -> RerankUsage:
        """What the reranker has spent so far (requests, retries, billed search units, ...)."""
        return self._scorer.usage

    def _scorer_repr_args(self) -> list[str]:
        return cohere_repr_args(self._scorer)
