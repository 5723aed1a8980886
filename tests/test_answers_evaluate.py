"""evaluate_answers: means, per query, errors per query, attributes for grouping; metric names."""

from __future__ import annotations

import math

import pytest

from rag_eval_adapters import Report
from rag_eval_adapters.answers import (
    ExactMatch,
    Normalization,
    RougeL,
    TokenF1,
    evaluate_answers,
    parse_answer_metrics,
)

RECORDS = [
    {"query_id": "q1", "prediction": "The Eiffel Tower.", "reference": "Eiffel Tower", "query_type": "fact"},
    {"query_id": "q2", "prediction": "in Paris, France", "references": ["Paris", "Lyon"], "query_type": "fact"},
    {"query_id": "q3", "prediction": "Столица России — Москва", "reference": "Москва", "query_type": "how"},
]


def test_means_per_query_and_attributes():
    report = evaluate_answers(RECORDS, ["em", "token_f1", "rouge_l"])
    assert isinstance(report, Report)
    assert report.keys == ["exact_match", "token_f1", "rouge_l"]
    assert report.per_query["q1"] == {"exact_match": 1.0, "token_f1": 1.0, "rouge_l": pytest.approx(0.8)}  # "the" kept by ROUGE
    assert report.per_query["q2"]["token_f1"] == pytest.approx(0.5)
    assert report.per_query["q3"]["token_f1"] == pytest.approx(0.5)
    assert report.mean["exact_match"] == pytest.approx(1 / 3)
    assert report.mean["token_f1"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert report.attributes["q1"] == {"query_type": "fact"}
    grouped = report.by("query_type", n_bootstrap=50)
    assert grouped.mean("token_f1") == {"fact": pytest.approx(0.75), "how": pytest.approx(0.5), "all": pytest.approx(2 / 3)}


def test_a_bad_record_is_recorded_with_its_field_and_the_rest_are_scored():
    records = RECORDS + [
        {"query_id": "q4", "prediction": None, "reference": "x", "query_type": "how"},
        {"query_id": "q5", "prediction": "x"},
        {"query_id": "q6", "prediction": "x", "references": []},
        {"query_id": "q7", "prediction": "x", "reference": "x", "references": ["x"]},
    ]
    report = evaluate_answers(records, ["em", "token_f1"])
    assert report.query_ids == ["q1", "q2", "q3"]
    assert list(report.errors) == ["q4", "q5", "q6", "q7"]
    assert "prediction must be a string" in report.errors["q4"]
    assert "no 'references' field (nor 'reference', 'ground_truth', 'expected')" in report.errors["q5"]
    assert "references is empty" in report.errors["q6"]
    assert "either 'reference' or 'references'" in report.errors["q7"]
    assert report.counts == {"queries": 7, "scored": 3, "errors": 4}
    assert report.attributes["q4"] == {"query_type": "how"}
    assert all(math.isfinite(v) for v in report.mean.values())


def test_structural_problems_raise():
    with pytest.raises(ValueError, match="record 1 has no query_id"):
        evaluate_answers([RECORDS[0], {"prediction": "x", "reference": "y"}], ["em"])
    with pytest.raises(ValueError, match="'q1' appears twice"):
        evaluate_answers([RECORDS[0], RECORDS[0]], ["em"])
    with pytest.raises(ValueError, match="needs an embedder"):
        evaluate_answers(RECORDS, ["semantic_similarity"])
    with pytest.raises(ValueError, match="no answer could be scored"):
        evaluate_answers([{"query_id": "q", "prediction": 1, "reference": "x"}], ["em"])
    with pytest.raises(ValueError, match="no records"):
        evaluate_answers([], ["em"])
    with pytest.raises(ValueError, match="unknown answer metric 'bleu'"):
        evaluate_answers(RECORDS, ["bleu"])


def test_metric_names_and_objects():
    assert [m.key for m in parse_answer_metrics(["exact_match", "token_f1", "token_precision", "rougeL",
                                                 "rouge-l-stem-recall", "em"])] == [
        "exact_match", "token_f1", "token_precision", "rouge_l", "rouge_l_stem_recall"]
    strict = ExactMatch(normalization=Normalization(articles=()))
    report = evaluate_answers(RECORDS[:1], [strict, TokenF1(part="recall"), RougeL(stem=True, part="precision")])
    assert report.keys == ["exact_match", "token_recall", "rouge_l_stem_precision"]
    assert report.per_query["q1"]["exact_match"] == 0.0  # "the" is kept by this normalisation
    assert repr(RougeL(stem=True)) == "RougeL(stem=True)"
