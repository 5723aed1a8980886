"""The stats/ package: one interval type behind every interval, one kappa, and the old module paths kept."""

import importlib

import numpy as np
import pytest

from rag_eval_adapters import evaluate
from rag_eval_adapters.stats import Interval, MeanInterval


def test_every_interval_of_the_package_is_the_one_interval_type():
    from rag_eval_adapters.agreement import measure_agreement, position_swap_consistency
    from rag_eval_adapters.stats.intervals import mean_interval
    from rag_eval_adapters.stats.paired import paired_test
    from rag_eval_adapters.stats.ppi import ppi_mean

    mean = mean_interval([0.2, 0.4, 0.6, 0.8])
    ppi = ppi_mean([1, 0, 1, 1, 0, 1], [0.9, 0.2, 0.8, 0.7, 0.4, 0.9], [0.8, 0.3, 0.9, 0.6] * 5)
    agreement = measure_agreement([0.9, 0.1, 0.6, 0.4, 0.8], [2, 0, 1, 1, 2], n_bootstrap=50)["spearman"]
    flips = position_swap_consistency([1, -1, 1, 1], [-1, 1, 1, -1], n_bootstrap=50).flip_rate
    test = paired_test([0.1, 0.5, 0.3, 0.9], [0.2, 0.7, 0.3, 1.0], n_permutations=99, n_bootstrap=100).interval
    for interval in (mean, ppi, agreement, flips, test):
        assert isinstance(interval, Interval)
        assert interval.low <= interval.estimate <= interval.high
        assert interval.confidence == 0.95 and interval.n > 0 and interval.method
    assert (agreement.n, agreement.method, agreement.value) == (5, "bootstrap", agreement.estimate)
    assert test.n == 4 and test.method == "bootstrap"


def test_a_group_of_report_by_gives_its_interval():
    qrels = {f"q{i}": {"d1": 1} for i in range(6)}
    run = {f"q{i}": ["d1", "d2"] if i % 2 else ["d2", "d1"] for i in range(6)}
    report = evaluate(qrels, run, ["mrr"])
    grouped = report.by({f"q{i}": "odd" if i % 2 else "even" for i in range(6)}, n_bootstrap=200, confidence=0.9)
    interval = grouped.interval("all", "mrr")
    assert interval == Interval(grouped.overall.mean["mrr"], grouped.overall.ci_low["mrr"],
                                grouped.overall.ci_high["mrr"], 0.9, "bootstrap", 6)
    assert grouped.interval("odd", "mrr").estimate == 1.0 and grouped.interval("odd", "mrr").n == 3
    with pytest.raises(KeyError, match="ndcg"):
        grouped.interval("all", "ndcg")


def test_the_old_module_paths_give_the_same_objects():
    pairs = {
        "compare": ("stats.paired", ["paired_test", "compare_reports", "compare_per_query", "Comparison",
                                     "PairedComparison", "EXCEEDANCES", "CI_TOLERANCE"]),
        "intervals": ("stats.intervals", ["mean_interval", "report_intervals", "MeanInterval", "check_values",
                                          "check_confidence", "normal_quantile", "t_quantile", "INTERVAL_METHODS"]),
        "ppi": ("stats.ppi", ["ppi_mean", "ppi_paired", "corrected_means", "corrected_comparison", "PPIInterval"]),
        "multitest": ("stats.multitest", ["adjust_p_values", "Correction", "CORRECTIONS"]),
        "_resampling": ("stats.resampling", ["bootstrap_interval", "column_means", "randomization_p_values"]),
        "agreement.stats": ("stats.agreement", ["pearson", "spearman", "kendall_tau_b", "cohen_kappa"]),
    }
    for old, (new, names) in pairs.items():
        a = importlib.import_module(f"rag_eval_adapters.{old}")
        b = importlib.import_module(f"rag_eval_adapters.{new}")
        for name in names:
            assert getattr(a, name) is getattr(b, name), (old, name)
    assert issubclass(MeanInterval, Interval)
    assert repr(MeanInterval(0.5, 0.25, 0.75, 0.95, "t", 4)) == "MeanInterval(0.5 [0.25, 0.75], t 95%, n=4)"


def test_one_kappa_for_numbers_and_for_labels_of_any_kind():
    from rag_eval_adapters import agreement, judges

    assert judges.cohen_kappa is agreement.cohen_kappa
    sklearn = pytest.importorskip("sklearn.metrics")
    first, second = ["yes", "no", "yes", "yes", "no"], ["yes", "no", "no", "yes", "yes"]
    assert agreement.cohen_kappa(first, second) == pytest.approx(sklearn.cohen_kappa_score(first, second))
    x, y = [0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 0]
    assert agreement.cohen_kappa(x, y, weights="quadratic") == pytest.approx(
        sklearn.cohen_kappa_score(x, y, weights="quadratic"))
    assert agreement.cohen_kappa([1], [1]) is None and agreement.cohen_kappa([3, 3], [3, 3]) is None
    with pytest.raises(ValueError, match="numeric labels"):
        agreement.cohen_kappa(first, second, weights="quadratic")
    from rag_eval_adapters.stats import LabelAgreement

    assert judges.Agreement is LabelAgreement
    assert np.isfinite(judges.cohen_kappa([True, False, True], [True, True, False]))
