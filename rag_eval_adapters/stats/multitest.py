"""Corrections for many tests at once: Holm's step-down (the default) and Benjamini-Hochberg.

A report that runs ``m`` tests and calls each one "significant" at ``p < 0.05`` expects ``0.05 m`` false
findings when no difference is real. The corrections below turn the ``m`` raw p-values of one *family* (every
test of one report) into adjusted p-values; a test is significant at level ``alpha`` when its adjusted p-value is
below ``alpha``. With the p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:

* ``holm`` (Holm 1979) controls the family-wise error rate (the chance of any false finding) under any
  dependence between the tests: ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
* ``bh`` (Benjamini and Hochberg 1995) controls the false discovery rate (the expected share of false findings
  among the significant ones) for independent or positively dependent tests:
  ``adj_(i) = min_{j >= i} min(1, m p_(j) / j)``.
* ``bonferroni``: ``min(1, m p)``; ``none``: the raw p-values.

These are the values of ``statsmodels.stats.multitest.multipletests`` with ``method="holm"``, ``"fdr_bh"``
and ``"bonferroni"``.

>>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
[0.03, 0.06, 0.06]
>>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
[0.03, 0.04, 0.04]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CORRECTIONS", "Correction", "adjust_p_values", "check_correction", "correction_name"]

CORRECTIONS = ("holm", "bh", "bonferroni", "none")
"""The names :func:`adjust_p_values` accepts (``fdr_bh`` and ``benjamini-hochberg`` are read as ``bh``)."""

_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh", "benjamini_hochberg": "bh", "bh": "bh",
            "holm": "holm", "bonferroni": "bonferroni", "none": "none"}
_NAMES = {"holm": "Holm's correction", "bh": "the Benjamini-Hochberg correction",
          "bonferroni": "the Bonferroni correction", "none": "no correction"}


def check_correction(method: str) -> str:
    """The canonical name of a correction (one of :data:`CORRECTIONS`); ``ValueError`` for any other."""
    key = _ALIASES.get(str(method).strip().lower()) if isinstance(method, str) else None
    if key is None:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    return key


def correction_name(method: str) -> str:
    """The correction as a sentence says it: ``"Holm's correction"``, ``"the Benjamini-Hochberg correction"``."""
    return _NAMES[check_correction(method)]


def adjust_p_values(p_values: Sequence[float], method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family of tests (see the module docstring for the formulas).

    Parameters
    ----------
    p_values : sequence of float
        The raw p-values, each in [0, 1]; their order is kept in the result.
    method : {"holm", "bh", "bonferroni", "none"}
        The correction.

    Returns
    -------
    numpy.ndarray
        One adjusted p-value per test, in [0, 1] and never below the raw one.

    Raises
    ------
    ValueError
        For an unknown method or a p-value that is NaN or outside [0, 1].
    """
    method = check_correction(method)
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        raise ValueError(f"p-value {bad[0]} is {p[bad[0]]!r}; p-values must be numbers in [0, 1]")
    m = p.size
    if m == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    i = np.arange(1, m + 1, dtype=np.float64)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - i + 1.0) * ranked))
    else:
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / i)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adjusted
    return out


@dataclass(frozen=True)
class Correction:
    """How one family of tests was corrected: the method, the family's size and the level of the verdicts.

    ``str(c)`` is the clause a verdict sentence ends with, e.g. ``"at 0.05 after Holm's correction over 66
    comparisons"``.
    """

    method: str
    family_size: int
    alpha: float = 0.05
    scope: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", check_correction(self.method))
        if isinstance(self.family_size, bool) or not isinstance(self.family_size, int) or self.family_size < 0:
            raise ValueError(f"family_size must be a non-negative int, got {self.family_size!r}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be between 0 and 1 (e.g. 0.05), got {self.alpha!r}")

    def __str__(self) -> str:
        noun = "comparison" if self.family_size == 1 else "comparisons"
        scope = f" {self.scope}" if self.scope else ""
        if self.method == "none":
            return f"at {self.alpha:g} without correction for {self.family_size} {noun}{scope}"
        return f"at {self.alpha:g} after {correction_name(self.method)} over {self.family_size} {noun}{scope}"

    def floor_note(self, smallest_p: float) -> str:
        """A warning when no test can reach ``alpha`` after the correction because the smallest p-value the test
        can give (``1 / (permutations + 1)`` for a randomization test) times the family's size is at least
        ``alpha``; ``""`` otherwise."""
        if self.method == "none" or self.family_size * smallest_p < self.alpha:
            return ""
        return (f"no test can reach {self.alpha:g} here: the smallest p-value the test gives is {smallest_p:.2g}, "
                f"and {self.family_size} of them adjusted together reach {self.family_size * smallest_p:.2g}; "
                "use more permutations")

    def to_dict(self) -> dict[str, object]:
        """``{"method", "family_size", "alpha", "scope", "text"}``."""
        return {"method": self.method, "family_size": self.family_size, "alpha": self.alpha, "scope": self.scope,
                "text": str(self)}
