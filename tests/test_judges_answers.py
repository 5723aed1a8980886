"""Judged metrics beside the lexical ones: evaluate_answers(judge=...), judge_answers and their reports."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("openai")

from openai_server import refusal

from rag_eval_adapters import Report
from rag_eval_adapters.answers import evaluate_answers
from rag_eval_adapters.judges import LLMJudge, judge_answers
from rag_eval_adapters.reports import render_evaluation, render_groups
from rag_eval_adapters.testsets import OpenAICompatibleLLM

RECORDS = [
    {"query_id": "q1", "question": "What is Paris?", "prediction": "Paris is the capital of France.",
     "reference": "Paris is the capital of France.", "contexts": ["Paris is the capital of France."],
     "query_type": "literal"},
    {"query_id": "q2", "question": "Where is the Louvre?", "prediction": "The Louvre is in Paris. It is pink.",
     "reference": "The Louvre is in Paris.", "contexts": ["The Louvre is in Paris, France."], "query_type": "scenario"},
    {"query_id": "q3", "question": "What is the Seine?", "prediction": "I don't know.",
     "reference": "The Seine is a river.", "contexts": ["The Seine is a river in France."], "query_type": "scenario"},
    {"query_id": "q4", "question": "Что такое Москва?", "prediction": "Москва является столицей России.",
     "reference": "Москва является столицей России.", "contexts": ["Москва является столицей России."],
     "query_type": "literal"},
]


def judge(server, **kwargs):
    llm = OpenAICompatibleLLM("judge-model", base_url=server.base_url, api_key=server.api_key)
    return LLMJudge(llm, retry_base_delay=0.0, **kwargs)


def test_judged_and_lexical_metrics_in_one_report_with_groups(judge_server):
    report = evaluate_answers(RECORDS, ["token_f1", "faithfulness", "answer_correctness"], judge=judge(judge_server))
    assert report.keys == ["token_f1", "faithfulness", "answer_correctness"]
    # q3 abstains ("I don't know."): faithfulness unmeasured, correctness 0 against its reference, counted
    assert report.unmeasured == {"faithfulness": {"q3": "no_claims"}}
    assert report.measured == {"token_f1": 4, "faithfulness": 3, "answer_correctness": 4}
    assert report.mean["faithfulness"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert report.mean["answer_correctness"] == pytest.approx((1 + 2 / 3 + 0 + 1) / 4)
    assert report.info["abstained"] == {"count": 1, "rate": 0.25, "query_ids": ["q3"]}
    assert report.per_query["q3"] == {"token_f1": 0.0, "answer_correctness": 0.0}
    assert not any(math.isnan(v) for v in report.mean.values())
    groups = report.by("query_type")
    assert groups.mean("faithfulness") == {"literal": 1.0, "scenario": 0.5, "all": pytest.approx(2.5 / 3)}
    assert groups["scenario"].measured == {"token_f1": 2, "faithfulness": 1, "answer_correctness": 2}
    assert report.info["judge"]["judge_model"] == "judge-model" and report.info["judge"]["prompt_version"]
    claims = report.info["judgments"]["faithfulness"]["q2"]["claims"]
    assert [c["verdict"] for c in claims] == ["supported", "not_found"] and claims[0]["quote"] == "The Louvre is in Paris"
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))  # never NaN anywhere
    assert data["unmeasured"]["faithfulness"] == {"q3": "no_claims"} and data["measured"]["faithfulness"] == 3


def test_renderers_show_the_count_beside_each_mean_the_reasons_and_the_judge(judge_server):
    report = evaluate_answers(RECORDS, ["exact_match", "faithfulness"], judge=judge(judge_server), answer_model="judge-model")
    table = render_evaluation(report)
    assert "3/4" in table and "4/4" in table and "unmeasured faithfulness: 1 of 4 (no_claims 1)" in table
    assert "judge: judge-model, prompt judges-v1" in table and "self-preference" in table
    markdown = render_evaluation(report, "markdown")
    assert "| faithfulness | 0.8333 | 3/4 |" in markdown
    csv_lines = render_evaluation(report, "csv", per_query=True).splitlines()
    assert csv_lines[1].startswith("all,") and csv_lines[2] == "measured,4,3"
    assert "q3,0.0," in render_evaluation(report, "csv", per_query=True)  # the unmeasured cell is empty
    assert json.loads(render_evaluation(report, "json"))["unmeasured"] == {"faithfulness": {"q3": "no_claims"}}
    assert "(n=1)" in render_groups(report.by("query_type"))


def test_judged_metrics_alone_need_no_reference_and_one_failure_never_aborts(judge_server):
    judge_server.on_prompt("It is pink", refusal())
    records = [{k: v for k, v in r.items() if k != "reference"} for r in RECORDS]
    report = judge_answers(records, ["faithfulness", "context_relevance"], judge(judge_server))
    assert report.unmeasured["faithfulness"] == {"q2": "refusal", "q3": "no_claims"}
    assert report.measured == {"faithfulness": 2, "context_relevance": 4}
    assert report.info["usage"]["calls"] == len(judge_server.chat_requests)
    assert report.attributes["q1"] == {"query_type": "literal"}  # contexts and texts are not attributes


def test_correctness_precision_and_recall_come_from_one_judging(judge_server):
    j = judge(judge_server)
    report = judge_answers(RECORDS[1:2], ["answer_correctness", "answer_correctness_precision",
                                          "answer_correctness_recall"], j)
    assert report.per_query["q2"] == {"answer_correctness": pytest.approx(2 / 3), "answer_correctness_precision": 0.5,
                                      "answer_correctness_recall": 1.0}
    assert j.usage.calls == 4


def test_a_judged_metric_without_a_judge_or_with_bad_records_is_refused(judge_server):
    with pytest.raises(ValueError, match="need a judge"):
        evaluate_answers(RECORDS, ["faithfulness"])
    with pytest.raises(ValueError, match="judged metrics are"):
        judge_answers(RECORDS, ["helpfulness"], judge(judge_server))
    with pytest.raises(ValueError, match="no answer could be scored.*query '1': answer must be a string"):
        judge_answers([{"answer": 5, "contexts": ["x"]}], ["faithfulness"], judge(judge_server))
    assert judge_server.chat_requests == []


def test_a_report_with_unmeasured_cells_checks_them():
    report = Report(["m", "n"], ["a", "b"], np.ones((2, 2)), unmeasured={"m": {"b": "refusal"}})
    assert report.mean == {"m": 1.0, "n": 1.0} and report.measured == {"m": 1, "n": 2}
    everything = Report(["m"], ["a"], [[0.5]], unmeasured={"m": {"a": "call_failed"}})
    assert everything.mean == {} and everything.measured == {"m": 0}
    with pytest.raises(ValueError, match="does not hold"):
        Report(["m"], ["a"], [[1.0]], unmeasured={"x": {"a": "refusal"}})
    with pytest.raises(ValueError, match="not scored rows"):
        Report(["m"], ["a"], [[1.0]], unmeasured={"m": {"zz": "refusal"}})


def test_compare_refuses_reports_with_unmeasured_cells_instead_of_a_nan_test():
    from rag_eval_adapters.compare import compare_reports

    one = Report(["faithfulness"], ["a", "b", "c"], [[1.0], [0.5], [0.0]], unmeasured={"faithfulness": {"c": "refusal"}})
    two = Report(["faithfulness"], ["a", "b", "c"], [[1.0], [1.0], [0.5]])
    with pytest.raises(ValueError, match="run 'one': faithfulness has 1 unmeasured queries \\(refusal"):
        compare_reports({"one": one, "two": two})
