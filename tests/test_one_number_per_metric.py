"""A metric's mean, per-group mean and interval depend on its own per-query values only (issue 21, item 22).

Not on which other metrics were asked for (numpy sums a one-column and a many-column array in different orders;
a BLAS product of several columns rounds differently from one column), nor on which other groups a
``Report.by`` holds (groups used to share one random generator).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_support import run_cli

from rag_eval_adapters import Report, evaluate
from rag_eval_adapters.compare import compare_reports

METRICS = ["ndcg@10", "mrr", "recall@5", "p@5", "ap"]


def _collection(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(n)}
    run = {f"q{i}": {f"d{j}": float(rng.random()) for j in range(30)} for i in range(n)}
    return qrels, run


def test_a_metrics_mean_is_the_same_asked_alone_or_with_others():
    qrels, run = _collection(1)
    together = evaluate(qrels, run, METRICS)
    for metric in METRICS:
        assert evaluate(qrels, run, [metric]).mean[metric] == together.mean[metric], metric
        assert evaluate(qrels, run, [metric, "ndcg"]).mean[metric] == together.mean[metric], metric


def test_a_mean_is_the_correctly_rounded_one_whatever_the_query_order():
    values = [0.1] * 7 + [1e-17] * 3 + [0.3, 0.7] * 50
    forward = Report.from_per_query({f"q{i}": {"f1": v, "em": 0.0} for i, v in enumerate(values)})
    backward = Report.from_per_query({f"q{i}": {"f1": v} for i, v in enumerate(reversed(values))})
    assert forward.mean["f1"] == backward.mean["f1"] == math.fsum(values) / len(values)


def test_rag_eval_evaluate_of_one_metric_prints_the_mean_of_the_many_metric_report(tmp_path):
    qrels, run = _collection(2)
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "r.trec").write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items()))
    together = evaluate(qrels, run, METRICS)
    for metric in METRICS:
        code, out, err = run_cli("evaluate", "--qrels", tmp_path / "q.qrels", "--run", tmp_path / "r.trec", "-m",
                                 metric, "--format", "json")
        assert code == 0, err
        assert json.loads(out)["mean"][metric] == together.mean[metric], metric


def _scores(n: int = 61, seed: int = 3) -> tuple[dict, dict]:
    """Per-query answer scores and two groupings: ``kind`` (groups of 7, 23 and n - 30 queries) and ``half``."""
    rng = np.random.default_rng(seed)
    per_query = {f"q{i}": {"f1": float(rng.random()), "em": float(rng.integers(0, 2)), "rouge_l": float(rng.random())}
                 for i in range(n)}
    attributes = {f"q{i}": {"kind": "a" if i < 7 else "b" if i < 30 else "c", "half": "x" if i % 2 else "y"}
                  for i in range(n)}
    return per_query, attributes


def test_the_overall_row_does_not_depend_on_the_grouping():
    # thousands of queries: drawing from a range of n values rejects a draw now and then (with probability
    # below n / 2**32), so groups of different sizes used to leave a shared generator in different states
    per_query, attributes = _scores(4001)
    report = Report.from_per_query(per_query, attributes=attributes)
    rows = [report.by(field)["all"] for field in ("kind", "half", lambda q: "one")]
    assert rows[0] == rows[1] == rows[2]
    assert rows[0].mean == report.mean


def test_a_groups_row_does_not_depend_on_the_other_groups():
    per_query, attributes = _scores()
    report = Report.from_per_query(per_query, attributes=attributes)
    alone = Report.from_per_query({q: v for q, v in per_query.items() if attributes[q]["kind"] == "c"},
                                  attributes={q: a for q, a in attributes.items() if a["kind"] == "c"})
    got, expected = report.by("kind", n_bootstrap=999)["c"], alone.by("kind", n_bootstrap=999)["c"]
    assert (got.mean, got.ci_low, got.ci_high) == (expected.mean, expected.ci_low, expected.ci_high)


def test_a_groups_interval_does_not_depend_on_the_other_metrics():
    per_query, attributes = _scores()
    everything = Report.from_per_query(per_query, attributes=attributes).by("kind")
    for metric in ("f1", "em", "rouge_l"):
        alone = Report.from_per_query({q: {metric: v[metric]} for q, v in per_query.items()},
                                      attributes=attributes).by("kind")
        for row, single in zip(everything.rows, alone.rows, strict=True):
            assert (row.mean[metric], row.ci_low[metric], row.ci_high[metric]) == (
                single.mean[metric], single.ci_low[metric], single.ci_high[metric]), (metric, row.group)


def test_a_comparisons_means_and_p_values_do_not_depend_on_the_other_metrics():
    qrels, run_a = _collection(4)
    rng = np.random.default_rng(5)
    run_b = {q: {d: 0.9 * s + 0.1 * float(rng.random()) for d, s in docs.items()} for q, docs in run_a.items()}
    both = compare_reports({"a": evaluate(qrels, run_a, METRICS), "b": evaluate(qrels, run_b, METRICS)},
                           n_permutations=2000, n_bootstrap=2000)
    for metric in METRICS:
        alone = compare_reports({"a": evaluate(qrels, run_a, [metric]), "b": evaluate(qrels, run_b, [metric])},
                                n_permutations=2000, n_bootstrap=2000)
        assert alone.mean == {run: {metric: means[metric]} for run, means in both.mean.items()}
        got, expected = alone.test(metric, "a", "b"), both.test(metric, "a", "b")
        exact = ("mean_a", "mean_b", "difference", "t_statistic", "t_test_p_value", "randomization_p_value")
        assert {f: getattr(got, f) for f in exact} == {f: getattr(expected, f) for f in exact}, metric
        assert (got.ci_low, got.ci_high) == (expected.ci_low, expected.ci_high)  # its own column, its own product


def test_a_group_named_all_is_refused_naming_the_query():
    # it used to collide with the overall row: grouped["all"] and grouped.mean(...)["all"] were the group's
    report = Report.from_per_query({"q1": {"f1": 1.0}, "q2": {"f1": 0.0}},
                                   attributes={"q1": {"kind": "all"}, "q2": {"kind": "some"}})
    with pytest.raises(ValueError, match=r"query 'q1': its attribute 'kind' is 'all', the label of the overall row"):
        report.by("kind")
    with pytest.raises(ValueError, match=r"query 'q2': its group is 'all'"):
        report.by({"q1": "x", "q2": "all"})
    assert report.by({"q1": "x", "q2": "All"}).mean("f1") == {"x": 1.0, "All": 0.0, "all": 0.5}


def test_rag_eval_answers_group_by_refuses_a_group_named_all(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "q1", "prediction": "a", "reference": "a", "kind": "all"}\n'
                    '{"query_id": "q2", "prediction": "b", "reference": "c", "kind": "other"}\n')
    code, out, err = run_cli("answers", "--predictions", path, "--group-by", "kind")
    assert code == 2 and out == ""
    assert "--group-by kind: query 'q1': its attribute 'kind' is 'all', the label of the overall row" in err
