"""The chat-LLM protocol every model call of the package speaks (test-set generation, bench answers).

Any object with ``name``, ``temperature`` and ``chat(messages) -> Completion`` is a :class:`ChatLLM`.
LlamaIndex LLMs and LangChain chat models are wrapped by their adapters
(``rag_eval_adapters.llamaindex.generator`` / ``rag_eval_adapters.langchain.generator``), which
:func:`as_chat_llm` picks for you, loading the adapter module by name only when such an object is passed.
The backends (``openai_chat.py``...) are listed in :mod:`.providers`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatLLM", "Completion", "as_chat_llm", "framework_adapter"]


@dataclass(frozen=True)
class Completion:
    """One chat answer: its ``text``, the ``refusal`` the API reported (if any) and the token usage the
    server reported (0 when it reported none)."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    refusal: str | None = None


@runtime_checkable
class ChatLLM(Protocol):
    """A chat model for the generator: ``name`` (model id, part of cache keys and query ids),
    ``temperature`` (recorded with each case) and ``chat(messages)`` returning a :class:`Completion`.
    ``messages`` are OpenAI-style ``{"role", "content"}`` dicts."""

    name: str
    temperature: float

    def chat(self, messages: list[dict[str, str]]) -> Completion: ...


_ADAPTERS = {  # framework module prefix -> (adapter module, class); imported only for such an object
    "llama_index": ("rag_eval_adapters.llamaindex.generator", "LlamaIndexChatLLM"),
    "langchain": ("rag_eval_adapters.langchain.generator", "LangChainChatLLM"),
}


def framework_adapter(obj: Any, adapters: dict[str, tuple[str, str]]) -> Any:
    """``obj`` wrapped by the adapter of its framework (``adapters``: framework module prefix -> (adapter
    module, class)), or None when ``obj`` comes from none of them. The adapter module is imported by name,
    only now: frameworks first, since their objects may look like the protocol themselves."""
    for klass in type(obj).__mro__:
        top = klass.__module__.split(".")[0]
        for prefix, (module, name) in adapters.items():
            if top == prefix or top.startswith(prefix + "_"):
                return getattr(importlib.import_module(module), name)(obj)
    return None


def as_chat_llm(llm: Any) -> ChatLLM:
    """``llm`` as a :class:`ChatLLM`: itself when it already is one, a LlamaIndex ``LLM`` or a LangChain chat
    model wrapped by its adapter; anything else is refused with a TypeError saying what is accepted."""
    wrapped = framework_adapter(llm, _ADAPTERS)
    if wrapped is not None:
        return wrapped
    if isinstance(llm, ChatLLM):
        return llm
    raise TypeError(
        f"llm must be a LlamaIndex LLM, a LangChain chat model or OpenAICompatibleLLM(model, base_url=...); got "
        f"{type(llm).__name__}"
    )
