"""evaluate() over many queries: options, the report, and bad input recorded per query."""

import json

import pytest

from rag_eval_adapters import MRR, NDCG, evaluate, metrics

QRELS = {
    "q1": {"d1": 1, "d2": 2, "d3": 0},
    "q2": {"d4": 1},
    "q3": {"d5": 3},
}
RUN = {
    "q1": {"d1": 0.9, "d3": 0.8, "d2": 0.1},
    "q2": ["d9", "d4"],
    "extra": ["d1"],
}


def test_means_and_per_query_values():
    report = evaluate(QRELS, RUN, ["mrr", "ndcg@10", "precision@2"])
    assert report.keys == ["mrr", "ndcg@10", "precision@2"]
    assert report.per_query["q1"]["mrr"] == 1.0
    assert report.per_query["q2"]["mrr"] == 0.5
    assert report.per_query["q3"] == {"mrr": 0.0, "ndcg@10": 0.0, "precision@2": 0.0}  # missing: scores 0
    assert report.per_query["q1"]["ndcg@10"] == pytest.approx(
        metrics.ndcg(["d1", "d3", "d2"], QRELS["q1"], k=10)
    )
    assert report.mean["mrr"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert report.counts == {"queries": 3, "scored": 3, "missing_from_run": 1, "not_in_qrels": 1, "errors": 0}


def test_missing_skip_and_error():
    skipped = evaluate(QRELS, RUN, ["mrr"], missing="skip")
    assert set(skipped.per_query) == {"q1", "q2"}
    assert skipped.mean["mrr"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match=r"1 queries of qrels are missing from the run \('q3'\)"):
        evaluate(QRELS, RUN, ["mrr"], missing="error")
    with pytest.raises(ValueError, match="missing must be"):
        evaluate(QRELS, RUN, ["mrr"], missing="ignore")
    with pytest.raises(ValueError, match="no query in common"):
        evaluate(QRELS, {"other": ["d1"]}, ["mrr"], missing="skip")


def test_relevance_level():
    report = evaluate(QRELS, RUN, ["precision@1", "ndcg"], relevance_level=2)
    assert report.per_query["q1"]["precision@1"] == 0.0  # d1 has grade 1 < 2
    assert report.per_query["q1"]["ndcg"] == evaluate(QRELS, RUN, ["ndcg"]).per_query["q1"]["ndcg"]


def test_metric_objects_and_names_mix():
    report = evaluate(QRELS, RUN, [NDCG(k=3, gain="exponential"), "mrr_granular", MRR(k=1)])
    assert report.keys == ["ndcg_exp@3", "mrr_granular", "mrr@1"]
    assert report.column("mrr@1").tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(KeyError, match="was not evaluated"):
        report.column("ap")


def test_unknown_metric_is_reported_before_any_work():
    with pytest.raises(ValueError, match="unknown metric 'ndgc'.*Valid metrics"):
        evaluate(QRELS, RUN, ["ndgc"])


def test_one_bad_query_is_recorded_and_the_rest_scored():
    qrels = {**QRELS, "bad_grades": {"d1": "high"}, "empty": {}}
    run = {**RUN, "bad_grades": ["d1"], "empty": ["d1"], "bad_scores": {"d1": float("nan")}}
    qrels["bad_scores"] = {"d1": 1}
    report = evaluate(qrels, run, ["mrr"])
    assert set(report.per_query) == {"q1", "q2", "q3"}
    assert set(report.errors) == {"bad_grades", "empty", "bad_scores"}
    assert "query 'bad_grades': qrels['d1'] must be a number" in report.errors["bad_grades"]
    assert "query 'empty': qrels is empty" in report.errors["empty"]
    assert "query 'bad_scores': run['d1'] is NaN" in report.errors["bad_scores"]
    assert report.counts["errors"] == 3
    assert report.mean["mrr"] == pytest.approx(0.5)


def test_nothing_scorable_is_an_error():
    with pytest.raises(ValueError, match="no query could be scored"):
        evaluate({"q": {}}, {"q": ["d"]}, ["mrr"])
    with pytest.raises(ValueError, match="qrels is empty"):
        evaluate({}, {}, ["mrr"])
    with pytest.raises(TypeError, match="qrels must be a mapping"):
        evaluate([("q", "d")], {}, ["mrr"])
    with pytest.raises(TypeError, match="run must be a mapping"):
        evaluate(QRELS, [["d1"]], ["mrr"])


def test_report_exports():
    report = evaluate(QRELS, RUN, ["mrr", "ndcg@10"])
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert set(data) >= {"mean", "per_query", "counts", "errors", "metrics"}
    frame = report.to_dataframe()
    assert list(frame.columns) == ["mrr", "ndcg@10"]
    assert frame.index.name == "query_id"
    assert frame.loc["q2", "mrr"] == 0.5
    assert "Report(queries=3" in repr(report) and "mrr=0.5000" in repr(report)


def test_integer_ids_work():
    report = evaluate({1: {10: 1}}, {1: [11, 10]}, ["mrr"])
    assert report.per_query[1]["mrr"] == 0.5
