"""One model-call layer for rerankers, generators and embedders: retries, cache, limits and usage.

* :class:`RetryPolicy` / :func:`call_with_retry`: retry 429, 408, 409, 5xx (not 501), timeouts and
  connection errors with exponential backoff, honouring ``retry-after-ms`` / ``retry-after``; a per-call
  timeout; the final failure is a :class:`ModelCallError`.
* :func:`cache_key`, :class:`InMemoryCache`, :class:`SqliteCache`, :func:`open_cache`: results keyed by an
  unambiguous hash of (model, input, parameters); tampered values are ignored; SQLite files are shared safely
  by processes (WAL, busy timeout); :func:`store_quietly` never loses a result to a failing cache;
  :func:`cached_map` sends only the inputs missing from the cache (e.g. embeddings by content hash).
* :class:`CallLimiter`: bounded concurrency and a start-rate limit.
* :class:`ChatCaller`: one chat model's calls through all of these (cached, retried, limited, metered).
* :class:`UsageMeter` / :class:`Usage` / :class:`Prices`: calls, cache hits, tokens and cost.
* The model protocols: :class:`ChatLLM` (with :class:`Completion`, :func:`as_chat_llm`) and :class:`Embedder`
  (:func:`as_embedder`); their backends one a module (``openai_chat.py``: :class:`OpenAICompatibleLLM`,
  ``openai_embedder.py``: :class:`OpenAIEmbedder`), named in the tables :data:`LLM_PROVIDERS` and
  :data:`EMBEDDERS`, and built by name by :func:`resolve_llm` and :func:`resolve_embedder`.

The package imports nothing beyond the standard library at import time (the ``openai`` SDK when a backend
is built).
"""

from __future__ import annotations

from .cache import (
    CacheError,
    CacheWriteWarning,
    CallCache,
    InMemoryCache,
    SqliteCache,
    cache_key,
    cached_map,
    canonical_json,
    finite_score,
    finite_vector,
    lookup_quietly,
    open_cache,
    store_quietly,
)
from .caller import ChatCaller
from .chat import ChatLLM, Completion, as_chat_llm, cached_completion, keep_completion, lookup_completion
from .embedding import Embedder, as_embedder
from .limits import CallLimiter
from .openai_chat import OpenAICompatibleLLM
from .openai_embedder import OpenAIEmbedder
from .providers import EMBEDDERS, LLM_PROVIDERS, Backend, resolve_embedder, resolve_llm
from .retry import (
    RETRYABLE_STATUS,
    ModelCallError,
    RetryPolicy,
    call_with_retry,
    classify_exception,
    is_retryable_status,
    parse_retry_after,
)
from .usage import Prices, Usage, UsageMeter

__all__ = [
    "EMBEDDERS",
    "LLM_PROVIDERS",
    "Backend",
    "ChatCaller",
    "ChatLLM",
    "Completion",
    "Embedder",
    "OpenAICompatibleLLM",
    "OpenAIEmbedder",
    "as_chat_llm",
    "cached_completion",
    "keep_completion",
    "lookup_completion",
    "as_embedder",
    "resolve_embedder",
    "resolve_llm",
    "RETRYABLE_STATUS",
    "CacheError",
    "CacheWriteWarning",
    "CallCache",
    "CallLimiter",
    "InMemoryCache",
    "ModelCallError",
    "Prices",
    "RetryPolicy",
    "SqliteCache",
    "Usage",
    "UsageMeter",
    "cache_key",
    "cached_map",
    "call_with_retry",
    "canonical_json",
    "classify_exception",
    "finite_score",
    "finite_vector",
    "is_retryable_status",
    "lookup_quietly",
    "open_cache",
    "parse_retry_after",
    "store_quietly",
]
