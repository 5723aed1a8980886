"""A LlamaIndex ``LLM`` as the chat model of :func:`rag_eval_adapters.testsets.generate_testset`."""

from __future__ import annotations

import math
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms import LLM

from ..modelcalls.chat import FrameworkChatLLM
from ..testsets import Completion

__all__ = ["LlamaIndexChatLLM"]

_ROLES = {"system": MessageRole.SYSTEM, "user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}


def _count(*values: Any) -> int:
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return int(value)
    return 0


def _usage(response: Any) -> tuple[int, int]:
    extra = getattr(response, "additional_kwargs", None) or {}
    raw = getattr(response, "raw", None)
    usage = raw.get("usage") if isinstance(raw, dict) else getattr(raw, "usage", None)
    get = (lambda k: usage.get(k)) if isinstance(usage, dict) else (lambda k: getattr(usage, k, None))
    return (_count(extra.get("prompt_tokens"), get("prompt_tokens")),
            _count(extra.get("completion_tokens"), get("completion_tokens")))


class LlamaIndexChatLLM(FrameworkChatLLM):
    """Wrap a LlamaIndex ``LLM`` (e.g. ``llama_index.llms.openai.OpenAI``) as a test-set generator's chat
    model: messages go through ``llm.chat``; token usage is read from the response (``additional_kwargs`` or
    ``raw.usage``) when the integration reports it. Build the LLM with ``max_retries=0`` so the generator's
    retries, which honour ``retry-after``, are the only ones."""

    def __init__(self, llm: LLM) -> None:
        if not isinstance(llm, LLM):
            raise TypeError(f"llm must be a LlamaIndex LLM, got {type(llm).__name__}")
        self.llm = llm
        super().__init__(llm, getattr(getattr(llm, "metadata", None), "model_name", None))

    def chat(self, messages: list[dict[str, str]], **request: Any) -> Completion:
        """One chat answer for OpenAI-style ``messages``; ``request`` (the judges' ``response_format``, ``seed``,
        ``temperature``) goes to ``llm.chat`` as keyword arguments, which OpenAI-style integrations send with
        the request (one that refuses them makes the judges ask again without)."""
        response = self.llm.chat([ChatMessage(role=_ROLES[m["role"]], content=m["content"]) for m in messages],
                                 **request)
        text = response.message.content or ""
        input_tokens, output_tokens = _usage(response)
        refusal = (getattr(response.message, "additional_kwargs", None) or {}).get("refusal")
        return Completion(text=text, input_tokens=input_tokens, output_tokens=output_tokens, refusal=refusal)
