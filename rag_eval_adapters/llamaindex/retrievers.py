"""Retrievers for evaluation: any score function as a LlamaIndex retriever, nodes from records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from ..validation import check_count

__all__ = ["ScoringRetriever", "nodes_from_records"]


def nodes_from_records(records: Iterable[Mapping[str, Any]]) -> list[Any]:
    """LlamaIndex ``TextNode``s from records ``{"id", "text", ...}``; the other keys become metadata."""
    nodes = []
    for number, record in enumerate(records):
        if not isinstance(record, Mapping) or "id" not in record or "text" not in record:
            raise ValueError(f"record {number} must be a mapping with 'id' and 'text', got {record!r:.80}")
        metadata = {k: v for k, v in record.items() if k not in ("id", "text")}
        nodes.append(TextNode(id_=str(record["id"]), text=str(record["text"]), metadata=metadata))
    if not nodes:
        raise ValueError("no records: give at least one {'id', 'text'} record")
    return nodes


class ScoringRetriever(BaseRetriever):
    """A LlamaIndex retriever over fixed nodes, ranked by any scoring function.

    ``score_fn(query) -> one score per node`` (a list or numpy array, in node order). The retriever returns
    the ``top_k`` nodes with a positive score, best first, ties broken by node order. It turns any search
    code (BM25, TF-IDF, a vector library) into a retriever that ``RetrieverEvaluator`` can evaluate.
    """

    def __init__(self, nodes: Iterable[Any], score_fn: Callable[[str], Any], top_k: int = 10,
                 **kwargs: Any) -> None:
        if not callable(score_fn):
            raise TypeError(f"score_fn must be callable: query -> one score per node, got {score_fn!r}")
        self._nodes = list(nodes)
        if not self._nodes:
            raise ValueError("ScoringRetriever needs at least one node")
        self.top_k = check_count(top_k, "top_k")
        self._score_fn = score_fn
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        scores = np.asarray(self._score_fn(query_bundle.query_str), dtype=np.float64).ravel()
        if scores.shape[0] != len(self._nodes):
            raise ValueError(
                f"score_fn returned {scores.shape[0]} scores for {len(self._nodes)} nodes "
                f"(query {query_bundle.query_str!r})"
            )
        order = np.argsort(-scores, kind="stable")[: self.top_k]
        order = order[scores[order] > 0]
        return [NodeWithScore(node=self._nodes[i], score=float(scores[i])) for i in order]

    def __repr__(self) -> str:
        name = getattr(self._score_fn, "__name__", None) or type(self._score_fn).__name__
        return f"ScoringRetriever(nodes={len(self._nodes)}, score_fn={name}, top_k={self.top_k})"


# ---------------------------------------------------------------------------------------------- reranker relevancy


