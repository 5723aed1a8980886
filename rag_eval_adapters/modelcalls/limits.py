"""Bounded concurrency and a rate limit for model calls made from worker threads."""

from __future__ import annotations

import threading
import time

from ..validation import check_count, check_positive

__all__ = ["CallLimiter"]


class CallLimiter:
    """At most ``max_concurrency`` calls at once, started at most ``max_per_second`` per second.

    Use as a context manager around each call (``with limiter: client.call(...)``); thread-safe.
    ``max_in_flight`` records the most calls that were ever running together.

    Parameters
    ----------
    max_concurrency : int
        Calls allowed in flight together (>= 1).
    max_per_second : float, optional
        Start rate limit; None for no limit.
    """

    def __init__(self, max_concurrency: int = 8, max_per_second: float | None = None) -> None:
        check_count(max_concurrency, "max_concurrency")
        if max_per_second is not None:
            check_positive(max_per_second, "max_per_second", unit="calls a second")
        self.max_concurrency = max_concurrency
        self.max_per_second = max_per_second
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._lock = threading.Lock()
        self._next_start = 0.0
        self._in_flight = 0
        self.max_in_flight = 0

    def __repr__(self) -> str:
        return f"CallLimiter(max_concurrency={self.max_concurrency}, max_per_second={self.max_per_second})"

    def __enter__(self) -> CallLimiter:
        self._slots.acquire()
        if self.max_per_second:
            with self._lock:
                now = time.monotonic()
                start = max(now, self._next_start)
                self._next_start = start + 1.0 / self.max_per_second
            if start > now:
                time.sleep(start - now)
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._in_flight -= 1
        self._slots.release()
