"""A cache of (model, query, text) -> score so a re-run does not pay twice."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from .base import RelevanceScorer, check_scores, validate_query_texts

__all__ = ["ScoreCache", "InMemoryScoreCache", "SqliteScoreCache", "CachedScorer", "cache_key", "as_cache"]


def cache_key(model: str, query: str, text: str) -> str:
    """The cache key of one pair: sha256 of ``model``, ``query`` and ``text`` (NUL-separated), hex."""
    h = hashlib.sha256()
    for part in (model, query, text):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


@runtime_checkable
class ScoreCache(Protocol):
    """Storage for scores by :func:`cache_key`."""

    def get_many(self, keys: Iterable[str]) -> dict[str, float]: ...

    def set_many(self, items: Mapping[str, float]) -> None: ...


class InMemoryScoreCache:
    """A process-local, thread-safe dict cache."""

    def __init__(self) -> None:
        self._data: dict[str, float] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"InMemoryScoreCache(entries={len(self)})"

    def __len__(self) -> int:
        return len(self._data)

    def get_many(self, keys: Iterable[str]) -> dict[str, float]:
        with self._lock:
            return {k: self._data[k] for k in keys if k in self._data}

    def set_many(self, items: Mapping[str, float]) -> None:
        with self._lock:
            self._data.update(items)


class SqliteScoreCache:
    """A persistent cache in one SQLite file (created if missing), safe to share between threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
        with self._conn:
            self._conn.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, score REAL NOT NULL)")

    def __repr__(self) -> str:
        return f"SqliteScoreCache({str(self.path)!r}, entries={len(self)})"

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def get_many(self, keys: Iterable[str]) -> dict[str, float]:
        keys = list(keys)
        out: dict[str, float] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, score in self._conn.execute(f"SELECT key, score FROM scores WHERE key IN ({marks})", chunk):
                    out[key] = float(score)
        return out

    def set_many(self, items: Mapping[str, float]) -> None:
        with self._lock, self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO scores (key, score) VALUES (?, ?)", list(items.items()))

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


def as_cache(cache: ScoreCache | str | os.PathLike[str] | None) -> ScoreCache | None:
    """``None`` -> None, a path -> :class:`SqliteScoreCache`, a cache object -> itself."""
    if cache is None:
        return None
    if isinstance(cache, (str, os.PathLike)):
        return SqliteScoreCache(cache)
    if isinstance(cache, ScoreCache):
        return cache
    raise TypeError(f"cache must be a path, a ScoreCache (get_many/set_many) or None; got {type(cache).__name__}")


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
        found = self.cache.get_many(set(keys))
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key not in found and key not in missing:
                missing[key] = text
        with self._lock:
            self.hits += sum(1 for k in keys if k in found)
            self.misses += len(missing)
        return keys, found, list(missing.values())

    def _store(self, query: str, keys: list[str], found: dict[str, float], todo: list[str], scores: list[float]) -> list[float]:
        scores = check_scores(query, todo, scores, calibrated=self.calibrated, source=repr(self.scorer))
        new = {cache_key(self.name, query, t): s for t, s in zip(todo, scores)}
        if new:
            self.cache.set_many(new)
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
