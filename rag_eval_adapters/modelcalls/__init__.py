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
* :func:`ask_json`: one structured JSON call with one repair (sending back a bounded :func:`reply_excerpt` of a
  bad reply), shared by the test-set generator and the judges; :func:`is_refusal`, :func:`json_candidates`
  read replies; :data:`FATAL_STATUS` the statuses that stop a batch; :class:`CallEstimate`,
  :func:`estimate_tokens` and :class:`NotCached` the dry-run estimate.
* :class:`Budget` / :class:`BudgetExceeded`: ``max_calls`` / ``max_cost`` checked before each paid call
  (:class:`BudgetedChatLLM`; :func:`spending_limit` puts every model :func:`resolve_llm` builds under one).
* :class:`Closeable`: models and caches are context managers (``with OpenAICompatibleLLM(...) as llm:``).
* :class:`ScriptedChatLLM`: a scripted fake chat model for tests (replies from a list or a function, records
  calls, fails on cue with :class:`ScriptedHTTPError` or any exception).
* The model protocols: :class:`ChatLLM` (with :class:`Completion`, :func:`as_chat_llm`) and :class:`Embedder`
  (:func:`as_embedder`); their backends one a module (``openai_chat.py``: :class:`OpenAICompatibleLLM`,
  ``openai_embedder.py``: :class:`OpenAIEmbedder`), named in the tables :data:`LLM_PROVIDERS` and
  :data:`EMBEDDERS`, and built by name by :func:`resolve_llm` and :func:`resolve_embedder`.

The package imports nothing beyond the standard library at import time (the ``openai`` SDK when a backend
is built).
"""

from __future__ import annotations

from .budget import Budget, BudgetedChatLLM, BudgetExceeded, active_budget, spending_limit
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
from .closing import Closeable
from .embedding import Embedder, as_embedder
from .limits import CallLimiter
from .openai_chat import OpenAICompatibleLLM
from .openai_embedder import OpenAIEmbedder
from .providers import EMBEDDERS, LLM_PROVIDERS, Backend, resolve_embedder, resolve_llm
from .replies import REPAIR_EXCERPT_CHARS, is_refusal, json_candidates, reply_excerpt
from .retry import (
    RETRYABLE_STATUS,
    ModelCallError,
    RetryPolicy,
    call_with_retry,
    classify_exception,
    is_retryable_status,
    parse_retry_after,
)
from .structured import FATAL_STATUS, CallEstimate, JsonOutcome, NotCached, ask_json, estimate_tokens, messages_tokens
from .testing import ScriptedChatLLM, ScriptedHTTPError
from .usage import Prices, Usage, UsageMeter

__all__ = [
    "FATAL_STATUS",
    "REPAIR_EXCERPT_CHARS",
    "Budget",
    "BudgetExceeded",
    "BudgetedChatLLM",
    "CallEstimate",
    "Closeable",
    "JsonOutcome",
    "NotCached",
    "ScriptedChatLLM",
    "ScriptedHTTPError",
    "ask_json",
    "active_budget",
    "spending_limit",
    "estimate_tokens",
    "is_refusal",
    "json_candidates",
    "messages_tokens",
    "reply_excerpt",
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
