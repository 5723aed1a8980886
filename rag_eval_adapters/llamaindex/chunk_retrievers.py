"""Any LlamaIndex retriever as a benchmark retriever (:func:`rag_eval_adapters.bench.run_bench` ``retrievers``).

``LlamaIndexRetriever(factory, name)``: for each chunking, ``factory(nodes)`` builds the retriever over that
chunking's chunks (``TextNode`` objects whose ``id_`` is the chunk id, ``metadata["doc_id"]`` the document),
e.g. ``lambda nodes: VectorStoreIndex(nodes, embed_model=...).as_retriever(similarity_top_k=50)``. Set the
retriever's own top k at least as large as the benchmark's largest cutoff (or its ``candidates`` when
reranking).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.schema import TextNode

from ..factory_retriever import FactoryRetriever
from ..factory_retriever import ranked_hits as ranked_hits  # its first home; kept importable here

__all__ = ["LlamaIndexRetriever"]


class LlamaIndexRetriever(FactoryRetriever):
    """A LlamaIndex ``BaseRetriever`` built by ``factory(nodes)`` over each chunking's chunks."""

    framework = "LlamaIndex"
    items = "nodes"
    method = "retrieve"

    def chunk_items(self, chunks: Sequence[Any]) -> list[TextNode]:
        """One ``TextNode`` a chunk: ``id_`` the chunk id, ``metadata["doc_id"]`` its document."""
        return [TextNode(id_=c.chunk_id, text=c.text, metadata={"doc_id": c.doc_id}) for c in chunks]

    def hits(self, retriever: Any, query: str) -> list[tuple[Any, Any]]:
        """``(node id, score)`` of each ``retrieve(query)`` result."""
        return [(h.node.node_id, h.score) for h in retriever.retrieve(query)]
