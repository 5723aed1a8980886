"""Semantic similarity of an answer to its reference(s): the cosine of their embeddings.

Both sides are embedded as *queries* by default (E5's advice for symmetric tasks such as semantic similarity:
``query: `` on both sides); pass ``side="passage"`` to embed both as passages (what LlamaIndex's
``SemanticSimilarityEvaluator`` does with ``get_text_embedding``). The score is the cosine of the two vectors,
clipped to [0, 1]; with several references the highest counts.

How to read it: embedding models do not spread similarity over [0, 1]. multilingual-e5-small (``E5Embedder``)
gives about 0.75 to unrelated texts and 0.85-0.95 to paraphrases, so compare systems with the same embedder,
never against a fixed threshold chosen for another model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from .embedders import Embedder, as_matrix
from .lexical import References, check_prediction, check_references

__all__ = ["semantic_similarity", "similarity_batch", "embed"]

Side = Literal["query", "passage"]


def embed(embedder: Embedder, texts: Sequence[str], side: Side = "query") -> np.ndarray:
    """The unit-length embeddings of ``texts`` as a ``(len(texts), dim)`` matrix."""
    if side not in ("query", "passage"):
        raise ValueError(f"side must be 'query' or 'passage', got {side!r}")
    if not isinstance(embedder, Embedder):
        raise TypeError(
            f"embedder must have embed_queries and embed_passages (see rag_eval_adapters.answers.Embedder), "
            f"got {type(embedder).__name__}; wrap a plain function in CallableEmbedder"
        )
    method = embedder.embed_queries if side == "query" else embedder.embed_passages
    texts = list(texts)
    matrix = as_matrix(method(texts) if texts else np.zeros((0, 1)), len(texts), f"{type(embedder).__name__}.{method.__name__}")
    # Each row scaled by its largest component first: the norm of 1e308-sized (or subnormal) components would
    # overflow to inf (or underflow to 0) and every cosine would come out 0.
    largest = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix))
    if (largest == 0).any():
        i = int(np.flatnonzero(largest == 0)[0])
        raise ValueError(f"the embedding of text {i} ({texts[i]!r:.60}) is the zero vector; cosine is undefined")
    matrix = matrix / largest[:, None]
    return matrix / np.linalg.norm(matrix, axis=1)[:, None]


def similarity_batch(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    embedder: Embedder,
    *,
    side: Side = "query",
) -> np.ndarray:
    """Best cosine of each prediction against its references, clipped to [0, 1]; one embedding call.

    Texts that repeat are embedded once.
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} reference lists")
    unique: dict[str, int] = {}
    for text in predictions:
        unique.setdefault(text, len(unique))
    for refs in references:
        for text in refs:
            unique.setdefault(text, len(unique))
    vectors = embed(embedder, list(unique), side)
    out = np.empty(len(predictions), dtype=np.float64)
    for i, (pred, refs) in enumerate(zip(predictions, references, strict=False)):
        p = vectors[unique[pred]]
        best = max(float(vectors[unique[r]] @ p) for r in refs)
        out[i] = min(1.0, max(0.0, best))
    return out


def semantic_similarity(
    prediction: str,
    references: References,
    embedder: Embedder,
    *,
    side: Side = "query",
) -> float:
    """The cosine similarity of the prediction's and the best reference's embeddings, in [0, 1].

    Parameters
    ----------
    prediction, references : str, and str or list of str
        The generated answer and its reference answer(s); the most similar reference counts.
    embedder : Embedder
        E.g. :class:`~rag_eval_adapters.answers.E5Embedder` or :class:`~rag_eval_adapters.answers.CallableEmbedder`.
    side : {"query", "passage"}
        Embed both texts as queries (default) or as passages.

    Returns
    -------
    float
        ``max(0, cos(e(prediction), e(reference)))`` maximised over the references. Read it relative to the
        embedder's floor (about 0.75 for unrelated texts with E5): see ``docs/answers.md``.
    """
    pred = check_prediction(prediction)
    refs = check_references(references)
    return float(similarity_batch([pred], [refs], embedder, side=side)[0])
