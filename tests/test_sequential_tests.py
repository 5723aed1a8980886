"""Paired tests that stop when the answer is known (issue 25, item 3).

The randomization p-value is Besag and Clifford's sequential one (stop at the ``h``-th sign vector that reaches
the observed difference, ``p = h / L``); the bootstrap stops once both bounds are within ``ci_tolerance`` of
their many-resample values. Both through the public API of :mod:`rag_eval_adapters.compare`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from cli_support import differences_per_query

from rag_eval_adapters.compare import compare_per_query, paired_test


def test_the_sequential_p_value_is_h_over_the_draw_that_brought_the_hth_reaching_vector():
    rng = np.random.default_rng(21)
    d = rng.normal(0.01, 0.3, 300)
    zeros = np.zeros(300)
    h = 40
    sequential = paired_test(zeros, d, n_permutations=100_000, exceedances=h, seed=3).randomization_p_value
    draws = round(h / sequential)
    assert sequential == h / draws and draws < 1_000  # stopped long before the cap: p is about 0.7
    # the same sign vectors counted to a fixed number: the h-th reaching one is vector number `draws`
    assert paired_test(zeros, d, n_permutations=draws, exceedances=None, seed=3).randomization_p_value == (
        (1 + h) / (1 + draws))
    assert paired_test(zeros, d, n_permutations=draws - 1, exceedances=None, seed=3).randomization_p_value == (
        h / draws)
    # a cap it never reaches changes nothing
    assert paired_test(zeros, d, n_permutations=1_000_000, exceedances=h, seed=3).randomization_p_value == sequential


def test_a_metric_with_fewer_than_h_reaching_vectors_gets_the_fixed_count_p_value():
    a = np.linspace(0, 0.5, 12)
    # only the all-plus and all-minus of the 4096 sign vectors reach a constant shift: G stays far below h
    sequential = paired_test(a, a + 0.25, n_permutations=3000, seed=1)
    fixed = paired_test(a, a + 0.25, n_permutations=3000, seed=1, exceedances=None)
    assert sequential.randomization_p_value == fixed.randomization_p_value
    assert sequential.randomization_p_value == pytest.approx(2 / 4096, abs=0.0008)


def test_sequential_p_values_are_valid_under_the_null():
    # 4,000 metrics of 20 queries each, differences symmetric about 0: P(p <= u) <= u for every u
    rng = np.random.default_rng(7)
    columns = {f"m{j}": rng.normal(0, 1, 20) for j in range(4000)}
    comparison = compare_per_query(differences_per_query(columns), list(columns), n_permutations=400, n_bootstrap=10,
                                   exceedances=5, seed=8)
    p = np.array([comparison.test(m, "A", "B").randomization_p_value for m in columns])
    assert 0 < p.min() and p.max() <= 1
    for u in (0.01, 0.05, 0.1, 0.2, 0.5):
        slack = 3 * math.sqrt(u * (1 - u) / p.size)
        assert np.mean(p <= u) <= u + slack, u
        assert np.mean(p <= u) >= u - slack - 0.01, u  # not needlessly conservative either
    assert np.mean(p >= 5 / 400) > 0.9  # most stopped early: h / L with L < 400


def test_a_metric_stops_where_it_would_alone():
    # a null metric stops within a few hundred sign vectors, a clear one runs to the cap: neither moves the other
    rng = np.random.default_rng(12)
    columns = {"null": rng.normal(0, 0.2, 400), "clear": rng.normal(0.1, 0.2, 400),
               "sparse": (rng.random(400) < 0.05) * 0.5}
    together = compare_per_query(differences_per_query(columns), list(columns), seed=9)
    for metric, d in columns.items():
        alone = paired_test(np.zeros(400), d, metric=metric, seed=9)
        both = together.test(metric, "A", "B")
        assert (both.randomization_p_value, both.ci_low, both.ci_high) == (
            alone.randomization_p_value, alone.ci_low, alone.ci_high), metric
    assert together.test("null", "A", "B").randomization_p_value > 200 / 1000  # h / L: under 1,000 vectors
    null, clear = together.test("null", "A", "B"), together.test("clear", "A", "B")
    assert null.p_value_rule == "exceedances" and null.n_permutations == round(200 / null.randomization_p_value)
    # the clear one is settled by Hoeffding's bound without a draw: p <= 2 exp(-sum(d) ** 2 / (2 sum(d ** 2)))
    d = columns["clear"]
    assert clear.p_value_rule == "bound" and clear.n_permutations == 0
    assert clear.randomization_p_value == pytest.approx(2 * math.exp(-d.sum() ** 2 / (2 * (d**2).sum())), rel=1e-6)
    assert clear.randomization_p_value < 0.01 / 10_000


def test_the_bootstrap_stops_within_its_tolerance_of_many_resamples():
    rng = np.random.default_rng(5)
    a = rng.random(1000)
    b = a + rng.normal(0.02, 0.3, 1000)
    reference = paired_test(a, b, n_bootstrap=100_000, ci_tolerance=None, n_permutations=10)
    for seed in range(5):
        result = paired_test(a, b, ci_tolerance=0.001, n_permutations=10, seed=seed)
        # within the tolerance of the 100,000-resample bounds (whose own error is about 0.0003)
        assert abs(result.ci_low - reference.ci_low) < 0.0015, seed
        assert abs(result.ci_high - reference.ci_high) < 0.0015, seed
    # it stopped at a checkpoint well below the cap: a cap of 10,000 or 1,000,000 gives the same bounds
    small = paired_test(a, b, n_bootstrap=10_000, n_permutations=10, seed=1)
    large = paired_test(a, b, n_bootstrap=1_000_000, n_permutations=10, seed=1)
    assert (small.ci_low, small.ci_high) == (large.ci_low, large.ci_high)
    tight = paired_test(a, b, n_bootstrap=10_000, n_permutations=10, seed=1, ci_tolerance=1e-6)
    assert (tight.ci_low, tight.ci_high) != (small.ci_low, small.ci_high)  # a finer tolerance draws further


def test_the_bootstrap_of_a_discrete_mean_still_finds_its_exact_quantiles():
    # n = 4, metric 1 on one query: the resample mean is Binomial(4, 1/4) / 4; its 2.5% and 97.5% quantiles
    # are 0 and 3/4, with the CDF >= 0.01 away from both levels. The sequential bootstrap stops early on them.
    cdf = np.cumsum([math.comb(4, k) * 0.25**k * 0.75 ** (4 - k) for k in range(5)])
    assert min(abs(cdf - 0.025)) > 0.01 and min(abs(cdf - 0.975)) > 0.01
    for seed in range(10):
        result = paired_test(np.zeros(4), [1.0, 0.0, 0.0, 0.0], n_bootstrap=100_000, seed=seed)
        assert (result.ci_low, result.ci_high) == (0.0, 0.75), seed


def test_exact_enumeration_against_the_sequential_rule_on_small_runs():
    # 12 queries: every one of the 4,096 sign vectors enumerated; p = h / L is within a few relative standard
    # errors sqrt((1 - p) / h) of the exact p-value, and the fixed rule's count is within its binomial error
    rng = np.random.default_rng(30)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=12)))
    for trial in range(5):
        d = np.round(rng.normal(0.05, 0.2, 12), 2)
        exact = np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-9)
        got = paired_test(np.zeros(12), d, n_permutations=50_000, seed=trial).randomization_p_value
        assert got == pytest.approx(exact, abs=4 * exact * math.sqrt((1 - exact) / 200) + 2 / 50_001), trial


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"exceedances": 0}, ValueError, "exceedances must be a positive integer, got 0"),
        ({"exceedances": 2.5}, TypeError, "exceedances must be a positive integer"),
        ({"ci_tolerance": 0}, ValueError, "ci_tolerance must be a positive finite number"),
        ({"ci_tolerance": float("nan")}, ValueError, "ci_tolerance must be a positive finite number"),
        ({"ci_tolerance": "0.01"}, TypeError, "ci_tolerance"),
    ],
)
def test_the_stopping_options_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        paired_test([0.1, 0.2], [0.2, 0.4], **kwargs)
    with pytest.raises(error, match=message):
        compare_per_query(differences_per_query({"m": [0.1, 0.2]}), ["m"], **kwargs)


# ---------------------------------------------------------------- clearly significant metrics: Hoeffding's bound


def _exact_p(d: np.ndarray) -> float:
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=d.size)))
    return float(np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-9))


def test_hoeffdings_bound_is_never_below_the_exact_p_value():
    # 14 queries: all 16,384 sign vectors enumerated. One permutation allowed, so the bound settles every metric
    # it puts at or below 0.01 / 1; each such p-value is at least the exact one (it bounds it), and no draw is made
    rng = np.random.default_rng(41)
    settled = 0
    for trial in range(150):
        kind = trial % 3
        if kind == 0:
            d = rng.normal(0.6, 0.3, 14)
        elif kind == 1:  # sparse: a few large gains among zeros, where the bound is loosest
            d = np.where(rng.random(14) < 0.8, rng.uniform(0.5, 1.0, 14), 0.0)
        else:  # decimal steps, exact ties
            d = np.round(rng.uniform(0.1, 0.5, 14), 1) * rng.choice([1.0, 1.0, 1.0, -1.0], 14)
        result = paired_test(np.zeros(14), d, n_permutations=1, n_bootstrap=10, seed=trial)
        if result.p_value_rule == "bound":
            settled += 1
            exact = _exact_p(d)
            assert exact <= result.randomization_p_value <= 0.01, (trial, exact, result.randomization_p_value)
            assert result.randomization_p_value == pytest.approx(
                2 * math.exp(-d.sum() ** 2 / (2 * (d**2).sum())), rel=1e-6)
            assert result.n_permutations == 0 and result.max_permutations == 1
        else:
            assert result.n_permutations == 1 and result.p_value_rule in ("cap", "exceedances")
    assert settled >= 40  # the bound did settle many of them


def test_the_bound_keeps_the_type_one_error_under_the_null():
    # 12,000 metrics of 11 queries under the null: differences of +-1 (half of them) or of random sizes, each
    # sign a fair coin. One permutation: the count alone gives p = 1/2 or 1, so every p-value below 1/2 is the
    # bound's (for +-1, when all 11 signs agree: p = 2 exp(-5.5) = 0.0082, exact 2 / 2048). P(p <= u) <= u.
    rng = np.random.default_rng(17)
    signs = rng.choice([-1.0, 1.0], size=(12_000, 11))
    sizes = np.where(np.arange(12_000)[:, None] % 2 == 0, 1.0, rng.uniform(0.2, 1.0, (12_000, 11)))
    columns = {f"m{j}": signs[j] * sizes[j] for j in range(12_000)}
    comparison = compare_per_query(differences_per_query(columns), list(columns), n_permutations=1, n_bootstrap=1,
                                   seed=3, correction="none")
    p = np.array([t.randomization_p_value for t in comparison.tests])
    rules = [t.p_value_rule for t in comparison.tests]
    for u in sorted({0.001, 0.003, 0.01, 0.03, *p[p < 0.5].tolist()}):
        assert np.mean(p <= u) <= u + 3 * math.sqrt(u * (1 - u) / p.size), u
    assert rules.count("bound") == np.sum(p < 0.5) >= 5  # some metrics did reach the bound by chance


def test_metrics_report_the_draws_they_made_and_the_caps_they_were_given():
    rng = np.random.default_rng(23)
    columns = {"null": rng.normal(0, 0.2, 500), "clear": rng.normal(0.2, 0.2, 500),
               "middle": rng.normal(0.027, 0.2, 500), "zero": np.zeros(500)}
    comparison = compare_per_query(differences_per_query(columns), list(columns), seed=4)
    null, clear, middle, zero = (comparison.test(m, "A", "B") for m in columns)
    for t in (null, clear, middle, zero):
        assert (t.max_permutations, t.max_bootstrap) == (10_000, 10_000)
        assert t.n_bootstrap in (250, 500, 1000, 2000, 4000, 8000, 10_000) and t.n_bootstrap < 10_000
    assert null.p_value_rule == "exceedances" and null.randomization_p_value == 200 / null.n_permutations
    assert null.n_permutations < 1_000  # a clearly null metric: a few hundred sign vectors
    assert (clear.p_value_rule, clear.n_permutations) == ("bound", 0)
    assert (zero.p_value_rule, zero.n_permutations, zero.randomization_p_value) == ("bound", 0, 1.0)
    # p about 0.003: too small for 200 reaching vectors in 10,000, too large for the bound: the fixed count
    assert middle.p_value_rule == "cap" and middle.n_permutations == 10_000
    assert middle.randomization_p_value == pytest.approx(paired_test(
        np.zeros(500), columns["middle"], exceedances=None, seed=4).randomization_p_value)
    row = comparison.to_dict()["tests"][0]
    assert (row["n_permutations"], row["max_permutations"], row["p_value_rule"]) == (
        null.n_permutations, 10_000, "exceedances")
    every = paired_test(np.zeros(500), columns["clear"], seed=4, exceedances=None, ci_tolerance=None)
    assert (every.n_permutations, every.n_bootstrap, every.p_value_rule) == (10_000, 10_000, "cap")
    assert every.randomization_p_value == 1 / 10_001  # no sign vector of 10,000 reaches it: the count's floor


# ---------------------------------------------------------------- rag-eval compare --exceedances, --ci-tolerance


@pytest.fixture()
def four_runs(tmp_path):
    from cli_support import paired_collection, write_trec_qrels, write_trec_run

    qrels, good, bad = paired_collection()
    rng = np.random.default_rng(2)
    # two runs that take the good or the bad list of each query at random: they differ by chance only
    x, y = ({q: (good if rng.random() < 0.5 else bad)[q] for q in good} for _ in range(2))
    return (write_trec_qrels(tmp_path / "q.qrels", qrels), write_trec_run(tmp_path / "good.run", good),
            write_trec_run(tmp_path / "bad.run", bad), write_trec_run(tmp_path / "x.run", x),
            write_trec_run(tmp_path / "y.run", y))


def test_cli_sequential_options_reach_the_tests(four_runs):
    import json

    from cli_support import run_cli

    qrels, good, bad, x, y = four_runs
    base = ["compare", "--qrels", qrels, "--run", good, "--run", bad, "--run", x, "--run", y, "-m", "mrr",
            "--format", "json"]

    def tests(*options):
        code, out, err = run_cli(*base, *options)
        assert code == 0, err
        return {(t["run_a"], t["run_b"]): t for t in json.loads(out)["tests"]}

    default, fewer, every = tests(), tests("--exceedances", "20", "--ci-tolerance", "0.05"), tests("--every-draw")
    pair = ("good.run", "bad.run")  # a large difference: settled by the bound
    assert (default[pair]["p_value_rule"], default[pair]["n_permutations"]) == ("bound", 0)
    assert (every[pair]["p_value_rule"], every[pair]["n_permutations"]) == ("cap", 10_000)
    assert every[pair]["n_bootstrap"] == every[pair]["max_bootstrap"] == 10_000
    # the runs that differ by chance: a few hundred sign vectors at h = 200, far fewer at h = 20
    null = ("x.run", "y.run")
    for t, h in ((default[null], 200), (fewer[null], 20)):
        assert t["p_value_rule"] == "exceedances" and t["p_value"] == h / t["n_permutations"]
    assert fewer[null]["n_permutations"] < default[null]["n_permutations"]
    assert fewer[pair]["n_bootstrap"] <= default[pair]["n_bootstrap"]


@pytest.mark.parametrize("option, value, message", [
    ("--exceedances", "0", "--exceedances must be a positive integer, got 0"),
    ("--exceedances", "-5", "--exceedances must be a positive integer, got -5"),
    ("--ci-tolerance", "0", "--ci-tolerance must be a positive finite number, got 0.0"),
    ("--ci-tolerance", "nan", "--ci-tolerance must be a positive finite number, got nan"),
])
def test_cli_sequential_options_are_refused_before_any_work(tmp_path, option, value, message):
    from cli_support import run_cli

    missing = tmp_path / "absent.qrels"  # reading it would be the first work: the option must fail first
    code, out, err = run_cli("compare", "--qrels", missing, "--run", "a", "--run", "b", option, value)
    assert code == 2 and out == "" and err == f"rag-eval: error: {message}\n"
