"""Inputs users have, through the public API: no silent wrong number, no crash that loses the batch.

Each test names the defect it guards against; every one failed before the fix.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rag_eval_adapters import evaluate, evaluate_columns, query_details
from rag_eval_adapters import metrics as fn

INF = math.inf


def columns(nested, value):
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    return {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], value: [r[2] for r in rows]}


# ---------------------------------------------------------------------------------------- infinite scores
def test_infinite_scores_in_columns_rank_as_in_evaluate():
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": INF, "b": INF, "x": 1.0, "c": -INF, "y": -INF}}
    metrics = ["precision@1", "precision@2", "ap", "mrr", "ndcg@3", "recall@4"]
    by_dict = evaluate(qrels, run, metrics)
    by_columns = evaluate_columns(columns(qrels, "grade"), columns(run, "score"), metrics)
    assert by_columns.per_query == by_dict.per_query
    # b and a tie at +inf (id descending: b, a), then x, then y and c tie at -inf (y, c)
    assert by_dict.per_query["q"]["precision@1"] == 1.0
    assert by_dict.per_query["q"]["ap"] == pytest.approx((1 + 1 + 3 / 5) / 3)


# ---------------------------------------------------------------------------------------- (doc_id, score) pairs
def test_a_run_entry_of_doc_score_pairs_is_scores_not_tuple_ids():
    qrels = {"q": {"a": 1, "b": 2}}
    pairs = {"q": [("c", 0.9), ("a", 0.5), ("b", 0.7)]}
    as_dict = {"q": {"c": 0.9, "a": 0.5, "b": 0.7}}
    assert evaluate(qrels, pairs, ["ap", "ndcg"]).per_query == evaluate(qrels, as_dict, ["ap", "ndcg"]).per_query
    assert evaluate(qrels, pairs, ["mrr"]).per_query["q"]["mrr"] == 0.5
    assert fn.ndcg(pairs["q"], qrels["q"]) == fn.ndcg(as_dict["q"], qrels["q"])


def test_doc_score_pairs_naming_a_document_twice_are_refused():
    report = evaluate({"q": {"a": 1}, "ok": {"a": 1}}, {"q": [("a", 0.9), ("a", 0.1)], "ok": ["a"]}, ["mrr"])
    assert report.query_ids == ["ok"]
    assert "query 'q'" in report.errors["q"] and "twice ('a')" in report.errors["q"]


def test_a_pandas_series_of_grades_is_graded_by_its_index():
    grades = pd.Series({"a": 2, "b": 1})
    report = evaluate({"q": grades}, {"q": ["b", "a"]}, ["ndcg"])
    assert report.per_query["q"]["ndcg"] == pytest.approx(fn.ndcg(["b", "a"], {"a": 2, "b": 1}))
    assert fn.ndcg(["b", "a"], grades) == pytest.approx(fn.ndcg(["b", "a"], {"a": 2, "b": 1}))


# ---------------------------------------------------------------------------------------- unordered rankings
@pytest.mark.parametrize("ranking", [{"a", "b", "c"}, frozenset({"a", "b"})])
def test_a_set_is_refused_as_a_ranking(ranking):
    report = evaluate({"q": {"a": 1}, "ok": {"a": 1}}, {"q": ranking, "ok": ["a"]}, ["ap"])
    assert report.query_ids == ["ok"]
    assert "no order" in report.errors["q"]
    with pytest.raises(TypeError, match="no order"):
        fn.average_precision(ranking, {"a": 1})


def test_a_set_is_still_accepted_as_the_expectation():
    assert fn.recall(["a", "x"], {"a", "b"}) == 0.5


# ---------------------------------------------------------------------------------------- large finite grades
@pytest.mark.parametrize("grades, ratio_of", [
    ({"a": 1100.0, "b": 1099.0}, {"a": 2.0, "b": 1.0}),  # exponential gains 2**1100 - 1 and 2**1099 - 1
    ({"a": 1.7e308, "b": 0.85e308}, {"a": 2.0, "b": 1.0}),  # linear gains whose sum overflows
])
def test_ndcg_of_huge_grades_is_finite_and_exact_everywhere(grades, ratio_of):
    gain = "exponential" if grades["a"] == 1100.0 else "linear"
    name = "ndcg_exp" if gain == "exponential" else "ndcg"
    ranking = ["b", "x", "a"]
    expected = fn.ndcg(ranking, ratio_of)  # gains in the same ratio 2 : 1 give the same nDCG
    assert fn.ndcg(ranking, grades, gain=gain) == pytest.approx(expected, rel=1e-12)
    report = evaluate({"q": grades}, {"q": ranking}, [name])
    assert report.per_query["q"][name] == pytest.approx(expected, rel=1e-12)
    by_columns = evaluate_columns(columns({"q": grades}, "grade"),
                                  columns({"q": {"b": 3.0, "x": 2.0, "a": 1.0}}, "score"), [name])
    assert by_columns.per_query == report.per_query
    assert math.isfinite(fn.ndcg_at_k([grades["b"], 0, grades["a"]], gain=gain))


def test_a_dcg_that_overflows_is_an_error_naming_the_query_and_the_grade():
    report = evaluate({"big": {"a": 2000}, "ok": {"a": 1}}, {"big": ["a"], "ok": ["a"]}, ["dcg_exp", "ndcg_exp"])
    assert report.query_ids == ["ok"]
    assert "query 'big'" in report.errors["big"] and "2000" in report.errors["big"]
    with pytest.raises(ValueError, match="query 'big'.*dcg"):
        fn.dcg(["a"], {"a": 2000}, gain="exponential", query_id="big")


# ---------------------------------------------------------------------------------------- arrays and Series
def test_numpy_arrays_and_series_of_ids_are_rankings():
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 1}}
    run = {"q1": np.array(["x", "b", "a"]), "q2": pd.Series(["c", "y"]), "q3": pd.Series({"d": 0.1, "e": 0.9})}
    report = evaluate(qrels, run, ["ap", "ndcg"])
    plain = evaluate(qrels, {"q1": ["x", "b", "a"], "q2": ["c", "y"], "q3": {"d": 0.1, "e": 0.9}}, ["ap", "ndcg"])
    assert report.per_query == plain.per_query
    assert not report.errors


def test_a_two_dimensional_array_is_refused_naming_the_query():
    report = evaluate({"q": {"a": 1}, "ok": {"a": 1}}, {"q": np.array([["a", "b"]]), "ok": ["a"]}, ["ap"])
    assert "query 'q'" in report.errors["q"] and "2-D" in report.errors["q"]


# ---------------------------------------------------------------------------------------- huge numbers
def test_a_huge_grade_or_score_is_that_querys_error_and_the_rest_are_scored():
    qrels = {"grade": {"a": 10**400}, "score": {"a": 1}, "ok": {"a": 1}}
    run = {"grade": ["a"], "score": {"a": 10**400, "b": 1}, "ok": ["a"]}
    report = evaluate(qrels, run, ["ndcg"])
    assert report.query_ids == ["ok"]
    assert "query 'grade'" in report.errors["grade"] and "qrels['a']" in report.errors["grade"]
    assert "query 'score'" in report.errors["score"] and "run['a']" in report.errors["score"]
    by_columns = evaluate_columns(
        {"query_id": ["grade", "score", "ok"], "doc_id": ["a", "a", "a"], "grade": [10**400, 1, 1]},
        {"query_id": ["grade", "score", "ok"], "doc_id": ["a", "a", "a"], "score": [1, 10**400, 1]},
        ["ndcg"],
    )
    assert by_columns.query_ids == ["ok"]
    assert set(by_columns.errors) == {"grade", "score"}
    assert "run['a']" in by_columns.errors["score"] and "qrels['a']" in by_columns.errors["grade"]


def test_a_huge_cutoff_is_an_error_naming_k():
    with pytest.raises(ValueError, match="k must be at most"):
        evaluate({"q": {"a": 1}}, {"q": ["a"]}, [f"ndcg@{10**400}"])
    with pytest.raises(ValueError, match="k must be at most"):
        fn.precision(["a"], ["a"], k=10**400)


# ---------------------------------------------------------------------------------------- column shapes, metrics=None
@pytest.mark.parametrize("column, value, shape", [
    ("query_id", np.array([["q", "q"]]), "2-D"),
    ("query_id", "q", "scalar"),
    ("score", 0.5, "scalar"),
])
def test_columns_that_are_not_one_dimensional_are_refused_by_name(column, value, shape):
    run = {"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [0.5, 0.2]}
    run[column] = value
    with pytest.raises(ValueError, match=f"the {column} column must be 1-D.*{shape}"):
        evaluate_columns({"query_id": ["q"], "doc_id": ["a"], "grade": [1]}, run, ["ap"])


def test_metrics_none_is_named_in_every_entry_point():
    with pytest.raises(TypeError, match="metrics is None"):
        evaluate({"q": {"a": 1}}, {"q": ["a"]}, None)
    with pytest.raises(TypeError, match="metrics is None"):
        evaluate_columns({"query_id": ["q"], "doc_id": ["a"], "grade": [1]},
                         {"query_id": ["q"], "doc_id": ["a"], "score": [1.0]}, None)
    from rag_eval_adapters.langchain import RetrievalMetricsEvaluator
    from rag_eval_adapters.llamaindex import metrics_from_names

    with pytest.raises(TypeError, match="metrics is None"):
        RetrievalMetricsEvaluator(None)
    with pytest.raises(TypeError, match="is None"):
        metrics_from_names(None)


# ---------------------------------------------------------------------------------------- ties cost a sort
class CountedId(str):
    """A doc id that counts how often it is compared: the cost of breaking ties, measured without a clock."""

    comparisons = 0

    def __lt__(self, other):
        CountedId.comparisons += 1
        return str.__lt__(self, other)

    def __gt__(self, other):
        CountedId.comparisons += 1
        return str.__gt__(self, other)

    __hash__ = str.__hash__


@pytest.mark.parametrize("front_door", ["dict", "columns"])
def test_breaking_ties_costs_a_sort_not_a_scan_per_judged_document(front_door):
    n = 2000  # every document tied and judged: a scan per judged document costs n * n = 4,000,000 comparisons
    ids = [CountedId(f"d{i:05d}") for i in range(n)]
    qrels = {"q": {d: 1 for d in ids}}
    run = {"q": {d: 0.5 for d in ids}}
    CountedId.comparisons = 0
    if front_door == "dict":
        report = evaluate(qrels, run, ["ap", "precision@10"])
    else:
        as_objects = {"query_id": ["q"] * n, "doc_id": np.array(ids, dtype=object)}  # keep the CountedId objects
        report = evaluate_columns({**as_objects, "grade": np.ones(n)}, {**as_objects, "score": np.full(n, 0.5)},
                                  ["ap", "precision@10"])
    assert report.per_query["q"] == {"ap": 1.0, "precision@10": 1.0}
    assert CountedId.comparisons < 30 * n * math.log2(n)  # a sort and a binary search per document


# ---------------------------------------------------------------------------------------- details and text truth
def test_query_details_rank_as_evaluate_does():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {"d": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9, "z": 0.5}, "q2": ["x", "c", "c"]}
    assert query_details(qrels, run) == {
        "q1": {"relevant": 1, "retrieved": 3, "first_relevant_rank": 3},  # b 0.9, z 0.5, a 0.5 (id descending)
        "q2": {"relevant": 1, "retrieved": 2, "first_relevant_rank": 2},
        "q3": {"relevant": 1, "retrieved": 0, "first_relevant_rank": None},
    }
    mrr = evaluate(qrels, run, ["mrr"]).per_query
    for qid, detail in query_details(qrels, run).items():
        rank = detail["first_relevant_rank"]
        assert mrr[qid]["mrr"] == (0.0 if rank is None else 1 / rank)


def test_evaluate_scores_text_ground_truth_as_the_adapters_do():
    from rag_eval_adapters.matching import score_texts

    qrels = {"q1": ["capital of France", "Eiffel Tower"], "q2": {"red planet": 2}, "q3": ["x"]}
    run = {"q1": ["Berlin is big.", "Paris is the capital of France.", "the capital of france, again"],
           "q2": ["Mars is the red planet."], "q3": ["", "y"]}
    metrics = ["mrr", "recall", "f1@2", "hit_rate_granular", "ndcg", "precision@2", "ap"]
    report = evaluate(qrels, run, metrics, match="text")
    assert report.per_query["q1"]["mrr"] == 0.5
    assert report.per_query["q1"]["recall"] == 0.5  # one expected text of two is matched
    assert report.per_query["q3"]["mrr"] == 0.0
    for qid, wanted in qrels.items():
        grades = dict(wanted) if isinstance(wanted, dict) else None
        for metric in metrics:
            assert report.per_query[qid][metric] == score_texts(metric, run[qid], list(wanted), grades=grades)


def test_text_ground_truth_errors_name_the_query():
    report = evaluate({"q": ["a"], "ok": ["b"]}, {"q": ["text", 3], "ok": ["b"]}, ["mrr"], match="text")
    assert report.query_ids == ["ok"] and "query 'q'" in report.errors["q"]
    with pytest.raises(ValueError, match="match must be"):
        evaluate({"q": ["a"]}, {"q": ["a"]}, ["mrr"], match="texts")


def test_the_langchain_evaluators_take_expected_texts():
    from langchain_core.documents import Document

    from rag_eval_adapters.langchain import RecallEvaluator, RetrievalMetricsEvaluator
    from rag_eval_adapters.matching import score_texts

    docs = [Document(page_content="Berlin is in Germany."), Document(page_content="Paris is the capital of France.")]
    wanted = ["capital of France", "Rome"]
    results = RetrievalMetricsEvaluator(["mrr", "recall", "f1", "ndcg@5"])(
        outputs={"documents": docs}, reference_outputs={"expected_texts": wanted})
    texts = [d.page_content for d in docs]
    assert {r["key"]: r["score"] for r in results} == {
        m: score_texts(m, texts, wanted) for m in ["mrr", "recall", "f1", "ndcg@5"]}
    assert results[0]["score"] == 0.5 and results[1]["score"] == 0.5
    graded = RecallEvaluator(k=1)(outputs=docs, reference_outputs={"expected_texts": {"capital of France": 2}})
    assert graded["score"] == 0.0  # the match is at rank 2, beyond k=1
    with pytest.raises(TypeError, match="no text"):
        RecallEvaluator()(outputs={"documents": [3]}, reference_outputs={"expected_texts": ["x"]})


def test_the_llamaindex_metrics_score_texts_by_the_core_rule():
    from rag_eval_adapters.llamaindex import F1, MRR, Recall
    from rag_eval_adapters.matching import score_texts

    texts = ["Berlin is in Germany.", "Paris is the capital of France.", "Paris again: capital of France"]
    wanted = ["capital of France", "Rome"]
    for adapter, name in ((MRR(), "mrr"), (Recall(top_k=2), "recall@2"), (F1(top_k=2), "f1@2")):
        got = adapter.compute(expected_texts=wanted, retrieved_texts=texts).score
        assert got == score_texts(name, texts, wanted)

