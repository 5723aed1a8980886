"""The embedder protocol every embedding call of the package speaks (semantic similarity, bench retrievers and
rerankers), and :func:`as_embedder`, which takes LlamaIndex and LangChain embedding models too. The backends
(``openai_embedder.py``, E5 in ``answers/embedders.py``) are listed in :mod:`.providers`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from .chat import as_protocol
from .closing import Closeable

__all__ = ["Embedder", "FrameworkEmbedder", "PrefixedEmbedder", "as_embedder"]


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


class PrefixedEmbedder(Closeable):
    """An embedder that embeds queries and passages through one call, each text after its side's prefix
    (``"query: "`` / ``"passage: "`` for E5 models); the base of ``OpenAIEmbedder`` and
    ``answers.CallableEmbedder``. A subclass implements :meth:`embed_texts` (and ``close`` when it holds
    connections: ``with embedder:`` closes it).

    Parameters
    ----------
    query_prefix, passage_prefix : str
        Prepended to each query text and to each passage text.

    Raises
    ------
    TypeError
        A prefix is not a string.
    """

    def __init__(self, query_prefix: str = "", passage_prefix: str = "") -> None:
        for field, value in (("query_prefix", query_prefix), ("passage_prefix", passage_prefix)):
            if not isinstance(value, str):
                raise TypeError(f"{field} must be a string, got {value!r}")
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix

    def embed_texts(self, texts: list[str]) -> Any:
        """One vector per text, the texts as given (prefixes already applied)."""
        raise NotImplementedError

    def embed_queries(self, texts: Sequence[str]) -> Any:
        """One vector per text, each sent with ``query_prefix``."""
        return self.embed_texts([self.query_prefix + t for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> Any:
        """One vector per text, each sent with ``passage_prefix``."""
        return self.embed_texts([self.passage_prefix + t for t in texts])


class FrameworkEmbedder:
    """What the LlamaIndex and LangChain embedding adapters share: queries embedded one at a time through the
    model's query call (so its query instruction or prefix applies), passages in one batch call, and the
    embedder's ``name``. A subclass checks the model, keeps it and passes its two calls; it imports its
    framework, this class none.

    Parameters
    ----------
    model : object
        The framework's embedding model.
    model_name : str
        The model's name as the framework reports it (part of the default ``name``).
    embed_query : callable
        ``embed_query(text) -> vector``: one query.
    embed_batch : callable
        ``embed_batch(texts) -> vectors``: a list of passages.
    name : str, optional
        Identifies the model in the embedding cache; default ``"{framework}:{module}.{class}:{model_name}"``
        (:attr:`framework` is the subclass's prefix).
    """

    framework: ClassVar[str] = ""

    def __init__(self, model: Any, model_name: str, embed_query: Callable[[str], Any],
                 embed_batch: Callable[[list[str]], Any], name: str | None = None) -> None:
        model_type = type(model)
        self.name = name or f"{self.framework}:{model_type.__module__}.{model_type.__qualname__}:{model_name}"
        self._embed_query = embed_query
        self._embed_batch = embed_batch

    def embed_queries(self, texts: Sequence[str]) -> list[Any]:
        """The model's query vector of each text, one call a text."""
        return [self._embed_query(t) for t in texts]

    def embed_passages(self, texts: Sequence[str]) -> list[Any]:
        """The model's vectors of the texts, in one batch call."""
        return self._embed_batch(list(texts))


_ADAPTERS = {  # framework module prefix -> (adapter module, class); imported only for such an object
    "llama_index": ("rag_eval_adapters.llamaindex.embeddings", "LlamaIndexEmbedder"),
    "langchain": ("rag_eval_adapters.langchain.embeddings", "LangChainEmbedder"),
}


def as_embedder(embedder: Any) -> Embedder:
    """``embedder`` as an :class:`Embedder`: itself when it already is one, a LlamaIndex ``BaseEmbedding`` or a
    LangChain ``Embeddings`` wrapped by its adapter; anything else is refused with a TypeError."""
    return as_protocol(embedder, Embedder, _ADAPTERS, "embedder must have embed_queries and embed_passages (an "
                                                       "Embedder), or be a LlamaIndex or LangChain embedding model")
