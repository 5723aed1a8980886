"""One answer record and one reader for every answer path; judged metrics as registry metrics (issue 29);
ids colliding as text, the self-preference warning with a provider prefix (issue 30 items 5, 14)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

pytest.importorskip("openai")

from rag_eval_adapters.answers import ANSWER_METRICS, evaluate_answers, parse_answer_metric, read_records
from rag_eval_adapters.cli import main
from rag_eval_adapters.intervals import report_intervals
from rag_eval_adapters.judges import JUDGED_ANSWER_METRICS, LLMJudge, judge_answers, self_preference_warning
from rag_eval_adapters.testsets import OpenAICompatibleLLM

RECORD = {"query_id": "q1", "question": "What is Paris?", "answer": "Paris is the capital of France.",
          "ground_truth": "Paris is the capital of France.", "retrieved_contexts": ["Paris is the capital of France."]}


def judge(server):
    return LLMJudge(OpenAICompatibleLLM("judge-model", base_url=server.base_url, api_key=server.api_key),
                    retry_base_delay=0.0)


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_one_reader_reads_every_field_under_each_of_its_names():
    [(qid, attributes, record)] = read_records([{**RECORD, "query_type": "fact", "answerable": True,
                                                 "conversation": [{"speaker": "user", "text": "Hi"},
                                                                  {"role": "assistant", "content": "Hello"}]}])
    assert qid == "q1" and attributes == {"query_type": "fact", "answerable": True}
    assert record.prediction == RECORD["answer"] and record.references == [RECORD["ground_truth"]]
    assert record.question == "What is Paris?" and record.contexts == [("1", "Paris is the capital of France.")]
    assert record.conversation == (("user", "Hi"), ("agent", "Hello")) and record.answerable is True


def test_a_conversation_alternates_user_and_agent_turns():
    turns = [{"speaker": "user", "text": "Hi"}, {"speaker": "user", "text": "Hello?"}]
    report = evaluate_answers([{**RECORD, "conversation": turns}, {**RECORD, "query_id": "q2"}], ["token_f1"])
    assert report.errors["q1"] == ("query 'q1': conversation[1] is a second user turn in a row; the turns alternate "
                                   "user and agent")


def test_one_field_under_two_names_with_different_values_is_the_same_error_everywhere(judge_server):
    bad = {**RECORD, "prediction": "Lyon"}
    lexical = evaluate_answers([bad, {**RECORD, "query_id": "q2"}], ["token_f1"])
    judged = judge_answers([bad, {**RECORD, "query_id": "q2"}], ["faithfulness"], judge(judge_server))
    message = "query 'q1': 'answer' and 'prediction' are two names of one field with different values"
    assert lexical.errors["q1"].startswith(message) and judged.errors["q1"] == lexical.errors["q1"]
    assert lexical.query_ids == judged.query_ids == ["q2"]


def test_ids_equal_as_text_are_refused_naming_both_records(judge_server, tmp_path, monkeypatch):
    records = [{**RECORD, "query_id": 1}, {**RECORD, "query_id": "1"}]
    with pytest.raises(ValueError, match="record 1: query_id '1' and record 0's query_id 1 are the same id"):
        evaluate_answers(records, ["token_f1"])
    with pytest.raises(ValueError, match="record 1: query_id '1' and record 0's query_id 1"):
        judge_answers(records, ["faithfulness"], judge(judge_server))
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    code, out, err = cli("judge", "--input", str(path), "--judge-model", "m", "--judge-base-url",
                         judge_server.base_url)
    assert code != 0 and f"{path}:2: query_id '1' and {path}:1's query_id 1 are the same id" in err
    assert judge_server.chat_requests == []  # refused before any paid call


def test_judged_metrics_are_registry_metrics_with_variants_fields_and_bounds():
    judged = {name for name, cls in ANSWER_METRICS.items() if cls.needs_judge}
    assert judged == {"faithfulness", "answer_correctness", "context_relevance"}
    metric = parse_answer_metric("answer_correctness_recall")
    assert metric.key == "answer_correctness_recall" and metric.bounded and "references" in metric.reads
    assert set(JUDGED_ANSWER_METRICS) == {"faithfulness", "answer_correctness", "answer_correctness_precision",
                                          "answer_correctness_recall", "context_relevance"}


def test_every_interval_of_a_judged_mean_stays_in_the_unit_interval(judge_server):
    # 3 of 4 answers fully supported, one not at all: the t interval of the mean would pass 1 unbounded
    records = [{**RECORD, "query_id": f"q{i}"} for i in range(3)]
    records.append({**RECORD, "query_id": "q3", "answer": "Lyon is a big city.", "ground_truth": "Paris."})
    report = evaluate_answers(records, ["faithfulness", "answer_correctness"], judge=judge(judge_server))
    assert report.mean["faithfulness"] == 0.75
    for iv in report_intervals(report).values():
        assert 0.0 <= iv.low <= iv.high <= 1.0
    assert report_intervals(report)["faithfulness"].high == 1.0  # cut at the bound


def test_one_loop_scores_lexical_and_judged_metrics_into_one_report_without_joining(judge_server):
    report = evaluate_answers([RECORD], ["exact_match", "faithfulness", "answer_correctness_precision"],
                              judge=judge(judge_server))
    assert report.keys == ["exact_match", "faithfulness", "answer_correctness_precision"]
    assert np.array_equal(report.values, [[1.0, 1.0, 1.0]])
    assert [type(m).__name__ for m in report.metrics] == ["ExactMatch", "Faithfulness", "AnswerCorrectness"]


def test_rag_eval_answers_takes_judged_metrics_with_judge_model(judge_server, tmp_path, monkeypatch):
    path = tmp_path / "both.jsonl"
    path.write_text(json.dumps({**RECORD, "prediction": RECORD["answer"]}) + "\n", encoding="utf-8")
    code, _, err = cli("answers", "--predictions", str(path), "-m", "faithfulness")
    assert code != 0 and "faithfulness need a judge: give --judge-model" in err
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    code, out, err = cli("answers", "--predictions", str(path), "-m", "token_f1,faithfulness", "--judge-model",
                         "judge-model", "--judge-base-url", judge_server.base_url, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["mean"] == {"token_f1": 1.0, "faithfulness": 1.0}
    assert data["info"]["abstained"]["count"] == 0


def test_rag_eval_answers_says_what_judging_costs_before_it_sends_and_stops_at_max_calls(judge_server, tmp_path,
                                                                                       monkeypatch):
    path = tmp_path / "both.jsonl"
    path.write_text("".join(json.dumps({**RECORD, "query_id": f"q{i}", "prediction": RECORD["answer"]}) + "\n"
                            for i in range(3)), encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    args = ("answers", "--predictions", str(path), "-m", "faithfulness", "--judge-model", "judge-model",
            "--judge-base-url", judge_server.base_url, "--format", "json")
    before = len(judge_server.chat_requests)
    code, _, err = cli(*args, "--max-calls", "1")
    assert code == 2 and "--max-calls: stopped" in err, err
    said = [line for line in err.splitlines() if " expects " in line]
    assert said and said[0].startswith("rag-eval: judge ") and "(faithfulness, 3 items) expects" in said[0], err
    assert err.index(said[0]) < err.index("--max-calls: stopped")
    assert len(judge_server.chat_requests) - before == 1  # said before sending; the limit allowed one call


@pytest.mark.parametrize(("judge_model", "answer_model"), [("openai:gpt-4o-mini", "gpt-4o-mini"),
                                                           ("gpt-4o-mini", "openai:gpt-4o-mini-2024-07-18"),
                                                           ("openai/gpt-4o", "OpenAI:GPT-4o")])
def test_the_self_preference_warning_ignores_provider_prefixes(judge_model, answer_model):
    assert self_preference_warning(judge_model, answer_model) is not None
    assert self_preference_warning(judge_model, "claude-3-haiku") is None
