"""Retries for model calls (rerankers, generators, embedders): which failures to retry, how long to wait."""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..validation import check_count

__all__ = [
    "RetryPolicy", "ModelCallError", "parse_retry_after", "is_retryable_status", "classify_exception",
    "call_with_retry", "RETRYABLE_STATUS",
]

T = TypeVar("T")

#: 408 timeout, 409 conflict, 429 rate limit, and 5xx except 501 (not implemented will not get better)
RETRYABLE_STATUS = frozenset({408, 409, 429})


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if not headers:
        return None
    for key, value in headers.items():
        if str(key).lower() == name:
            return str(value)
    return None


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms`` (milliseconds) first, then ``retry-after``
    (delta-seconds or an HTTP date). None when absent, unparsable, negative or non-finite."""
    ms = _header(headers, "retry-after-ms")
    if ms is not None:
        try:
            value = float(ms)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value / 1000.0
    ra = _header(headers, "retry-after")
    if ra is None:
        return None
    ra = ra.strip()
    try:
        value = float(ra)
    except ValueError:
        parsed = email.utils.parsedate_tz(ra)
        if parsed is None:
            return None
        value = email.utils.mktime_tz(parsed) - (time.time() if now is None else now)
        return max(0.0, value)
    return value if math.isfinite(value) and value >= 0 else None


def is_retryable_status(status: int | None) -> bool:
    """True for 408, 409, 429 and 5xx other than 501."""
    if status is None:
        return False
    return status in RETRYABLE_STATUS or (500 <= status <= 599 and status != 501)


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt. Wait before retry ``n`` (0-based): the server's
    ``retry-after-ms`` / ``retry-after`` if given, else ``base_delay * 2**n`` with up to +10% jitter; never
    more than ``max_delay`` seconds."""

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 60.0

    def __post_init__(self) -> None:
        check_count(self.max_retries, "max_retries", minimum=0)
        for name in ("base_delay", "max_delay"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")

    def delay(self, retry: int, headers: Mapping[str, str] | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based) given the failed response's headers."""
        asked = parse_retry_after(headers)
        if asked is not None:
            return min(asked, self.max_delay)
        backoff = self.base_delay * (2.0**retry) * (1.0 + 0.1 * random.random())
        return min(backoff, self.max_delay)


class ModelCallError(RuntimeError):
    """A model call failed for good (after its retries, if any).

    Attributes: ``status_code`` (HTTP status of the last attempt, or None for a transport error / timeout)
    and ``attempts`` (attempts made).
    """

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 0) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


def _status_and_headers(exc: BaseException) -> tuple[int | None, Mapping[str, str] | None]:
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(exc, "status", None)
    if not isinstance(status, int):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    headers = getattr(exc, "headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        headers = dict(headers.items()) if headers is not None else None
    except AttributeError:
        headers = None
    return (status if isinstance(status, int) else None), headers


def classify_exception(exc: BaseException) -> tuple[int | None, Mapping[str, str] | None, bool]:
    """``(status, headers, retryable)`` of a failed call, for any SDK: an HTTP status read from
    ``status_code`` / ``status`` / ``response.status_code`` (retryable per :func:`is_retryable_status`);
    without a status, timeouts and connection errors (by type or type name) are retryable, anything else is
    not."""
    status, headers = _status_and_headers(exc)
    if status is not None:
        return status, headers, is_retryable_status(status)
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return None, None, True
    names = " ".join(t.__name__ for t in type(exc).__mro__).lower()
    return None, None, ("timeout" in names or "connection" in names or "transport" in names)


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    what: str = "model call",
    timeout: float | None = None,
    classify: Callable[[BaseException], tuple[int | None, Mapping[str, str] | None, bool]] = classify_exception,
    on_retry: Callable[[float], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, int]:
    """Run ``fn()`` until it succeeds or ``policy`` gives up; return ``(result, attempts)``.

    Failures classified retryable (429, 408, 409, 5xx except 501, timeouts, connection errors) are retried
    after :meth:`RetryPolicy.delay` (the server's ``retry-after-ms`` / ``retry-after`` first). ``timeout``
    (seconds) bounds each attempt: the call runs in a worker thread and an attempt that takes longer counts
    as a retryable timeout (prefer the SDK's own timeout when it has one). ``on_retry(wait)`` is told of each
    retry. The final failure raises :class:`ModelCallError` naming ``what``, chained to the last exception.
    """
    for attempt in range(policy.max_retries + 1):
        try:
            return (_run_with_timeout(fn, timeout) if timeout else fn()), attempt + 1
        except Exception as exc:  # noqa: BLE001 - classified, then retried or re-raised
            status, headers, retryable = classify(exc)
            if not retryable or attempt >= policy.max_retries:
                where = f"HTTP {status}" if status is not None else type(exc).__name__
                hint = " Raise max_retries / timeout or lower the concurrency, then re-run." if retryable else ""
                raise ModelCallError(
                    f"{what} failed after {attempt + 1} attempt(s): {where}: {str(exc)[:300]}.{hint}",
                    status_code=status, attempts=attempt + 1,
                ) from exc
            wait = policy.delay(attempt, headers)
            if on_retry is not None:
                on_retry(wait)
            sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _run_with_timeout(fn: Callable[[], T], timeout: float) -> T:
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise TimeoutError(f"no answer within {timeout:g}s")
    if "error" in box:
        raise box["error"]
    return box["value"]
