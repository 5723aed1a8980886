"""The chat-LLM protocol every model call of the package speaks (test-set generation, bench answers).

Any object with ``name``, ``temperature`` and ``chat(messages) -> Completion`` is a :class:`ChatLLM`.
LlamaIndex LLMs and LangChain chat models are wrapped by their adapters
(``rag_eval_adapters.llamaindex.generator`` / ``rag_eval_adapters.langchain.generator``), which
:func:`as_chat_llm` picks for you, loading the adapter module by name only when such an object is passed.
The backends (``openai_chat.py``...) are listed in :mod:`.providers`.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatLLM", "Completion", "FrameworkChatLLM", "as_chat_llm", "framework_adapter", "cached_completion",
           "keep_completion", "lookup_completion"]


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


class FrameworkChatLLM:
    """What the LlamaIndex and LangChain chat-model adapters share: the :class:`ChatLLM` ``name`` and
    ``temperature`` read from the framework's model, and the ``repr``. A subclass checks the model, keeps it and
    implements ``chat``; it imports its framework, this class none.

    Parameters
    ----------
    model : object
        The framework's chat model; its ``temperature``, when a finite number, is the recorded temperature
        (else None).
    model_name : str, optional
        The model's name as the framework reports it; default the model's ``model`` attribute, else its class
        name.
    """

    def __init__(self, model: Any, model_name: Any = None) -> None:
        self.name = str(model_name or getattr(model, "model", None) or type(model).__name__)
        temperature = getattr(model, "temperature", None)
        finite = isinstance(temperature, (int, float)) and not isinstance(temperature, bool) and math.isfinite(temperature)
        self.temperature = float(temperature) if finite and temperature is not None else None
        self._model_type = type(model).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._model_type}, model={self.name!r})"


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


def as_protocol(obj: Any, protocol: type, adapters: dict[str, tuple[str, str]], accepted: str) -> Any:
    """``obj`` as an instance of ``protocol``: wrapped by its framework's adapter (:func:`framework_adapter`),
    else itself when it already is one; anything else is refused with ``TypeError("<accepted>; got <type>")``."""
    wrapped = framework_adapter(obj, adapters)
    if wrapped is not None:
        return wrapped
    if isinstance(obj, protocol):
        return obj
    raise TypeError(f"{accepted}; got {type(obj).__name__}")


def as_chat_llm(llm: Any) -> ChatLLM:
    """``llm`` as a :class:`ChatLLM`: itself when it already is one, a LlamaIndex ``LLM`` or a LangChain chat
    model wrapped by its adapter; anything else is refused with a TypeError saying what is accepted."""
    return as_protocol(llm, ChatLLM, _ADAPTERS, "llm must be a LlamaIndex LLM, a LangChain chat model or "
                                                "OpenAICompatibleLLM(model, base_url=...)")


def cached_completion(value: Any) -> Completion:
    """A :class:`Completion` from its cached form (the validator of cached chat replies: anything else raises
    ValueError, so the reply is asked for again)."""
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise ValueError("not a cached completion")
    refusal = value.get("refusal")
    return Completion(text=value["text"], input_tokens=int(value.get("input_tokens") or 0),
                      output_tokens=int(value.get("output_tokens") or 0),
                      refusal=refusal if isinstance(refusal, str) else None)


def keep_completion(done: Any, llm: Any, meter: Any, cache: Any, key: str) -> Completion:
    """Account for a paid reply: check it is a :class:`Completion` (TypeError naming ``llm`` otherwise), add its
    call and tokens to ``meter`` (a :class:`~rag_eval_adapters.modelcalls.UsageMeter`) and store it under
    ``key`` in ``cache`` (when there is one; a failing cache warns, the reply is kept)."""
    from .cache import store_quietly

    if not isinstance(done, Completion):
        raise TypeError(f"{llm!r}.chat must return a Completion, got {type(done).__name__}")
    meter.add(calls=1, input_tokens=done.input_tokens, output_tokens=done.output_tokens)
    if cache is not None:
        store_quietly(cache, {key: dataclasses.asdict(done)})
    return done


def lookup_completion(cache: Any, key: str) -> Completion | None:
    """The valid cached reply under ``key`` (None when there is no cache, no entry, or an entry that is no
    reply)."""
    from .cache import lookup_quietly

    if cache is None:
        return None
    return lookup_quietly(cache, [key], cached_completion).get(key)
