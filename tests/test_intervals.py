"""A mean with its named interval: t, normal and bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from rag_eval_adapters.intervals import MeanInterval, mean_interval, normal_quantile, t_quantile

stats = pytest.importorskip("scipy.stats")


def test_t_interval_equals_scipy():
    x = np.random.default_rng(1).normal(size=23)
    r = mean_interval(x, method="t", confidence=0.9)
    low, high = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert (r.low, r.high) == pytest.approx((low, high), abs=1e-10)
    assert r.method == "t" and r.n == 23 and r.to_dict()["interval"] == "t 90%"
    for df in (1, 2, 7, 49, 1000):
        assert t_quantile(0.95, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-9)
    assert normal_quantile(0.95) == pytest.approx(stats.norm.ppf(0.975), rel=1e-12)


def test_normal_and_bootstrap_intervals():
    x = np.random.default_rng(2).uniform(size=400)
    normal = mean_interval(x, method="normal")
    boot = mean_interval(x, method="bootstrap", n_bootstrap=4000, seed=3)
    assert normal.high - normal.estimate == pytest.approx(1.959964 * x.std(ddof=1) / 20, rel=1e-6)
    assert boot.std_error is None and boot.method == "bootstrap"
    assert boot.low == pytest.approx(normal.low, abs=0.004) and boot.high == pytest.approx(normal.high, abs=0.004)
    assert mean_interval(x, method="bootstrap", seed=3) == mean_interval(x, method="bootstrap", seed=3)


def test_constant_values_and_one_value_give_a_zero_width_interval():
    for values in ([0.5], [0.25] * 10):
        for method in ("t", "normal", "bootstrap"):
            r = mean_interval(values, method=method)
            assert r.low == r.high == r.estimate and r.width == 0.0


def test_repr_and_errors():
    assert repr(MeanInterval(0.5, 0.4, 0.6, 0.95, "t", 10)) == "MeanInterval(0.5 [0.4, 0.6], t 95%, n=10)"
    with pytest.raises(ValueError, match="unknown interval 'wald'"):
        mean_interval([1.0, 2.0], method="wald")
    with pytest.raises(ValueError, match=r"values\[1\] is inf"):
        mean_interval([1.0, float("inf")])
    with pytest.raises(ValueError, match="values has 0 values"):
        mean_interval([])
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile(0.95, 0)


def test_a_judges_unmeasured_cells_are_left_out_as_the_report_mean_leaves_them():
    from rag_eval_adapters import Report
    from rag_eval_adapters.intervals import report_intervals
    from rag_eval_adapters.ppi import corrected_means, ppi_mean

    base = Report.from_per_query({f"q{i}": {"faith": i / 10} for i in range(10)})
    values = base.values.copy()
    values[3, 0] = np.nan
    report = Report(base.metrics, base.query_ids, values, {}, {}, unmeasured={"faith": {"q3": "no claims"}})
    measured = [i / 10 for i in range(10) if i != 3]
    interval = report_intervals(report)["faith"]
    assert interval == mean_interval(measured) and interval.estimate == pytest.approx(report.mean["faith"])
    # a human label on the unmeasured query has no judge score to pair with: it is not used
    corrected = corrected_means(report, {"q1": {"faith": 0.0}, "q2": {"faith": 1.0}, "q3": {"faith": 1.0}})["faith"]
    assert corrected == ppi_mean([0.0, 1.0], [0.1, 0.2], [v for v in measured if v not in (0.1, 0.2)])


def test_an_interval_is_cut_to_the_range_the_mean_cannot_leave():
    near_one = [1.0, 1.0, 1.0, 1.0, 0.0]
    free = mean_interval(near_one, method="t")
    assert free.high > 1.0  # the symmetric t interval reaches past 1
    cut = mean_interval(near_one, method="t", bounds=(0.0, 1.0))
    assert (cut.low, cut.high, cut.estimate, cut.std_error) == (free.low, 1.0, free.estimate, free.std_error)
    low = mean_interval([0.0, 0.0, 0.0, 0.0, 1.0], method="normal", bounds=(0.0, 1.0))
    assert low.low == 0.0 and 0.0 < low.high < 1.0
    with pytest.raises(ValueError, match=r"bounds must be \(lowest, highest\) around every value"):
        mean_interval([0.5, 2.0], bounds=(0.0, 1.0))
    with pytest.raises(ValueError, match="bounds must be"):
        mean_interval([0.5], bounds=(0.0, 0.5, 1.0))


def test_report_intervals_of_metrics_in_0_1_stay_in_0_1_and_dcg_is_not_cut():
    from rag_eval_adapters import evaluate
    from rag_eval_adapters.intervals import report_intervals

    qrels = {f"q{i}": {"d1": 1} for i in range(6)}
    run = {f"q{i}": {"d1": 2.0, "d2": 1.0} if i else {"d2": 2.0, "d1": 1.0} for i in range(6)}
    report = evaluate(qrels, run, ["hit_rate@1", "dcg@2"])
    out = report_intervals(report, method="t")
    assert out["hit_rate@1"].high == 1.0 and out["hit_rate@1"].low > 0.0
    dcg = report.column("dcg@2")
    assert out["dcg@2"] == mean_interval(dcg, method="t")  # DCG is not bounded by 1: its interval is not cut
    assert out["dcg@2"].high > 1.0


def test_a_corrected_mean_of_a_metric_in_0_1_is_cut_to_0_1_and_a_judges_is_left_as_computed():
    from rag_eval_adapters import Report, evaluate
    from rag_eval_adapters.ppi import corrected_means, ppi_mean

    qrels = {f"q{i}": {"d1": 1} for i in range(12)}
    run = {f"q{i}": {"d1": 2.0, "d2": 1.0} if i % 6 else {"d2": 2.0, "d1": 1.0} for i in range(12)}
    report = evaluate(qrels, run, ["hit_rate@1"])
    human = {f"q{i}": {"hit_rate@1": label} for i, label in enumerate([1.0, 1.0, 1.0, 0.0])}
    judge = report.column("hit_rate@1")
    plain = ppi_mean([1.0, 1.0, 1.0, 0.0], judge[:4], judge[4:])
    assert plain.low < 0.0 and plain.high > 1.0  # PPI++ alone reaches past both ends here
    cut = corrected_means(report, human)["hit_rate@1"]
    assert cut.high == min(1.0, plain.high) and cut.low == max(0.0, plain.low) and cut.high <= 1.0
    assert cut.estimate == min(1.0, max(0.0, plain.estimate)) and cut.n == plain.n and cut.lam == plain.lam
    # a judge's score named by the user is not a registry metric: its interval is left as PPI++ gives it
    named = Report(["faith"], report.query_ids, judge.reshape(-1, 1))
    assert corrected_means(named, {q: {"faith": v["hit_rate@1"]} for q, v in human.items()})["faith"] == plain
