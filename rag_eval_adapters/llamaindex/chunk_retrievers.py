"""Any LlamaIndex retriever as a benchmark retriever (:func:`rag_eval_adapters.bench.run_bench` ``retrievers``).

``LlamaIndexRetriever(factory, name)``: for each chunking, ``factory(nodes)`` builds the retriever over that
chunking's chunks (``TextNode`` objects whose ``id_`` is the chunk id, ``metadata["doc_id"]`` the document),
e.g. ``lambda nodes: VectorStoreIndex(nodes, embed_model=...).as_retriever(similarity_top_k=50)``. Set the
retriever's own top k at least as large as the benchmark's largest cutoff (or its ``candidates`` when
reranking).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.schema import TextNode

__all__ = ["LlamaIndexRetriever"]


def ranked_hits(pairs: Sequence[tuple[str, Any]], k: int) -> list[tuple[str, float]]:
    """``(id, score)`` best first; the retriever's order is kept (scores ``1/rank`` when any score is missing)."""
    if all(isinstance(s, (int, float)) and math.isfinite(s) for _, s in pairs):
        return [(str(i), float(s)) for i, s in pairs][:k]
    return [(str(i), 1.0 / rank) for rank, (i, _) in enumerate(pairs, start=1)][:k]


class _Search:
    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        return [ranked_hits([(h.node.node_id, h.score) for h in self.retriever.retrieve(q)], k) for q in queries]


class LlamaIndexRetriever:
    """A LlamaIndex ``BaseRetriever`` built by ``factory(nodes)`` over each chunking's chunks."""

    def __init__(self, factory: Callable[[list[TextNode]], Any], name: str) -> None:
        if not callable(factory):
            raise TypeError(f"factory must be a function nodes -> LlamaIndex retriever, got {type(factory).__name__}")
        self.factory, self.name = factory, name

    def __repr__(self) -> str:
        return f"LlamaIndexRetriever({self.name!r})"

    def index(self, chunks: Sequence[Any]) -> _Search:
        """Build the retriever over ``chunks`` (objects with ``chunk_id``, ``text`` and ``doc_id``)."""
        nodes = [TextNode(id_=c.chunk_id, text=c.text, metadata={"doc_id": c.doc_id}) for c in chunks]
        retriever = self.factory(nodes)
        if not hasattr(retriever, "retrieve"):
            raise TypeError(f"{self.name}: the factory returned {type(retriever).__name__}, not a LlamaIndex retriever")
        return _Search(retriever)
