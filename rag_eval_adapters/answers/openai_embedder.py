""":class:`OpenAIEmbedder` (its home is :mod:`rag_eval_adapters.modelcalls.openai_embedder`; re-exported here,
where it was first)."""

from __future__ import annotations

from ..modelcalls.openai_embedder import OpenAIEmbedder

__all__ = ["OpenAIEmbedder"]
