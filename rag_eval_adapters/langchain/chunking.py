"""LangChain text splitters as benchmark chunkings (:func:`rag_eval_adapters.bench.run_bench` ``chunkings``)."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

__all__ = ["TextSplitterChunking", "text_splitter_chunking"]


class TextSplitterChunking:
    """Any LangChain text splitter (``split_documents``) as a benchmark chunking.

    :meth:`pieces` gives each chunk's text and its ``start_index`` metadata (set by ``add_start_index=True``;
    without it the benchmark searches the document for the chunk).
    """

    def __init__(self, splitter: Any, name: str | None = None) -> None:
        if not hasattr(splitter, "split_documents"):
            raise TypeError(f"expected a LangChain text splitter, got {type(splitter).__name__}")
        self.splitter = splitter
        self.name = name or type(splitter).__name__

    def __repr__(self) -> str:
        return f"TextSplitterChunking({self.name!r}, splitter={type(self.splitter).__name__})"

    def pieces(self, doc_id: str, text: str) -> list[tuple[str, int | None]]:
        """``[(chunk text, start offset or None)]`` of one document, in order."""
        parts = self.splitter.split_documents([Document(page_content=text, metadata={"id": doc_id})])
        return [(p.page_content, p.metadata.get("start_index")) for p in parts if p.page_content.strip()]


def text_splitter_chunking(splitter: Any, name: str | None = None) -> TextSplitterChunking:
    """Wrap a LangChain text splitter as a benchmark chunking called ``name``."""
    return TextSplitterChunking(splitter, name)
