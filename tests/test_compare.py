"""Paired significance tests (rag_eval_adapters.compare) and `rag-eval compare`."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math

import numpy as np
import pytest
from cli_support import differences_per_query, paired_collection, run_cli, write_jsonl, write_trec_qrels, write_trec_run
from scipy import stats

from rag_eval_adapters import evaluate
from rag_eval_adapters.compare import compare_per_query, compare_reports, paired_test

# ---------------------------------------------------------------- the statistics


def test_t_test_matches_scipy():
    rng = np.random.default_rng(3)
    a = rng.random(30)
    b = np.clip(a + rng.normal(0.05, 0.1, 30), 0, 1)
    result = paired_test(a, b)
    expected = stats.ttest_rel(b, a)
    assert result.t_statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.t_test_p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert result.difference == pytest.approx(float(np.mean(b - a)))
    assert result.mean_a == pytest.approx(a.mean()) and result.mean_b == pytest.approx(b.mean())


def test_randomization_matches_exact_enumeration():
    a = np.array([0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.6, 0.0, 0.7, 0.5])
    b = np.array([0.3, 0.7, 0.1, 0.8, 0.6, 0.5, 0.6, 0.2, 0.9, 0.4])
    d = b - a
    observed = abs(d.mean())
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    exact = np.mean(np.abs(flips @ d / len(d)) >= observed - 1e-12)
    result = paired_test(a, b, n_permutations=40_000, seed=11)
    assert result.randomization_p_value == pytest.approx(exact, abs=0.01)
    assert result.p_value == result.randomization_p_value


def test_randomization_counts_exact_ties_of_decimal_differences():
    # differences that are multiples of 0.1 reach |mean| exactly in many sign vectors, where rounding decides
    d = np.array([0.1, -0.3, 0.2, 0.1, -0.4, 0.1, 0.3, -0.2, 0.1, 0.1, 0.2, -0.3, 0.1, 0.7])
    a = np.full(len(d), 0.2)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    sums = np.abs(flips @ d)
    exact = np.mean(sums >= abs(d.sum()) - 1e-9)
    assert np.mean(np.abs(sums - abs(d.sum())) < 1e-9) > 0.01  # ties do occur
    # the count itself is under test: all 200,000 sign vectors (the sequential rule is tested below)
    result = paired_test(a, a + d, n_permutations=200_000, seed=2, exceedances=None)
    assert result.randomization_p_value == pytest.approx(exact, abs=0.0015)


def test_randomization_matches_exact_enumeration_for_every_metric_at_once():
    # 13 queries (not a whole number of bytes of sign bits); a dense metric, a sparse one with exact ties
    # (most differences zero) and one with decimal steps: each p-value against the full enumeration
    columns = {
        "dense": np.array([0.31, -0.12, 0.45, 0.08, -0.27, 0.19, 0.52, -0.05, 0.11, 0.38, -0.44, 0.26, 0.07]),
        "sparse": np.array([0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 1, 0, 1], dtype=float) / 3,
        "steps": np.array([0.1, -0.3, 0.2, 0.1, -0.4, 0.1, 0.3, -0.2, 0.1, 0.1, 0.2, -0.3, 0.7]),
    }
    comparison = compare_per_query(differences_per_query(columns), list(columns), n_permutations=100_000, n_bootstrap=10, seed=6,
                                   exceedances=None)  # every sign vector: the counts themselves are under test
    sequential = compare_per_query(differences_per_query(columns), list(columns), n_permutations=100_000, n_bootstrap=10, seed=6)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=13)))
    for metric, d in columns.items():
        exact = np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-9)
        assert comparison.test(metric, "A", "B").randomization_p_value == pytest.approx(exact, abs=0.004), metric
        # h / L with h = 200 reaching vectors: relative standard error sqrt((1 - p) / h); four of them here
        bound = 4 * exact * math.sqrt((1 - exact) / 200)
        assert sequential.test(metric, "A", "B").randomization_p_value == pytest.approx(exact, abs=bound), metric
    sparse = columns["sparse"]
    assert np.mean(np.abs(np.abs(flips @ sparse) - abs(sparse.sum())) < 1e-9) > 0.2  # many exact ties


def test_bootstrap_resamples_every_query_uniformly_with_replacement():
    # metric j is 1 on query j only, so its resample mean is (times query j was drawn) / n ~ Binomial(n, 1/n) / n
    n = 4
    columns = {f"m{j}": np.eye(n)[j] for j in range(n)}
    cdf = np.cumsum([math.comb(n, k) * (1 / n) ** k * (1 - 1 / n) ** (n - k) for k in range(n + 1)])
    for confidence in (0.95, 0.5, 0.3):
        comparison = compare_per_query(differences_per_query(columns), list(columns), n_permutations=10,
                                       n_bootstrap=100_000, confidence=confidence, seed=1)
        for level, side in (((1 - confidence) / 2, "ci_low"), ((1 + confidence) / 2, "ci_high")):
            k = int(np.searchsorted(cdf, level))  # the binomial quantile: its CDF is >= 0.01 away from level
            assert min(abs(cdf - level)) > 0.01
            for metric in columns:
                assert getattr(comparison.test(metric, "A", "B"), side) == k / n, (metric, confidence, side)


def test_a_metric_gets_the_same_results_alone_or_with_others():
    rng = np.random.default_rng(12)
    columns = {"x": rng.normal(0.02, 0.1, 300), "y": (rng.random(300) < 0.1) * 0.5, "z": np.full(300, 0.1)}
    together = compare_per_query(differences_per_query(columns), list(columns), n_permutations=3000, n_bootstrap=3000, seed=9)
    for metric, d in columns.items():
        alone = paired_test(np.zeros(300), d, metric=metric, n_permutations=3000, n_bootstrap=3000, seed=9)
        both = together.test(metric, "A", "B")
        assert both.randomization_p_value == alone.randomization_p_value  # the same sign vectors and decisions
        # the same resamples: other resamples move the bounds by ~1e-3; a product of another shape rounds
        # the single-precision sums differently (relative 1e-7)
        assert (both.ci_low, both.ci_high) == (pytest.approx(alone.ci_low, abs=1e-6),
                                               pytest.approx(alone.ci_high, abs=1e-6))
        assert both.t_test_p_value == pytest.approx(alone.t_test_p_value, rel=1e-9)


def test_a_constant_difference_has_a_zero_width_interval_on_a_large_run():
    result = paired_test(np.zeros(5000), np.full(5000, 0.1), n_permutations=3000, n_bootstrap=3000)
    assert result.ci_low == result.ci_high == pytest.approx(0.1, abs=1e-15)
    # only the all-plus and all-minus sign vectors reach |mean|: p = 2 / 2 ** 5000, below every float, and
    # Hoeffding's bound says so without a draw (the smallest positive normal float stands for it)
    assert result.p_value == np.finfo(float).tiny and result.p_value_rule == "bound" and result.n_permutations == 0
    fixed = paired_test(np.zeros(5000), np.full(5000, 0.1), n_permutations=3000, n_bootstrap=3000, exceedances=None)
    assert fixed.p_value == 1 / 3001 and fixed.n_permutations == 3000  # every draw: the count's floor


def test_compare_reports_equals_compare_per_query_on_the_same_scores():
    qrels, good, bad = paired_collection()
    reports = {name: evaluate(qrels, run, ["ndcg@5", "mrr", "ap"]) for name, run in (("good", good), ("bad", bad))}
    from_reports = compare_reports(reports, n_permutations=500, n_bootstrap=500, seed=3)
    from_dicts = compare_per_query({k: r.per_query for k, r in reports.items()}, ["ndcg@5", "mrr", "ap"],
                                   n_permutations=500, n_bootstrap=500, seed=3)
    assert from_reports == from_dicts


def test_compare_reports_aligns_queries_in_any_order_and_leaves_out_errors():
    from rag_eval_adapters import Report

    rng = np.random.default_rng(4)
    ids = [f"q{i}" for i in range(30)]
    a, b = rng.random((30, 2)), rng.random((30, 2))
    shuffled = rng.permutation(30)
    same = {"A": Report(["m", "k"], ids, a), "B": Report(["m", "k"], [ids[i] for i in shuffled], b[shuffled])}
    per_query = {name: dict(zip(ids, ({"m": x, "k": y} for x, y in v), strict=False)) for name, v in (("A", a), ("B", b))}
    options = dict(n_permutations=400, n_bootstrap=400, seed=2)
    assert compare_reports(same, **options) == compare_per_query(per_query, ["m", "k"], **options)
    order = [ids[i] for i in shuffled]
    both_shuffled = {name: Report(["m", "k"], order, v[shuffled]) for name, v in (("A", a), ("B", b))}
    assert compare_reports(both_shuffled, **options) == compare_per_query(per_query, ["m", "k"], **options)
    # a query that failed in B, and one only B scored, take part in no test
    with_error = {"A": same["A"], "B": Report(["m", "k"], ids[1:] + ["extra"], np.vstack([b[1:], [[0.5, 0.5]]]),
                                               errors={"q0": "timeout"})}
    common = {name: {q: v for q, v in rows.items() if q != "q0"} for name, rows in per_query.items()}
    assert compare_reports(with_error, **options) == compare_per_query(common, ["m", "k"], **options)


def test_bootstrap_interval_brackets_the_difference_and_has_the_right_coverage_width():
    rng = np.random.default_rng(5)
    a = rng.random(200)
    b = a + rng.normal(0.1, 0.2, 200)
    result = paired_test(a, b, confidence=0.95)
    assert result.ci_low < result.difference < result.ci_high
    # the percentile interval is close to the normal one: mean +- 1.96 * sd / sqrt(n)
    half = 1.96 * np.std(b - a, ddof=1) / math.sqrt(200)
    assert (result.ci_high - result.ci_low) / 2 == pytest.approx(half, rel=0.15)
    narrower = paired_test(a, b, confidence=0.5)
    assert narrower.ci_high - narrower.ci_low < result.ci_high - result.ci_low


def test_identical_scores_give_p_one_and_no_nan():
    a = [0.1, 0.5, 0.9, 0.3]
    result = paired_test(a, a)
    assert result.difference == 0.0
    assert result.p_value == 1.0 and result.t_test_p_value == 1.0
    assert result.t_statistic is None
    assert (result.ci_low, result.ci_high) == (0.0, 0.0)


def test_constant_shift_has_zero_variance_and_p_zero():
    a = np.linspace(0, 0.5, 12)
    result = paired_test(a, a + 0.25)
    assert result.t_statistic is None and result.t_test_p_value == 0.0
    # only the all-plus and all-minus sign vectors reach |mean| = 0.25: exact p = 2 / 2**12
    assert result.p_value == pytest.approx(2 / 4096, abs=0.0008)
    assert result.difference == pytest.approx(0.25)
    json.dumps(result.to_dict())  # no NaN or infinity in the JSON form


def test_seeded_results_are_reproducible():
    rng = np.random.default_rng(8)
    a, b = rng.random(25), rng.random(25)
    assert paired_test(a, b, seed=4) == paired_test(a, b, seed=4)
    assert paired_test(a, b, seed=4).randomization_p_value != paired_test(a, b, seed=5).randomization_p_value


@pytest.mark.parametrize(
    "a, b, kwargs, message",
    [
        ([0.1], [0.2], {}, "at least 2"),
        ([0.1, 0.2], [0.2], {}, "same length"),
        ([0.1, float("nan")], [0.2, 0.3], {}, "NaN"),
        ([0.1, 0.2], [0.2, 0.3], {"n_permutations": 0}, "n_permutations"),
        ([0.1, 0.2], [0.2, 0.3], {"confidence": 95}, "confidence"),
    ],
)
def test_paired_test_rejects_bad_input(a, b, kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_test(a, b, **kwargs)


def test_compare_reports_uses_core_per_query_vectors():
    qrels, good, bad = paired_collection()
    reports = {name: evaluate(qrels, run, ["ndcg@5", "mrr"]) for name, run in (("good", good), ("bad", bad))}
    comparison = compare_reports(reports, n_permutations=2000, n_bootstrap=2000)
    assert comparison.runs == ["good", "bad"] and comparison.metrics == ["ndcg@5", "mrr"]
    assert comparison.n_queries == 40
    t = comparison.test("mrr", "good", "bad")
    diffs = np.array([reports["bad"].per_query[q]["mrr"] - reports["good"].per_query[q]["mrr"] for q in qrels])
    assert t.difference == pytest.approx(diffs.mean())
    assert t.t_test_p_value == pytest.approx(stats.ttest_rel(
        [reports["bad"].per_query[q]["mrr"] for q in qrels],
        [reports["good"].per_query[q]["mrr"] for q in qrels]).pvalue)
    assert comparison.mean["good"]["mrr"] == pytest.approx(reports["good"].mean["mrr"])


def test_compare_per_query_aligns_on_common_queries():
    per_query = {
        "A": {"q1": {"m": 0.1}, "q2": {"m": 0.2}, "q3": {"m": 0.3}},
        "B": {"q2": {"m": 0.4}, "q3": {"m": 0.9}, "q4": {"m": 1.0}},
    }
    comparison = compare_per_query(per_query, ["m"], n_permutations=100, n_bootstrap=100)
    assert comparison.query_ids == ["q2", "q3"]
    assert comparison.tests[0].difference == pytest.approx(0.4)
    assert comparison.mean == {"A": {"m": pytest.approx(0.25)}, "B": {"m": pytest.approx(0.65)}}


# ---------------------------------------------------------------- rag-eval compare


@pytest.fixture()
def paired_files(tmp_path):
    qrels, good, bad = paired_collection()
    return (
        write_trec_qrels(tmp_path / "judgments.qrels", qrels),
        write_trec_run(tmp_path / "good.run", good),
        write_jsonl(tmp_path / "degraded.jsonl", [{"query_id": q, "retrieved_ids": d} for q, d in bad.items()]),
    )


def test_degraded_copy_gives_a_small_p_value(paired_files):
    qrels, good, bad = paired_files
    code, out, err = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad,
                             "-m", "ndcg@10", "-m", "mrr", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["mean"]) == {"good.run", "degraded.jsonl"}
    assert data["counts"]["queries"] == 40
    for test in data["tests"]:
        assert test["run_a"] == "good.run" and test["run_b"] == "degraded.jsonl"
        assert test["difference"] < 0
        assert test["ci_high"] < 0  # the interval excludes 0
        assert test["p_value"] < 0.001 and test["t_test_p_value"] < 0.001
    mrr = next(t for t in data["tests"] if t["metric"] == "mrr")
    # the relevant documents moved from rank 1 to rank 4 in 34 of 40 queries
    assert mrr["difference"] == pytest.approx(34 * (0.25 - 1.0) / 40)


def test_a_run_against_itself_is_not_significant(paired_files):
    qrels, good, _ = paired_files
    code, out, _ = run_cli("compare", "--qrels", qrels, "--run", good, "--run", good, "-m", "ap", "--format", "json")
    assert code == 0
    test = json.loads(out)["tests"][0]
    assert test["run_a"] == "good.run" and test["run_b"] == "good.run#2"
    assert test["difference"] == 0 and test["p_value"] == 1.0 and test["t_test_p_value"] == 1.0


def test_compare_table(paired_files):
    qrels, good, bad = paired_files
    code, out, _ = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "-m", "mrr",
                           "--name", "base", "--name", "worse")
    assert code == 0
    assert "Mean over 40 queries" in out and "Paired tests" in out and "-0.6375" in out
    code, out, _ = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "-m", "mrr",
                           "--name", "base", "--name", "worse", "--format", "markdown")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("| mrr | base"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[:4] == ["mrr", "base", "worse", "-0.6375"]
    assert cells[4].startswith("[-") and cells[5] == "<0.0001" and cells[6] == "<0.0001"
    assert cells[7] == "<0.0001" and cells[8] == "*"  # the adjusted p (one test: Holm leaves it) and the mark
    assert "paired randomization test" in out


def test_compare_csv(paired_files):
    qrels, good, bad = paired_files
    code, out, _ = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "-m", "mrr,ap",
                           "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["metric"] for r in rows] == ["mrr", "ap"]
    for r in rows:
        assert float(r["ci_low"]) <= float(r["difference"]) <= float(r["ci_high"])
        assert float(r["p_value"]) < 0.001 and r["n_queries"] == "40"


def test_compare_markdown(paired_files):
    qrels, good, bad = paired_files
    code, out, _ = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "-m", "mrr",
                           "--format", "markdown")
    assert code == 0
    assert "| metric | good.run | degraded.jsonl |" in out
    assert "| mrr | good.run | degraded.jsonl | -0.6375 |" in out


def test_compare_three_runs_tests_every_pair(paired_files, tmp_path):
    qrels, good, bad = paired_files
    third = write_trec_run(tmp_path / "third.run", {"q00": ["q00-r0"]})
    code, out, err = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "--run", third,
                             "-m", "mrr", "--format", "json", "--permutations", "500", "--bootstrap", "500")
    assert code == 0, err
    pairs = [(t["run_a"], t["run_b"]) for t in json.loads(out)["tests"]]
    assert pairs == [("good.run", "degraded.jsonl"), ("good.run", "third.run"), ("degraded.jsonl", "third.run")]


def test_compare_plot(paired_files, tmp_path):
    qrels, good, bad = paired_files
    target = tmp_path / "compare.png"
    code, _, err = run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "--k", "1,5,10",
                           "-m", "ndcg,mrr,ap", "--plot", target, "--format", "json")
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 5_000


def _error_line(code, out, err):
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    return err.strip()


def test_compare_errors(paired_files, tmp_path):
    qrels, good, bad = paired_files
    assert "at least two runs" in _error_line(*run_cli("compare", "--qrels", qrels, "--run", good))
    assert "one --name per --run" in _error_line(
        *run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "--name", "x"))
    assert "unknown metric 'nope'" in _error_line(
        *run_cli("compare", "--qrels", qrels, "--run", good, "--run", bad, "-m", "nope"))
    other = write_trec_run(tmp_path / "elsewhere.run", {"zz": ["d1"]})
    assert _error_line(*run_cli("compare", "--qrels", qrels, "--run", good, "--run", other)) == (
        "rag-eval: error: run elsewhere.run has no query in common with the qrels")
    assert "run file not found" in _error_line(
        *run_cli("compare", "--qrels", qrels, "--run", good, "--run", tmp_path / "gone.run"))


@pytest.mark.parametrize("n", [7, 10, 50])
@pytest.mark.parametrize("value", [0.1, 0.3, 1 / 3])
def test_a_bootstrap_bound_that_is_exactly_zero_is_zero(n, value):
    # Two queries gain `value`, the rest tie. A resample that draws neither gain has mean difference 0, and it
    # is more likely than 2.5% for these n, so the lower bound is exactly 0: the interval does not exclude 0
    # (single-precision resample means gave +1.19e-09 here while p = 0.52).
    result = paired_test(np.zeros(n), [value, value] + [0.0] * (n - 2), n_bootstrap=2000)
    assert result.ci_low == 0.0
    assert result.randomization_p_value > 0.05
