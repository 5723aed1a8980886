"""A LangChain ``Embeddings`` object as an answer-metric :class:`~rag_eval_adapters.answers.Embedder`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings

__all__ = ["LangChainEmbedder"]


class LangChainEmbedder:
    """Queries through ``embed_query`` (one at a time, as LangChain defines it), passages through
    ``embed_documents`` (batched).

    Parameters
    ----------
    embeddings : langchain_core.embeddings.Embeddings
        E.g. ``OpenAIEmbeddings(...)`` or ``HuggingFaceEmbeddings(...)``.
    name : str, optional
        Identifies the model in the embedding cache; default the class and its ``model``/``model_name``.
    """

    def __init__(self, embeddings: Embeddings, *, name: str | None = None) -> None:
        if not isinstance(embeddings, Embeddings):
            raise TypeError(f"embeddings must be a langchain_core Embeddings, got {type(embeddings).__name__}")
        self.embeddings = embeddings
        model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None) or ""
        self.name = name or f"langchain:{type(embeddings).__module__}.{type(embeddings).__qualname__}:{model}"

    def embed_queries(self, texts: Sequence[str]) -> list[Any]:
        """``embed_query`` of each text."""
        return [self.embeddings.embed_query(t) for t in texts]

    def embed_passages(self, texts: Sequence[str]) -> list[Any]:
        """``embed_documents`` of the texts."""
        return self.embeddings.embed_documents(list(texts))

    def __repr__(self) -> str:
        return f"LangChainEmbedder({type(self.embeddings).__name__})"
