"""A LlamaIndex ``BaseEmbedding`` as an answer-metric :class:`~rag_eval_adapters.answers.Embedder`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding

__all__ = ["LlamaIndexEmbedder"]


class LlamaIndexEmbedder:
    """Queries through ``get_query_embedding`` (the model's query instruction or prefix applies), passages
    through ``get_text_embedding_batch``.

    Parameters
    ----------
    embed_model : llama_index.core.base.embeddings.base.BaseEmbedding
        E.g. ``OpenAIEmbedding(...)``, ``HuggingFaceEmbedding(...)`` or ``Settings.embed_model``.
    name : str, optional
        Identifies the model in the embedding cache; default the class and its ``model_name``.
    """

    def __init__(self, embed_model: BaseEmbedding, *, name: str | None = None) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise TypeError(f"embed_model must be a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}")
        self.embed_model = embed_model
        self.name = name or f"llamaindex:{type(embed_model).__module__}.{type(embed_model).__qualname__}:" \
                            f"{embed_model.model_name}"

    def embed_queries(self, texts: Sequence[str]) -> list[Any]:
        """``get_query_embedding`` of each text."""
        return [self.embed_model.get_query_embedding(t) for t in texts]

    def embed_passages(self, texts: Sequence[str]) -> list[Any]:
        """``get_text_embedding_batch`` of the texts."""
        return self.embed_model.get_text_embedding_batch(list(texts))

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedder({type(self.embed_model).__name__}(model_name={self.embed_model.model_name!r}))"
