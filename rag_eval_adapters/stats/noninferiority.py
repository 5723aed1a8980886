"""The gate's two one-sided paired tests of one metric at its margin, and their power.

For per-question differences ``d = candidate - baseline`` (``n`` questions, mean ``dbar``, standard deviation
``s``, standard error ``se = s / sqrt(n)``) and a margin ``m >= 0`` (the drop tolerated), the statistic is
``t = (dbar + m) / se`` with ``n - 1`` degrees of freedom:

* the **pass** test (non-inferiority), H0: ``mean(d) <= -m``, has ``p_pass = P(T >= t)``;
* the **fail** test (inferiority beyond the margin), H0: ``mean(d) >= -m``, has ``p_fail = P(T <= t)``.

These are ``scipy.stats.ttest_1samp(d, -m, alternative="greater")`` and ``alternative="less"``. The one-sided
``1 - alpha`` bounds of the mean difference are ``dbar -+ t_{n-1, 1-alpha} se``: the pass test rejects at
``alpha`` exactly when the lower bound is above ``-m``, the fail test when the upper bound is below it.

When every difference is equal (``se = 0``) the data leave no doubt: a mean above ``-m`` passes (``p_pass = 0``),
one below fails (``p_fail = 0``), one at ``-m`` exactly is neither (both 1).

A prediction-powered difference (:func:`rag_eval_adapters.ppi.ppi_paired_by_id`, human labels of some questions)
is tested the same way from its estimate and standard error, with ``n_labelled - 1`` degrees of freedom (the
quantile of its interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .distributions import t_cdf, t_upper_quantile

__all__ = ["OneSidedTests", "one_sided_tests", "paired_one_sided_tests"]


@dataclass(frozen=True)
class OneSidedTests:
    """The two one-sided tests of one mean difference at ``-margin``.

    Attributes
    ----------
    difference, std_error : float
        The mean difference (candidate - baseline) and its standard error.
    df : float
        Degrees of freedom of the t distribution.
    p_pass, p_fail : float
        p-values of H0 ``difference <= -margin`` and of H0 ``difference >= -margin``.
    lower, upper : float
        The one-sided ``1 - alpha`` bounds of the difference.
    """

    difference: float
    std_error: float
    df: float
    p_pass: float
    p_fail: float
    lower: float
    upper: float


def one_sided_tests(difference: float, std_error: float, df: float, margin: float, alpha: float) -> OneSidedTests:
    """Both one-sided tests of a mean difference at ``-margin`` from its estimate and standard error.

    Parameters
    ----------
    difference : float
        The estimated mean difference, candidate - baseline.
    std_error : float
        Its standard error (0 when every difference is equal).
    df : float
        Degrees of freedom of the t statistic (``n - 1``).
    margin : float
        The drop tolerated (``>= 0``).
    alpha : float
        The level of the one-sided bounds.

    Returns
    -------
    OneSidedTests
    """
    shifted = difference + margin
    if std_error == 0.0:
        p_pass = 0.0 if shifted > 0 else 1.0
        p_fail = 0.0 if shifted < 0 else 1.0
        return OneSidedTests(difference, 0.0, df, p_pass, p_fail, difference, difference)
    t = shifted / std_error
    below = t_cdf(t, df)
    width = t_upper_quantile(alpha, df) * std_error
    return OneSidedTests(difference, std_error, df, 1.0 - below if t < 0 else t_cdf(-t, df), below,
                         difference - width, difference + width)


def paired_one_sided_tests(differences: np.ndarray, margin: float, alpha: float) -> OneSidedTests:
    """Both one-sided paired t-tests of per-question ``differences`` (candidate - baseline) at ``-margin``.

    Raises
    ------
    ValueError
        For fewer than 2 differences.
    """
    d = np.asarray(differences, dtype=np.float64)
    n = d.size
    if n < 2:
        raise ValueError(f"a paired test needs at least 2 questions both scored, got {n}")
    mean = float(math.fsum(d.tolist()) / n)
    sd = float(np.std(d, ddof=1))
    if np.all(d == d[0]):
        sd = 0.0
    return one_sided_tests(mean, sd / math.sqrt(n), n - 1, margin, alpha)
