r"""Prediction-powered inference: a judge's mean corrected with a few human labels, with a valid interval.

A judge (an LLM grader, a metric) scores every item; people label a few of them. The judge's mean is cheap but
biased; the human mean is unbiased but noisy. Prediction-powered inference (Angelopoulos, Bates, Fannjiang,
Jordan and Zrnic, "Prediction-powered inference", Science 2023) uses the labelled items to measure the judge's
bias and removes it; PPI++ (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered Inference",
2023) weights the judge by how much it helps.

Notation: ``n`` labelled items with human label ``Y_i`` and judge score ``f_i``; ``N`` further items with only a
judge score ``g_j`` (the labelled items are not among them).

* PPI (lambda = 1):  ``theta = mean(g) + mean(Y - f)``, the judge's mean plus its measured bias (the
  *rectifier*).
* PPI++ mean estimation (their Example 6.1): ``theta(lambda) = lambda * mean(g) + mean(Y - lambda * f)``,
  unbiased for every ``lambda``, with variance

  ``sigma^2(lambda) = Var(Y - lambda f) / n + lambda^2 Var(g) / N``

  minimised by ``lambda* = Cov(Y, f) / ((1 + n / N) Var(f))``. The estimate ``lambda-hat`` takes the covariance
  and the variance of the judge both over the labelled items (divided by ``n``), so the ratio is the least-squares
  slope of ``Y`` on ``f`` shrunk by ``1 / (1 + n / N)``. (Their reference implementation takes ``Var(f)`` over
  all ``n + N`` items instead; both estimate the same ``lambda*``. With the labelled-items variance a judge equal
  to the labels gets exactly ``1 / (1 + n / N)`` whatever the sample, and with 50 binary labels its interval
  covers 95.7% where the pooled variance's covers 93.5%: ``benchmarks/bench_ppi_coverage.py``.)
* Interval (the CLT): ``theta(lambda-hat) +- z_{1-a/2} * sigma-hat(lambda-hat)``, with the two variances of
  ``sigma^2`` estimated with ``ddof=1`` (``Var(Y - lambda f)`` over the labelled items, ``Var(g)`` over the
  unlabelled ones). By default (``quantile="t"``) the normal quantile ``z`` is replaced by Student's
  ``t_{n-1, 1-a/2}``, a small-sample refinement that matters only for few labels (at ``n = 50`` it widens the
  interval by 2.5%; with binary labels the normal quantile covers about 93.5% there); ``quantile="normal"`` is
  the papers' interval exactly. The classical interval uses the same quantile.

``lambda-hat`` is clipped to ``[0, 1]`` (``clip=True``, the default). ``lambda = 0`` gives the human-only
(classical) interval ``mean(Y) +- z sd(Y) / sqrt(n)``; since ``sigma^2(lambda)`` is a convex quadratic that
``lambda-hat`` approximately minimises, clipping keeps the interval within rounding of the classical one or
narrower: a judge that is useless (``Cov = 0``) or anti-correlated (``Cov < 0``, clipped to ``lambda = 0``) gives
back the classical interval, and a judge that tracks the labels shrinks it. A judge far better than its own
scale (``lambda* > 1``) is used at ``lambda = 1``, plain PPI.

:func:`ppi_paired` estimates the difference of two systems scored on the same items: the same estimator on the
per-item differences (``Y = Y_b - Y_a``, ``f = f_b - f_a``), so the pairing is kept.

>>> r = ppi_mean([1, 0, 1, 1, 0, 1], [0.9, 0.2, 0.8, 0.7, 0.4, 0.9], [0.8, 0.3, 0.9, 0.6] * 5)
>>> round(r.estimate, 4), round(r.lam, 4), r.n, r.n_unlabelled
(0.6667, 1.0, 6, 20)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .distributions import check_confidence, normal_quantile, t_quantile
from .interval import MeanInterval
from .intervals import in_unit_interval, is_bounded
from .values import check_values, power_of_two_scale

__all__ = ["PPIInterval", "ppi_mean", "ppi_paired", "ppi_mean_by_id", "ppi_paired_by_id", "tuned_lambda",
           "corrected_means", "CorrectedComparison", "corrected_comparison"]


@dataclass(frozen=True, repr=False)
class PPIInterval(MeanInterval):
    """A prediction-powered mean: the corrected estimate and interval, with what went into them.

    Attributes (beyond :class:`~rag_eval_adapters.stats.interval.MeanInterval`'s)
    ----------
    judge_mean : float
        The judge's plain mean over every item (labelled and unlabelled).
    lam : float
        The weight of the judge (1: PPI; 0: the human labels alone).
    n_unlabelled : int
        Items with a judge score only.
    classical_low, classical_high : float
        The human-only interval on the ``n`` labelled items, ``mean(Y) +- z sd(Y) / sqrt(n)``.
    human_mean : float
        ``mean(Y)`` over the labelled items.
    note : str
        A warning about the interval (``""`` when none), e.g. that the raw interval lay outside the metric's
        range [0, 1] and was cut to it (:func:`corrected_means`).
    """

    judge_mean: float = math.nan
    lam: float = 1.0
    n_unlabelled: int = 0
    classical_low: float = math.nan
    classical_high: float = math.nan
    human_mean: float = math.nan
    note: str = ""

    @property
    def classical_width(self) -> float:
        """Width of the human-only interval."""
        return self.classical_high - self.classical_low

    def describe(self, name: str = "", digits: int = 2) -> str:
        """One line: ``"faithfulness: judge mean 0.71, corrected 0.66 [0.61, 0.70] from 120 human labels"``."""
        head = f"{name}: " if name else ""
        note = f"; {self.note}" if self.note else ""
        return (f"{head}judge mean {self.judge_mean:.{digits}f}, corrected {self.format(digits)} from {self.n} "
                f"human label{'s' if self.n != 1 else ''} ({self.method}, {self.confidence:.0%}){note}")

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: the fields (``note`` only when there is one) and ``"text"``, the :meth:`describe` line."""
        out = super().to_dict()
        if not self.note:
            del out["note"]
        out["text"] = self.describe()
        return out

    def __repr__(self) -> str:
        return (f"PPIInterval({self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}], {self.method} "
                f"{self.confidence:.0%}, judge mean {self.judge_mean:.4g}, lambda={self.lam:.3g}, n={self.n}, "
                f"N={self.n_unlabelled})")


def tuned_lambda(human: Sequence[float], judge: Sequence[float], judge_unlabelled: Sequence[float], *,
                 clip: bool = True) -> float:
    """PPI++'s power-tuning weight for a mean: ``Cov(Y, f) / ((1 + n / N) Var(f))``.

    The covariance and the variance are taken over the ``n`` labelled items (divided by ``n``); ``clip``
    limits the result to ``[0, 1]``. A judge constant on the labelled items gets 0.
    """
    y, f, g = _inputs(human, judge, judge_unlabelled)
    return _lambda(y, f, g, clip)


def _inputs(human: Any, judge: Any, judge_unlabelled: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = check_values(human, "human labels", minimum=0)
    f = check_values(judge, "judge scores of the labelled items", minimum=0)
    if y.size != f.size:
        raise ValueError(f"{y.size} human labels but {f.size} judge scores of the labelled items; "
                         "give one judge score per labelled item")
    check_values(y, "human labels", minimum=2)
    g = check_values(judge_unlabelled, "judge scores of the unlabelled items", minimum=1)
    return y, f, g


def _lambda(y: np.ndarray, f: np.ndarray, g: np.ndarray, clip: bool) -> float:
    n, big_n = y.size, g.size
    scale = power_of_two_scale(y, f)  # the ratio does not change; the squares of values near 1e154 overflow
    if scale != 1.0:
        y, f = y / scale, f / scale
    cov = float(np.mean((y - y.mean()) * (f - f.mean())))
    var = float(np.mean((f - f.mean()) ** 2))
    if var <= 1e-300:
        return 0.0
    lam = cov / ((1.0 + n / big_n) * var)
    return min(1.0, max(0.0, lam)) if clip else lam


def ppi_mean(
    human: Sequence[float],
    judge: Sequence[float],
    judge_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    clip: bool = True,
    quantile: str = "t",
) -> PPIInterval:
    """The mean of the human label over all items, from a judge corrected by the labelled few (PPI++).

    Parameters
    ----------
    human : sequence of float
        ``Y_i``, the human labels of the ``n >= 2`` labelled items.
    judge : sequence of float
        ``f_i``, the judge's scores of the same items, in the same order.
    judge_unlabelled : sequence of float
        ``g_j``, the judge's scores of the ``N >= 1`` items without a human label.
    confidence : float
        Nominal coverage of the interval.
    lam : float or None
        The judge's weight; ``None`` (default) tunes it (PPI++, method ``"ppi++"``); ``1.0`` is plain PPI
        (method ``"ppi"``); ``0.0`` the human labels alone.
    clip : bool
        Clip the tuned weight to ``[0, 1]`` (see the module docstring).
    quantile : {"t", "normal"}
        The interval's quantile: Student's t with ``n - 1`` degrees of freedom (default) or the normal one.

    Returns
    -------
    PPIInterval
        ``estimate = lam * mean(g) + mean(Y - lam * f)`` with its CLT interval.

    Raises
    ------
    ValueError
        For lengths that differ, fewer than 2 labelled or 1 unlabelled item, or a NaN or infinite value.
    """
    confidence = check_confidence(confidence)
    if quantile not in ("t", "normal"):
        raise ValueError(f"quantile must be 't' or 'normal', got {quantile!r}")
    y, f, g = _inputs(human, judge, judge_unlabelled)
    if lam is None:
        weight, method = _lambda(y, f, g, clip), "ppi++"
    else:
        if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not math.isfinite(lam):
            raise ValueError(f"lam must be a finite number or None (tuned), got {lam!r}")
        weight, method = float(lam), ("ppi" if lam == 1 else "ppi++")
    z = t_quantile(confidence, y.size - 1) if quantile == "t" else normal_quantile(confidence)
    interval = _ppi_interval(y, f, g, weight, z, power_of_two_scale(y, f, g))
    interval = replace(interval, confidence=confidence, method=method)
    bad = [k for k in ("low", "high", "classical_low", "classical_high") if not math.isfinite(getattr(interval, k))]
    if bad:
        raise ValueError(f"the PPI interval of values of this size reaches beyond the largest float ({bad[0]} is "
                         f"{getattr(interval, bad[0])}); rescale the labels and scores")
    return interval


def _ppi_interval(y: np.ndarray, f: np.ndarray, g: np.ndarray, weight: float, z: float, scale: float
                  ) -> PPIInterval:
    """The PPI estimate and interval of weight ``weight`` and quantile ``z``, computed on the values divided by
    ``scale`` (a power of two: exact; values near 1e154 would overflow their squares, near 1e308 their sums) and
    multiplied back; ``confidence`` and ``method`` are left for the caller."""
    if scale != 1.0:
        y, f, g = y / scale, f / scale, g / scale
    n, big_n = y.size, g.size
    rectified = y - weight * f
    estimate = weight * float(g.mean()) + float(rectified.mean())
    variance = float(rectified.var(ddof=1)) / n + weight * weight * float(g.var(ddof=1) if big_n > 1 else 0.0) / big_n
    se = math.sqrt(max(variance, 0.0))
    human_se = float(y.std(ddof=1)) / math.sqrt(n)
    human_mean = float(y.mean())
    judge_mean = float((f.sum() + g.sum()) / (n + big_n))
    estimate, se, human_se, human_mean, judge_mean = (v * scale for v in (estimate, se, human_se, human_mean,
                                                                          judge_mean))
    return PPIInterval(
        estimate=estimate, low=estimate - z * se, high=estimate + z * se, confidence=0.95, method="ppi++",
        n=n, std_error=se, judge_mean=judge_mean, lam=weight, n_unlabelled=big_n,
        classical_low=human_mean - z * human_se, classical_high=human_mean + z * human_se, human_mean=human_mean,
    )


def ppi_paired(
    human_a: Sequence[float],
    human_b: Sequence[float],
    judge_a: Sequence[float],
    judge_b: Sequence[float],
    judge_a_unlabelled: Sequence[float],
    judge_b_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    clip: bool = True,
    quantile: str = "t",
) -> PPIInterval:
    """The difference ``B - A`` of two systems scored on the same items, corrected with human labels (PPI++).

    The estimator of :func:`ppi_mean` on the per-item differences: ``Y = human_b - human_a``, ``f = judge_b -
    judge_a`` on the labelled items and ``g = judge_b_unlabelled - judge_a_unlabelled`` on the others.

    Returns
    -------
    PPIInterval
        The corrected mean difference; ``judge_mean`` is the judge's difference.
    """
    pairs = {}
    for name, a, b in (("human", human_a, human_b), ("judge", judge_a, judge_b),
                       ("judge_unlabelled", judge_a_unlabelled, judge_b_unlabelled)):
        va, vb = check_values(a, f"{name}_a"), check_values(b, f"{name}_b")
        if va.size != vb.size:
            raise ValueError(f"{name}_a has {va.size} values and {name}_b {vb.size}; the systems must be scored "
                             "on the same items")
        pairs[name] = vb - va
    return ppi_mean(pairs["human"], pairs["judge"], pairs["judge_unlabelled"], confidence=confidence, lam=lam,
                    clip=clip, quantile=quantile)


def _split(judge: Mapping[Hashable, float], human: Mapping[Hashable, float], what: str):
    missing = [k for k in human if k not in judge]
    if missing:
        raise ValueError(f"{len(missing)} human-labelled items have no {what} score, e.g. {missing[0]!r}")
    labelled = [k for k in judge if k in human]
    unlabelled = [k for k in judge if k not in human]
    if not unlabelled:
        raise ValueError(f"every item with a {what} score has a human label; PPI needs items the judge scored "
                         "alone (use the human mean itself)")
    return labelled, unlabelled


def ppi_mean_by_id(judge: Mapping[Hashable, float], human: Mapping[Hashable, float], *,
                   confidence: float = 0.95, lam: float | None = None, clip: bool = True,
                   quantile: str = "t") -> PPIInterval:
    """:func:`ppi_mean` from ``{item: judge score}`` for every item and ``{item: human label}`` for a few."""
    labelled, unlabelled = _split(judge, human, "judge")
    return ppi_mean([human[k] for k in labelled], [judge[k] for k in labelled], [judge[k] for k in unlabelled],
                    confidence=confidence, lam=lam, clip=clip, quantile=quantile)


def ppi_paired_by_id(judge_a: Mapping[Hashable, float], judge_b: Mapping[Hashable, float],
                     human_a: Mapping[Hashable, float], human_b: Mapping[Hashable, float], *,
                     confidence: float = 0.95, lam: float | None = None, clip: bool = True,
                     quantile: str = "t") -> PPIInterval:
    """:func:`ppi_paired` from ``{item: score}`` mappings: both judges score every item, people a few of them."""
    if set(judge_a) != set(judge_b):
        raise ValueError("judge_a and judge_b must score the same items")
    if set(human_a) != set(human_b):
        raise ValueError("human_a and human_b must label the same items")
    labelled, unlabelled = _split(judge_a, human_a, "judge")
    return ppi_paired([human_a[k] for k in labelled], [human_b[k] for k in labelled],
                      [judge_a[k] for k in labelled], [judge_b[k] for k in labelled],
                      [judge_a[k] for k in unlabelled], [judge_b[k] for k in unlabelled],
                      confidence=confidence, lam=lam, clip=clip, quantile=quantile)


def corrected_means(report: Any, human: Mapping[Hashable, Mapping[str, float]], *, confidence: float = 0.95,
                    quantile: str = "t") -> dict[str, PPIInterval]:
    """The PPI++ mean of each metric of a :class:`~rag_eval_adapters.Report` that has human labels.

    Parameters
    ----------
    report : Report
        Per-query values of a judge or scorer (every scored query).
    human : mapping
        ``{query_id: {metric: human value}}`` for a subset of the report's queries
        (:func:`~rag_eval_adapters.human_labels.read_human_labels` reads them from JSONL).
    confidence, quantile
        As in :func:`ppi_mean`.

    Returns
    -------
    dict
        Metric key -> :class:`PPIInterval`, for each metric of the report labelled on at least 2 of its queries
        (and with at least one query unlabelled). For a registry metric bounded by [0, 1] whose scores and labels
        lie in [0, 1], the estimate and interval are cut to [0, 1].

    Raises
    ------
    ValueError
        For a labelled query the report did not score, or a labelled metric the report does not have.
    """
    from ..report import as_report

    report = as_report(report, "report")
    row_of = {q: i for i, q in enumerate(report.query_ids)}
    unknown = [q for q in human if q not in row_of]
    if unknown:
        raise ValueError(f"{len(unknown)} human-labelled queries are not scored in the report, e.g. {unknown[0]!r}")
    keys = list(report.keys)
    extra = sorted({m for labels in human.values() for m in labels} - set(keys))
    if extra:
        raise ValueError(f"human label {extra[0]!r} is not a metric of the report ({', '.join(keys)})")
    out: dict[str, PPIInterval] = {}
    for j, key in enumerate(keys):
        labelled = [q for q, labels in human.items() if key in labels]
        if len(labelled) < 2 or len(labelled) == len(row_of):
            continue
        column = report.values[:, j]
        judge = {q: float(column[i]) for q, i in row_of.items() if not math.isnan(column[i])}  # measured cells
        labelled = [q for q in labelled if q in judge]
        if len(labelled) < 2 or len(labelled) == len(judge):
            continue
        labels = {q: _label(human[q][key], q, key, report.metrics[j]) for q in labelled}
        interval = ppi_mean_by_id(judge, labels, confidence=confidence, quantile=quantile)
        if in_unit_interval(report.metrics[j], np.array([*judge.values(), *labels.values()])):
            interval = clamp_to_unit(interval)
        out[key] = interval
    return out


def _label(value: Any, query: Hashable, key: str, metric: Any) -> float:
    """A human label as a float: a finite number (not a bool), in [0, 1] for a metric bounded by it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"query {query!r}: the human label {key!r} must be a finite number, got {value!r}")
    if is_bounded(metric) and not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"query {query!r}: the human label {key!r} is {float(value):g}, off the metric's scale "
                         "[0, 1]")
    return float(value)


def clamp_to_unit(interval: PPIInterval) -> PPIInterval:
    """``interval`` of a metric bounded by [0, 1] cut to [0, 1]: the estimate and both bounds.

    The true mean lies in [0, 1], so cutting keeps every true value the interval covered. A raw interval that
    reaches past [0, 1] entirely (e.g. ``[1.04, 1.40]``) becomes the single point at the edge, never an inverted
    ``[1.40, 1]``, and its ``note`` says why: the judge's bias measured on the labelled queries, applied to the
    rest, pushed the mean out of range, so the labelled subset looks unlike the rest.
    """
    def cut(v: float) -> float:
        return min(1.0, max(0.0, v))

    note = interval.note
    if interval.low > 1.0 or interval.high < 0.0:
        note = (f"the raw interval [{interval.low:.3g}, {interval.high:.3g}] lies outside [0, 1]: the labelled "
                "queries look unlike the rest (the judge's bias on them does not carry over); label more, drawn "
                "at random")
    return replace(interval, estimate=cut(interval.estimate), low=cut(interval.low), high=cut(interval.high),
                   note=note)


def _measured_column(report: Any, key: str) -> tuple[dict[Hashable, float], set[Hashable]]:
    """``({query: value}, {unmeasured queries})`` of one metric of a report (unmeasured cells are NaN)."""
    column = report.values[:, report.keys.index(key)]
    values = {q: float(v) for q, v in zip(report.query_ids, column, strict=True)}
    return {q: v for q, v in values.items() if not math.isnan(v)}, {q for q, v in values.items() if math.isnan(v)}


def _paired_difference(report_a: Any, report_b: Any, human_a: Mapping, human_b: Mapping, key: str,
                       confidence: float, quantile: str) -> tuple[PPIInterval, int] | None:
    """The PPI++ difference ``b - a`` of ``key`` and how many common queries were left out because a run's cell
    is unmeasured (None when fewer than 2 labelled or no unlabelled common queries remain)."""
    judge_a, lost_a = _measured_column(report_a, key)
    judge_b, lost_b = _measured_column(report_b, key)
    shared = set(judge_a) & set(judge_b)
    left_out = len(((set(judge_a) | lost_a) & (set(judge_b) | lost_b)) - shared)
    both = [q for q in human_a if key in human_a[q] and key in human_b.get(q, {}) and q in shared]
    if len(both) < 2 or len(shared) <= len(both):
        return None
    r = ppi_paired_by_id({q: judge_a[q] for q in shared}, {q: judge_b[q] for q in shared},
                         {q: human_a[q][key] for q in both}, {q: human_b[q][key] for q in both},
                         confidence=confidence, quantile=quantile)
    return r, left_out


@dataclass(frozen=True)
class CorrectedComparison:
    """Several runs' judged means and paired differences, each corrected with human labels (PPI++).

    Attributes
    ----------
    means : dict
        ``{run: {metric: PPIInterval}}`` for every run and metric with labels.
    differences : list
        ``(metric, run_a, run_b, PPIInterval)`` of ``run_b - run_a`` for every pair of runs labelled on at least
        2 common queries (:func:`ppi_paired_by_id`).
    unmeasured : dict
        ``{(metric, run_a, run_b): queries}``: the queries of a difference left out because the judge could not
        score them in one of the runs (an unmeasured cell), as :func:`corrected_means` leaves them out of a mean;
        only differences that left some out.
    """

    means: dict[str, dict[str, PPIInterval]]
    differences: list[tuple[str, str, str, PPIInterval]]
    unmeasured: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def lines(self, digits: int = 3) -> list[str]:
        """One sentence a mean (``"bm25 faithfulness: judge mean 0.71, corrected ..."``) and a difference."""
        out = [r.describe(f"{run} {metric}", digits) for run, by in self.means.items() for metric, r in by.items()]
        for metric, a, b, r in self.differences:
            left = self.unmeasured.get((metric, a, b), 0)
            dropped = f"; {left} unmeasured quer{'y' if left == 1 else 'ies'} left out" if left else ""
            out.append(f"{metric}: {b} - {a}: judge difference {r.judge_mean:+.{digits}f}, corrected "
                       f"{r.estimate:+.{digits}f} [{r.low:+.{digits}f}, {r.high:+.{digits}f}] from {r.n} human labels "
                       f"({r.method}, {r.confidence:.0%}{dropped})")
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"means": {run: {metric: {...}}}, "differences": [{"metric", "run_a", "run_b", ...}]}``."""
        return {"means": {run: {m: r.to_dict() for m, r in by.items()} for run, by in self.means.items()},
                "differences": [{"metric": m, "run_a": a, "run_b": b, **r.to_dict(),
                                 **({"unmeasured": self.unmeasured[(m, a, b)]} if (m, a, b) in self.unmeasured else {})}
                                for m, a, b, r in self.differences]}


def corrected_comparison(reports: Mapping[str, Any], human: Mapping[str | None, Mapping[Hashable, Mapping[str, float]]],
                         *, confidence: float = 0.95, quantile: str = "t") -> CorrectedComparison:
    """PPI++ means of each run and differences of each pair of runs, from human labels of some queries.

    Parameters
    ----------
    reports : mapping
        ``{run: Report}`` (e.g. judge scores per query).
    human : mapping
        ``{run: {query_id: {metric: human value}}}`` (:func:`~rag_eval_adapters.human_labels.read_human_labels`);
        every label names its run.
    """
    import itertools

    from ..report import as_report

    if None in human:
        raise ValueError('every human label of a comparison names its run ("run": ... on each line)')
    unknown = [r for r in human if r not in reports]
    if unknown:
        raise ValueError(f"human labels for run {unknown[0]!r}, which is not compared ({', '.join(reports)})")
    typed = {name: as_report(r, f"run {name!r}") for name, r in reports.items()}
    means = {run: corrected_means(typed[run], human[run], confidence=confidence, quantile=quantile)
             for run in reports if run in human}
    differences = []
    unmeasured: dict[tuple[str, str, str], int] = {}
    for a, b in itertools.combinations(reports, 2):
        if a not in human or b not in human:
            continue
        for key in typed[a].keys:
            if key not in typed[b].keys:
                continue
            found = _paired_difference(typed[a], typed[b], human[a], human[b], key, confidence, quantile)
            if found is not None:
                differences.append((key, a, b, found[0]))
                if found[1]:
                    unmeasured[(key, a, b)] = found[1]
    return CorrectedComparison(means, differences, unmeasured)
