"""The one :class:`Chunk` type (the benchmark's chunkings make them, the test-set generator reads them), chunks
from LlamaIndex nodes, LangChain documents or mappings, and seeded sampling across documents."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..validation import check_count

__all__ = ["Chunk", "as_chunks", "sample_chunks"]


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its id, document id, text and character offsets ``[start, end)`` in the document.

    The one chunk type of the package: the benchmark's chunkings
    (:func:`rag_eval_adapters.bench.parse_chunking`) make them and :func:`~rag_eval_adapters.testsets.
    generate_testset` takes them as they are. ``doc_id`` and ``start`` are None when unknown (a chunk from a
    mapping without them); ``end`` defaults to ``start + len(text)``. Give the fields by name when the document
    is unknown: ``Chunk("c1", text="...")``.
    """

    chunk_id: str
    doc_id: str | None = None
    text: str = ""
    start: int | None = None
    end: int | None = None

    def __post_init__(self) -> None:
        if not self.text and self.doc_id and self.start is None and self.end is None:
            raise TypeError(f"Chunk({self.chunk_id!r}, {self.doc_id!r}) has no text: the fields are chunk_id, doc_id, "
                            "text, start, end (the old test-set order chunk_id, text is gone); give "
                            "Chunk(chunk_id, text=...) by name")
        if self.end is None and self.start is not None:
            object.__setattr__(self, "end", self.start + len(self.text))

    def __repr__(self) -> str:
        return f"Chunk({self.chunk_id!r}, doc_id={self.doc_id!r}, start={self.start}, end={self.end})"


def _int_or_none(value: Any, where: str) -> int | None:
    if value is None:
        return None
    return check_count(value, f"{where} (the chunk's start in its document)", minimum=0)


def _one(index: int, item: Any) -> Chunk:
    where = f"chunks[{index}]"
    if isinstance(item, Chunk):
        return item
    if isinstance(item, Mapping):
        cid, text = item.get("chunk_id", item.get("id")), item.get("text")
        doc, start = item.get("doc_id"), _int_or_none(item.get("start"), f"{where}['start']")
    elif hasattr(item, "get_content") and hasattr(item, "node_id"):  # a LlamaIndex node
        cid, text = item.node_id, item.get_content()
        doc = getattr(item, "ref_doc_id", None)
        start = _int_or_none(getattr(item, "start_char_idx", None), f"{where}.start_char_idx")
    elif hasattr(item, "page_content"):  # a LangChain Document
        meta = getattr(item, "metadata", None) or {}
        cid = meta.get("id") or getattr(item, "id", None)
        text, doc = item.page_content, meta.get("doc_id", meta.get("source"))
        start = _int_or_none(meta.get("start_index"), f"{where}.metadata['start_index']")
    else:
        raise TypeError(
            f"{where} must be a LlamaIndex node, a LangChain Document or a mapping with 'chunk_id' and 'text'; "
            f"got {type(item).__name__}"
        )
    if not isinstance(cid, str) or not cid:
        raise ValueError(f"{where} has no chunk id (give 'chunk_id', a node id, or Document metadata 'id')")
    if not isinstance(text, str):
        raise TypeError(f"{where} ({cid!r}) text must be a str, got {type(text).__name__}")
    if doc is not None and not isinstance(doc, str):
        doc = str(doc)
    return Chunk(cid, doc_id=doc if text or start is not None else None, text=text, start=start)


def as_chunks(items: Iterable[Any]) -> list[Chunk]:
    """Every input chunk as a :class:`Chunk`; duplicate chunk ids are refused naming the id."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise TypeError("chunks must be an iterable of nodes, Documents or mappings")
    out, seen = [], set()
    for index, item in enumerate(items):
        chunk = _one(index, item)
        if chunk.chunk_id in seen:
            raise ValueError(f"chunks[{index}]: duplicate chunk id {chunk.chunk_id!r}; chunk ids must be unique")
        seen.add(chunk.chunk_id)
        out.append(chunk)
    return out


def sample_chunks(chunks: list[Chunk], seed: int) -> list[Chunk]:
    """All ``chunks`` in a seeded order that takes one chunk from each document in turn (documents in a
    shuffled order, chunks shuffled within each document), so a small sample spans many documents."""
    rng = random.Random(seed)
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc_id if chunk.doc_id is not None else f"\0{chunk.chunk_id}", []).append(chunk)
    docs = sorted(by_doc)
    rng.shuffle(docs)
    for doc in docs:
        rng.shuffle(by_doc[doc])
    out: list[Chunk] = []
    depth = 0
    while len(out) < len(chunks):
        for doc in docs:
            if depth < len(by_doc[doc]):
                out.append(by_doc[doc][depth])
        depth += 1
    return out
