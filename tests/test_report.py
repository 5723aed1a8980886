"""The one result type: `Report`, its per-group view `Report.by`, and `DatasetEvaluation.to_report()`."""

import csv
import io
import json
import math

import numpy as np
import pytest

import rag_eval_adapters
from rag_eval_adapters import GroupedReport, Report, evaluate
from rag_eval_adapters.compare import compare_reports
from rag_eval_adapters.reports import render_evaluation, render_groups

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}}
RUN = {"q1": ["d1"], "q2": ["x", "d2"], "q3": ["x"], "q4": ["d4", "x"]}
TYPES = {"q1": "fact", "q2": "fact", "q3": "how", "q4": "how"}


def test_report_is_importable_from_every_public_path():
    from rag_eval_adapters.evaluation import Report as FromEvaluation
    from rag_eval_adapters.report import Report as FromReport

    assert rag_eval_adapters.Report is FromEvaluation is FromReport
    assert isinstance(evaluate(QRELS, RUN, ["mrr"]), Report)


def test_by_gives_group_means_counts_and_the_overall_row():
    report = evaluate(QRELS, RUN, ["mrr", "hit_rate@1"]).with_attributes(
        {q: {"query_type": t} for q, t in TYPES.items()}
    )
    grouped = report.by("query_type")
    assert isinstance(grouped, GroupedReport)
    assert [row.group for row in grouped.rows] == ["fact", "how", "all"]
    assert grouped.mean("mrr") == {"fact": 0.75, "how": 0.5, "all": 0.625}
    assert grouped["how"].mean["hit_rate@1"] == 0.5
    assert [row.count for row in grouped.rows] == [2, 2, 4]
    assert grouped.overall.mean == report.mean


def test_by_accepts_a_mapping_or_a_function_of_the_query_id():
    report = evaluate(QRELS, RUN, ["mrr"])
    by_mapping = report.by(TYPES)
    by_function = report.by(TYPES.get)
    assert by_mapping.mean("mrr") == by_function.mean("mrr") == {"fact": 0.75, "how": 0.5, "all": 0.625}


def test_queries_without_the_attribute_form_the_none_group():
    report = evaluate(QRELS, RUN, ["mrr"]).with_attributes({"q1": {"query_type": "fact"}})
    assert report.by("query_type").mean("mrr") == {"fact": 1.0, None: 0.5, "all": 0.625}


def test_failed_queries_are_counted_in_their_group():
    report = Report.from_per_query(
        {"a": {"f1": 1.0}, "b": {"f1": 0.0}},
        errors={"c": "ValueError: no reference"},
        attributes={"a": {"lang": "en"}, "b": {"lang": "ru"}, "c": {"lang": "zh"}},
    )
    grouped = report.by("lang")
    assert [(r.group, r.count, r.errors) for r in grouped.rows] == [("en", 1, 0), ("ru", 1, 0), ("zh", 0, 1),
                                                                    ("all", 2, 1)]
    assert grouped["zh"].mean == {}
    assert "zh" not in grouped.mean("f1")
    assert report.counts == {"queries": 3, "scored": 2, "errors": 1}


def test_interval_brackets_the_mean_and_matches_the_normal_approximation_on_a_large_group():
    rng = np.random.default_rng(7)
    values = (rng.random(2000) < 0.5).astype(float)
    report = Report(["hit"], list(range(2000)), values.reshape(-1, 1))
    row = report.by(lambda q: "x", confidence=0.95).overall
    mean = values.mean()
    half = 1.959964 * math.sqrt(mean * (1 - mean) / len(values))  # normal approximation of a proportion
    assert row.ci_low["hit"] < mean < row.ci_high["hit"]
    assert row.ci_low["hit"] == pytest.approx(mean - half, abs=0.006)
    assert row.ci_high["hit"] == pytest.approx(mean + half, abs=0.006)


def test_interval_is_reproducible_narrows_with_confidence_and_is_empty_for_constant_scores():
    rng = np.random.default_rng(1)
    values = rng.random((50, 1))
    report = Report(["s"], list(range(50)), values, attributes={q: {"g": q % 2} for q in range(50)})
    assert report.by("g").to_dict() == report.by("g").to_dict()
    wide, narrow = report.by("g", confidence=0.99).overall, report.by("g", confidence=0.5).overall
    assert wide.ci_low["s"] < narrow.ci_low["s"] < narrow.ci_high["s"] < wide.ci_high["s"]
    constant = Report(["s"], ["a", "b", "c"], [[0.25], [0.25], [0.25]]).by(lambda q: 1).overall
    assert (constant.ci_low["s"], constant.ci_high["s"]) == (0.25, 0.25)


@pytest.mark.parametrize("bad, error", [({"confidence": 1.0}, ValueError), ({"confidence": 0}, ValueError),
                                        ({"n_bootstrap": 0}, ValueError), ({"n_bootstrap": True}, TypeError)])
def test_bad_interval_options_are_refused(bad, error):
    with pytest.raises(error, match=next(iter(bad))):
        evaluate(QRELS, RUN, ["mrr"]).by(TYPES, **bad)


def test_by_refuses_a_field_of_the_wrong_kind():
    with pytest.raises(TypeError, match="attribute name"):
        evaluate(QRELS, RUN, ["mrr"]).by(3)


def test_an_unhashable_group_names_the_query_and_the_attribute():
    report = evaluate(QRELS, RUN, ["mrr"]).with_attributes({"q2": {"tags": ["a", "b"]}})
    with pytest.raises(TypeError, match=r"query 'q2': its attribute 'tags' is a list"):
        report.by("tags")


def test_from_per_query_names_the_query_that_lacks_a_metric():
    with pytest.raises(ValueError, match=r"query 'b' has no value for metric 'f1'"):
        Report.from_per_query({"a": {"f1": 1.0, "em": 1.0}, "b": {"em": 0.0}})


def test_report_carries_attributes_into_dict_and_dataframe_and_repr():
    report = Report.from_per_query({"a": {"em": 1.0}, "b": {"em": 0.0}},
                                   attributes={"a": {"query_type": "x"}, "b": {"query_type": "y"}})
    assert report.to_dict()["attributes"] == {"a": {"query_type": "x"}, "b": {"query_type": "y"}}
    frame = report.to_dataframe()
    assert list(frame["query_type"]) == ["x", "y"]
    assert repr(report) == "Report(queries=2, attributes=['query_type'], mean={em=0.5000})"


def test_render_groups_csv_and_markdown():
    grouped = evaluate(QRELS, RUN, ["mrr"]).by(TYPES)
    rows = list(csv.reader(io.StringIO(render_groups(grouped, "csv"))))
    assert rows[0] == ["group", "queries", "errors", "mrr", "mrr ci_low", "mrr ci_high"]
    assert [(r[0], r[1], float(r[3])) for r in rows[1:]] == [("fact", "2", 0.75), ("how", "2", 0.5),
                                                             ("all", "4", 0.625)]
    markdown = render_groups(grouped, "markdown")
    assert "| fact | 2 | 0 | 0.7500 |" in markdown
    assert json.loads(render_groups(grouped, "json"))["groups"][-1]["group"] == "all"


def test_renderers_and_compare_refuse_what_is_not_a_report():
    with pytest.raises(TypeError, match="Report"):
        render_evaluation({"mean": {}}, "json")
    with pytest.raises(TypeError, match="run 'b'"):
        compare_reports({"a": evaluate(QRELS, RUN, ["mrr"]), "b": object()})


def test_dataset_evaluation_to_report_keeps_ids_errors_and_row_fields():
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.evaluation import RetrieverEvaluator
    from llama_index.core.schema import NodeWithScore, TextNode

    from rag_eval_adapters.llamaindex import MRR, evaluate_dataset

    class ListRetriever(BaseRetriever):
        def __init__(self, ranked):
            super().__init__()
            self.ranked = ranked

        def _retrieve(self, query_bundle):
            ids = self.ranked[query_bundle.query_str]
            return [NodeWithScore(node=TextNode(id_=d, text=d), score=float(-i)) for i, d in enumerate(ids)]

    rows = [
        {"query_id": "a", "query": "q a", "expected_ids": ["d1"], "query_type": "fact"},
        {"query_id": "b", "query": "q b", "expected_ids": ["d2"], "query_type": "fact"},
        {"query_id": "c", "query": "q c", "expected_ids": ["d1"], "query_type": "how"},
        {"query_id": "d", "query": "", "expected_ids": ["d1"], "query_type": "how"},  # malformed row
    ]
    retriever = ListRetriever({"q a": ["d1", "d2"], "q b": ["d1", "d2"], "q c": ["d3", "d4"]})
    evaluation = evaluate_dataset(RetrieverEvaluator(metrics=[MRR()], retriever=retriever), rows,
                                  show_progress=False)
    report = evaluation.to_report()
    assert report.per_query == {"a": {"mrr": 1.0}, "b": {"mrr": 0.5}, "c": {"mrr": 0.0}}
    assert list(report.errors) == ["d"]
    assert report.counts == {"queries": 4, "scored": 3, "errors": 1}
    assert report.by("query_type").mean("mrr") == {"fact": 0.75, "how": 0.0, "all": 0.5}
    assert [(r.group, r.errors) for r in report.by("query_type").rows] == [("fact", 0), ("how", 1), ("all", 1)]
    renamed = evaluation.to_report(query_ids=["w", "x", "y", "z"])
    assert list(renamed.per_query) == ["w", "x", "y"] and list(renamed.errors) == ["z"]
    with pytest.raises(ValueError, match="one id per input row"):
        evaluation.to_report(query_ids=["w"])
    comparison = compare_reports({"one": evaluation, "two": report}, n_permutations=10, n_bootstrap=10)
    assert comparison.n_queries == 3 and comparison.test("mrr", "one", "two").difference == 0.0


def test_columns_are_named_by_a_metrics_label_when_it_has_one():
    from types import SimpleNamespace

    asked = SimpleNamespace(label="map@100", key="ap@100")
    report = Report([asked, SimpleNamespace(key="em")], ["a", "b"], [[0.5, 1.0], [0.25, 0.0]])
    assert report.keys == ["map@100", "em"]
    assert list(report.column("map@100")) == [0.5, 0.25] and list(report.column("ap@100")) == [0.5, 0.25]
    assert report.mean == {"map@100": 0.375, "em": 0.5}
    with pytest.raises(KeyError, match="was not evaluated"):
        report.column("ndcg@10")
