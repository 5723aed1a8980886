"""Prediction-powered intervals: the papers' formulas written out, and seeded simulations of five judges."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from rag_eval_adapters.intervals import mean_interval
from rag_eval_adapters.ppi import (
    PPIInterval,
    ppi_mean,
    ppi_mean_by_id,
    ppi_paired,
    ppi_paired_by_id,
    tuned_lambda,
)

sys.path.insert(0, str(Path(__file__).parent))
from ppi_simulation import JUDGES, coverage, draw, true_mean  # noqa: E402

Z95 = NormalDist().inv_cdf(0.975)


def _sample(seed: int = 3, n: int = 60, big_n: int = 400):
    rng = np.random.default_rng(seed)
    y, f = draw("biased", n + big_n, rng, "graded")
    return y[:n], f[:n], f[n:]


def test_ppi_with_lambda_one_is_the_2023_estimator_and_interval():
    # Angelopoulos et al. 2023, mean estimation: theta = mean(f(X~)) + mean(Y - f(X)),
    # interval theta +- z * sqrt(var(f(X~)) / N + var(f(X) - Y) / n)
    y, f, g = _sample()
    n, big_n = y.size, g.size
    theta = g.mean() + (y - f).mean()
    half = Z95 * math.sqrt(g.var(ddof=1) / big_n + (f - y).var(ddof=1) / n)
    r = ppi_mean(y, f, g, lam=1.0, quantile="normal")
    assert r.method == "ppi"
    assert r.estimate == pytest.approx(theta, abs=1e-12)
    assert (r.low, r.high) == pytest.approx((theta - half, theta + half), abs=1e-12)


def test_ppi_plus_plus_tuned_lambda_estimate_and_clt_variance():
    # PPI++ (Angelopoulos, Duchi, Zrnic 2023), mean: lambda = Cov(Y, f) / ((1 + n/N) Var(f)),
    # theta = lambda * mean(g) + mean(Y - lambda f), sigma^2 = Var(Y - lambda f) / n + lambda^2 Var(g) / N
    y, f, g = _sample(seed=8)
    n, big_n = y.size, g.size
    cov = np.sum((y - y.mean()) * (f - f.mean())) / n
    var = np.sum((f - f.mean()) ** 2) / n
    lam = min(1.0, max(0.0, cov / ((1 + n / big_n) * var)))
    assert 0.0 < lam < 1.0  # the test exercises the tuned, unclipped case
    theta = lam * g.mean() + np.mean(y - lam * f)
    sigma = math.sqrt(np.var(y - lam * f, ddof=1) / n + lam**2 * np.var(g, ddof=1) / big_n)
    r = ppi_mean(y, f, g, quantile="normal")
    assert r.lam == pytest.approx(lam, abs=1e-12) and tuned_lambda(y, f, g) == pytest.approx(lam, abs=1e-12)
    assert r.estimate == pytest.approx(theta, abs=1e-12)
    assert r.std_error == pytest.approx(sigma, abs=1e-12)
    assert (r.low, r.high) == pytest.approx((theta - Z95 * sigma, theta + Z95 * sigma), abs=1e-12)
    # the default interval swaps z for Student's t with n - 1 degrees of freedom
    t = ppi_mean(y, f, g)
    from scipy import stats

    assert t.high - t.estimate == pytest.approx(stats.t.ppf(0.975, n - 1) * sigma, rel=1e-9)
    assert t.method == "ppi++" and t.n == n and t.n_unlabelled == big_n


def test_lambda_zero_and_an_anticorrelated_judge_give_the_human_only_interval():
    y, f, g = _sample(seed=5)
    classical = mean_interval(y, method="t")
    zero = ppi_mean(y, f, g, lam=0.0)
    anti = ppi_mean(y, 1.0 - f, 1.0 - g)  # Cov < 0: lambda clipped to 0
    for r in (zero, anti):
        assert r.lam == 0.0
        assert (r.estimate, r.low, r.high) == pytest.approx((classical.estimate, classical.low, classical.high),
                                                            abs=1e-12)
        assert (r.classical_low, r.classical_high) == pytest.approx((classical.low, classical.high), abs=1e-12)
    assert tuned_lambda(y, 1.0 - f, 1.0 - g, clip=False) < 0.0


def test_interval_never_wider_than_the_human_only_one_and_much_narrower_with_a_good_judge():
    rng = np.random.default_rng(11)
    for judge in JUDGES:
        for _ in range(40):
            y, f = draw(judge, 500, rng, "graded")
            r = ppi_mean(y[:50], f[:50], f[50:])
            assert r.width <= r.classical_width * (1 + 1e-12), (judge, r)
    y, f = draw("perfect", 1050, rng, "graded")
    assert ppi_mean(y[:50], f[:50], f[50:]).width < 0.3 * ppi_mean(y[:50], f[:50], f[50:], lam=0.0).width


def test_a_useless_judge_leaves_the_interval_as_it_was():
    rng = np.random.default_rng(2)
    ratios = []
    for _ in range(50):
        y, f = draw("useless", 2100, rng, "graded")
        r = ppi_mean(y[:100], f[:100], f[100:])
        ratios.append(r.width / r.classical_width)
    assert 0.97 < min(ratios) and max(ratios) <= 1.0 + 1e-12


@pytest.mark.parametrize("labels", ["binary", "graded"])
def test_simulated_coverage_of_five_judges_at_50_labels(labels):
    """300 seeded replications a judge: coverage of E[Y] by the 95% interval, within Monte Carlo error.

    One Monte Carlo standard error is 1.26 points at 300 replications; the bounds allow about 3.5 of them on
    each side of 95%, and the PPI interval may not cover materially less than the human-only interval on the
    same draws. The 5000-replication table is ``benchmarks/bench_ppi_coverage.py``.
    """
    truth = true_mean(labels, size=400_000)
    for i, judge in enumerate(JUDGES):
        c = coverage(judge, 50, 500, 300, labels=labels, seed=100 + i, truth=truth)
        assert 0.906 <= c.coverage <= 0.994, (judge, c)
        assert c.coverage >= c.classical_coverage - 0.03, (judge, c)
        assert c.max_width_ratio <= 1.0 + 1e-9, (judge, c)


def test_a_biased_judge_is_corrected():
    rng = np.random.default_rng(4)
    y, f = draw("biased", 20_300, rng, "graded")
    r = ppi_mean(y[:300], f[:300], f[300:])
    truth = true_mean("graded", size=400_000)
    assert r.judge_mean - truth > 0.1  # the judge reads high
    assert abs(r.estimate - truth) < 0.03 and r.contains(truth)


def test_paired_difference_is_the_mean_of_the_differences():
    rng = np.random.default_rng(9)
    ya, fa = draw("biased", 600, rng, "graded")
    yb, fb = np.clip(ya + 0.1 * rng.normal(size=600), 0, 1), np.clip(fa + 0.05, 0, 1)
    r = ppi_paired(ya[:80], yb[:80], fa[:80], fb[:80], fa[80:], fb[80:])
    direct = ppi_mean(yb[:80] - ya[:80], fb[:80] - fa[:80], fb[80:] - fa[80:])
    assert (r.estimate, r.low, r.high, r.lam) == (direct.estimate, direct.low, direct.high, direct.lam)
    assert r.judge_mean == pytest.approx(float(np.mean(fb - fa)))
    with pytest.raises(ValueError, match="same items"):
        ppi_paired(ya[:80], yb[:79], fa[:80], fb[:80], fa[80:], fb[80:])


def test_paired_simulation_covers_the_true_difference():
    rng = np.random.default_rng(21)
    covered, reps = 0, 300
    for _ in range(reps):
        q = rng.normal(size=550)
        ya = (rng.uniform(size=550) < 1 / (1 + np.exp(-q))).astype(float)
        yb = (rng.uniform(size=550) < 1 / (1 + np.exp(-(q + 0.4)))).astype(float)
        fa, fb = 1 / (1 + np.exp(-q)) + 0.1, 1 / (1 + np.exp(-(q + 0.2)))  # biased judges, B's gain understated
        r = ppi_paired(ya[:60], yb[:60], fa[:60], fb[:60], fa[60:], fb[60:])
        covered += r.contains(TRUE_GAIN)
    assert 0.906 <= covered / reps <= 0.994


TRUE_GAIN = float(np.mean(1 / (1 + np.exp(-(np.random.default_rng(0).normal(size=1_000_000) + 0.4))))
                  - np.mean(1 / (1 + np.exp(-np.random.default_rng(0).normal(size=1_000_000)))))


def test_by_id_splits_labelled_from_unlabelled_items():
    judge = {f"q{i}": v for i, v in enumerate([0.9, 0.2, 0.8, 0.7, 0.4, 0.9, 0.8, 0.3])}
    human = {"q0": 1.0, "q1": 0.0, "q3": 1.0}
    r = ppi_mean_by_id(judge, human)
    direct = ppi_mean([1.0, 0.0, 1.0], [0.9, 0.2, 0.7], [0.8, 0.4, 0.9, 0.8, 0.3])
    assert r == direct
    assert r.judge_mean == pytest.approx(sum(judge.values()) / 8)
    with pytest.raises(ValueError, match="no judge score, e.g. 'zz'"):
        ppi_mean_by_id(judge, {**human, "zz": 1.0})
    with pytest.raises(ValueError, match="every item .* has a human label"):
        ppi_mean_by_id({"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 0.0})
    pr = ppi_paired_by_id(judge, {k: v / 2 for k, v in judge.items()}, human, {k: v / 2 for k, v in human.items()})
    assert pr.estimate == pytest.approx(-ppi_mean_by_id(judge, human).estimate / 2)


def test_describe_and_repr_say_what_the_number_is():
    r = ppi_mean([1, 0, 1, 1, 0, 1], [0.9, 0.2, 0.8, 0.7, 0.4, 0.9], [0.8, 0.3, 0.9, 0.6] * 5)
    assert isinstance(r, PPIInterval)
    text = r.describe("faithfulness")
    assert text.startswith(f"faithfulness: judge mean {r.judge_mean:.2f}, corrected {r.estimate:.2f} [")
    assert "from 6 human labels (ppi++, 95%)" in text
    assert "lambda=" in repr(r) and "N=20" in repr(r)
    assert r.to_dict()["interval"] == "ppi++ 95%" and r.to_dict()["text"] == r.describe()


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([1, 0], [0.5], [0.1]), {}, ValueError, "2 human labels but 1 judge scores"),
        (([1, float("nan"), 0], [0.5, 0.5, 0.5], [0.1]), {}, ValueError, r"human labels\[1\] is nan"),
        (([1, 0], [0.5, 0.2], []), {}, ValueError, "unlabelled items has 0 values"),
        (([1], [0.5], [0.1]), {}, ValueError, "human labels has 1 values; at least 2"),
        (([1, 0], [0.5, 0.2], [0.1]), {"confidence": 95}, ValueError, "confidence must be a number strictly between 0 and 1"),
        (([1, 0], [0.5, 0.2], [0.1]), {"lam": float("inf")}, ValueError, "lam must be a finite number"),
        (([1, 0], [0.5, 0.2], [0.1]), {"quantile": "z"}, ValueError, "quantile must be 't' or 'normal'"),
        (("10", [0.5, 0.2], [0.1]), {}, TypeError, "human labels must be a sequence of numbers"),
        (([1, "x"], [0.5, 0.2], [0.1]), {}, TypeError, "human labels must be a sequence of numbers"),
    ],
)
def test_bad_input_is_a_clear_error(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ppi_mean(*args, **kwargs)


def test_corrected_means_of_a_report_from_a_labels_file(tmp_path):
    from rag_eval_adapters import Report
    from rag_eval_adapters.human_labels import read_human_labels
    from rag_eval_adapters.ppi import corrected_means

    rng = np.random.default_rng(6)
    y, f = draw("biased", 300, rng, "graded")
    report = Report.from_per_query({f"q{i}": {"faithfulness": float(f[i]), "f1": 0.5} for i in range(300)})
    path = tmp_path / "human.jsonl"
    path.write_text("".join(f'{{"query_id": "q{i}", "faithfulness": {y[i]}}}\n' for i in range(0, 300, 5)))
    labels = read_human_labels(path)
    assert list(labels) == [None] and len(labels[None]) == 60
    corrected = corrected_means(report, labels[None])
    assert list(corrected) == ["faithfulness"]  # f1 has no human label
    rows = list(range(0, 300, 5))
    others = [i for i in range(300) if i % 5]
    assert corrected["faithfulness"] == ppi_mean(y[rows], f[rows], f[others])
    with pytest.raises(ValueError, match="not scored in the report, e.g. 'zz'"):
        corrected_means(report, {"zz": {"faithfulness": 1.0}})
    with pytest.raises(ValueError, match="human label 'fluency' is not a metric of the report"):
        corrected_means(report, {"q1": {"fluency": 1.0}})


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{"query_id": "q1", "faithfulness": "yes"}\n', r"human\.jsonl:1: the human label \"faithfulness\" must be"),
        ('{"query_id": "q1"}\n', r"human\.jsonl:1: no label on the line"),
        ('{"query_id": "q1", "f": 1}\n{"query_id": "q1", "f": 0}\n', r"human\.jsonl:2: query 'q1' is labelled twice"),
        ('{"query_id": "q1", "run": 3, "f": 1}\n', r'human\.jsonl:1: "run" must be a string'),
        ('{"f": 1}\n', r'human\.jsonl:1: missing "query_id"'),
        ("\n", r"human\.jsonl: no human labels in the file"),
    ],
)
def test_a_bad_labels_file_names_the_line(tmp_path, text, match):
    from rag_eval_adapters.human_labels import read_human_labels

    path = tmp_path / "human.jsonl"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        read_human_labels(path)


def test_labels_of_several_runs_are_kept_apart(tmp_path):
    from rag_eval_adapters.human_labels import read_human_labels

    path = tmp_path / "human.jsonl"
    path.write_text('{"query_id": "q1", "run": "a", "f": 1}\n{"query_id": "q1", "run": "b", "f": 0}\n'
                    '{"query_id": 2, "run": "a", "f": 0.5}\n')
    assert read_human_labels(path) == {"a": {"q1": {"f": 1.0}, "2": {"f": 0.5}}, "b": {"q1": {"f": 0.0}}}
