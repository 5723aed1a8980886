"""Position-swap consistency of a pairwise judge: ask both orders, count how often the verdict flips.

A pairwise judge sees answers A and B in one order and gives a preference ``v_ab`` (positive: the second shown
is better); shown B then A it gives ``v_ba``. A judge that reads the answers, not their positions, prefers the
same *answer* both times: ``sign(v_ba) = -sign(v_ab)``. Otherwise the verdict *flips*; a flip where both verdicts
favour the same position (``sign(v_ab) = sign(v_ba) != 0``) is position bias, first or second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..stats.agreement import Estimate
from ..stats.distributions import check_confidence
from ..stats.values import check_values
from ..validation import check_count, check_seed

__all__ = ["SwapConsistency", "position_swap_consistency"]


@dataclass(frozen=True)
class SwapConsistency:
    """How often a pairwise judge's verdict survives swapping the two answers.

    Attributes
    ----------
    n : int
        Pairs asked in both orders.
    flip_rate : Estimate
        Share whose preferred answer changes (with its bootstrap interval).
    consistent : int
        Pairs with the same preferred answer (or a tie) both times.
    favours_first, favours_second : int
        Flips where both verdicts favour the first (second) shown position.
    tie_once : int
        Flips where exactly one of the two verdicts is a tie.
    """

    n: int
    flip_rate: Estimate
    consistent: int
    favours_first: int
    favours_second: int
    tie_once: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON of every field (``flip_rate`` as ``{"value", "low", "high"}``)."""
        return {"n": self.n, "flip_rate": {"value": self.flip_rate.value, "low": self.flip_rate.low,
                                           "high": self.flip_rate.high},
                "consistent": self.consistent, "favours_first": self.favours_first,
                "favours_second": self.favours_second, "tie_once": self.tie_once}

    def __repr__(self) -> str:
        return (f"SwapConsistency(n={self.n}, flip_rate={self.flip_rate.format(3)}, first={self.favours_first}, "
                f"second={self.favours_second}, tie_once={self.tie_once})")


def position_swap_consistency(verdicts_ab: Sequence[float], verdicts_ba: Sequence[float], *,
                              n_bootstrap: int = 1000, confidence: float = 0.95,
                              seed: int | None = 0) -> SwapConsistency:
    """Compare a judge's verdicts on each pair shown in both orders (see the module docstring).

    Parameters
    ----------
    verdicts_ab, verdicts_ba : sequence of float
        The preference for each pair shown A, B and shown B, A (positive: the second shown answer is better;
        only the sign counts).
    n_bootstrap, confidence, seed
        The percentile bootstrap interval of the flip rate.

    Returns
    -------
    SwapConsistency
    """
    confidence = check_confidence(confidence)
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap", minimum=0)
    rng = np.random.default_rng(check_seed(seed))
    ab = np.sign(check_values(verdicts_ab, "verdicts_ab", minimum=0))
    ba = np.sign(check_values(verdicts_ba, "verdicts_ba", minimum=0))
    if ab.size != ba.size:
        raise ValueError(f"{ab.size} verdicts in one order but {ba.size} in the other; ask each pair both ways")
    if ab.size == 0:
        raise ValueError("no verdicts: give at least one pair asked in both orders")
    flipped = ab != -ba
    rate = float(flipped.mean())
    low: float | None
    high: float | None
    if n_bootstrap:
        means = rng.binomial(ab.size, rate, size=n_bootstrap) / ab.size  # resampled pairs: a binomial count
        low, high = (float(v) for v in np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2]))
    else:
        low = high = None
    return SwapConsistency(
        n=int(ab.size), flip_rate=Estimate(rate, low, high, confidence, "bootstrap", int(ab.size)), consistent=int((~flipped).sum()),
        favours_first=int(((ab < 0) & (ba < 0)).sum()), favours_second=int(((ab > 0) & (ba > 0)).sum()),
        tie_once=int(((ab == 0) ^ (ba == 0)).sum()),
    )
