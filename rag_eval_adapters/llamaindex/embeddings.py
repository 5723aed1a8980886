"""A LlamaIndex ``BaseEmbedding`` as an answer-metric :class:`~rag_eval_adapters.answers.Embedder`."""

from __future__ import annotations

from llama_index.core.base.embeddings.base import BaseEmbedding

from ..modelcalls.embedding import FrameworkEmbedder

__all__ = ["LlamaIndexEmbedder"]


class LlamaIndexEmbedder(FrameworkEmbedder):
    """Queries through ``get_query_embedding`` (the model's query instruction or prefix applies), passages
    through ``get_text_embedding_batch``.

    Parameters
    ----------
    embed_model : llama_index.core.base.embeddings.base.BaseEmbedding
        E.g. ``OpenAIEmbedding(...)``, ``HuggingFaceEmbedding(...)`` or ``Settings.embed_model``.
    name : str, optional
        Identifies the model in the embedding cache; default the class and its ``model_name``.
    """

    framework = "llamaindex"

    def __init__(self, embed_model: BaseEmbedding, *, name: str | None = None) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise TypeError(f"embed_model must be a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}")
        self.embed_model = embed_model
        super().__init__(embed_model, embed_model.model_name, embed_model.get_query_embedding,
                         embed_model.get_text_embedding_batch, name)

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedder({type(self.embed_model).__name__}(model_name={self.embed_model.model_name!r}))"
