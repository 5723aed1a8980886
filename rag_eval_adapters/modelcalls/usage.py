"""What model calls have used: calls, cache hits, tokens, retries and (given prices) cost."""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import asdict, dataclass

__all__ = ["Prices", "Usage", "UsageMeter"]


@dataclass(frozen=True)
class Prices:
    """Prices in any currency per one million tokens (``input`` for prompt tokens, ``output`` for completion)."""

    input_per_million: float
    output_per_million: float = 0.0

    def __post_init__(self) -> None:
        for name in ("input_per_million", "output_per_million"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Price of ``input_tokens`` prompt and ``output_tokens`` completion tokens."""
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1_000_000


@dataclass(frozen=True)
class Usage:
    """A snapshot of model-call usage.

    ``calls``: answered calls (billed); ``cache_hits``: results served from the cache (not billed);
    ``failures``: calls that failed for good; ``retries``: retried attempts; ``input_tokens`` /
    ``output_tokens``: tokens the server reported; ``cost``: from :class:`Prices` when given, else None.
    """

    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None

    def to_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)


class UsageMeter:
    """A thread-safe accumulator of :class:`Usage`; ``prices`` (a :class:`Prices`) turns tokens into cost."""

    def __init__(self, prices: Prices | None = None) -> None:
        if prices is not None and not isinstance(prices, Prices):
            raise TypeError(f"prices must be a Prices(input_per_million, output_per_million), got {type(prices).__name__}")
        self.prices = prices
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(("calls", "cache_hits", "failures", "retries", "input_tokens", "output_tokens"), 0)

    def __repr__(self) -> str:
        return f"UsageMeter({self.usage})"

    def add(self, **delta: int) -> None:
        """Add to the counters (``calls=1, input_tokens=...``); unknown names raise TypeError.

        A negative amount (a server reporting negative token usage) is counted as 0 with a warning, so the
        totals and the cost never go below zero.
        """
        for name, value in delta.items():
            if name not in self._counts:
                raise TypeError(f"unknown usage counter {name!r}")
            if int(value or 0) < 0:
                warnings.warn(f"negative usage {name}={value} (reported by the server?) counted as 0", stacklevel=2)
        with self._lock:
            for name, value in delta.items():
                self._counts[name] += max(int(value or 0), 0)

    @property
    def usage(self) -> Usage:
        """The totals so far."""
        with self._lock:
            counts = dict(self._counts)
        cost = self.prices.cost(counts["input_tokens"], counts["output_tokens"]) if self.prices else None
        return Usage(**counts, cost=cost)
