"""The LLM protocol the generator calls, and :class:`OpenAICompatibleLLM` on the official ``openai`` SDK.

Any object with ``name``, ``temperature`` and ``chat(messages) -> Completion`` is a :class:`ChatLLM`.
LlamaIndex LLMs and LangChain chat models are wrapped by their adapters
(``rag_eval_adapters.llamaindex.generator`` / ``rag_eval_adapters.langchain.generator``), which
:func:`as_chat_llm` picks for you. The ``openai`` SDK is imported when an :class:`OpenAICompatibleLLM` is
constructed, never when this module is imported.
"""

from __future__ import annotations

import importlib
import math
import os
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatLLM", "Completion", "OpenAICompatibleLLM", "as_chat_llm"]


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


def _tokens(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else 0


class OpenAICompatibleLLM:
    """A chat model behind OpenAI's ``/v1/chat/completions``: OpenAI itself or any compatible server (vLLM,
    Ollama, llama.cpp, LM Studio) through ``base_url``.

    Parameters
    ----------
    model : str
        Model name, e.g. ``"gpt-4o-mini"`` or ``"qwen2.5:7b-instruct"``.
    base_url : str, optional
        The endpoint (``http://localhost:11434/v1`` for Ollama); default OpenAI (or ``$OPENAI_BASE_URL``).
    api_key : str, optional
        The key; default ``$OPENAI_API_KEY``. Local servers that need none get a placeholder.
    temperature : float
        Sampling temperature sent with every request (default 0.0).
    max_tokens : int
        Completion token limit per request (default 1024).
    timeout : float
        Seconds per request (default 60). The SDK's own retries are off: the generator retries, honouring
        ``retry-after``.
    json_mode : bool
        Send ``response_format={"type": "json_object"}`` (default False: not every server supports it; the
        generator tolerates text around the JSON).
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *,
                 temperature: float = 0.0, max_tokens: int = 1024, timeout: float = 60.0,
                 json_mode: bool = False) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty model name, e.g. 'gpt-4o-mini'")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
            raise ValueError(f"temperature must be a number in [0, 2], got {temperature!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        try:
            openai = importlib.import_module("openai")
        except ImportError as exc:  # pragma: no cover - installed in the dev env
            raise ImportError('OpenAICompatibleLLM needs the openai SDK: pip install "rag-eval-adapters[openai]"') from exc
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not key:
            if base_url is None:
                raise ValueError("No OpenAI API key: pass api_key=... or set OPENAI_API_KEY (or give base_url= of a "
                                 "local OpenAI-compatible server)")
            key = "not-needed"
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.timeout = float(timeout)
        self.json_mode = bool(json_mode)
        self.name = model
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0)

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"OpenAICompatibleLLM(model={self.model!r}{where}, temperature={self.temperature})"

    def chat(self, messages: list[dict[str, str]], *, response_format: dict[str, Any] | None = None,
             seed: int | None = None, temperature: float | None = None) -> Completion:
        """One chat completion for ``messages``.

        The keyword arguments are optional and sent only when given: ``response_format`` (e.g. ``{"type":
        "json_schema", "json_schema": {...}}``, replacing ``json_mode`` for this call), ``seed`` (servers that
        take one sample reproducibly) and ``temperature`` (overriding the model's for this call). The judges
        use them for structured output; a server that rejects them answers HTTP 400.
        """
        extra: dict[str, Any] = {"response_format": {"type": "json_object"}} if self.json_mode else {}
        if response_format is not None:
            extra["response_format"] = response_format
        if seed is not None:
            extra["seed"] = int(seed)
        response = self._client.chat.completions.create(
            model=self.model, messages=messages,
            temperature=self.temperature if temperature is None else float(temperature),
            max_tokens=self.max_tokens, **extra,
        )
        choice = response.choices[0] if response.choices else None
        message = getattr(choice, "message", None)
        usage = getattr(response, "usage", None)
        return Completion(
            text=getattr(message, "content", None) or "",
            input_tokens=_tokens(getattr(usage, "prompt_tokens", 0)),
            output_tokens=_tokens(getattr(usage, "completion_tokens", 0)),
            refusal=getattr(message, "refusal", None),
        )

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()


_ADAPTERS = {  # framework module prefix -> (adapter module, class); imported only for such an object
    "llama_index": ("rag_eval_adapters.llamaindex.generator", "LlamaIndexChatLLM"),
    "langchain": ("rag_eval_adapters.langchain.generator", "LangChainChatLLM"),
}


def as_chat_llm(llm: Any) -> ChatLLM:
    """``llm`` as a :class:`ChatLLM`: itself when it already is one, a LlamaIndex ``LLM`` or a LangChain chat
    model wrapped by its adapter; anything else is refused with a TypeError saying what is accepted."""
    for klass in type(llm).__mro__:  # frameworks first: their objects may look like a ChatLLM
        top = klass.__module__.split(".")[0]
        for prefix, (module, name) in _ADAPTERS.items():
            if top == prefix or top.startswith(prefix + "_"):
                return getattr(importlib.import_module(module), name)(llm)
    if isinstance(llm, ChatLLM):
        return llm
    raise TypeError(
        f"llm must be a LlamaIndex LLM, a LangChain chat model or OpenAICompatibleLLM(model, base_url=...); got "
        f"{type(llm).__name__}"
    )
