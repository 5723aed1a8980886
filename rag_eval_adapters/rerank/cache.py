"""A cache of (model, query, text) -> score so a re-run does not pay twice (on the shared model-call cache).

A cached score is validated on read (finite, in [0, 1] for a calibrated scorer; a row edited by hand is
ignored): an invalid entry is scored again, never returned. A cache that cannot be written warns
(:class:`rag_eval_adapters.modelcalls.CacheWriteWarning`) and the scores just paid for are still returned.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

from ..modelcalls.cache import (
    CallCache,
    InMemoryCache,
    SqliteCache,
    finite_score,
    lookup_quietly,
    open_cache,
    store_quietly,
)
from ..modelcalls.cache import cache_key as _call_key
from .base import RelevanceScorer, check_scores, validate_query_texts

__all__ = ["ScoreCache", "InMemoryScoreCache", "SqliteScoreCache", "CachedScorer", "cache_key", "as_cache"]


def cache_key(model: str, query: str, text: str) -> str:
    """The cache key of one pair: :func:`rag_eval_adapters.modelcalls.cache_key` of ``model`` and
    ``{"query": query, "text": text}`` (sha256 of canonical JSON: distinct pairs never share a key)."""
    return _call_key(model, {"query": query, "text": text})


#: A score cache is any model-call cache (``get_many`` / ``set_many``).
ScoreCache = CallCache


class InMemoryScoreCache(InMemoryCache):
    """A process-local, thread-safe dict cache of scores."""


class SqliteScoreCache(SqliteCache):
    """A persistent score cache in one SQLite file, shared safely by threads and processes (see
    :class:`rag_eval_adapters.modelcalls.SqliteCache`)."""


def as_cache(cache: ScoreCache | str | os.PathLike[str] | None) -> ScoreCache | None:
    """``None`` -> None, a path -> :class:`SqliteScoreCache`, a cache object -> itself."""
    if isinstance(cache, (str, os.PathLike)):
        return SqliteScoreCache(cache)
    return open_cache(cache)


class CachedScorer:
    """Wrap a scorer so each distinct (scorer.name, query, text) is scored once, ever (per cache).

    Only the texts missing from the cache are sent to the wrapped scorer (duplicates within one call once);
    ``hits`` / ``misses`` count pairs served from / sent past the cache.
    """

    def __init__(self, scorer: RelevanceScorer, cache: ScoreCache | str | os.PathLike[str] | None = None) -> None:
        if not isinstance(scorer, RelevanceScorer):
            raise TypeError(f"scorer must implement RelevanceScorer, got {type(scorer).__name__}")
        self.scorer = scorer
        store = as_cache(cache)
        self.cache: ScoreCache = store if store is not None else InMemoryScoreCache()
        self.name = scorer.name
        self.calibrated = scorer.calibrated
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CachedScorer({self.scorer!r}, cache={self.cache!r}, hits={self.hits}, misses={self.misses})"

    def __getattr__(self, item: str):  # usage, model, ... of the wrapped scorer
        if item == "scorer":
            raise AttributeError(item)
        return getattr(self.scorer, item)

    def _lookup(self, query: str, texts: Sequence[str]) -> tuple[list[str], dict[str, float], list[str]]:
        keys = [cache_key(self.name, query, t) for t in texts]
        found = lookup_quietly(self.cache, set(keys), finite_score(self.calibrated))
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=False):
            if key not in found and key not in missing:
                missing[key] = text
        with self._lock:
            self.hits += sum(1 for k in keys if k in found)
            self.misses += len(missing)
        return keys, found, list(missing.values())

    def _store(self, query: str, keys: list[str], found: dict[str, float], todo: list[str], scores: list[float]) -> list[float]:
        scores = check_scores(query, todo, scores, calibrated=self.calibrated, source=repr(self.scorer))
        new = {cache_key(self.name, query, t): s for t, s in zip(todo, scores, strict=False)}
        store_quietly(self.cache, new)
        found.update(new)
        return [found[k] for k in keys]

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Scores from the cache, the misses from the wrapped scorer (then cached)."""
        items = validate_query_texts(query, texts)
        keys, found, todo = self._lookup(query, items)
        scores = self.scorer.score(query, todo) if todo else []
        return self._store(query, keys, found, todo, scores)

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        """Async :meth:`score`."""
        items = validate_query_texts(query, texts)
        keys, found, todo = self._lookup(query, items)
        scores = await self.scorer.ascore(query, todo) if todo else []
        return self._store(query, keys, found, todo, scores)
