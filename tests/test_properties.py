"""Properties that hold for any input: every value finite and in [0, 1] (DCG aside), every front door agreeing.

Scores are any floats but NaN (ties and +-inf included), grades any finite floats (huge ones included: 2**1100
gains, linear gains summing past 1.8e308). Example counts are modest to keep CI quick.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_eval_adapters import evaluate, evaluate_columns
from rag_eval_adapters.measures import parse_metric

BOUNDED = ["hit_rate", "hit_rate@2", "hit_rate_granular@3", "mrr", "mrr_granular@2", "precision", "precision@3",
           "recall@2", "recall", "f1@3", "ap", "ap@3", "r_precision", "ndcg", "ndcg@3", "ndcg_exp", "ndcg_exp@2"]
DCG = ["dcg", "dcg@3", "dcg_exp@2"]
PROFILE = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

ids = st.sampled_from([f"d{i}" for i in range(8)])
scores = st.one_of(st.floats(allow_nan=False), st.sampled_from([math.inf, -math.inf, 0.0, -0.0, 1.0, 0.5]))
grades = st.one_of(
    st.integers(-2, 4).map(float),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1023.0, 1024.0, 1100.0, 1.7e308, 8.9e307]),
)
judgments = st.dictionaries(ids, grades, min_size=1, max_size=6)
rankings = st.dictionaries(ids, scores, max_size=8)
batches = st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]), st.tuples(judgments, rankings), min_size=1)
levels = st.sampled_from([1, 2, 0.5])


def in_unit_interval(values) -> bool:
    values = np.asarray(values, dtype=np.float64)
    return bool(np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all())


@PROFILE
@given(judged=judgments, run=rankings, level=levels)
def test_per_query_values_are_finite_and_in_the_unit_interval(judged, run, level):
    for name in BOUNDED:
        value = parse_metric(name).score(run, judged, relevance_level=level, query_id="q")
        assert in_unit_interval([value]), (name, value)
    for name in DCG:
        try:
            value = parse_metric(name).score(run, judged, query_id="q")
        except ValueError as exc:
            assert "query 'q'" in str(exc)  # a DCG beyond float64 is an error naming the query
        else:
            assert math.isfinite(value) and value >= 0


def columns_of(batch, which, name):
    rows = [(q, d, v) for q, pair in batch.items() for d, v in pair[which].items()]
    return {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], name: [r[2] for r in rows]}


@PROFILE
@given(batch=batches, level=levels)
def test_evaluate_and_evaluate_columns_agree_value_for_value(batch, level):
    qrels = {q: pair[0] for q, pair in batch.items()}
    run = {q: pair[1] for q, pair in batch.items() if pair[1]}
    if not run:
        return  # evaluate_columns has no row to read a run from
    metrics = BOUNDED + DCG
    try:
        by_dict = evaluate(qrels, run, metrics, relevance_level=level)
    except ValueError as exc:  # every query's DCG overflowed: the same error from both
        with pytest.raises(ValueError) as raised:
            evaluate_columns(columns_of(batch, 0, "grade"), columns_of(batch, 1, "score"), metrics,
                             relevance_level=level)
        assert str(raised.value) == str(exc)
        return
    by_columns = evaluate_columns(columns_of(batch, 0, "grade"), columns_of(batch, 1, "score"), metrics,
                                  relevance_level=level)
    assert by_columns.errors == by_dict.errors
    assert by_columns.query_ids == by_dict.query_ids
    assert set(by_columns.errors) == set(by_dict.errors)
    np.testing.assert_array_equal(by_columns.values, by_dict.values)
    bounded = [by_dict.keys.index(parse_metric(m).key) for m in BOUNDED]
    assert in_unit_interval(by_dict.values[:, bounded])
    assert np.isfinite(by_dict.values).all()
    for qid in by_dict.query_ids:  # and each row is the per-query value
        for name in ("ap", "ndcg_exp@2", "mrr"):
            assert by_dict.per_query[qid][parse_metric(name).key] == pytest.approx(
                parse_metric(name).score(run.get(qid, []), qrels[qid], relevance_level=level), abs=1e-12)


@PROFILE
@given(batch=batches)
def test_evaluate_reports_only_finite_values(batch):
    qrels = {q: pair[0] for q, pair in batch.items()}
    run = {q: pair[1] for q, pair in batch.items()}
    report = evaluate(qrels, run, BOUNDED)
    assert not report.errors
    assert in_unit_interval(report.values)


@settings(PROFILE, max_examples=25)
@given(judged=judgments, run=rankings, level=levels)
def test_the_llamaindex_metrics_are_finite_and_equal_the_core(judged, run, level):
    from rag_eval_adapters.llamaindex import metrics_from_names

    ranking = list(run)  # the adapters take ranked lists
    for metric, name in zip(metrics_from_names(BOUNDED, relevance_level=level), BOUNDED, strict=False):
        result = metric.compute(expected_ids=list(judged), retrieved_ids=ranking, expected_relevance=judged)
        assert in_unit_interval([result.score])
        assert result.score == parse_metric(name).score(ranking, judged, relevance_level=level)


@PROFILE
@given(judged=judgments, run=rankings, level=levels)
def test_the_langchain_evaluators_are_finite_and_equal_the_core(judged, run, level):
    from rag_eval_adapters.langchain import RetrievalMetricsEvaluator

    ranking = list(run)
    results = RetrievalMetricsEvaluator(BOUNDED, relevance_level=level)(
        outputs=ranking, reference_outputs={"expected_ids": judged})
    for result, name in zip(results, BOUNDED, strict=False):
        assert in_unit_interval([result["score"]])
        assert result["score"] == parse_metric(name).score(ranking, judged, relevance_level=level)
