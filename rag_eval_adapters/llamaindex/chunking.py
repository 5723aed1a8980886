"""Chunking with LlamaIndex node parsers (offline): ``chunk_documents`` for the test-set generator
(:func:`rag_eval_adapters.testsets.generate_testset`, ``rag-eval generate``) and any node parser as a
benchmark chunking (:mod:`rag_eval_adapters.bench.chunking`)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping
from typing import Any

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter

from ..framework_chunking import FrameworkChunking
from ..validation import check_count

__all__ = ["chunk_documents", "NodeParserChunking", "node_parser_chunking", "sentence_splitter_chunking"]


def chunk_documents(documents: Mapping[str, str], chunk_size: int = 512, chunk_overlap: int = 64) -> list[dict]:
    """Split each ``{doc_id: text}`` with ``SentenceSplitter(chunk_size, chunk_overlap)`` (tokens).

    Returns mappings ``{"chunk_id": "<doc_id>#<n>", "text", "doc_id", "start"}`` in document order, where
    ``start`` is the chunk's character offset in its document (``text == document[start:start+len(text)]``).
    Chunk ids depend only on the document id and position, so re-chunking gives the same ids.
    """
    chunk_size = check_count(chunk_size, "chunk_size (tokens)", minimum=16)
    chunk_overlap = check_count(chunk_overlap, "chunk_overlap (tokens, below chunk_size)", minimum=0,
                                maximum=chunk_size - 1)
    splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    chunks = []
    for doc_id, text in documents.items():
        with contextlib.redirect_stdout(io.StringIO()):  # the splitter prints advice on small chunk sizes
            nodes = splitter.get_nodes_from_documents([Document(text=text, id_=doc_id)])
        for n, node in enumerate(nodes):
            content = node.get_content()
            start = getattr(node, "start_char_idx", None)  # text nodes carry it; BaseNode does not declare it
            if start is None or text[start : start + len(content)] != content:
                found = text.find(content)
                start = found if found >= 0 else None
            chunks.append({"chunk_id": f"{doc_id}#{n}", "text": content, "doc_id": doc_id, "start": start})
    return chunks


class NodeParserChunking(FrameworkChunking):
    """Any LlamaIndex node parser (``get_nodes_from_documents``) as a benchmark chunking
    (:func:`rag_eval_adapters.bench.run_bench` takes it as one of its ``chunkings``).

    :meth:`pieces` gives each chunk's text and its offset in the document (the node's ``start_char_idx``; the
    benchmark searches the text for a chunk whose offset the parser did not set).
    """

    method = "get_nodes_from_documents"
    kind = "a LlamaIndex node parser"
    role = "parser"

    def __init__(self, parser: Any, name: str | None = None) -> None:
        super().__init__(parser, name)

    @property
    def parser(self) -> Any:
        """The node parser."""
        return self.splitter

    def chunks(self, doc_id: str, text: str) -> list[tuple[str, int | None]]:
        """``(get_content(), start_char_idx)`` of each node of ``get_nodes_from_documents``."""
        with contextlib.redirect_stdout(io.StringIO()):  # the splitter prints advice on small chunk sizes
            nodes = self.parser.get_nodes_from_documents([Document(text=text, id_=doc_id)])
        return [(n.get_content(), n.start_char_idx) for n in nodes]


def node_parser_chunking(parser: Any, name: str | None = None) -> NodeParserChunking:
    """Wrap a LlamaIndex node parser as a benchmark chunking called ``name``."""
    return NodeParserChunking(parser, name)


def sentence_splitter_chunking(chunk_size: int, chunk_overlap: int = 0) -> NodeParserChunking:
    """LlamaIndex's ``SentenceSplitter`` with ``chunk_size`` and ``chunk_overlap`` tokens, named ``s{size}o{overlap}``."""
    parser = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    return NodeParserChunking(parser, f"s{chunk_size}o{chunk_overlap}")
