"""Chunkings: how documents are cut into the chunks that retrievers rank.

A chunking is any object with a ``name`` and ``split(documents) -> list[Chunk]``; every chunk records the
document it came from and its character offsets ``[start, end)`` in that document, which is what lets the
benchmark judge relevance by evidence spans under any chunking. :func:`sentence_chunking` is LlamaIndex's
``SentenceSplitter`` (``chunk_size`` and ``chunk_overlap`` in tokens); any LlamaIndex node parser
(:func:`rag_eval_adapters.llamaindex.chunking.node_parser_chunking`) or LangChain text splitter
(:func:`rag_eval_adapters.langchain.chunking.text_splitter_chunking`) works too: they give each chunk's text
and offset, and :class:`PieceChunking` turns that into chunks.

Chunk ids are ``"{doc_id}#{chunking}#{index}"`` (white space and ``%`` percent-encoded, so an id is one
TREC field): they name the chunking, so ids of one chunking are never mistaken for chunks of another, and
distinct documents never share one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..testsets.chunks import Chunk  # the one chunk type (also the test-set generator's)
from .inputs import Document

__all__ = ["Chunk", "Chunking", "FunctionChunking", "PieceChunking", "as_chunking", "sentence_chunking", "parse_chunking", "chunk_id",
           "locate_chunks"]


@runtime_checkable
class Chunking(Protocol):
    """Cuts documents into chunks: ``name`` (used in chunk ids and reports) and ``split``."""

    name: str

    def split(self, documents: Sequence[Document]) -> list[Chunk]: ...


def _percent(match: re.Match) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def chunk_id(doc_id: str, chunking: str, index: int) -> str:
    """The id of the ``index``-th chunk of ``doc_id`` under ``chunking``: ``"{doc_id}#{chunking}#{index}"`` with
    every white-space character and ``%`` percent-encoded (``"a b.txt"`` -> ``"a%20b.txt#s256o32#0"``), so the
    id is one field of a TREC line, decodes back (``urllib.parse.unquote``) and never equals the id of a chunk
    of another document (``"a_b.txt"`` keeps its own ids)."""
    return re.sub(r"[\s%]", _percent, f"{doc_id}#{chunking}#{index}")


def _find_after(text: str, piece: str, prev_start: int, prev_end: int) -> int:
    """Where ``piece`` starts in ``text``: the first place after the previous chunk's start that reaches past
    its end (the next chunk, overlap allowed); else the first after its start; else the first anywhere."""
    first_after = -1
    found = text.find(piece, prev_start + 1) if prev_end else text.find(piece)
    while found >= 0:
        if found + len(piece) > prev_end:
            return found
        if first_after < 0:
            first_after = found
        found = text.find(piece, found + 1)
    if first_after >= 0:
        return first_after
    found = text.find(piece, prev_start)
    return found if found >= 0 else text.find(piece)


def locate_chunks(document: Document, chunking: str, pieces: Sequence[tuple[str, int | None]]) -> list[Chunk]:
    """Chunks from ``(text, start or None)`` pieces of one document, finding missing offsets in its text.

    A piece whose offset is unknown is located after the previous chunk: at the first place after the previous
    chunk's start where it reaches past the previous chunk's end (so overlapping chunks are found, and
    identical consecutive pieces, such as a repeated paragraph, get one copy each, in order); failing that, the
    first place after the previous start, then anywhere. A piece not found verbatim in the document raises
    ``ValueError`` (its relevance could not be judged by spans).
    """
    chunks: list[Chunk] = []
    prev_start, prev_end = 0, 0
    for index, (text, start) in enumerate(pieces):
        if start is None or document.text[start:start + len(text)] != text:
            found = _find_after(document.text, text, prev_start, prev_end)
            if found < 0:
                raise ValueError(
                    f"chunking {chunking!r}: chunk {index} of document {document.doc_id!r} is not a verbatim "
                    f"piece of the document, so its offsets are unknown: {text[:60]!r}"
                )
            start = found
        chunks.append(Chunk(chunk_id(document.doc_id, chunking, index), document.doc_id, text, start,
                            start + len(text)))
        prev_start, prev_end = start, start + len(text)
    return chunks


class PieceChunking:
    """A chunking from an object with ``name`` and ``pieces(doc_id, text) -> [(chunk text, start or None)]``
    (the LlamaIndex and LangChain chunking adapters)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.name = str(source.name)

    def __repr__(self) -> str:
        return f"PieceChunking({self.source!r})"

    def split(self, documents: Sequence[Document]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for doc in documents:
            chunks.extend(locate_chunks(doc, self.name, self.source.pieces(doc.doc_id, doc.text)))
        return chunks


def as_chunking(spec: Any) -> Chunking:
    """A chunking from ``"SIZE:OVERLAP"``, a chunking, or an adapter with ``pieces``; ``TypeError`` otherwise."""
    if isinstance(spec, str):
        return parse_chunking(spec)
    if hasattr(spec, "split") and hasattr(spec, "name"):
        return spec
    if hasattr(spec, "pieces") and hasattr(spec, "name"):
        return PieceChunking(spec)
    raise TypeError(f"a chunking is 'SIZE:OVERLAP' or an object with name and split(documents) or pieces(doc_id, "
                    f"text), got {type(spec).__name__}; wrap LlamaIndex node parsers with "
                    "rag_eval_adapters.llamaindex.chunking.node_parser_chunking and LangChain text splitters with "
                    "rag_eval_adapters.langchain.chunking.text_splitter_chunking")


class FunctionChunking:
    """A chunking from a function ``text -> list of chunk texts`` (each a verbatim piece of the text)."""

    def __init__(self, name: str, split_text: Callable[[str], Sequence[str]]) -> None:
        self.name = name
        self._split_text = split_text

    def __repr__(self) -> str:
        return f"FunctionChunking({self.name!r})"

    def split(self, documents: Sequence[Document]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for doc in documents:
            pieces = [(t, None) for t in self._split_text(doc.text) if t.strip()]
            chunks.extend(locate_chunks(doc, self.name, pieces))
        return chunks


def sentence_chunking(chunk_size: int, chunk_overlap: int = 0) -> Chunking:
    """LlamaIndex ``SentenceSplitter(chunk_size, chunk_overlap)`` (tokens), named ``"s{size}o{overlap}"``."""
    from ..llamaindex.chunking import sentence_splitter_chunking

    return PieceChunking(sentence_splitter_chunking(chunk_size, chunk_overlap))


def parse_chunking(spec: str) -> Chunking:
    """``"SIZE:OVERLAP"`` (or ``"SIZE"``) as a :func:`sentence_chunking`; raises ``ValueError`` otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?", str(spec))
    if not match:
        raise ValueError(f"a chunking is SIZE:OVERLAP in tokens, e.g. 256:32, got {spec!r}")
    size, overlap = int(match.group(1)), int(match.group(2) or 0)
    if size < 16 or overlap >= size:
        raise ValueError(f"chunking {spec!r}: the size must be at least 16 tokens and the overlap smaller "
                         "than the size")
    return sentence_chunking(size, overlap)
