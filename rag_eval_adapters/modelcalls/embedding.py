"""The embedder protocol every embedding call of the package speaks (semantic similarity, bench retrievers and
rerankers), and :func:`as_embedder`, which takes LlamaIndex and LangChain embedding models too. The backends
(``openai_embedder.py``, E5 in ``answers/embedders.py``) are listed in :mod:`.providers`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .chat import framework_adapter

__all__ = ["Embedder", "as_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Anything with ``embed_queries`` and ``embed_passages`` (lists of texts to one vector each).

    ``name`` identifies the model (it keys the embedding cache); vectors may be lists or numpy arrays.
    """

    name: str

    def embed_queries(self, texts: Sequence[str]) -> Any:
        """One vector per query text."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Any:
        """One vector per passage text."""
        ...


_ADAPTERS = {  # framework module prefix -> (adapter module, class); imported only for such an object
    "llama_index": ("rag_eval_adapters.llamaindex.embeddings", "LlamaIndexEmbedder"),
    "langchain": ("rag_eval_adapters.langchain.embeddings", "LangChainEmbedder"),
}


def as_embedder(embedder: Any) -> Embedder:
    """``embedder`` as an :class:`Embedder`: itself when it already is one, a LlamaIndex ``BaseEmbedding`` or a
    LangChain ``Embeddings`` wrapped by its adapter; anything else is refused with a TypeError."""
    wrapped = framework_adapter(embedder, _ADAPTERS)
    if wrapped is not None:
        return wrapped
    if isinstance(embedder, Embedder):
        return embedder
    raise TypeError("embedder must have embed_queries and embed_passages (an Embedder), or be a LlamaIndex or "
                    f"LangChain embedding model; got {type(embedder).__name__}")
