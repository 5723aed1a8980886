"""Chunking documents with LlamaIndex's ``SentenceSplitter`` (offline), into chunks with stable ids and
document offsets, as :func:`rag_eval_adapters.testsets.generate_testset` and ``rag-eval generate`` read them."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter

__all__ = ["chunk_documents"]


def chunk_documents(documents: Mapping[str, str], chunk_size: int = 512, chunk_overlap: int = 64) -> list[dict]:
    """Split each ``{doc_id: text}`` with ``SentenceSplitter(chunk_size, chunk_overlap)`` (tokens).

    Returns mappings ``{"chunk_id": "<doc_id>#<n>", "text", "doc_id", "start"}`` in document order, where
    ``start`` is the chunk's character offset in its document (``text == document[start:start+len(text)]``).
    Chunk ids depend only on the document id and position, so re-chunking gives the same ids.
    """
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 16:
        raise ValueError(f"chunk_size must be an int >= 16 tokens, got {chunk_size!r}")
    if not isinstance(chunk_overlap, int) or isinstance(chunk_overlap, bool) or not 0 <= chunk_overlap < chunk_size:
        raise ValueError(f"chunk_overlap must be an int in [0, chunk_size), got {chunk_overlap!r}")
    splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    chunks = []
    for doc_id, text in documents.items():
        with contextlib.redirect_stdout(io.StringIO()):  # the splitter prints advice on small chunk sizes
            nodes = splitter.get_nodes_from_documents([Document(text=text, id_=doc_id)])
        for n, node in enumerate(nodes):
            content = node.get_content()
            start = node.start_char_idx
            if start is None or text[start : start + len(content)] != content:
                found = text.find(content)
                start = found if found >= 0 else None
            chunks.append({"chunk_id": f"{doc_id}#{n}", "text": content, "doc_id": doc_id, "start": start})
    return chunks
