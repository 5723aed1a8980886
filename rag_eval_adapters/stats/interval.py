"""The one value type of the statistics: an estimate with its interval, and how the interval was made.

:class:`Interval` is what every interval of the package is or gives: a plain mean's (:class:`MeanInterval`,
:func:`~rag_eval_adapters.stats.intervals.mean_interval`), a prediction-powered mean's
(:class:`~rag_eval_adapters.stats.ppi.PPIInterval`), an agreement statistic's
(:class:`~rag_eval_adapters.stats.agreement.Estimate`), a paired comparison's difference
(:attr:`~rag_eval_adapters.stats.paired.PairedComparison.interval`) and a group's mean in
:meth:`~rag_eval_adapters.Report.by` (:meth:`~rag_eval_adapters.GroupedReport.interval`).

>>> Interval(0.5, 0.25, 0.75, 0.95, "t", 10)
Interval(0.5 [0.25, 0.75], t 95%, n=10)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Interval", "MeanInterval"]


@dataclass(frozen=True)
class Interval:
    """An estimate and its confidence interval.

    Attributes
    ----------
    estimate : float
        The statistic on the sample (a mean, a corrected mean, a difference of means, a correlation).
    low, high : float
        The interval's bounds.
    confidence : float
        Its nominal coverage (0.95: 95%).
    method : str
        How the interval was made: ``"t"``, ``"normal"``, ``"bootstrap"``, ``"ppi++"`` or ``"ppi"``.
    n : int
        The items behind the estimate (for PPI: the human-labelled items).
    std_error : float or None
        The standard error the interval is built from (``None`` for the bootstrap).
    """

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    n: int
    std_error: float | None = None

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in ``[low, high]``."""
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: every field, plus ``"interval"`` naming the method and coverage."""
        out = asdict(self)
        out["interval"] = f"{self.method} {self.confidence:.0%}"
        return out

    def format(self, digits: int = 3) -> str:
        """``"0.660 [0.610, 0.700]"``."""
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}], "
                f"{self.method} {self.confidence:.0%}, n={self.n})")


@dataclass(frozen=True, repr=False)
class MeanInterval(Interval):
    """A mean and its confidence interval: an :class:`Interval` whose estimate is a mean (the name the package
    has always given it; see :func:`~rag_eval_adapters.stats.intervals.mean_interval`)."""
