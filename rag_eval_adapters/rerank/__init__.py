"""Reranker relevancy: score a retrieval without expected ids by reranking (query, retrieved text) pairs.

>>> from rag_eval_adapters.rerank import LexicalScorer, rerank_relevancy
>>> rerank_relevancy("capital of France", ["Paris is the capital of France.", "Bananas are yellow."], LexicalScorer())
1.0

Scorers implement :class:`RelevanceScorer` (``score`` / ``ascore`` / ``calibrated`` / ``name``):
:class:`LexicalScorer` (offline, no key), :class:`CohereReranker` (Cohere Rerank via the official SDK,
imported only when constructed), :class:`JudgeScorer` (an LLM judge's 0-3 grade / 3), :class:`CallableScorer` (any function, e.g. a sentence-transformers
CrossEncoder) and :class:`CachedScorer` (any scorer behind a (model, query, text) -> score cache).
"""

from __future__ import annotations

from .aggregate import (
    AGGREGATIONS,
    BatchRelevancy,
    RelevancyResult,
    aggregate_scores,
    arerank_relevancy,
    arerank_relevancy_batch,
    arerank_relevancy_result,
    check_relevancy_options,
    relevancy_key,
    relevancy_repr_args,
    rerank_relevancy,
    rerank_relevancy_batch,
    rerank_relevancy_result,
)
from .base import CallableScorer, RelevanceScorer, check_scores, validate_query_texts
from .cache import CachedScorer, InMemoryScoreCache, ScoreCache, SqliteScoreCache, cache_key
from .cohere_reranker import (
    DEFAULT_COHERE_MODEL,
    CohereReranker,
    RerankUsage,
    cohere_repr_args,
    resolve_cohere_api_key,
)
from .errors import RerankError, RerankResponseError
from .judge_scorer import JudgeScorer, JudgeUnmeasured
from .lexical import LexicalScorer
from .retry import RetryPolicy, parse_retry_after

__all__ = [
    "AGGREGATIONS",
    "DEFAULT_COHERE_MODEL",
    "BatchRelevancy",
    "CachedScorer",
    "JudgeScorer",
    "JudgeUnmeasured",
    "CallableScorer",
    "CohereReranker",
    "InMemoryScoreCache",
    "LexicalScorer",
    "RelevanceScorer",
    "RelevancyResult",
    "RerankError",
    "RerankResponseError",
    "RerankUsage",
    "RetryPolicy",
    "ScoreCache",
    "SqliteScoreCache",
    "aggregate_scores",
    "arerank_relevancy",
    "arerank_relevancy_batch",
    "arerank_relevancy_result",
    "cache_key",
    "check_relevancy_options",
    "check_scores",
    "parse_retry_after",
    "relevancy_key",
    "relevancy_repr_args",
    "cohere_repr_args",
    "rerank_relevancy",
    "rerank_relevancy_batch",
    "rerank_relevancy_result",
    "resolve_cohere_api_key",
    "validate_query_texts",
]
