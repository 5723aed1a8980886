"""The retrieval evaluators' options are declared once (EvaluatorOptions) and mean the same in both classes."""

from __future__ import annotations

import pytest

from rag_eval_adapters.langchain import HitRateEvaluator, RetrievalMetricEvaluator, RetrievalMetricsEvaluator
from rag_eval_adapters.langchain.evaluators import EvaluatorOptions


def _id(document):
    return document


def _same(retrieved: str, expected: str) -> bool:
    return retrieved == expected


OTHER_THAN_DEFAULT = {"reference_key": "ids", "documents_key": "docs", "id_key": "doc_id", "id_fn": _id,
                      "relevance_level": 2, "text_key": "texts", "matcher": _same}


def test_every_declared_option_is_taken_kept_and_shown_by_every_evaluator_class():
    assert list(EvaluatorOptions.__annotations__) == list(OTHER_THAN_DEFAULT)
    for make in (lambda **o: RetrievalMetricEvaluator("mrr", **o), lambda **o: RetrievalMetricsEvaluator(["mrr"], **o),
                 lambda **o: HitRateEvaluator(3, **o)):
        for name, value in OTHER_THAN_DEFAULT.items():
            evaluator = make(**{name: value})
            assert getattr(evaluator, name) == value
            assert f"{name}={value!r}" in repr(evaluator)
        assert "=" not in repr(make()).replace("key=", "")  # defaults are not shown


def test_the_options_are_checked_and_an_unknown_one_is_refused_by_both_classes():
    scored = RetrievalMetricsEvaluator(["mrr", "hit_rate@1"], reference_key="ids", documents_key="docs")(
        outputs={"docs": ["d2", "d1"]}, reference_outputs={"ids": ["d1"]})
    assert [(r["key"], r["score"]) for r in scored] == [("mrr", 0.5), ("hit_rate@1", 0.0)]
    assert RetrievalMetricEvaluator("mrr", reference_key="ids")(
        outputs={"documents": ["d1"]}, reference_outputs={"ids": ["d1"]})["score"] == 1.0
    for make in (RetrievalMetricEvaluator, RetrievalMetricsEvaluator):
        with pytest.raises(TypeError, match="id_fn must be a callable"):
            make("mrr", id_fn="doc_id")
        with pytest.raises(TypeError, match="unexpected keyword argument 'referance_key'"):
            make("mrr", referance_key="ids")
