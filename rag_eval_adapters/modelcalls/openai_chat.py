"""The chat-LLM backend for OpenAI's ``/v1/chat/completions`` (OpenAI and every compatible server), on the
official ``openai`` SDK, imported when an :class:`OpenAICompatibleLLM` is constructed, never at module import."""

from __future__ import annotations

import math
import os
from typing import Any

from ..extras import require
from ..validation import check_count, check_positive
from .chat import Completion
from .closing import Closeable

__all__ = ["OpenAICompatibleLLM"]


def _tokens(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else 0


class OpenAICompatibleLLM(Closeable):
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

    ``with OpenAICompatibleLLM(...) as llm:`` closes the HTTP connections at the end of the block (as
    :meth:`close`).
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *,
                 temperature: float = 0.0, max_tokens: int = 1024, timeout: float = 60.0,
                 json_mode: bool = False) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty model name, e.g. 'gpt-4o-mini'")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
            raise ValueError(f"temperature must be a number in [0, 2], got {temperature!r}")
        check_positive(timeout, "timeout", unit="seconds")
        check_count(max_tokens, "max_tokens")
        openai = require("openai", needed_by="OpenAICompatibleLLM", extra="openai")
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
