"""Report writers (rag_eval_adapters.reports): layouts, ordering, every format, plots."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cli_support import TINY_QRELS, TINY_RUN, paired_collection

from rag_eval_adapters import evaluate
from rag_eval_adapters.compare import compare_reports
from rag_eval_adapters.reports import (
    QueryDetail,
    plot_metrics,
    render_comparison,
    render_evaluation,
    split_key,
    worst_queries,
)

PNG = b"\x89PNG\r\n\x1a\n"


def test_split_key():
    assert split_key("ndcg@10") == ("ndcg", 10)
    assert split_key("ndcg_exp@5") == ("ndcg_exp", 5)
    assert split_key("mrr") == ("mrr", None)
    assert split_key("r_precision") == ("r_precision", None)


def test_worst_queries_orders_by_value_then_id_and_puts_failures_last():
    per_query = {"b": {"m": 0.5}, "a": {"m": 0.5}, "c": {"m": 0.1}, "d": {"m": 1.0}}
    assert worst_queries(per_query, "m") == ["c", "a", "b", "d"]
    assert worst_queries({"a": {"m": 0.2}}, "m", {"z": "bad grade"}) == ["a", "z"]


def test_grid_layout_when_every_metric_has_the_same_cutoffs():
    report = evaluate(TINY_QRELS, TINY_RUN, ["mrr@1", "mrr@3", "ap@1", "ap@3"])
    text = render_evaluation(report, "markdown")
    assert "| metric | @1 | @3 |" in text
    assert "| mrr | 0.3333 | 0.5000 |" in text


def test_list_layout_for_mixed_metrics():
    report = evaluate(TINY_QRELS, TINY_RUN, ["mrr@1", "mrr@3", "ap"])
    text = render_evaluation(report, "markdown")
    assert "| metric | value |" in text and "| ap | 0.5000 |" in text


def test_errors_are_listed_with_the_failed_queries():
    qrels = {**TINY_QRELS, "q4": {"d1": float("nan")}}
    report = evaluate(qrels, {**TINY_RUN, "q4": ["d1"]}, ["mrr"])
    assert "q4" in report.errors
    data = json.loads(render_evaluation(report, "json", per_query=True))
    assert data["errors"]["q4"] == report.errors["q4"]
    assert data["worst_queries"][-1]["query_id"] == "q4" and "error" in data["worst_queries"][-1]
    table = render_evaluation(report, "table", per_query=True)
    assert "error:" in table


def test_details_appear_in_every_per_query_format():
    report = evaluate(TINY_QRELS, TINY_RUN, ["mrr"])
    details = {"q1": QueryDetail(relevant=2, retrieved=4, first_relevant_rank=2)}
    assert json.loads(render_evaluation(report, "json", per_query=True, details=details))["worst_queries"][1] == {
        "query_id": "q1", "mrr": 0.5, "relevant": 2, "retrieved": 4, "first_relevant_rank": 2,
    }
    assert "| q1 | 2 | 4 | 2 | 0.5000 |" in render_evaluation(report, "markdown", per_query=True, details=details)


def test_csv_keeps_full_precision():
    report = evaluate(TINY_QRELS, TINY_RUN, ["precision@3"])
    rows = list(csv.reader(io.StringIO(render_evaluation(report, "csv"))))
    assert float(rows[1][1]) == report.mean["precision@3"]


def test_unknown_format_is_rejected():
    report = evaluate(TINY_QRELS, TINY_RUN, ["mrr"])
    with pytest.raises(ValueError, match="table, json, csv, markdown"):
        render_evaluation(report, "xml")


def test_comparison_json_holds_difference_interval_and_p_value():
    qrels, good, bad = paired_collection()
    comparison = compare_reports({"good": evaluate(qrels, good, ["mrr"]), "bad": evaluate(qrels, bad, ["mrr"])},
                                 n_permutations=500, n_bootstrap=500)
    data = json.loads(render_comparison(comparison, "json"))
    test = data["tests"][0]
    for key in ("difference", "ci_low", "ci_high", "p_value", "t_test_p_value", "t_statistic", "confidence"):
        assert key in test
    assert data["mean"]["good"]["mrr"] == 1.0
    assert "-0.6375" in render_comparison(comparison, "table")


def test_plot_single_run_with_and_without_cutoff_ranges(tmp_path):
    means = {"run": {"ndcg@1": 0.5, "ndcg@5": 0.6, "ndcg@10": 0.7, "mrr": 0.4, "ap@10": 0.3}}
    path = plot_metrics(means, tmp_path / "one.png")
    assert path.read_bytes()[:8] == PNG
    only_bars = plot_metrics({"run": {"mrr": 0.4, "ap": 0.3}}, tmp_path / "bars.png")
    assert only_bars.read_bytes()[:8] == PNG


def test_plot_several_runs(tmp_path):
    means = {name: {"recall@5": v, "recall@10": v + 0.1, "mrr": v} for name, v in (("a", 0.2), ("b", 0.5), ("c", 0.4))}
    assert plot_metrics(means, tmp_path / "sub" / "many.png").read_bytes()[:8] == PNG


def test_plot_needs_a_run(tmp_path):
    with pytest.raises(ValueError, match="no runs"):
        plot_metrics({}, tmp_path / "x.png")
