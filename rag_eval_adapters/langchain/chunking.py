"""LangChain text splitters as benchmark chunkings (:mod:`rag_eval_adapters.bench.chunking`)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from langchain_core.documents import Document as LCDocument

from ..bench.chunking import Chunk, locate_chunks
from ..bench.inputs import Document

__all__ = ["TextSplitterChunking", "text_splitter_chunking"]


class TextSplitterChunking:
    """Any LangChain text splitter (``split_documents``) as a chunking.

    The splitter's ``start_index`` metadata (``add_start_index=True``) gives each chunk's offset; without it
    the chunk is searched for in the document text.
    """

    def __init__(self, splitter: Any, name: Optional[str] = None) -> None:
        if not hasattr(splitter, "split_documents"):
            raise TypeError(f"expected a LangChain text splitter, got {type(splitter).__name__}")
        self.splitter = splitter
        self.name = name or type(splitter).__name__

    def __repr__(self) -> str:
        return f"TextSplitterChunking({self.name!r}, splitter={type(self.splitter).__name__})"

    def split(self, documents: Sequence[Document]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for doc in documents:
            parts = self.splitter.split_documents([LCDocument(page_content=doc.text, metadata={"id": doc.doc_id})])
            pieces = [(p.page_content, p.metadata.get("start_index")) for p in parts if p.page_content.strip()]
            chunks.extend(locate_chunks(doc, self.name, pieces))
        return chunks


def text_splitter_chunking(splitter: Any, name: Optional[str] = None) -> TextSplitterChunking:
    """Wrap a LangChain text splitter as a benchmark chunking called ``name``."""
    return TextSplitterChunking(splitter, name)
