"""One start-rate limit shared by the judges of every Ray actor: :class:`RateGate` (a small Ray actor handing out
start times) and :class:`SharedRateLimiter` (a judge's limiter paced by it)."""

from __future__ import annotations

import time
from typing import Any

from ..modelcalls import CallLimiter

__all__ = ["RateGate", "SharedRateLimiter"]


class RateGate:
    """Start times for calls at most ``per_second`` apart on average (a Ray actor shared by the judges)."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self.next_start = 0.0

    def reserve(self) -> float:
        """Seconds the caller waits before starting its call."""
        now = time.time()
        start = max(now, self.next_start)
        self.next_start = start + self.interval
        return start - now


class SharedRateLimiter(CallLimiter):
    """A :class:`~rag_eval_adapters.modelcalls.CallLimiter` whose starts are also paced by a shared
    :class:`RateGate` actor (``gate``), so many processes keep to one rate."""

    def __init__(self, gate: Any, max_concurrency: int) -> None:
        super().__init__(max_concurrency)
        self.gate = gate

    def __enter__(self) -> SharedRateLimiter:
        super().__enter__()
        import ray

        wait = ray.get(self.gate.reserve.remote())
        if wait > 0:
            time.sleep(wait)
        return self
