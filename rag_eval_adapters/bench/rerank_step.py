"""The reranking step: re-order each query's retrieved candidates by a relevance scorer's scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rerank import LexicalScorer
from .components import RERANKERS
from .retrievers import Hits, trec_order

__all__ = ["rerank_hits", "resolve_reranker", "RERANKER_NAMES"]

RERANKER_NAMES = tuple(RERANKERS)  # the old name of the table's keys


def build_lexical(embedder: Any) -> LexicalScorer:
    """The ``lexical`` reranker."""
    return LexicalScorer()


def build_e5(embedder: Any) -> Any:
    """The ``e5`` reranker: cosine of the benchmark's embedder's vectors."""
    from .embedding import E5Scorer

    return E5Scorer(embedder)


def build_cohere(embedder: Any) -> Any:
    """The ``cohere`` reranker (key from the environment)."""
    from ..rerank import CohereReranker

    return CohereReranker.from_env()


def resolve_reranker(spec: Any, embedder: Any | None = None) -> Any:
    """A scorer from a name of :data:`~rag_eval_adapters.bench.components.RERANKERS` or any ``RelevanceScorer``
    (returned as is)."""
    if not isinstance(spec, str):
        if not hasattr(spec, "score"):
            raise TypeError(f"a reranker is a RelevanceScorer with score(query, texts), got {type(spec).__name__}")
        return spec
    if spec not in RERANKERS:
        raise ValueError(f"unknown reranker {spec!r}: choose from {', '.join(RERANKERS)}")
    return RERANKERS[spec].make(embedder)


def rerank_hits(query: str, hits: Sequence[tuple[str, float]], texts: Mapping[str, str], scorer: Any, k: int) -> Hits:
    """The top ``k`` of ``hits`` re-scored by ``scorer.score(query, texts)``, in trec_eval's order.

    Ties of the reranker's scores keep the retriever's order (a tiny rank-based offset would change the
    scores written, so ties are broken by chunk id as trec_eval breaks them)."""
    ids = [doc for doc, _ in hits]
    if not ids:
        return []
    scores = scorer.score(query, [texts[d] for d in ids])
    if len(scores) != len(ids):
        raise ValueError(f"reranker {getattr(scorer, 'name', scorer)!r} returned {len(scores)} scores for "
                         f"{len(ids)} texts")
    return trec_order(list(zip(ids, scores, strict=False)), k)
