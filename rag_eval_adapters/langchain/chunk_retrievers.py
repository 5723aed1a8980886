"""Any LangChain retriever as a benchmark retriever (:func:`rag_eval_adapters.bench.run_bench` ``retrievers``).

``LangChainRetriever(factory, name)``: for each chunking, ``factory(documents)`` builds the retriever over that
chunking's chunks (``Document`` objects with ``id`` and ``metadata["chunk_id"]`` = the chunk id and
``metadata["doc_id"]``). Results are kept in the retriever's order; a ``metadata["score"]`` is used as the
score when every result has one, else ``1 / rank``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document

from ..factory_retriever import FactoryRetriever

__all__ = ["LangChainRetriever"]


class LangChainRetriever(FactoryRetriever):
    """A LangChain ``BaseRetriever`` built by ``factory(documents)`` over each chunking's chunks."""

    framework = "LangChain"
    items = "documents"
    method = "invoke"

    def chunk_items(self, chunks: Sequence[Any]) -> list[Document]:
        """One ``Document`` a chunk: ``id`` and ``metadata["chunk_id"]`` the chunk id, ``metadata["doc_id"]``."""
        return [Document(id=c.chunk_id, page_content=c.text, metadata={"chunk_id": c.chunk_id, "doc_id": c.doc_id})
                for c in chunks]

    def hits(self, retriever: Any, query: str) -> list[tuple[Any, Any]]:
        """``(metadata["chunk_id"] or Document.id, metadata["score"])`` of each ``invoke(query)`` result."""
        return [(d.metadata.get("chunk_id", d.id), d.metadata.get("score")) for d in retriever.invoke(query)]
