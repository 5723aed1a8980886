"""Answering from the retrieved chunks: an offline extractive baseline, or any LLM.

:class:`ExtractiveAnswerer` is the documented baseline: it answers with the one sentence of the retrieved
chunks whose embedding is closest (cosine) to the question's. It needs no model call and shows how far the
retrieval alone carries the answer; any generator should beat it.

:class:`LLMAnswerer` asks a language model to answer from the chunks, through the test-set module's LLM
protocol (:func:`rag_eval_adapters.testsets.as_chat_llm`: a LlamaIndex ``LLM``, a LangChain chat model or
``OpenAICompatibleLLM`` for OpenAI and every OpenAI-compatible server) and the shared model-call layer
(:mod:`rag_eval_adapters.modelcalls`: retries, cache, usage and cost).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["ExtractiveAnswerer", "LLMAnswerer", "split_sentences", "ANSWER_PROMPT"]

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

    def prepare(self, questions: Sequence[str], contexts: Sequence[Sequence[str]]) -> None:
        """Embed every question and every sentence of ``contexts`` in two batched calls (warms the cache)."""
        sentences = list(dict.fromkeys(s for group in contexts for c in group for s in split_sentences(c)))
        if sentences:
            self.embedder.embed_passages(sentences)
        if questions:
            self.embedder.embed_queries(list(dict.fromkeys(questions)))

    def answer(self, question: str, contexts: Sequence[str]) -> str:
        """The sentence of ``contexts`` most similar to ``question`` (empty when there is no context)."""
        sentences = list(dict.fromkeys(s for c in contexts for s in split_sentences(c)))
        if not sentences:
            return ""
        q = self.embedder.embed_queries([question])[0]
        return sentences[int(np.argmax(self.embedder.embed_passages(sentences) @ q))]


class LLMAnswerer:
    """Answers from the top chunks with a language model and :data:`ANSWER_PROMPT`.

    Parameters
    ----------
    llm
        A LlamaIndex ``LLM``, a LangChain chat model, or
        :class:`rag_eval_adapters.testsets.OpenAICompatibleLLM` (OpenAI or any OpenAI-compatible server).
    prompt : str
        The prompt, with ``{context}`` and ``{question}``.
    cache : cache object or path, optional
        Answers keyed by (model, prompt, temperature) in the shared model-call cache: a re-run pays nothing.
    prices : rag_eval_adapters.modelcalls.Prices, optional
        Turns the token usage into a cost.
    retry : rag_eval_adapters.modelcalls.RetryPolicy, optional
        Retries of 429, 5xx, timeouts and connection errors (honouring ``retry-after``).
    """

    def __init__(self, llm: Any, prompt: str = ANSWER_PROMPT, *, cache: Any = None, prices: Any = None,
                 retry: Any = None) -> None:
        from ..modelcalls import InMemoryCache, RetryPolicy, UsageMeter, open_cache, resolve_llm

        self.llm = resolve_llm(llm)
        self.prompt = prompt
        self.name = f"llm:{self.llm.name}"
        opened = open_cache(cache)
        self.cache = opened if opened is not None else InMemoryCache()
        self.meter = UsageMeter(prices)
        self.retry = retry if retry is not None else RetryPolicy()

    def __repr__(self) -> str:
        return f"LLMAnswerer({self.llm!r})"

    @property
    def usage(self) -> dict[str, Any]:
        """Calls, cache hits, retries, tokens and cost so far."""
        return self.meter.usage.to_dict()

    def answer(self, question: str, contexts: Sequence[str]) -> str:
        """The model's answer to ``question`` from ``contexts`` (stripped); cached, retried, metered."""
        from ..modelcalls import cache_key, call_with_retry, lookup_quietly, store_quietly

        context = "\n\n".join(f"[{i + 1}] {c}" for i, c in enumerate(contexts))
        prompt = self.prompt.format(context=context, question=question)
        key = cache_key(self.llm.name, {"prompt": prompt, "temperature": self.llm.temperature, "task": "answer"})
        found = lookup_quietly(self.cache, [key], lambda v: v if isinstance(v, str) else None)
        if key in found:
            self.meter.add(cache_hits=1)
            return found[key]
        messages = [{"role": "user", "content": prompt}]
        try:
            completion, attempts = call_with_retry(lambda: self.llm.chat(messages), self.retry,
                                                   what=f"answering {question[:60]!r} with {self.llm.name}")
        except Exception:
            self.meter.add(failures=1)
            raise
        self.meter.add(calls=1, retries=attempts - 1, input_tokens=completion.input_tokens,
                       output_tokens=completion.output_tokens)
        text = (completion.text or "").strip()
        store_quietly(self.cache, {key: text})
        return text
