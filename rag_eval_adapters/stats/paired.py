"""Paired significance tests between retrieval runs scored on the same queries.

For two runs A and B scored per query with the same metric, let ``d_q = B_q - A_q`` over the
``n`` queries both were scored on.  :func:`paired_test` reports

* ``difference`` = mean(d) = mean(B) - mean(A);
* a paired Student t-test: ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom,
  two-sided ``t_test_p_value`` (the t distribution of :mod:`~rag_eval_adapters.stats.distributions`, without
  scipy; equal to ``scipy.stats.ttest_rel``);
* a paired randomization (sign-flip) test: under the null hypothesis each ``d_q`` is as likely to
  have the opposite sign. Random sign vectors ``s`` (seeded, vectorized) are drawn one after the other, and
  ``s`` *reaches* the metric when ``|mean(s * d)| >= |mean(d)|``. Let ``p*`` be the share of all ``2 ** n``
  sign vectors that reach it (the exact p-value) and ``N = n_permutations`` (the cap). The sequential rule
  (``exceedances=h``, default 200) settles each metric one of three ways (``p_value_rule``):

  - ``"bound"``: Hoeffding's inequality (1963) bounds ``p*`` with no draw:
    ``p* <= H = 2 exp(-(sum d) ** 2 / (2 sum d ** 2))``. A metric with ``H <= 0.01 / N`` draws no sign vector
    and reports ``H`` (a clearly significant metric; ``H`` is at least ``p*``, never below it). A metric
    whose differences are all zero reports ``p = 1`` (exact) the same way.
  - ``"exceedances"``: Besag and Clifford's (1991) sequential p-value ("Sequential Monte Carlo p-values",
    Biometrika 78(2)): drawing stops at the ``h``-th reaching vector, ``L`` vectors in, with ``p = h / L``.
  - ``"cap"``: a metric that ``N`` vectors leave with ``G < h`` reaches gets ``(1 + G) / (1 + N)``.

  Validity and error bounds. ``h / L`` and ``(1 + G) / (1 + N)`` are valid p-values (``P(p <= u) <= u``
  under the null); with the bound, ``P(p <= u) <= u`` for every ``u < 1 / (N + 1)`` (only the bound gives
  such p-values, and ``H >= p*``) and ``P(p <= u) <= u + 0.0001 / N`` above (the bound replaces a count only
  where ``p* <= 0.01 / N``, where a count of ``N`` vectors would give ``1 / (N + 1)`` but with a chance of at
  most ``N p* <= 0.01``). ``h / L`` estimates ``p*`` with relative standard error about
  ``sqrt((1 - p) / h)`` (7% at ``h = 200``: 0.05 +- 0.0034); a fixed count's standard error is
  ``sqrt(p (1 - p) / N)`` (at most 0.0014 below ``h / N`` = 0.02 at the defaults). A clearly null metric
  (p near 0.5) stops after about 400 vectors, a clearly significant one draws none, and only a metric with
  ``p*`` between about ``0.01 / N`` and ``h / N`` draws all ``N``. ``exceedances=None`` draws all ``N`` for
  every metric (no bound). This is the headline ``p_value`` because it assumes no normality;
* a percentile bootstrap confidence interval ``[ci_low, ci_high]`` of mean(d), resampling queries
  with replacement (seeded) up to checkpoints 250, 500, 1,000, ... and at most ``n_bootstrap`` times: a metric
  stops at the first checkpoint where the distribution-free 95% interval of each bound (order statistics
  ``B q -+ 1.96 sqrt(B q (1 - q))`` of the ``B`` resample means) is at most ``2 * ci_tolerance`` wide, so each
  bound is within ``ci_tolerance`` (default 0.001, on the metric's scale) of its many-resample value.
  ``ci_tolerance=None`` draws all ``n_bootstrap`` resamples.

The ``n_permutations`` and ``n_bootstrap`` of a :class:`PairedComparison` are the draws this metric made (0
sign vectors for a bound); ``max_permutations`` and ``max_bootstrap`` are the caps it was given.
The sign vectors and the resamples are two random streams spawned from ``seed``, each one sequence shared by
all metrics, so a metric stops where it would alone and its p-value and interval do not depend on which other
metrics (or how many) are tested.

Both random procedures are whole-matrix work (:mod:`rag_eval_adapters.stats.resampling`, which
:meth:`~rag_eval_adapters.Report.by` uses too): blocks of sign vectors (or resample multiplicities) times the
``n x metrics`` matrix of differences. The sign-vector products are single precision; a sign vector whose
single-precision statistic lies within the rounding bound of the observed one is recounted in double
precision, so the p-value is the double-precision count. Bootstrap means are computed in double precision.

:func:`compare_reports` runs these tests for every metric and every pair of runs, vectorized across
metrics; every mean is :func:`~rag_eval_adapters.stats.resampling.column_means`' correctly rounded one and each t-test
reads its metric's column alone, so a metric's means, t-test, randomization p-value and interval do not depend
on which other metrics were asked for. All its tests form one family: their headline p-values are adjusted
together, with Holm's correction by default (``correction="bh"`` for Benjamini-Hochberg, ``"none"`` to leave
them; :mod:`rag_eval_adapters.stats.multitest`), and each test carries its ``adjusted_p_value`` beside the raw
one; ``Comparison.correction`` names the family. The runs are compared on the queries every report scored: a
query missing from a report, or recorded in its ``errors``, is left out of every run.

Each test's difference and interval is also :attr:`PairedComparison.interval`, the package's one interval type
(:class:`~rag_eval_adapters.stats.interval.Interval`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..report import Report, as_report
from ..validation import check_count, check_fraction, check_positive, check_seed
from .distributions import t_two_sided_p
from .interval import Interval
from .multitest import Correction, adjust_p_values, check_correction
from .resampling import TOL as _TOL
from .resampling import column_means, one_blas_thread, randomization_p_values, sequential_bootstrap

__all__ = ["PairedComparison", "Comparison", "paired_test", "compare_reports", "compare_per_query"]

EXCEEDANCES = 200  # h of Besag and Clifford's sequential p-value: a metric stops at its 200th reaching sign vector
CI_TOLERANCE = 1e-3  # each bootstrap bound within 0.001 (the metric's scale) of its many-resample value



@dataclass(frozen=True)
class PairedComparison:
    """Result of the paired tests of one metric between run A and run B (difference = B - A).

    ``n_permutations`` and ``n_bootstrap`` are the sign vectors and resamples this metric drew;
    ``max_permutations`` and ``max_bootstrap`` the caps it was given. ``p_value_rule`` says how the
    randomization p-value was reached: ``"exceedances"`` (``h / L``, Besag and Clifford's sequential stop),
    ``"cap"`` (``(1 + G) / (1 + n_permutations)`` after every vector of the cap) or ``"bound"`` (Hoeffding's
    bound of the p-value of all ``2 ** n`` sign vectors, no vector drawn; see :mod:`rag_eval_adapters.stats.paired`).
    """

    metric: str
    run_a: str
    run_b: str
    n_queries: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    confidence: float
    t_statistic: float | None
    t_test_p_value: float
    randomization_p_value: float
    n_permutations: int
    n_bootstrap: int
    adjusted_p_value: float | None = None
    max_permutations: int | None = None
    max_bootstrap: int | None = None
    p_value_rule: str = "cap"

    @property
    def p_value(self) -> float:
        """The headline p-value: the paired randomization test's."""
        return self.randomization_p_value

    @property
    def interval(self) -> Interval:
        """The difference ``B - A`` and its percentile bootstrap interval, as the package's one interval type."""
        return Interval(self.difference, self.ci_low, self.ci_high, self.confidence, "bootstrap", self.n_queries)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form (``t_statistic`` is None when the differences have zero variance;
        ``adjusted_p_value`` is None for a test outside a corrected family)."""
        out = asdict(self)
        out["p_value"] = self.p_value
        return out

    def __repr__(self) -> str:
        adjusted = "" if self.adjusted_p_value is None else f", adjusted p={self.adjusted_p_value:.4g}"
        return (
            f"PairedComparison({self.metric}: {self.run_b} - {self.run_a} = {self.difference:+.4f} "
            f"[{self.ci_low:+.4f}, {self.ci_high:+.4f}], p={self.p_value:.4g}{adjusted}, "
            f"t-test p={self.t_test_p_value:.4g}, n={self.n_queries})"
        )


@dataclass(frozen=True)
class Comparison:
    """Means of several runs and the paired tests for every metric and pair of runs."""

    runs: list[str]
    metrics: list[str]
    mean: dict[str, dict[str, float]]
    tests: list[PairedComparison]
    query_ids: list[str] = field(repr=False)
    correction: Correction | None = None
    human: Any = field(default=None, repr=False)  # a ppi.CorrectedComparison when human labels were given
    intervals: dict[str, dict[str, Any]] | None = field(default=None, repr=False)  # run -> metric -> MeanInterval

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def significant(self, alpha: float | None = None) -> list[PairedComparison]:
        """The tests whose adjusted p-value (the raw one without a correction) is below ``alpha``
        (default: the correction's level, 0.05)."""
        level = alpha if alpha is not None else (self.correction.alpha if self.correction else 0.05)
        return [t for t in self.tests
                if (t.adjusted_p_value if t.adjusted_p_value is not None else t.p_value) < level]

    def test(self, metric: str, run_a: str, run_b: str) -> PairedComparison:
        """The test of ``metric`` between ``run_a`` and ``run_b`` (in the order they were compared)."""
        for t in self.tests:
            if t.metric == metric and t.run_a == run_a and t.run_b == run_b:
                return t
        raise KeyError(f"no test of {metric!r} between {run_a!r} and {run_b!r}")

    def to_dict(self) -> dict[str, Any]:
        """``{"mean": {run: {metric: value}}, "tests": [...], "counts": {"queries": n, "runs": r},
        "correction": {"method", "family_size", "alpha", "text"}}``."""
        return {
            "mean": self.mean,
            "tests": [t.to_dict() for t in self.tests],
            "counts": {"queries": self.n_queries, "runs": len(self.runs)},
            "correction": self.correction.to_dict() if self.correction else None,
            **({"human_labels": self.human.to_dict()} if self.human is not None else {}),
            **({"intervals": {run: {m: iv.to_dict() for m, iv in by.items()} for run, by in self.intervals.items()}}
               if self.intervals else {}),
        }

    def __repr__(self) -> str:
        return f"Comparison(runs={self.runs}, metrics={len(self.metrics)}, queries={self.n_queries})"


def _t_tests(d: np.ndarray) -> tuple[list[float | None], list[float]]:
    """Two-sided paired t-test for each column of the difference matrix ``d`` (n x m)."""
    n = d.shape[0]
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    t_stats: list[float | None] = []
    p_values: list[float] = []
    for mu, s in zip(mean, sd, strict=False):
        if s <= _TOL * max(1.0, abs(mu)):
            # Zero variance: the t statistic is undefined (0/0) or infinite.
            t_stats.append(None)
            p_values.append(1.0 if abs(mu) <= _TOL else 0.0)
            continue
        t = float(mu / (s / math.sqrt(n)))
        t_stats.append(t)
        p_values.append(t_two_sided_p(t, n - 1))
    return t_stats, p_values


@dataclass(frozen=True)
class _Options:
    """The options every paired test takes, checked (see :func:`paired_test`)."""

    n_permutations: int
    n_bootstrap: int
    confidence: float
    seed: int | None
    exceedances: int | None
    ci_tolerance: float | None


def _check_options(
    n_permutations: Any, n_bootstrap: Any, confidence: Any, seed: Any, exceedances: Any, ci_tolerance: Any
) -> _Options:
    """The options every paired test takes, checked by the validation vocabulary (as Python ints and floats)."""
    return _Options(
        check_count(n_permutations, "n_permutations"), check_count(n_bootstrap, "n_bootstrap"),
        check_fraction(confidence, "confidence"), check_seed(seed),
        None if exceedances is None else check_count(exceedances, "exceedances"),
        None if ci_tolerance is None else check_positive(ci_tolerance, "ci_tolerance"),
    )


def _matrix_tests(
    a: np.ndarray,
    b: np.ndarray,
    metrics: Sequence[str],
    run_a: str,
    run_b: str,
    options: _Options,
    means: tuple[list[float], list[float]] | None = None,
) -> list[PairedComparison]:
    """The paired tests of every metric (column) between runs ``a`` and ``b`` (``queries x metrics``, rows
    aligned); ``means`` are the columns' means when the caller has them."""
    n = a.shape[0]
    if n < 2:
        raise ValueError(
            f"runs {run_a!r} and {run_b!r} have {n} scored query in common; a paired test needs at least 2"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(f"per-query scores of {run_a!r} or {run_b!r} contain NaN or infinity")
    d = b - a
    mean_a, mean_b = means if means is not None else (column_means(a), column_means(b))
    difference = column_means(d)
    # two independent streams: how far the sign vectors go (set by the slowest metric) never moves the resamples
    signs, resamples = (np.random.default_rng(s) for s in np.random.SeedSequence(options.seed).spawn(2))
    with one_blas_thread():  # many mid-sized products: one BLAS thread each (see one_blas_thread)
        rand_p, permutations, rules = randomization_p_values(d, options.n_permutations, signs, options.exceedances)
        low, high, drawn = sequential_bootstrap(d, options.n_bootstrap, options.confidence, resamples,
                                                options.ci_tolerance, center=difference)
    out = []
    for j, metric in enumerate(metrics):
        (t_statistic,), (t_p,) = _t_tests(np.ascontiguousarray(d[:, j : j + 1]))  # each metric's own column
        out.append(
            PairedComparison(
                metric=metric,
                run_a=run_a,
                run_b=run_b,
                n_queries=n,
                mean_a=mean_a[j],
                mean_b=mean_b[j],
                difference=difference[j],
                ci_low=float(low[j]),
                ci_high=float(high[j]),
                confidence=options.confidence,
                t_statistic=t_statistic,
                t_test_p_value=t_p,
                randomization_p_value=float(rand_p[j]),
                n_permutations=int(permutations[j]),
                n_bootstrap=int(drawn[j]),
                max_permutations=options.n_permutations,
                max_bootstrap=options.n_bootstrap,
                p_value_rule=rules[j],
            )
        )
    return out


def paired_test(
    a: Sequence[float],
    b: Sequence[float],
    *,
    metric: str = "score",
    run_a: str = "A",
    run_b: str = "B",
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = 0,
    exceedances: int | None = EXCEEDANCES,
    ci_tolerance: float | None = CI_TOLERANCE,
) -> PairedComparison:
    """Paired t-test, randomization test and bootstrap CI of ``mean(b) - mean(a)`` (see the module docstring).

    Parameters
    ----------
    a, b : sequence of float
        ``a[i]`` and ``b[i]`` are the scores of the same query.
    metric, run_a, run_b : str
        Labels carried into the result.
    n_permutations, n_bootstrap : int
        The most random sign vectors of the randomization test and resamples of the bootstrap.
    confidence : float
        Coverage of the interval (0.95: 95%).
    seed : int or None
        Seed of both random procedures (each draws from its own stream spawned from it).
    exceedances : int or None
        ``h`` of the sequential p-value (default 200): drawing stops at the ``h``-th sign vector ``L`` that
        reaches the observed difference, with ``p = h / L``; otherwise ``p = (1 + G) / (1 + n_permutations)``.
        A metric whose Hoeffding bound is at most ``0.01 / n_permutations`` draws none and reports the bound.
        None draws all ``n_permutations`` for every metric (no bound).
    ci_tolerance : float or None
        Precision of each bootstrap bound on the metric's scale (default 0.001): resampling stops once both
        bounds are within it of their many-resample values (95% distribution-free intervals), at most
        ``n_bootstrap`` resamples. None draws all ``n_bootstrap``.

    Returns
    -------
    PairedComparison

    Raises
    ------
    ValueError
        When the lengths differ, there are fewer than 2 queries, or a score is not finite.
    """
    options = _check_options(n_permutations, n_bootstrap, confidence, seed, exceedances, ci_tolerance)
    av = np.asarray(a, dtype=np.float64).reshape(-1, 1)
    bv = np.asarray(b, dtype=np.float64).reshape(-1, 1)
    if av.shape != bv.shape:
        raise ValueError(f"paired scores must have the same length, got {av.shape[0]} and {bv.shape[0]}")
    return _matrix_tests(av, bv, [metric], run_a, run_b, options)[0]


def compare_per_query(
    per_query: Mapping[str, Mapping[str, Mapping[str, float]]],
    metrics: Sequence[str],
    *,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = 0,
    exceedances: int | None = EXCEEDANCES,
    ci_tolerance: float | None = CI_TOLERANCE,
    correction: str = "holm",
    family: str = "all",
) -> Comparison:
    """Compare runs given as ``{run_name: {query_id: {metric: value}}}``.

    Every pair of runs (in the given order, difference = later - earlier) is tested on every metric,
    over the queries that every run has scores for.  Means are taken over those same queries.

    Parameters
    ----------
    per_query : mapping
        ``{run_name: {query_id: {metric: value}}}``, at least two runs.
    metrics : sequence of str
        The metric keys to test.
    n_permutations, n_bootstrap, confidence, seed, exceedances, ci_tolerance
        As in :func:`paired_test`.
    correction : {"holm", "bh", "bonferroni", "none"}
        How the p-values of all the tests are adjusted together (see the module docstring).
    family : {"all", "metric"}
        The family of the correction: every test (default), or each metric's tests apart.

    Returns
    -------
    Comparison
    """
    options = _check_options(n_permutations, n_bootstrap, confidence, seed, exceedances, ci_tolerance)
    correction = check_correction(correction)
    _check_family(family)
    runs = list(per_query)
    if len(runs) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(runs)}")
    metrics = list(metrics)
    common = set(per_query[runs[0]])
    for name in runs[1:]:
        common &= set(per_query[name])
    query_ids = sorted(common)
    matrices: dict[str, np.ndarray] = {}
    for name in runs:
        rows = per_query[name]
        try:
            matrices[name] = np.array(
                [[float(rows[q][m]) for m in metrics] for q in query_ids], dtype=np.float64
            ).reshape(len(query_ids), len(metrics))
        except KeyError as exc:
            raise ValueError(f"run {name!r} has no per-query value for metric {exc.args[0]!r}") from None
    return _compare_matrices(runs, metrics, query_ids, matrices, options, correction, family)


def _check_family(family: str) -> None:
    if family not in ("all", "metric"):
        raise ValueError(f"family must be 'all' (every test) or 'metric' (each metric apart), got {family!r}")


def _compare_matrices(
    runs: list[str],
    metrics: list[str],
    query_ids: list,
    matrices: Mapping[str, np.ndarray],
    options: _Options,
    correction: str = "holm",
    family: str = "all",
    means: Mapping[str, list[float]] | None = None,
) -> Comparison:
    """Means and paired tests from one ``queries x metrics`` matrix per run, rows aligned on ``query_ids``
    (``means``: the runs' column means over those rows where the caller has them)."""
    given = means or {}
    columns = {name: given[name] if name in given else column_means(matrices[name]) if query_ids
               else [0.0] * len(metrics) for name in runs}
    mean = {name: dict(zip(metrics, columns[name], strict=True)) for name in runs}
    tests: list[PairedComparison] = []
    for run_a, run_b in itertools.combinations(runs, 2):
        tests.extend(
            _matrix_tests(matrices[run_a], matrices[run_b], metrics, run_a, run_b, options,
                          (columns[run_a], columns[run_b]))
        )
    # Order: metric first, then pair, so a table reads metric by metric.
    order = {m: i for i, m in enumerate(metrics)}
    tests.sort(key=lambda t: order[t.metric])
    groups = [tests] if family == "all" else [[t for t in tests if t.metric == m] for m in metrics]
    adjusted = {}
    for group in groups:
        for t, a in zip(group, adjust_p_values([t.p_value for t in group], correction), strict=True):
            adjusted[id(t)] = float(a)
    tests = [replace(t, adjusted_p_value=adjusted[id(t)]) for t in tests]
    size = len(tests) if family == "all" else len(tests) // max(len(metrics), 1)
    scope = "of each metric" if family == "metric" and len(metrics) > 1 else ""
    return Comparison(runs=runs, metrics=metrics, mean=mean, tests=tests, query_ids=query_ids,
                      correction=Correction(correction, size, scope=scope))


def compare_reports(
    reports: Mapping[str, Report],
    *,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = 0,
    exceedances: int | None = EXCEEDANCES,
    ci_tolerance: float | None = CI_TOLERANCE,
    correction: str = "holm",
    family: str = "all",
) -> Comparison:
    """Compare :class:`~rag_eval_adapters.Report` objects ``{run_name: report}``.

    Uses each report's ``per_query`` scores; queries recorded in a report's ``errors`` are left out.

    Parameters
    ----------
    reports : mapping
        ``{run_name: Report}``, at least two, computed with the same metrics. A LlamaIndex
        ``DatasetEvaluation`` is taken through its ``to_report()``.
    n_permutations, n_bootstrap, confidence, seed, exceedances, ci_tolerance
        As in :func:`paired_test`.
    correction : {"holm", "bh", "bonferroni", "none"}
        How the p-values of all the tests are adjusted together (see the module docstring).
    family : {"all", "metric"}
        The family of the correction: every test (default), or each metric's tests apart.

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        For a value that is not a report.
    ValueError
        For fewer than two runs or runs scored with different metrics.
    """
    names = list(reports)
    if len(names) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(names)}")
    typed = {name: as_report(reports[name], f"run {name!r}") for name in names}
    for name, report in typed.items():
        for key, cells in report.unmeasured.items():  # a paired test needs every query measured in every run
            raise ValueError(f"run {name!r}: {key} has {len(cells)} unmeasured queries ({next(iter(cells.values()))}, "
                             "...); compare runs whose every query has a score, e.g. after dropping those queries")
    metrics = typed[names[0]].keys  # every query measured: the keys of the means
    options = _check_options(n_permutations, n_bootstrap, confidence, seed, exceedances, ci_tolerance)
    correction = check_correction(correction)
    _check_family(family)
    for name in names:
        if typed[name].keys != metrics:
            raise ValueError(f"run {name!r} was scored with different metrics than {names[0]!r}")
    query_ids, rows = _common_rows([typed[name] for name in names])
    matrices = {name: typed[name].values[r] for name, r in zip(names, rows, strict=False)}
    # a run compared on all its queries has its report's means (exact sums: the row order does not matter)
    means = {name: list(typed[name].mean.values()) for name in names
             if query_ids and not typed[name].errors and len(query_ids) == len(typed[name].query_ids)}
    return _compare_matrices(names, metrics, query_ids, matrices, options, correction, family, means)


def _common_rows(reports: Sequence[Report]) -> tuple[list, list[np.ndarray]]:
    """The sorted queries scored in every report, and each report's rows of them (in that order)."""
    first = reports[0].query_ids
    if all(not r.errors and r.query_ids == first for r in reports):  # the usual case: the same queries
        order = sorted(range(len(first)), key=first.__getitem__)  # type: ignore[arg-type]
        rows = np.asarray(order, dtype=np.intp)
        return [first[i] for i in order], [rows] * len(reports)
    common: set | None = None
    for report in reports:
        scored = set(report.query_ids).difference(report.errors)
        common = scored if common is None else common & scored
    query_ids = sorted(common or ())
    out = []
    for report in reports:
        row_of = {q: i for i, q in enumerate(report.query_ids)}
        out.append(np.fromiter((row_of[q] for q in query_ids), dtype=np.intp, count=len(query_ids)))
    return query_ids, out
