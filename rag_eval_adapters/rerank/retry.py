"""Retry policy for HTTP rerank calls: which failures to retry and how long to wait."""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["RetryPolicy", "parse_retry_after", "RETRYABLE_STATUS"]

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
        if not isinstance(self.max_retries, int) or isinstance(self.max_retries, bool) or self.max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {self.max_retries!r}")
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
