"""``ChatCaller``: one chat model's calls through the model-call layer (cache, retries, limiter, usage).

The test-set generator and the LLM judges both send chat requests this way: a cached reply is served (and
counted as a cache hit), else the request is sent under the limiter, retried per the policy (each retry
counted), a final failure counted and raised, and a paid reply checked, metered and cached.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .cache import CallCache, cache_key
from .chat import ChatLLM, Completion, keep_completion, lookup_completion
from .limits import CallLimiter
from .retry import ModelCallError, RetryPolicy, call_with_retry
from .usage import UsageMeter

__all__ = ["ChatCaller"]


class ChatCaller:
    """Cached, retried, limited and metered chat calls to one model.

    Parameters
    ----------
    llm : ChatLLM
        The chat model.
    cache : CallCache or None
        Replies keyed by (``llm.name``, messages, ``params``); None for no cache.
    policy : RetryPolicy
        Which failures are retried, how often and after how long.
    limiter : CallLimiter
        Concurrency and start-rate limit; every request is sent inside it.
    meter : UsageMeter
        Counts calls, cache hits, retries, failures and tokens.
    timeout : float or None
        Seconds per call (None for no limit).
    params : Mapping
        What the calls send besides the messages (prompt version, temperature...), named in every cache key.
    """

    def __init__(self, llm: ChatLLM, cache: CallCache | None, policy: RetryPolicy, limiter: CallLimiter,
                 meter: UsageMeter, timeout: float | None, params: Mapping[str, Any]) -> None:
        self.llm, self.cache, self.policy, self.limiter, self.meter = llm, cache, policy, limiter, meter
        self.timeout = timeout
        self.params = dict(params)

    def key(self, messages: list[dict[str, str]]) -> str:
        """The cache key of ``messages`` sent with :attr:`params`."""
        return cache_key(self.llm.name, messages, self.params)

    def cached(self, messages: list[dict[str, str]]) -> Completion | None:
        """The cached reply to ``messages``, or None (no cache, no entry, or an entry that is no reply)."""
        return lookup_completion(self.cache, self.key(messages)) if self.cache is not None else None

    def hit(self, messages: list[dict[str, str]]) -> Completion | None:
        """:meth:`cached`, counting a found reply as a cache hit."""
        found = self.cached(messages)
        if found is not None:
            self.meter.add(cache_hits=1)
        return found

    def send(self, messages: list[dict[str, str]], **extra: Any) -> Completion:
        """One request to the chat model (with the keyword arguments ``extra``), inside the limiter."""
        with self.limiter:
            return self.llm.chat(messages, **extra)

    @property
    def call_timeout(self) -> float | None:
        """The per-call timeout :func:`call_with_retry` enforces (here :attr:`timeout`)."""
        return self.timeout

    def retried(self, call: Callable[[], Completion], what: str) -> Completion:
        """``call()`` retried per the policy, each retry counted.

        Raises
        ------
        ModelCallError
            The call failed for good (not counted here: see :meth:`chat`).
        """
        done, _ = call_with_retry(call, self.policy, what=what, timeout=self.call_timeout,
                                  on_retry=lambda wait: self.meter.add(retries=1))
        return done

    def keep(self, done: Any, messages: list[dict[str, str]]) -> Completion:
        """A paid reply to ``messages`` checked, metered and cached (see :func:`keep_completion`)."""
        key = self.key(messages) if self.cache is not None else ""  # no hash to compute without a cache
        return keep_completion(done, self.llm, self.meter, self.cache, key)

    def chat(self, messages: list[dict[str, str]], what: str) -> Completion:
        """The reply to ``messages``: from the cache when there, else sent and retried (``what`` names the call
        in errors).

        Raises
        ------
        ModelCallError
            The call failed for good (counted as a failure).
        """
        found = self.hit(messages)
        if found is not None:
            return found
        try:
            done = self.retried(lambda: self.send(messages), what)
        except ModelCallError:
            self.meter.add(failures=1)
            raise
        return self.keep(done, messages)
