"""The gate's statistics against scipy and statsmodels (test-only oracles), and a small simulation of its error
rates (the full 10,000-gate one is benchmarks/bench_gate_simulation.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rag_eval_adapters.gate import (
    detectable_drop,
    gate,
    gate_columns,
    one_sided_tests,
    paired_one_sided_tests,
    power_to_fail,
    questions_needed,
)
from rag_eval_adapters.stats.distributions import t_cdf, t_upper_quantile

stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("df", [1, 2, 7, 49, 999, 100_000])
def test_the_t_distribution_is_scipys(df):
    for t in (-40.0, -3.0, -1.2, 0.0, 0.3, 1.7, 5.0, 40.0):
        assert t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-9, abs=1e-11)
    for alpha in (1e-8, 0.001, 0.05, 0.2, 0.5, 0.8, 0.999):
        assert t_upper_quantile(alpha, df) == pytest.approx(stats.t.isf(alpha, df), rel=1e-9)


@pytest.mark.parametrize("margin", [0.0, 0.02, 0.1])
def test_both_one_sided_tests_are_scipys_ttest_at_the_margin(margin):
    rng = np.random.default_rng(3)
    d = rng.normal(-0.03, 0.15, size=60)
    tests = paired_one_sided_tests(d, margin, 0.05)
    greater = stats.ttest_1samp(d, -margin, alternative="greater")
    less = stats.ttest_1samp(d, -margin, alternative="less")
    assert tests.p_pass == pytest.approx(greater.pvalue, rel=1e-9)
    assert tests.p_fail == pytest.approx(less.pvalue, rel=1e-9)
    low = stats.t.ppf(0.05, 59, loc=d.mean(), scale=stats.sem(d))
    assert tests.lower == pytest.approx(low, rel=1e-9) and tests.upper == pytest.approx(2 * d.mean() - low, rel=1e-9)
    # the pass test rejects at 0.05 exactly when the lower bound is above -margin, the fail test when the upper is below
    assert (tests.p_pass < 0.05) == (tests.lower > -margin) and (tests.p_fail < 0.05) == (tests.upper < -margin)


def test_equal_differences_decide_without_doubt():
    assert paired_one_sided_tests(np.zeros(5), 0.02, 0.05).p_pass == 0.0
    worse = paired_one_sided_tests(np.full(5, -0.05), 0.02, 0.05)
    assert (worse.p_pass, worse.p_fail) == (1.0, 0.0)
    at = one_sided_tests(-0.02, 0.0, 4, 0.02, 0.05)
    assert (at.p_pass, at.p_fail) == (1.0, 1.0)
    with pytest.raises(ValueError, match="at least 2 questions"):
        paired_one_sided_tests(np.array([0.1]), 0.02, 0.05)


def test_holm_is_statsmodels_for_each_kind_of_test():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    rng = np.random.default_rng(5)
    base = {f"q{i}": {f"m{j}": float(rng.random()) for j in range(6)} for i in range(40)}
    cand = {q: {m: v + float(rng.normal(-0.02 * int(m[1:]), 0.1)) for m, v in row.items()} for q, row in base.items()}
    decision = gate(cand, base, {f"m{j}": 0.03 for j in range(6)})
    for kind in ("pass", "fail"):
        raw = [getattr(m, f"p_{kind}") for m in decision.metrics]
        expected = multipletests(raw, method="holm")[1]
        assert [getattr(m, f"p_{kind}_adjusted") for m in decision.metrics] == pytest.approx(expected, rel=1e-12)
    outcomes = {m.metric: m.outcome for m in decision.metrics}
    assert outcomes["m0"] == "pass" and outcomes["m5"] == "fail"


@pytest.mark.parametrize("n", [2, 5, 50, 1000])
@pytest.mark.parametrize("drop", [0.0, 0.03, 0.1])
def test_power_is_statsmodels_noncentral_t(n, drop):
    power = pytest.importorskip("statsmodels.stats.power").TTestPower()
    expected = power.power(effect_size=(0.02 - drop) / 0.15, nobs=n, alpha=0.05, alternative="smaller")
    assert power_to_fail(0.15, n, drop, 0.02, 0.05) == pytest.approx(expected, abs=1e-5)


def test_questions_needed_and_detectable_drop_invert_the_power():
    power = pytest.importorskip("statsmodels.stats.power").TTestPower()
    n = questions_needed(0.15, 0.05, 0.02, 0.05)
    exact = power.solve_power(effect_size=-0.03 / 0.15, alpha=0.05, power=0.8, alternative="smaller")
    assert n == math.ceil(exact)
    assert power_to_fail(0.15, n, 0.05, 0.02, 0.05) >= 0.8 > power_to_fail(0.15, n - 1, 0.05, 0.02, 0.05)
    drop = detectable_drop(0.15, 72, 0.02, 0.05)
    assert power_to_fail(0.15, 72, drop, 0.02, 0.05) == pytest.approx(0.8, abs=1e-4)
    assert questions_needed(0.15, 0.02, 0.02, 0.05) is None  # a drop within the margin must never fail


def _demo_like_differences(rng, n=72):
    """Paired differences shaped like nDCG@10's: most questions unchanged, the others spread and skewed."""
    d = np.where(rng.random(n) < 0.6, 0.0, rng.uniform(-0.6, 0.4, size=n))
    return d - d.mean()


def _simulate(population, n, true_difference, margins, gates, rng):
    """Fail count of ``gates`` simulated gates: each metric's differences drawn from ``population`` with the mean
    ``true_difference``, the baseline fixed at 0.5 (only the differences matter)."""
    fails = 0
    for _ in range(gates):
        base, cand = {}, {}
        for metric in margins:
            d = rng.choice(population, size=n) + true_difference
            base[metric] = {i: 0.5 for i in range(n)}
            cand[metric] = {i: 0.5 + x for i, x in enumerate(d.tolist())}
        decision = gate_columns(base, cand, margins)
        fails += decision.outcome == "fail"
    return fails


@pytest.mark.parametrize("metrics", [1, 10])
def test_a_true_difference_at_minus_the_margin_fails_at_most_alpha(metrics):
    """The hardest case that must not fail: at 5% (within 3 binomial standard errors) for one metric and, with
    Holm, for ten at once (ten uncorrected tests would fail 40% of the gates)."""
    rng = np.random.default_rng(11)
    population = _demo_like_differences(rng)
    gates = 400
    fails = _simulate(population, 60, -0.02, {f"m{j}": 0.02 for j in range(metrics)}, gates, rng)
    assert fails / gates <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / gates)
    assert fails >= 5  # near alpha, not near zero: the gate is not simply timid


def test_the_simulated_power_matches_the_analytical_power():
    rng = np.random.default_rng(12)
    population = _demo_like_differences(rng)
    sd = float(np.std(population, ddof=0))
    n, drop, gates = 100, 0.06, 400
    fails = _simulate(population, n, -drop, {"ndcg@10": 0.02}, gates, rng)
    expected = power_to_fail(sd, n, drop, 0.02, 0.05)
    assert 0.2 < expected < 0.9
    assert abs(fails / gates - expected) <= 4 * math.sqrt(expected * (1 - expected) / gates)


def test_a_labelled_metric_is_tested_on_its_ppi_difference():
    from rag_eval_adapters.ppi import ppi_paired_by_id

    rng = np.random.default_rng(8)
    judge_b = {f"q{i}": float(v) for i, v in enumerate(rng.random(80))}
    judge_c = {q: min(1.0, v + float(rng.normal(-0.01, 0.05))) for q, v in judge_b.items()}
    human = {side: {f"q{i}": {"faithfulness": float(judge[f"q{i}"] + rng.normal(0, 0.2) > 0.5)} for i in range(25)}
             for side, judge in (("baseline", judge_b), ("candidate", judge_c))}
    decision = gate({q: {"faithfulness": v} for q, v in judge_c.items()},
                    {q: {"faithfulness": v} for q, v in judge_b.items()}, {"faithfulness": 0.05}, human=human)
    verdict = decision.metric("faithfulness")
    ppi = ppi_paired_by_id(judge_b, judge_c, {q: r["faithfulness"] for q, r in human["baseline"].items()},
                           {q: r["faithfulness"] for q, r in human["candidate"].items()})
    expected = one_sided_tests(ppi.estimate, ppi.std_error, 24, 0.05, 0.05)
    assert (verdict.method, verdict.n_labelled) == ("ppi++", 25)
    assert verdict.difference == ppi.estimate and verdict.std_error == ppi.std_error
    assert (verdict.p_pass, verdict.p_fail) == (expected.p_pass, expected.p_fail)
    assert verdict.p_fail == pytest.approx(stats.t.cdf((ppi.estimate + 0.05) / ppi.std_error, 24), rel=1e-9)
    with pytest.raises(ValueError, match="PPI needs at least 2 questions labelled for both"):
        gate({q: {"faithfulness": v} for q, v in judge_c.items()},
             {q: {"faithfulness": v} for q, v in judge_b.items()}, {"faithfulness": 0.05},
             human={"baseline": {"q1": {"faithfulness": 1.0}}, "candidate": {"q1": {"faithfulness": 1.0}}})
