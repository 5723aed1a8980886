"""Retrievers for the benchmark: BM25 (``bm25s``), dense E5 and their hybrid by reciprocal rank fusion.

A retriever has a ``name`` and ``index(chunks)`` returning an index whose ``search(queries, k)`` gives, for
each query, up to ``k`` ``(chunk_id, score)`` pairs best first. LlamaIndex and LangChain retrievers plug in
through :class:`rag_eval_adapters.llamaindex.chunk_retrievers.LlamaIndexRetriever` and
:class:`rag_eval_adapters.langchain.chunk_retrievers.LangChainRetriever` (which keep the framework's order:
:func:`rag_eval_adapters.factory_retriever.ranked_hits`). This module's retrievers put every ranking in
trec_eval's order (score descending, ties by chunk id descending), so the TREC files written score the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .chunking import Chunk
from .components import RETRIEVERS
from .fusion import reciprocal_rank_fusion

__all__ = ["Retriever", "BM25Retriever", "DenseRetriever", "HybridRetriever", "trec_order", "resolve_retriever",
           "share_parts"]

Hits = list[tuple[str, float]]


@runtime_checkable
class Retriever(Protocol):
    """``name`` and ``index(chunks) -> index`` with ``index.search(queries, k) -> [[(chunk_id, score)]]``."""

    name: str

    def index(self, chunks: Sequence[Chunk]) -> Any: ...


def trec_order(hits: Sequence[tuple[str, float]], k: int) -> Hits:
    """The first ``k`` hits in trec_eval's order: score descending, ties by id descending; scores finite."""
    clean = []
    for doc, score in hits:
        score = float(score)
        if not np.isfinite(score):
            raise ValueError(f"retriever returned a non-finite score {score!r} for chunk {doc!r}")
        clean.append((str(doc), score))
    best: dict[str, float] = {}
    for doc, score in clean:
        best.setdefault(doc, score)  # a chunk returned twice keeps its first score
    return sorted(best.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]


class _BM25Index:
    def __init__(self, chunks: Sequence[Chunk], k1: float, b: float) -> None:
        import bm25s

        self._bm25s = bm25s
        self._ids = [c.chunk_id for c in chunks]
        self._index = bm25s.BM25(k1=k1, b=b)
        self._index.index(bm25s.tokenize([c.text for c in chunks], stopwords="en", show_progress=False),
                          show_progress=False)

    def search(self, queries: Sequence[str], k: int) -> list[Hits]:
        results = []
        for query in queries:
            tokens = self._bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
            scores = np.asarray(self._index.get_scores(tokens), dtype=np.float64) if tokens else \
                np.zeros(len(self._ids))
            top = np.argsort(-scores, kind="stable")[: max(k * 2, k + 10)]
            results.append(trec_order([(self._ids[i], scores[i]) for i in top if scores[i] > 0], k))
        return results


class BM25Retriever:
    """Okapi BM25 (``bm25s``, Lucene variant, English stop words removed); only chunks scoring above 0.

    The index of a list of chunks is built once: ``index`` given the same chunk ids and texts again (the
    hybrid retriever's BM25 part over the chunking ``bm25`` has indexed) returns the index it built."""

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.name = "bm25"
        self._built: dict[tuple, _BM25Index] = {}

    def __repr__(self) -> str:
        return f"BM25Retriever(k1={self.k1}, b={self.b})"

    def index(self, chunks: Sequence[Chunk]) -> _BM25Index:
        key = tuple((c.chunk_id, c.text) for c in chunks)
        if key not in self._built:
            self._built[key] = _BM25Index(chunks, self.k1, self.b)
        return self._built[key]


class _DenseIndex:
    def __init__(self, chunks: Sequence[Chunk], embedder: Any) -> None:
        self._ids = [c.chunk_id for c in chunks]
        self._embedder = embedder
        self._matrix = embedder.embed_passages([c.text for c in chunks])

    def search(self, queries: Sequence[str], k: int) -> list[Hits]:
        if not queries:
            return []
        scores = self._embedder.embed_queries(list(queries)) @ self._matrix.T
        results = []
        for row in np.asarray(scores, dtype=np.float64):
            top = np.argsort(-row, kind="stable")[: k + 10]
            results.append(trec_order([(self._ids[i], row[i]) for i in top], k))
        return results


class DenseRetriever:
    """The dot product of query and chunk embeddings from ``embedder`` (its ``embed_queries`` and
    ``embed_passages``; the cosine for normalized embeddings, as E5's are), under ``name`` (default ``e5``).
    The benchmark passes its own embedder: the offline E5 one unless told otherwise."""

    def __init__(self, embedder: Any, name: str = "e5") -> None:
        self.embedder = embedder
        self.name = name

    def __repr__(self) -> str:
        return f"DenseRetriever({self.name!r}, embedder={self.embedder!r})"

    def index(self, chunks: Sequence[Chunk]) -> _DenseIndex:
        return _DenseIndex(chunks, self.embedder)


class _HybridIndex:
    def __init__(self, parts: list[Any], depth: int, rrf_k: int) -> None:
        self._parts, self._depth, self._rrf_k = parts, depth, rrf_k

    def search(self, queries: Sequence[str], k: int) -> list[Hits]:
        depth = max(k, self._depth)
        lists = [part.search(queries, depth) for part in self._parts]
        return [trec_order(reciprocal_rank_fusion([[d for d, _ in hits[i]] for hits in lists], self._rrf_k), k)
                for i in range(len(queries))]


class HybridRetriever:
    """Reciprocal rank fusion (constant ``rrf_k``) of the top ``max(k, depth)`` chunks of each retriever (at
    least two), the fused ranking in trec_eval's order."""

    def __init__(self, retrievers: Sequence[Any], depth: int = 50, rrf_k: int = 60, name: str = "hybrid") -> None:
        if len(retrievers) < 2:
            raise ValueError("a hybrid retriever fuses at least two retrievers")
        self.retrievers, self.depth, self.rrf_k, self.name = list(retrievers), depth, rrf_k, name

    def __repr__(self) -> str:
        return f"HybridRetriever({[r.name for r in self.retrievers]}, depth={self.depth}, rrf_k={self.rrf_k})"

    def index(self, chunks: Sequence[Chunk]) -> _HybridIndex:
        return _HybridIndex([r.index(chunks) for r in self.retrievers], self.depth, self.rrf_k)


def share_parts(retrievers: Sequence[Any]) -> list[Any]:
    """``retrievers`` with each hybrid's BM25 and dense parts replaced by the run's own ``bm25`` / dense
    retriever of the same settings (same ``k1`` and ``b``; same embedder and name), so an index is built once
    per chunking whichever configuration asks for it. The hybrids are changed in place; the list returned is a
    new list of the same retrievers."""
    for hybrid in retrievers:
        if not isinstance(hybrid, HybridRetriever):
            continue
        for i, part in enumerate(hybrid.retrievers):
            for other in retrievers:
                if other is not part and _same(part, other):
                    hybrid.retrievers[i] = other
                    break
    return list(retrievers)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, BM25Retriever) and isinstance(b, BM25Retriever):
        return (a.k1, a.b) == (b.k1, b.b)
    if isinstance(a, DenseRetriever) and isinstance(b, DenseRetriever):
        return a.embedder is b.embedder and a.name == b.name
    return False


RETRIEVER_NAMES = tuple(RETRIEVERS)  # the old name of the table's keys


def build_bm25(embedder: Any, depth: int) -> BM25Retriever:
    """The ``bm25`` retriever."""
    return BM25Retriever()


def build_dense(embedder: Any, depth: int) -> DenseRetriever:
    """The ``e5`` retriever: dense, by the benchmark's embedder."""
    return DenseRetriever(embedder)


def build_hybrid(embedder: Any, depth: int) -> HybridRetriever:
    """The ``hybrid`` retriever: ``bm25`` and ``e5`` fused by reciprocal rank fusion."""
    return HybridRetriever([BM25Retriever(), DenseRetriever(embedder)], depth=depth)


def resolve_retriever(spec: Any, embedder: Any | None = None, depth: int = 50) -> Any:
    """A retriever from a name of :data:`~rag_eval_adapters.bench.components.RETRIEVERS` or a retriever object
    (returned as is)."""
    if not isinstance(spec, str):
        if not (hasattr(spec, "index") and hasattr(spec, "name")):
            raise TypeError(f"a retriever needs a name and index(chunks), got {type(spec).__name__}; wrap "
                            "LlamaIndex or LangChain retrievers with their bench adapters")
        return spec
    if spec not in RETRIEVERS:
        raise ValueError(f"unknown retriever {spec!r}: choose from {', '.join(RETRIEVERS)}")
    return RETRIEVERS[spec].make(embedder, depth)
