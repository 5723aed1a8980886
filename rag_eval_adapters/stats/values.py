"""The check of a sequence of numbers every statistic starts from."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_values"]


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
