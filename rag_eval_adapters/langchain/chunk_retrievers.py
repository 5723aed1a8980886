"""Any LangChain retriever as a benchmark retriever (:func:`rag_eval_adapters.bench.run_bench` ``retrievers``).

``LangChainRetriever(factory, name)``: for each chunking, ``factory(documents)`` builds the retriever over that
chunking's chunks (``Document`` objects with ``id`` and ``metadata["chunk_id"]`` = the chunk id and
``metadata["doc_id"]``). Results are kept in the retriever's order; a ``metadata["score"]`` is used as the
score when every result has one, else ``1 / rank``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.documents import Document

__all__ = ["LangChainRetriever"]


def _hits(docs: Sequence[Any], k: int) -> list[tuple[str, float]]:
    ids = [str(d.metadata.get("chunk_id", d.id)) for d in docs]
    scores = [d.metadata.get("score") for d in docs]
    if all(isinstance(s, (int, float)) and math.isfinite(s) for s in scores):
        return list(zip(ids, map(float, scores), strict=False))[:k]
    return [(i, 1.0 / rank) for rank, i in enumerate(ids, start=1)][:k]


class _Search:
    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        return [_hits(self.retriever.invoke(q), k) for q in queries]


class LangChainRetriever:
    """A LangChain ``BaseRetriever`` built by ``factory(documents)`` over each chunking's chunks."""

    def __init__(self, factory: Callable[[list[Document]], Any], name: str) -> None:
        if not callable(factory):
            raise TypeError(f"factory must be a function documents -> LangChain retriever, got {type(factory).__name__}")
        self.factory, self.name = factory, name

    def __repr__(self) -> str:
        return f"LangChainRetriever({self.name!r})"

    def index(self, chunks: Sequence[Any]) -> _Search:
        """Build the retriever over ``chunks`` (objects with ``chunk_id``, ``text`` and ``doc_id``)."""
        docs = [Document(id=c.chunk_id, page_content=c.text, metadata={"chunk_id": c.chunk_id, "doc_id": c.doc_id})
                for c in chunks]
        retriever = self.factory(docs)
        if not hasattr(retriever, "invoke"):
            raise TypeError(f"{self.name}: the factory returned {type(retriever).__name__}, not a LangChain retriever")
        return _Search(retriever)
