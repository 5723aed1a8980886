"""Two offline scorers for the demo, each from a maintained package; no framework imports.

* :class:`BM25Scorer` - Okapi BM25 (Lucene variant, k1=1.5, b=0.75) from the ``bm25s`` package,
  over word tokens with English stop words removed (bm25s ships its stop-word list; no download).
* :class:`TfidfScorer` - cosine similarity of TF-IDF vectors of character 3-5-grams within word
  boundaries (scikit-learn ``TfidfVectorizer(analyzer="char_wb")``, sublinear tf), a lexical-vector
  model that also matches word forms BM25 treats as different words ("erupting" ~ "eruption").

Each is a callable ``query -> numpy array of one score per text``; the demo turns them into LlamaIndex
retrievers with :class:`rag_eval_adapters.llamaindex.ScoringRetriever`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["BM25Scorer", "TfidfScorer"]


def _texts(texts: Sequence[str]) -> list[str]:
    texts = [str(t) for t in texts]
    if not texts:
        raise ValueError("the corpus is empty: give at least one text")
    return texts


class BM25Scorer:
    """BM25 scores of every corpus text for a query, with ``bm25s`` (stop words removed, no stemming)."""

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        import bm25s

        self._bm25s = bm25s
        self._size = len(_texts(texts))
        tokens = bm25s.tokenize(_texts(texts), stopwords="en", show_progress=False)
        self._index = bm25s.BM25(k1=k1, b=b)
        self._index.index(tokens, show_progress=False)

    def __call__(self, query: str) -> np.ndarray:
        tokens = self._bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        if not tokens:
            return np.zeros(self._size)
        return np.asarray(self._index.get_scores(tokens), dtype=np.float64)

    def __repr__(self) -> str:
        return f"BM25Scorer(texts={self._size})"


class TfidfScorer:
    """Cosine similarity of character 3-5-gram TF-IDF vectors (scikit-learn) of every corpus text to a query."""

    def __init__(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True,
                                           lowercase=True)
        self._matrix = self._vectorizer.fit_transform(_texts(texts))

    def __call__(self, query: str) -> np.ndarray:
        vector = self._vectorizer.transform([query])
        # Rows are L2-normalised, so the dot product is the cosine similarity.
        return np.asarray((self._matrix @ vector.T).toarray()).ravel()

    def __repr__(self) -> str:
        return f"TfidfScorer(texts={self._matrix.shape[0]})"
