"""LangChain text splitters as benchmark chunkings (:func:`rag_eval_adapters.bench.run_bench` ``chunkings``)."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

from ..framework_chunking import FrameworkChunking

__all__ = ["TextSplitterChunking", "text_splitter_chunking"]


class TextSplitterChunking(FrameworkChunking):
    """Any LangChain text splitter (``split_documents``) as a benchmark chunking.

    :meth:`pieces` gives each chunk's text and its ``start_index`` metadata (set by ``add_start_index=True``;
    without it the benchmark searches the document for the chunk).
    """

    method = "split_documents"
    kind = "a LangChain text splitter"

    def chunks(self, doc_id: str, text: str) -> list[tuple[str, int | None]]:
        """``(page_content, metadata["start_index"])`` of each ``Document`` of ``split_documents``."""
        parts = self.splitter.split_documents([Document(page_content=text, metadata={"id": doc_id})])
        return [(p.page_content, p.metadata.get("start_index")) for p in parts]


def text_splitter_chunking(splitter: Any, name: str | None = None) -> TextSplitterChunking:
    """Wrap a LangChain text splitter as a benchmark chunking called ``name``."""
    return TextSplitterChunking(splitter, name)
