"""LlamaIndex node parsers as benchmark chunkings (:mod:`rag_eval_adapters.bench.chunking`)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from llama_index.core import Document as LIDocument
from llama_index.core.node_parser import SentenceSplitter

from ..bench.chunking import Chunk, locate_chunks
from ..bench.inputs import Document

__all__ = ["NodeParserChunking", "node_parser_chunking", "sentence_splitter_chunking"]


class NodeParserChunking:
    """Any LlamaIndex node parser (``get_nodes_from_documents``) as a chunking.

    The nodes' ``start_char_idx`` gives each chunk's offset in its document (searched for in the text when
    the parser did not set it); nodes that are not verbatim pieces of the document raise ``ValueError``.
    """

    def __init__(self, parser: Any, name: Optional[str] = None) -> None:
        if not hasattr(parser, "get_nodes_from_documents"):
            raise TypeError(f"expected a LlamaIndex node parser, got {type(parser).__name__}")
        self.parser = parser
        self.name = name or type(parser).__name__

    def __repr__(self) -> str:
        return f"NodeParserChunking({self.name!r}, parser={type(self.parser).__name__})"

    def split(self, documents: Sequence[Document]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for doc in documents:
            nodes = self.parser.get_nodes_from_documents([LIDocument(text=doc.text, id_=doc.doc_id)])
            pieces = [(n.get_content(), n.start_char_idx) for n in nodes if n.get_content().strip()]
            chunks.extend(locate_chunks(doc, self.name, pieces))
        return chunks


def node_parser_chunking(parser: Any, name: Optional[str] = None) -> NodeParserChunking:
    """Wrap a LlamaIndex node parser as a benchmark chunking called ``name``."""
    return NodeParserChunking(parser, name)


def sentence_splitter_chunking(chunk_size: int, chunk_overlap: int = 0) -> NodeParserChunking:
    """LlamaIndex's ``SentenceSplitter`` with ``chunk_size`` and ``chunk_overlap`` tokens, named ``s{size}o{overlap}``."""
    parser = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    return NodeParserChunking(parser, f"s{chunk_size}o{chunk_overlap}")
