"""A deterministic offline embedding for LlamaIndex tests: no model, no network."""

from __future__ import annotations

import hashlib
import math
import re

from llama_index.core.base.embeddings.base import BaseEmbedding


class HashingEmbedding(BaseEmbedding):
    """A deterministic local embedding: hashed bag of words, L2-normalised. No model, no network."""

    dim: int = 512

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for token in re.findall(r"[a-z0-9]+", text.lower()):
            vector[int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dim] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)
