"""Answering from the retrieved chunks: an offline extractive baseline, or any LLM.

:class:`ExtractiveAnswerer` is the documented baseline: it answers with the one sentence of the retrieved
chunks whose embedding is closest (cosine) to the question's. It needs no model call and shows how far the
retrieval alone carries the answer; any generator should beat it.

:class:`LLMAnswerer` asks a language model to answer from the chunks. It takes a LlamaIndex ``LLM``
(``complete``), a LangChain chat model (``invoke``) or :class:`OpenAIChatLLM` (the official ``openai`` SDK,
so OpenAI and every OpenAI-compatible server), and sums the token usage the model reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["ExtractiveAnswerer", "LLMAnswerer", "OpenAIChatLLM", "split_sentences", "ANSWER_PROMPT"]

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n\s*\n")

ANSWER_PROMPT = (
    "Answer the question using only the context below. Reply with the answer alone, in one short "
    "sentence, in the language of the question.\n\nContext:\n{context}\n\nQuestion: {question}\nAnswer:"
)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``: split after ``.``, ``!``, ``?`` (and their CJK forms) and at blank lines."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


class ExtractiveAnswerer:
    """Answers with the sentence of the retrieved chunks closest to the question (E5 cosine); offline."""

    name = "extractive"

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def __repr__(self) -> str:
        return f"ExtractiveAnswerer(embedder={self.embedder!r})"

    def answer(self, question: str, contexts: Sequence[str]) -> str:
        """The sentence of ``contexts`` most similar to ``question`` (empty when there is no context)."""
        sentences = list(dict.fromkeys(s for c in contexts for s in split_sentences(c)))
        if not sentences:
            return ""
        q = self.embedder.embed_queries([question])[0]
        return sentences[int(np.argmax(self.embedder.embed_passages(sentences) @ q))]


@dataclass
class Usage:
    """Token usage summed over the model calls."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


class OpenAIChatLLM:
    """A chat model behind the official ``openai`` SDK: OpenAI or any OpenAI-compatible server.

    TODO(bench): replace with the test-set module's ``OpenAICompatibleLLM`` (shared model-call layer with
    retries and cache) once it lands; this minimal client exists so the benchmark can answer before then.
    """

    def __init__(self, model: str, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 temperature: float = 0.0, timeout: float = 60.0) -> None:
        import openai

        self.model, self.temperature = model, temperature
        self.usage = Usage()
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                     max_retries=3)

    def __repr__(self) -> str:
        return f"OpenAIChatLLM(model={self.model!r}, base_url={str(self._client.base_url)!r})"

    def complete(self, prompt: str) -> str:
        response = self._client.chat.completions.create(
            model=self.model, temperature=self.temperature, messages=[{"role": "user", "content": prompt}])
        self.usage.calls += 1
        if response.usage is not None:
            self.usage.prompt_tokens += int(response.usage.prompt_tokens or 0)
            self.usage.completion_tokens += int(response.usage.completion_tokens or 0)
        return response.choices[0].message.content or ""


def _text_of(result: Any) -> str:
    for attr in ("text", "content"):
        value = getattr(result, attr, None)
        if isinstance(value, str):
            return value
    return str(result)


class LLMAnswerer:
    """Answers from the top chunks with a language model and :data:`ANSWER_PROMPT`."""

    name = "llm"

    def __init__(self, llm: Any, prompt: str = ANSWER_PROMPT) -> None:
        if not (hasattr(llm, "complete") or hasattr(llm, "invoke")):
            raise TypeError(f"an LLM needs complete(prompt) or invoke(prompt), got {type(llm).__name__}")
        self.llm, self.prompt = llm, prompt
        self.name = f"llm:{getattr(llm, 'model', getattr(llm, 'model_name', type(llm).__name__))}"

    def __repr__(self) -> str:
        return f"LLMAnswerer({self.llm!r})"

    @property
    def usage(self) -> dict[str, int]:
        usage = getattr(self.llm, "usage", None)
        return usage.to_dict() if isinstance(usage, Usage) else {}

    def answer(self, question: str, contexts: Sequence[str]) -> str:
        """The model's answer to ``question`` from ``contexts`` (stripped)."""
        context = "\n\n".join(f"[{i + 1}] {c}" for i, c in enumerate(contexts))
        prompt = self.prompt.format(context=context, question=question)
        result = self.llm.complete(prompt) if hasattr(self.llm, "complete") else self.llm.invoke(prompt)
        return _text_of(result).strip()
