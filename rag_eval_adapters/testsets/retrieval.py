"""The rank of a case's source chunk in a retriever's results for its question (recorded, never filtered)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["retrieved_ids", "retriever_rank"]


def _id_of(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        value = item.get("chunk_id", item.get("id"))
        return value if isinstance(value, str) else None
    node = getattr(item, "node", None)  # a LlamaIndex NodeWithScore
    if node is not None and isinstance(getattr(node, "node_id", None), str):
        return node.node_id
    if isinstance(getattr(item, "node_id", None), str):
        return item.node_id
    meta = getattr(item, "metadata", None)  # a LangChain Document
    if isinstance(meta, Mapping) and isinstance(meta.get("id"), str):
        return meta["id"]
    value = getattr(item, "id", None)
    return value if isinstance(value, str) else None


def retrieved_ids(retriever: Any, query: str) -> list[str]:
    """The ids a retriever returns for ``query``, in rank order. ``retriever`` is a function
    ``query -> list`` (of ids, mappings, nodes or Documents), a LlamaIndex retriever (``retrieve``) or a
    LangChain retriever (``invoke``)."""
    if hasattr(retriever, "retrieve"):
        results = retriever.retrieve(query)
    elif hasattr(retriever, "invoke"):
        results = retriever.invoke(query)
    elif callable(retriever):
        results = retriever(query)
    else:
        raise TypeError(f"retriever must be a function, a LlamaIndex or a LangChain retriever; got {type(retriever).__name__}")
    return [i for i in (_id_of(item) for item in results) if i is not None]


def retriever_rank(retriever: Any, query: str, chunk_id: str) -> int | None:
    """1-based rank of ``chunk_id`` among the retriever's results for ``query``; None when absent."""
    ids = retrieved_ids(retriever, query)
    return ids.index(chunk_id) + 1 if chunk_id in ids else None
