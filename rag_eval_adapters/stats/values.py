"""The check of a sequence of numbers every statistic starts from."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["check_values", "power_of_two_scale", "min_resamples", "check_resamples", "LARGEST_UNSCALED"]


def check_values(values: Any, what: str, *, minimum: int = 1) -> np.ndarray:
    """``values`` as a 1-D float64 array of finite numbers with at least ``minimum`` of them.

    Raises ``TypeError`` for a value that is not a number and ``ValueError`` naming the first NaN or infinite
    item (``what`` names the input in both messages).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of numbers, got a string")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a sequence of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] is {float(array[bad[0]])!r}; every value must be a finite number")
    if array.size < minimum:
        raise ValueError(f"{what} has {array.size} values; at least {minimum} are needed")
    return array


LARGEST_UNSCALED = 2.0**400
"""Values up to this size are squared and summed as they are (their squares and sums stay far below the float
range); larger ones are first divided by a power of two (:func:`power_of_two_scale`)."""


def power_of_two_scale(*arrays: np.ndarray) -> float:
    """``1.0``, or for values beyond :data:`LARGEST_UNSCALED` (near ``1e154``, squares overflow; near ``1e308``,
    sums do) the power of two at or just below the largest ``|value|`` (scaled values below 2).

    Dividing by a power of two is exact, and rounding commutes with it, so a statistic computed on the scaled
    values and multiplied back is the one the unscaled values would give without overflow.
    """
    largest = max((float(np.abs(a).max()) for a in arrays if a.size), default=0.0)
    return 1.0 if largest <= LARGEST_UNSCALED else math.ldexp(1.0, math.frexp(largest)[1] - 1)


def min_resamples(confidence: float) -> int:
    """The fewest bootstrap resamples whose percentile interval at ``confidence`` is not just the extremes of the
    resamples: ``(B + 1) (1 - confidence) / 2 >= 1`` (39 at 95%, 199 at 99%)."""
    return max(1, math.ceil(2.0 / (1.0 - confidence) - 1e-9) - 1)


def check_resamples(n_bootstrap: int, confidence: float) -> int:
    """``n_bootstrap`` as a count of resamples that can make a percentile interval at ``confidence``.

    Raises
    ------
    ValueError
        For fewer than :func:`min_resamples`: with one resample both bounds are that resample's mean, which may
        miss the estimate itself; with too few, the bounds are the extreme resamples, whatever the confidence.
    """
    from ..validation import check_count

    count = check_count(n_bootstrap, "n_bootstrap")
    least = min_resamples(confidence)
    if count < least:
        raise ValueError(f"n_bootstrap is {count}: a {confidence:.0%} percentile interval needs at least {least} "
                         "resamples (one beyond each bound); give more")
    return count
