"""Embeddings cached by content hash, through the shared model-call layer (:mod:`rag_eval_adapters.modelcalls`).

A vector's key is :func:`~rag_eval_adapters.modelcalls.cache_key` of (the embedder's ``name``, the side --
query or passage -- and the text), so the same text embedded by the same model is paid for once, also across
runs with a :class:`~rag_eval_adapters.modelcalls.SqliteCache` file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..modelcalls import CallCache, InMemoryCache, cache_key, finite_vector, lookup_quietly, open_cache, store_quietly
from .embedders import Embedder, as_matrix

__all__ = ["CachedEmbedder", "cached"]


class CachedEmbedder:
    """An :class:`~rag_eval_adapters.answers.Embedder` that asks the wrapped one only for texts not cached yet.

    Parameters
    ----------
    embedder : Embedder
        The embedder to call for missing vectors; its ``name`` is part of every key.
    cache : cache object, path or None
        A :class:`~rag_eval_adapters.modelcalls.CallCache`, a path to an SQLite file, or None for a new
        in-memory cache.
    batch_size : int
        Missing texts are embedded ``batch_size`` at a time and each batch is written to the cache as soon as
        it is computed, so an interrupted run (Ctrl-C) keeps every vector it finished.

    Attributes
    ----------
    hits, misses : int
        Vectors served from the cache and vectors computed, since construction.
    """

    def __init__(self, embedder: Embedder, cache: CallCache | str | os.PathLike | None = None, *,
                 batch_size: int = 64) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self.batch_size = batch_size
        if not isinstance(embedder, Embedder):
            raise TypeError(f"embedder must have embed_queries and embed_passages, got {type(embedder).__name__}")
        name = getattr(embedder, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"{type(embedder).__name__} needs a non-empty string 'name' (it keys the cache)")
        self.embedder = embedder
        opened = open_cache(cache)  # an empty cache is falsy (it has a length): compare with None
        self.cache = opened if opened is not None else InMemoryCache()
        self.name = name
        self.hits = 0
        self.misses = 0

    def _key(self, text: str, side: str) -> str:
        return cache_key(self.name, {"side": side, "text": text})

    def count_missing(self, texts: Sequence[str], side: str = "passage") -> int:
        """How many distinct ``texts`` are not in the cache yet for ``side`` (``"query"`` or ``"passage"``):
        the vectors embedding them would compute."""
        keys = list(dict.fromkeys(self._key(t, side) for t in texts))
        return len(keys) - len(lookup_quietly(self.cache, keys, finite_vector()))

    def _embed(self, texts: Sequence[str], side: str) -> list[list[float]]:
        texts = list(texts)
        keys = [self._key(t, side) for t in texts]
        found = lookup_quietly(self.cache, keys, finite_vector())
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=False) if k not in found))
        self.hits += sum(1 for k in keys if k in found)
        method = self.embedder.embed_queries if side == "query" else self.embedder.embed_passages
        for i in range(0, len(todo), self.batch_size):  # each batch is stored as soon as it is paid for
            batch = todo[i:i + self.batch_size]
            matrix = as_matrix(method(batch), len(batch), f"{type(self.embedder).__name__}.{method.__name__}")
            new = {self._key(t, side): row.tolist() for t, row in zip(batch, matrix, strict=False)}
            self.misses += len(batch)
            store_quietly(self.cache, new)
            found.update(new)
        return [found[k] for k in keys]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """The wrapped embedder's query vectors, from the cache where it has them."""
        return self._embed(texts, "query")

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """The wrapped embedder's passage vectors, from the cache where it has them."""
        return self._embed(texts, "passage")

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.embedder!r}, cache={self.cache!r}, hits={self.hits}, misses={self.misses})"


def cached(embedder: Any, cache: CallCache | str | os.PathLike | None = None) -> CachedEmbedder:
    """``embedder`` itself when already a :class:`CachedEmbedder` (and no other cache is asked for), else wrapped."""
    if isinstance(embedder, CachedEmbedder) and cache is None:
        return embedder
    return CachedEmbedder(embedder, cache)
