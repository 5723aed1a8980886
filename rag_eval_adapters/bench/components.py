"""The benchmark's built-in retrievers and rerankers by name: one table each, read by ``run_bench``, the
``rag-eval bench`` choices and defaults, the demo and the docs (a test checks ``docs/bench.md`` lists every
name). A new built-in is its class and one entry here: ``build`` is ``"module:function"`` (imported when
used) taking ``(embedder, depth)`` for a retriever and ``(embedder)`` for a reranker."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["Component", "RETRIEVERS", "RERANKERS", "DEFAULT_RETRIEVERS", "DEFAULT_RERANKERS", "needs_embedder"]


@dataclass(frozen=True)
class Component:
    """A built-in retriever or reranker: what it is (``summary``), how it is built (``build``,
    ``"module:function"``) and whether it needs the benchmark's embedder."""

    summary: str
    build: str
    needs_embedder: bool = False

    def make(self, *args: Any) -> Any:
        """Build it: ``build(*args)``, its module imported now."""
        module, _, function = self.build.partition(":")
        return getattr(importlib.import_module(module, __package__), function)(*args)


RETRIEVERS: dict[str, Component] = {
    "bm25": Component("BM25 over the chunk texts (bm25s)", ".retrievers:build_bm25"),
    "e5": Component("dense retrieval by cosine of the embedder's vectors (default offline E5)",
                    ".retrievers:build_dense", needs_embedder=True),
    "hybrid": Component("bm25 and e5 fused by reciprocal rank fusion", ".retrievers:build_hybrid",
                        needs_embedder=True),
}
"""Built-in retrievers, by the name ``run_bench(retrievers=...)`` and ``--retriever`` take."""

RERANKERS: dict[str, Component] = {
    "lexical": Component("query-term overlap, offline (rerank.LexicalScorer)", ".rerank_step:build_lexical"),
    "e5": Component("cosine of the embedder's query and passage vectors", ".rerank_step:build_e5",
                    needs_embedder=True),
    "cohere": Component("the Cohere Rerank API (key in CO_API_KEY or COHERE_API_KEY)", ".rerank_step:build_cohere"),
}
"""Built-in rerankers, by the name ``run_bench(rerankers=...)`` and ``--rerank`` take."""

DEFAULT_RETRIEVERS = ("bm25", "e5", "hybrid")
"""The retrievers of a run that names none (``run_bench``, ``rag-eval bench``, the demo)."""

DEFAULT_RERANKERS: tuple[str, ...] = ()
"""The rerankers of a run that names none."""


def needs_embedder(retrievers: Any, rerankers: Any) -> bool:
    """Whether any named retriever or reranker needs the embedder (objects bring their own)."""
    return (any(isinstance(r, str) and r in RETRIEVERS and RETRIEVERS[r].needs_embedder for r in retrievers)
            or any(isinstance(r, str) and r in RERANKERS and RERANKERS[r].needs_embedder for r in rerankers))
