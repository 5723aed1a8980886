"""An OpenAI-compatible embeddings endpoint (OpenAI, Azure, vLLM, TEI, LiteLLM...) through the official SDK."""

from __future__ import annotations

from typing import Any

from ..validation import check_count
from .embedding import PrefixedEmbedder

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder(PrefixedEmbedder):
    """Embeds through ``client.embeddings.create`` of the ``openai`` package (imported on first use).

    Parameters
    ----------
    model : str
        The embedding model, e.g. ``"text-embedding-3-small"`` or ``"intfloat/multilingual-e5-small"``.
    client : openai.OpenAI, optional
        A configured client; by default one is made from ``base_url`` and ``api_key`` (or the ``OPENAI_*``
        environment variables).
    base_url, api_key : str, optional
        Where and how to connect, for a self-hosted OpenAI-compatible server.
    dimensions : int, optional
        Ask for shortened vectors (text-embedding-3 models).
    batch_size : int
        Texts per request.
    query_prefix, passage_prefix : str
        Prepended to each text, e.g. ``"query: "`` / ``"passage: "`` for an E5 model served this way.
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        client: Any = None,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        if not isinstance(model, str) or not model:
            raise TypeError(f"model must be a non-empty string, got {model!r}")
        batch_size = check_count(batch_size, "batch_size")
        if dimensions is not None:
            dimensions = check_count(dimensions, "dimensions")
        super().__init__(query_prefix, passage_prefix)
        self._owns_client = False
        if client is None:
            try:
                import openai
            except ImportError:  # pragma: no cover - depends on the environment
                raise ImportError("OpenAIEmbedder needs the openai package: pip install openai") from None
            client = openai.OpenAI(base_url=base_url, api_key=api_key)
            self._owns_client = True
        self.client = client
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        base = str(getattr(client, "base_url", "") or "")
        self.name = f"openai:{base}:{model}:{dimensions or ''}|{query_prefix}|{passage_prefix}"

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        """One vector per text (as given), in requests of ``batch_size`` texts."""
        vectors: list[list[float]] = []
        extra = {"dimensions": self.dimensions} if self.dimensions else {}
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            response = self.client.embeddings.create(model=self.model, input=batch, **extra)
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise ValueError(f"the embeddings endpoint returned {len(data)} vectors for {len(batch)} texts")
            vectors.extend(list(item.embedding) for item in data)
        return vectors

    def close(self) -> None:
        """Close the HTTP connections of the client this embedder made (a client given to it is left open:
        its owner closes it)."""
        if self._owns_client:
            self.client.close()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={str(getattr(self.client, 'base_url', ''))!r})"
