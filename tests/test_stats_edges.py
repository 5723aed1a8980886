"""Edges of the interval statistics (issue 30): values near the float range, too few resamples, a corrected
interval outside [0, 1], an unmeasured cell in a corrected comparison."""

import math

import numpy as np
import pytest

from rag_eval_adapters import Report
from rag_eval_adapters.stats.intervals import mean_interval
from rag_eval_adapters.stats.ppi import corrected_comparison, corrected_means, ppi_mean

VALUES = [0.2, 0.4, 0.6, 0.8, 1.0, 0.3]
HUMAN, JUDGE, UNLABELLED = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [0.9, 0.2, 0.8, 0.7, 0.4, 0.9], [0.8, 0.3, 0.9, 0.6] * 5


@pytest.mark.parametrize("size", [1e154, 1e200, 2.0**1000, 1e307])
@pytest.mark.parametrize("method", ["t", "normal", "bootstrap"])
def test_a_mean_interval_of_huge_finite_values_is_the_scaled_interval(size, method):
    unit = mean_interval(VALUES, method=method)
    huge = mean_interval([v * size for v in VALUES], method=method)
    for field in ("estimate", "low", "high"):
        assert math.isfinite(getattr(huge, field))
        assert getattr(huge, field) == pytest.approx(getattr(unit, field) * size, rel=1e-12)


@pytest.mark.parametrize("size", [1e154, 1e200, 1e307])
def test_a_ppi_mean_of_huge_finite_values_is_the_scaled_one(size):
    unit = ppi_mean(HUMAN, JUDGE, UNLABELLED)
    huge = ppi_mean(*([v * size for v in vs] for vs in (HUMAN, JUDGE, UNLABELLED)))
    assert huge.lam == pytest.approx(unit.lam, rel=1e-12)
    for field in ("estimate", "low", "high", "std_error", "classical_low", "classical_high", "judge_mean"):
        assert math.isfinite(getattr(huge, field))
        assert getattr(huge, field) == pytest.approx(getattr(unit, field) * size, rel=1e-12), field


def test_the_ppi_estimate_equals_the_authors_ppi_py():
    ppi_py = pytest.importorskip("ppi_py")
    y, f, g = (np.array(v) for v in (HUMAN, JUDGE, UNLABELLED))
    for lam in (0.0, 0.4, 1.0):
        ours = ppi_mean(y, f, g, lam=lam, quantile="normal")
        assert ours.estimate == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, f, g, lam=lam)[0]), abs=1e-12)
        # ppi_py's variances divide by n (ddof=0), ours by n - 1 (the module docstring): with lam = 0 the interval is
        # the human-only one, and the two half-widths differ by exactly sqrt(n / (n - 1))
    low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=0.05, lam=0.0)
    ours = ppi_mean(y, f, g, lam=0.0, quantile="normal")
    assert (ours.high - ours.low) == pytest.approx(float(high[0] - low[0]) * math.sqrt(6 / 5), rel=1e-12)


def test_values_whose_interval_leaves_the_float_range_are_refused_clearly():
    with pytest.raises(ValueError, match="beyond the largest float"):
        mean_interval([1.7e308, -1.7e308, 1.0e308])


@pytest.mark.parametrize("resamples", [1, 2, 38])
def test_a_bootstrap_with_too_few_resamples_to_make_an_interval_is_refused(resamples):
    # with one resample both bounds were that resample's mean: [0.62, 0.62] around an estimate of 0.583
    with pytest.raises(ValueError, match=f"n_bootstrap is {resamples}: a 95% percentile interval needs at least 39"):
        mean_interval(VALUES, method="bootstrap", n_bootstrap=resamples)
    interval = mean_interval(VALUES, method="bootstrap", n_bootstrap=39)
    assert interval.low <= interval.estimate <= interval.high


def _report(values, metric="mrr"):
    return Report.from_per_query({f"q{i}": {metric: v} for i, v in enumerate(values)})


def test_a_corrected_interval_outside_zero_one_is_clamped_never_inverted_and_says_why():
    # the judge scores 1.0 on every unlabelled query but ~0.05 on the labelled ones, where people say ~0.95:
    # the measured bias (+0.9) pushes the corrected mean and its whole raw interval above 1
    labelled = [0.0, 0.1, 0.0, 0.1, 0.05, 0.05]
    report = _report(labelled + [1.0] * 30)
    human = {f"q{i}": {"mrr": 0.9 + v} for i, v in enumerate(labelled)}
    interval = corrected_means(report, human)["mrr"]
    assert interval.low <= interval.estimate <= interval.high
    assert (interval.low, interval.estimate, interval.high) == (1.0, 1.0, 1.0)
    assert "lies outside [0, 1]" in interval.note and "look unlike the rest" in interval.describe()
    assert interval.to_dict()["note"] == interval.note
    inside = corrected_means(_report([0.2, 0.4, 0.6, 0.8] * 5), {"q0": {"mrr": 0.3}, "q1": {"mrr": 0.5}})["mrr"]
    assert inside.note == "" and "note" not in inside.to_dict()


def test_a_corrected_comparison_drops_an_unmeasured_judge_cell_as_corrected_means_does_and_counts_it():
    rng = np.random.default_rng(4)
    a_values, b_values = rng.random(30), rng.random(30)
    b_with_hole = b_values.copy()
    b_with_hole[20] = np.nan  # the judge could not score q20 for run b
    a, b = _report(a_values), _report(b_with_hole)
    b = Report(b.metrics, b.query_ids, b.values, {}, {}, unmeasured={"mrr": {"q20": "refusal"}})
    human = {run: {f"q{i}": {"mrr": float(v > 0.5)} for i, v in enumerate(values[:8])}
             for run, values in (("a", a_values), ("b", b_values))}
    result = corrected_comparison({"a": a, "b": b}, human)
    (metric, run_a, run_b, difference), = result.differences
    assert result.unmeasured == {("mrr", "a", "b"): 1}
    kept = [i for i in range(30) if i != 20]
    expected = corrected_comparison({"a": _report(a_values[kept]), "b": _report(b_values[kept])}, human)
    other = expected.differences[0][3]
    for field in ("estimate", "low", "high", "judge_mean", "lam", "n", "n_unlabelled"):
        assert getattr(difference, field) == pytest.approx(getattr(other, field), abs=1e-12), field
    assert "1 unmeasured query left out" in result.lines()[-1]
    assert result.to_dict()["differences"][0]["unmeasured"] == 1
    assert result.means["b"]["mrr"] == corrected_means(b, human["b"])["mrr"]
