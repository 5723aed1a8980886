"""``CohereReranker``: relevance scores from Cohere's ``POST /v2/rerank`` through the official SDK.

The cohere SDK is imported when a reranker is constructed, never when this module is imported.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..extras import require
from ..modelcalls.retry import RetryPolicy, is_retryable_status
from ..validation import check_count, check_positive
from .base import validate_query_texts
from .cache import CachedScorer, ScoreCache, as_cache
from .errors import RerankError, RerankResponseError, short_query

__all__ = ["CohereReranker", "RerankUsage", "DEFAULT_COHERE_MODEL", "resolve_cohere_api_key", "cohere_repr_args"]

DEFAULT_COHERE_MODEL = "rerank-v3.5"
API_KEY_ENV_VARS = ("CO_API_KEY", "COHERE_API_KEY")


def _import_cohere() -> Any:
    return require("cohere", needed_by="CohereReranker", extra="cohere")


def resolve_cohere_api_key(api_key: str | None = None) -> str | None:
    """``api_key`` if given, else ``$CO_API_KEY``, else ``$COHERE_API_KEY`` (blank values count as unset)."""
    if api_key is not None:
        if not isinstance(api_key, str):
            raise TypeError(f"api_key must be a str, got {type(api_key).__name__}")
        return api_key.strip() or None
    for var in API_KEY_ENV_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return value
    return None


@dataclass(frozen=True)
class RerankUsage:
    """What a reranker has spent so far.

    ``requests``: answered rerank requests (each is billed); ``attempts``: HTTP attempts including failed ones;
    ``retries``: attempts that were retries; ``failures``: requests that failed for good; ``documents``:
    documents scored by the endpoint; ``search_units``: billed search units summed from
    ``meta.billed_units.search_units``; ``retry_wait_seconds``: total back-off waited; ``cache_hits``: pairs
    served from the cache (not sent).
    """

    requests: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0
    documents: int = 0
    search_units: float = 0.0
    retry_wait_seconds: float = 0.0
    cache_hits: int = 0


def cohere_repr_args(reranker: CohereReranker) -> list[str]:
    """What a Cohere relevancy evaluator's ``repr`` shows of its reranker: the model, and the base URL when one
    was given."""
    args = [f"model={reranker.model!r}"]
    if reranker.base_url:
        args.append(f"base_url={reranker.base_url!r}")
    return args


def _field(item: Any, name: str) -> Any:
    if isinstance(item, dict):
        return item.get(name)
    return getattr(item, name, None)


class _Uncached:
    """The reranker's network path, as a scorer, for CachedScorer to wrap."""

    def __init__(self, owner: CohereReranker) -> None:
        self.owner = owner
        self.name = owner.name
        self.calibrated = owner.calibrated

    def __repr__(self) -> str:
        return repr(self.owner)

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return self.owner._score_uncached(query, list(texts))

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        return await self.owner._ascore_uncached(query, list(texts))


class CohereReranker:
    """Score (query, text) pairs with Cohere Rerank (``cohere.ClientV2`` / ``AsyncClientV2``, ``POST /v2/rerank``).

    ``score(query, texts)`` returns Cohere's ``relevance_score`` of every text, in input order, calibrated to
    [0, 1] (``calibrated = True``). No texts: ``[]`` and no request.

    * Key: ``api_key``, else ``$CO_API_KEY``, else ``$COHERE_API_KEY``; none -> ValueError (not needed when
      ``client`` is given). ``base_url`` (else ``$CO_API_URL``) points at any Cohere-compatible endpoint.
    * Batching: more than ``max_docs_per_request`` texts are split across requests, merged back in order.
      ``ascore`` sends a query's batches concurrently; at most ``max_concurrency`` requests are in flight
      per event loop across all calls on this reranker (sync ``score`` sends them one after another).
    * Retries: the SDK's own retries are switched off (``max_retries=0`` per request) and this class retries
      429, 408, 409, 5xx (not 501), timeouts and connection errors up to ``max_retries`` times, waiting what
      ``retry-after-ms`` / ``retry-after`` ask, else ``retry_base_delay * 2**n`` (capped by
      ``retry_max_delay``). The final failure raises :class:`RerankError` naming the query; never a made-up
      score.
    * Validation: every index exactly once, every score a finite number (in [0, 1] when ``calibrated``);
      otherwise :class:`RerankResponseError` (not retried: the request was served and billed).
    * Cost: ``usage`` (a :class:`RerankUsage`) sums billed search units, requests, retries.
    * ``cache``: a :class:`ScoreCache` or a path to an SQLite file; cached (model, query, text) pairs are not
      sent again.

    Set ``calibrated=False`` for a Cohere-compatible endpoint whose scores are raw logits.
    """

    def __init__(
        self,
        model: str = DEFAULT_COHERE_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        max_docs_per_request: int = 1000,
        max_concurrency: int = 8,
        client: Any = None,
        async_client: Any = None,
        *,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 60.0,
        max_tokens_per_doc: int | None = None,
        calibrated: bool = True,
        cache: ScoreCache | str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty Cohere rerank model name (e.g. {DEFAULT_COHERE_MODEL!r})")
        timeout = check_positive(timeout, "timeout", unit="seconds")
        if base_url is None:
            base_url = os.environ.get("CO_API_URL") or None
        if base_url is not None and (not isinstance(base_url, str) or not base_url.startswith(("http://", "https://"))):
            raise ValueError(f"base_url must be an http(s) URL such as 'https://api.cohere.com', got {base_url!r}")
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        self.timeout = float(timeout)
        self.max_docs_per_request = check_count(max_docs_per_request, "max_docs_per_request", maximum=10_000)
        self.max_concurrency = check_count(max_concurrency, "max_concurrency")
        self.max_tokens_per_doc = (None if max_tokens_per_doc is None
                                   else check_count(max_tokens_per_doc, "max_tokens_per_doc"))
        self.retry = RetryPolicy(max_retries=max_retries, base_delay=retry_base_delay, max_delay=retry_max_delay)
        self.calibrated = bool(calibrated)
        self.name = f"cohere/{model}" + (f"@{self.base_url}" if self.base_url else "") + (
            f"#max_tokens_per_doc={max_tokens_per_doc}" if max_tokens_per_doc else ""
        )

        cohere = _import_cohere()
        from cohere.core.api_error import ApiError  # noqa: PLC0415 - lazy on purpose

        self._cohere = cohere
        self._api_error = ApiError
        self._api_key = resolve_cohere_api_key(api_key)
        if client is None and self._api_key is None:
            raise ValueError(
                "No Cohere API key: pass api_key=... or set the COHERE_API_KEY (or CO_API_KEY) environment "
                "variable; get a key at https://dashboard.cohere.com/api-keys. Without a key, use "
                "rag_eval_adapters.rerank.LexicalScorer() to score offline."
            )
        from cohere.v2.client import AsyncV2Client, V2Client  # noqa: PLC0415

        if client is not None and not isinstance(client, V2Client):
            raise TypeError(f"client must be a cohere.ClientV2, got {type(client).__name__}")
        if async_client is not None and not isinstance(async_client, AsyncV2Client):
            raise TypeError(f"async_client must be a cohere.AsyncClientV2, got {type(async_client).__name__}")
        self._owns_client = client is None
        self._client = client if client is not None else self._new_client(cohere.ClientV2)
        self._async_client = async_client
        self._async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._usage = RerankUsage()
        store = as_cache(cache)
        self._cached = CachedScorer(_Uncached(self), store) if store is not None else None

    @classmethod
    def from_env(cls, model: str | None = None, **kwargs: Any) -> CohereReranker:
        """A reranker configured from the environment: key from ``$CO_API_KEY`` / ``$COHERE_API_KEY``,
        endpoint from ``$CO_API_URL``, model from ``model`` else ``$COHERE_RERANK_MODEL`` else
        ``rerank-v3.5``. Other keyword arguments go to the constructor."""
        return cls(model=model or os.environ.get("COHERE_RERANK_MODEL") or DEFAULT_COHERE_MODEL, **kwargs)

    def _new_client(self, cls: Any) -> Any:
        """``cls`` (ClientV2 / AsyncClientV2) built with the options this SDK version accepts."""
        wanted = {
            "api_key": self._api_key,
            "base_url": self.base_url,
            "timeout": self.timeout,
            "max_retries": 0,  # ours is the only retry loop (request_options repeat this per call)
            "client_name": "rag-eval-adapters",
            "log_warning_experimental_features": False,
        }
        try:
            accepted = inspect.signature(cls.__init__).parameters
        except (TypeError, ValueError):  # pragma: no cover
            return cls(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout)
        return cls(**{k: v for k, v in wanted.items() if k in accepted})

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return (
            f"CohereReranker(model={self.model!r}{where}, max_docs_per_request={self.max_docs_per_request}, "
            f"max_concurrency={self.max_concurrency}, max_retries={self.retry.max_retries})"
        )

    # ------------------------------------------------------------------ usage
    @property
    def usage(self) -> RerankUsage:
        """A snapshot of the spend so far (see :class:`RerankUsage`)."""
        with self._lock:
            hits = self._cached.hits if self._cached is not None else 0
            return RerankUsage(**{**self._usage.__dict__, "cache_hits": hits})

    def reset_usage(self) -> None:
        """Zero the usage counters."""
        with self._lock:
            self._usage = RerankUsage()
            if self._cached is not None:
                self._cached.hits = self._cached.misses = 0

    def _count(self, **delta: float) -> None:
        with self._lock:
            current = self._usage.__dict__
            self._usage = RerankUsage(**{k: current[k] + delta.get(k, 0) for k in current})

    # ------------------------------------------------------------------ public scoring
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cohere relevance score of each text for ``query``, in input order (``[]`` for no texts)."""
        items = validate_query_texts(query, texts)
        if not items:
            return []
        if self._cached is not None:
            return self._cached.score(query, items)
        return self._score_uncached(query, items)

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        """Async :meth:`score` on ``AsyncClientV2``; batches of one query go out concurrently."""
        items = validate_query_texts(query, texts)
        if not items:
            return []
        if self._cached is not None:
            return await self._cached.ascore(query, items)
        return await self._ascore_uncached(query, items)

    def close(self) -> None:
        """Close the HTTP connections of the clients this reranker created."""
        if self._owns_client:
            try:
                self._client._client_wrapper.httpx_client.httpx_client.close()  # type: ignore[union-attr]  # SDK internals
            except AttributeError:  # pragma: no cover - SDK internals moved
                pass

    def __enter__(self) -> CohereReranker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals
    def _chunks(self, texts: list[str]) -> list[tuple[int, list[str]]]:
        size = self.max_docs_per_request
        return [(start, texts[start : start + size]) for start in range(0, len(texts), size)]

    def _request_kwargs(self, query: str, docs: list[str]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "query": query,
            "documents": docs,
            "top_n": len(docs),
            "request_options": {"max_retries": 0, "timeout": self.timeout},
        }
        if self.max_tokens_per_doc is not None:
            kwargs["max_tokens_per_doc"] = self.max_tokens_per_doc
        return kwargs

    def _score_uncached(self, query: str, texts: list[str]) -> list[float]:
        scores: list[float] = []
        for _, docs in self._chunks(texts):
            scores.extend(self._call_sync(query, docs))
        return scores

    async def _ascore_uncached(self, query: str, texts: list[str]) -> list[float]:
        tasks = [asyncio.ensure_future(self._call_async(query, docs)) for _, docs in self._chunks(texts)]
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return [s for part in outcomes for s in part]  # type: ignore[union-attr]

    def _call_sync(self, query: str, docs: list[str]) -> list[float]:
        for attempt in range(self.retry.max_retries + 1):
            self._count(attempts=1)
            try:
                response = self._client.rerank(**self._request_kwargs(query, docs))
            except Exception as exc:  # noqa: BLE001 - classified below, re-raised with the query named
                wait = self._after_failure(query, docs, exc, attempt)
                time.sleep(wait)
                continue
            return self._parse(query, docs, response, attempt + 1)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _call_async(self, query: str, docs: list[str]) -> list[float]:
        for attempt in range(self.retry.max_retries + 1):
            self._count(attempts=1)
            try:
                async with self._gate():
                    response = await self._send_async(query, docs)
            except Exception as exc:  # noqa: BLE001
                wait = self._after_failure(query, docs, exc, attempt)
                await asyncio.sleep(wait)
                continue
            return self._parse(query, docs, response, attempt + 1)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _send_async(self, query: str, docs: list[str]) -> Any:
        client = self._async_client
        if client is None and self._api_key is None:  # only a sync client was given: run it in a thread
            request = self._request_kwargs(query, docs)
            return await asyncio.to_thread(lambda: self._client.rerank(**request))
        if client is None:
            loop = asyncio.get_running_loop()
            client = self._async_clients.get(loop)
            if client is None:  # one AsyncClientV2 per event loop: httpx pools cannot cross loops
                client = self._new_client(self._cohere.AsyncClientV2)
                self._async_clients[loop] = client
        return await client.rerank(**self._request_kwargs(query, docs))

    def _gate(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = asyncio.Semaphore(self.max_concurrency)
        return gate

    def _classify(self, exc: Exception) -> tuple[int | None, dict[str, str] | None, bool, str]:
        """(status, headers, retryable, description) of a failed attempt."""
        import httpx  # noqa: PLC0415 - a dependency of cohere

        if isinstance(exc, self._api_error):
            status = exc.status_code
            body = exc.body if not isinstance(exc.body, (bytes, str)) else str(exc.body)[:300]
            return status, exc.headers, is_retryable_status(status), f"HTTP {status}: {body}"
        if isinstance(exc, httpx.TimeoutException):
            return None, None, True, f"timed out after {self.timeout:g}s ({type(exc).__name__})"
        if isinstance(exc, httpx.TransportError):
            return None, None, True, f"connection error ({type(exc).__name__}: {exc})"
        return None, None, False, f"{type(exc).__name__}: {exc}"

    def _after_failure(self, query: str, docs: list[str], exc: Exception, attempt: int) -> float:
        """Raise the final error, or count a retry and return how long to wait before it."""
        status, headers, retryable, what = self._classify(exc)
        if status is not None and 200 <= status < 300:  # answered, but the body is not JSON
            self._count(requests=1, failures=1)
            raise RerankResponseError(
                f"Cohere rerank for query {short_query(query)} returned a malformed body ({what}); "
                f"check base_url ({self.base_url or 'https://api.cohere.com'}) points at a Cohere rerank endpoint.",
                query=query, status_code=status, attempts=attempt + 1,
            ) from exc
        if not retryable or attempt >= self.retry.max_retries:
            self._count(failures=1)
            hint = ""
            if status in (401, 498):
                hint = " Check the API key (api_key= or COHERE_API_KEY)."
            elif status == 404:
                hint = f" Check the model name {self.model!r} and base_url."
            elif retryable:
                hint = " Raise max_retries / timeout, or lower max_concurrency, and try again."
            raise RerankError(
                f"Cohere rerank failed for query {short_query(query)} ({len(docs)} documents, model "
                f"{self.model!r}) after {attempt + 1} attempt(s): {what}.{hint}",
                query=query, status_code=status, attempts=attempt + 1,
            ) from exc
        wait = self.retry.delay(attempt, headers)
        self._count(retries=1, retry_wait_seconds=wait)
        return wait

    def _parse(self, query: str, docs: list[str], response: Any, attempts: int) -> list[float]:
        """Validate a rerank response and return the scores in document order."""
        units = _field(_field(_field(response, "meta"), "billed_units"), "search_units")
        units = float(units) if isinstance(units, (int, float)) and math.isfinite(units) else 0.0
        self._count(requests=1, search_units=units)

        def bad(reason: str) -> RerankResponseError:
            self._count(failures=1)
            return RerankResponseError(
                f"Cohere rerank for query {short_query(query)} returned an invalid response: {reason}.",
                query=query, status_code=200, attempts=attempts,
            )

        results = _field(response, "results")
        if not isinstance(results, list):
            raise bad("no 'results' list")
        n = len(docs)
        scores: list[float | None] = [None] * n
        for item in results:
            index, value = _field(item, "index"), _field(item, "relevance_score")
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n:
                raise bad(f"result index {index!r} is not an int in [0, {n})")
            if scores[index] is not None:
                raise bad(f"index {index} appears twice")
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise bad(f"relevance_score {value!r} of index {index} is not a finite number")
            if self.calibrated and not 0.0 <= value <= 1.0:
                raise bad(
                    f"relevance_score {value!r} of index {index} is outside [0, 1] (pass calibrated=False for an "
                    "endpoint returning raw logits)"
                )
            scores[index] = float(value)
        missing = [i for i, s in enumerate(scores) if s is None]
        if missing:
            raise bad(f"{len(missing)} of {n} documents have no score (first missing index {missing[0]})")
        self._count(documents=n)
        return scores  # type: ignore[return-value]
