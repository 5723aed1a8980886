"""Reranker relevancy as LlamaIndex retrieval metrics (no expected ids needed)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from llama_index.core.bridge.pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    BaseRetrievalMetric,
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
from .metrics import _MetricName, _where

__all__ = ["RerankRelevancyMetric", "CohereRerankRelevancyMetric"]


class RerankRelevancyMetric(BaseRetrievalMetric):
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

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid")

    metric_name = _MetricName()
    _llama_name: ClassVar[str] = "rerank_relevancy"

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
        super().__init__(agg=agg, normalize=normalize)
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

    def _repr_args(self) -> list[str]:
        return [f"scorer={self._scorer!r}"]

    def __repr__(self) -> str:
        args = relevancy_repr_args(self._repr_args(), self.agg, self.normalize)
        if self._key is not None:
            args.append(f"key={self._key!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    __str__ = __repr__

    def compute(
        self,
        query: str | None = None,
        expected_ids: list[str] | None = None,
        retrieved_ids: list[str] | None = None,
        expected_texts: list[str] | None = None,
        retrieved_texts: list[str] | None = None,
        agg: Literal["max", "mean", "median"] | None = None,
        **kwargs: Any,
    ) -> RetrievalMetricResult:
        """Score one query (LlamaIndex's call; synchronous, as ``RetrieverEvaluator.aevaluate`` calls it).

        Args:
            query: the query text (required: the reranker scores it against each text).
            expected_ids, retrieved_ids, expected_texts: ignored (this metric needs no expectation).
            retrieved_texts: the retrieved texts, best first (``RetrieverEvaluator`` passes them). ``[]``
                scores 0.0.
            agg: ``max``, ``mean`` or ``median`` for this call (default: the instance's ``agg``).

        Returns:
            ``RetrievalMetricResult(score, metadata={"key", "agg", "scores", "scorer", "normalize"})``, with
            ``scores`` the per-text scores in input order.

        Raises:
            ValueError / TypeError: no or malformed query or texts, an invalid ``agg``, an unknown keyword.
            RerankError: the scorer failed for this query (after its retries).
        """
        del expected_ids, retrieved_ids, expected_texts  # relevancy needs no expectation
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.compute() got unexpected keyword arguments {sorted(kwargs)}; "
                "besides LlamaIndex's arguments it takes agg="
            )
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

    def _repr_args(self) -> list[str]:
        return cohere_repr_args(self._scorer)
