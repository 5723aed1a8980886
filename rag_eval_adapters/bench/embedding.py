"""Dense vectors for the benchmark: the offline E5 embedder behind a content-hash cache, and an E5 scorer.

An embedder is the answer-metric protocol (:class:`rag_eval_adapters.answers.Embedder`):
``embed_queries(texts)``, ``embed_passages(texts)`` and a ``name``. :class:`CachedEmbedder` keeps every vector
by content hash in the shared model-call cache (an SQLite file with ``cache_dir``), so a second benchmark run
embeds nothing it has seen, and keeps the vectors of the run in memory as numpy rows, so the configurations
that ask again for a text (the E5 reranker for each query's candidates, the extractive answerer for each
configuration's sentences) neither read the cache nor decode its JSON again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["default_embedder", "CachedEmbedder", "E5Scorer"]


def default_embedder() -> Any:
    """The offline E5 embedder (:class:`rag_eval_adapters.answers.E5Embedder`, multilingual-e5-small, 4-bit),
    built by :func:`rag_eval_adapters.modelcalls.resolve_embedder`."""
    from ..modelcalls import resolve_embedder

    return resolve_embedder("e5")


class CachedEmbedder:
    """An embedder whose vectors are cached by content hash (:class:`rag_eval_adapters.answers.CachedEmbedder`,
    the shared model-call layer): in memory, or in ``cache_dir/embeddings.sqlite`` across runs. Returns numpy
    matrices and counts what it computed and what it reused.

    Every vector of the run is also kept in memory (one float32 row of the embedder's width a distinct text
    and side), so a text asked for again is one dictionary look-up, whatever configuration asks."""

    def __init__(self, embedder: Any, cache_dir: str | os.PathLike | None = None) -> None:
        from ..answers import CachedEmbedder as SharedCache

        if not isinstance(getattr(embedder, "name", None), str):
            raise TypeError(f"the embedder {type(embedder).__name__} needs a string 'name' (it keys the cache)")
        self.path = Path(cache_dir) / "embeddings.sqlite" if cache_dir else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        from .interrupt import OffMainThread

        # the model runs off the main thread, which stays free to answer a Ctrl-C at once (bench/interrupt.py)
        self._cached = SharedCache(OffMainThread(embedder), str(self.path) if self.path else None)
        self.embedder = embedder
        self.name = embedder.name
        self._rows: dict[tuple[str, str], np.ndarray] = {}
        self._memo_hits = 0

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.embedder!r}, path={str(self.path) if self.path else None!r})"

    @property
    def computed(self) -> int:
        """Vectors computed by the embedder (not found in the cache)."""
        return self._cached.misses

    @property
    def reused(self) -> int:
        """Vectors served from the cache (the cache file, or the run's memory of what it embedded)."""
        return self._cached.hits + self._memo_hits

    def count_missing(self, texts: Sequence[str], side: str = "passage") -> int:
        """Distinct ``texts`` whose ``side`` (``"query"`` or ``"passage"``) vector is not cached yet."""
        return self._cached.count_missing([t for t in texts if (side, t) not in self._rows], side)

    def _vectors(self, texts: Sequence[str], side: str) -> np.ndarray:
        """The ``side`` vectors of ``texts`` as a float32 matrix: from memory, else from the shared cache (which
        embeds what it does not hold, in its batches) in one call for every text not seen in this run."""
        texts = list(texts)
        todo = list(dict.fromkeys(t for t in texts if (side, t) not in self._rows))
        self._memo_hits += len(texts) - sum(1 for t in texts if (side, t) not in self._rows)
        if todo:
            fetch = self._cached.embed_queries if side == "query" else self._cached.embed_passages
            rows = np.asarray(fetch(todo), dtype=np.float32).reshape(len(todo), -1)
            self._rows.update({(side, t): row for t, row in zip(todo, rows, strict=True)})
        if not texts:
            return np.zeros((0, 1), np.float32)
        return np.stack([self._rows[side, t] for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per query text."""
        return self._vectors(texts, "query")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per passage text."""
        return self._vectors(texts, "passage")


class E5Scorer:
    """A reranking scorer (:class:`rag_eval_adapters.rerank.RelevanceScorer`): the cosine similarity of the
    query's and each text's embeddings. Not calibrated (E5 cosines sit between about 0.7 and 0.95)."""

    calibrated = False

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.name = f"e5-cosine({getattr(embedder, 'name', type(embedder).__name__)})"

    def __repr__(self) -> str:
        return f"E5Scorer({self.embedder!r})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = self.embedder.embed_queries([query])[0]
        return (self.embedder.embed_passages(list(texts)) @ q).astype(float).tolist()
