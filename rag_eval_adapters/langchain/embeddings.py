"""A LangChain ``Embeddings`` object as an answer-metric :class:`~rag_eval_adapters.answers.Embedder`."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from ..modelcalls.embedding import FrameworkEmbedder

__all__ = ["LangChainEmbedder"]


class LangChainEmbedder(FrameworkEmbedder):
    """Queries through ``embed_query`` (one at a time, as LangChain defines it), passages through
    ``embed_documents`` (batched).

    Parameters
    ----------
    embeddings : langchain_core.embeddings.Embeddings
        E.g. ``OpenAIEmbeddings(...)`` or ``HuggingFaceEmbeddings(...)``.
    name : str, optional
        Identifies the model in the embedding cache; default the class and its ``model``/``model_name``.
    """

    framework = "langchain"

    def __init__(self, embeddings: Embeddings, *, name: str | None = None) -> None:
        if not isinstance(embeddings, Embeddings):
            raise TypeError(f"embeddings must be a langchain_core Embeddings, got {type(embeddings).__name__}")
        self.embeddings = embeddings
        model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None) or ""
        super().__init__(embeddings, model, embeddings.embed_query, embeddings.embed_documents, name)

    def __repr__(self) -> str:
        return f"LangChainEmbedder({type(self.embeddings).__name__})"
