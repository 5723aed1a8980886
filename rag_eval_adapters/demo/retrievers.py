"""Two offline retrievers for the demo, each a real LlamaIndex ``BaseRetriever``.

* :class:`BM25Retriever` - Okapi BM25 (Lucene variant, k1=1.5, b=0.75) from the ``bm25s`` package,
  over word tokens with English stop words removed (bm25s ships its stop-word list; no download).
* :class:`TfidfRetriever` - cosine similarity of TF-IDF vectors of character 3-5-grams within word
  boundaries (scikit-learn ``TfidfVectorizer(analyzer="char_wb")``, sublinear tf), a lexical-vector
  model that also matches word forms BM25 treats as different words ("erupting" ~ "eruption").

Both return at most ``top_k`` nodes with a positive score, best first, ties broken by corpus order.
The module imports llama_index, bm25s and scikit-learn; it is only imported by the demo.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

__all__ = ["BM25Retriever", "TfidfRetriever", "make_nodes"]


def make_nodes(corpus: Iterable[Mapping[str, Any]]) -> list[TextNode]:
    """LlamaIndex ``TextNode`` objects from corpus records ``{"id", "text", ...}`` (other keys become metadata)."""
    nodes = []
    for record in corpus:
        metadata = {k: v for k, v in record.items() if k not in ("id", "text")}
        nodes.append(TextNode(id_=str(record["id"]), text=str(record["text"]), metadata=metadata))
    if not nodes:
        raise ValueError("the corpus is empty: give at least one {'id', 'text'} record")
    return nodes


def _top(scores: np.ndarray, top_k: int) -> np.ndarray:
    """Indices of the ``top_k`` highest positive scores, best first, ties by index (stable)."""
    order = np.argsort(-scores, kind="stable")[:top_k]
    return order[scores[order] > 0]


class _ScoringRetriever(BaseRetriever):
    """Shared retrieval loop: subclasses implement ``_scores(query) -> np.ndarray`` over the nodes."""

    def __init__(self, nodes: Sequence[TextNode], top_k: int = 10, **kwargs: Any) -> None:
        if not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
        super().__init__(**kwargs)
        self._nodes = list(nodes)
        self.top_k = top_k

    def _scores(self, query: str) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        scores = self._scores(query_bundle.query_str)
        return [NodeWithScore(node=self._nodes[i], score=float(scores[i])) for i in _top(scores, self.top_k)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nodes={len(self._nodes)}, top_k={self.top_k})"


class BM25Retriever(_ScoringRetriever):
    """BM25 ranking with ``bm25s`` (word tokens, English stop words removed, no stemming)."""

    def __init__(self, nodes: Sequence[TextNode], top_k: int = 10, k1: float = 1.5, b: float = 0.75,
                 **kwargs: Any) -> None:
        import bm25s

        super().__init__(nodes, top_k, **kwargs)
        self._bm25s = bm25s
        tokens = bm25s.tokenize([n.get_content() for n in self._nodes], stopwords="en", show_progress=False)
        self._index = bm25s.BM25(k1=k1, b=b)
        self._index.index(tokens, show_progress=False)

    def _scores(self, query: str) -> np.ndarray:
        tokens = self._bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        if not tokens:
            return np.zeros(len(self._nodes))
        return np.asarray(self._index.get_scores(tokens), dtype=np.float64)


class TfidfRetriever(_ScoringRetriever):
    """Cosine similarity of character 3-5-gram TF-IDF vectors (scikit-learn)."""

    def __init__(self, nodes: Sequence[TextNode], top_k: int = 10, **kwargs: Any) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        super().__init__(nodes, top_k, **kwargs)
        self._vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True,
                                           lowercase=True)
        self._matrix = self._vectorizer.fit_transform([n.get_content() for n in self._nodes])

    def _scores(self, query: str) -> np.ndarray:
        vector = self._vectorizer.transform([query])
        # Rows are L2-normalised, so the dot product is the cosine similarity.
        return np.asarray((self._matrix @ vector.T).toarray()).ravel()
