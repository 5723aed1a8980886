"""``rag-eval judge`` on JSONL answers, against the local server playing a judge."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("openai")

from openai_server import refusal

from rag_eval_adapters.cli import main

LINES = [
    {"question": "What is Paris?", "answer": "Paris is the capital of France.", "contexts": ["Paris is the capital of France."],
     "reference": "Paris is the capital of France.", "query_type": "literal"},
    {"question": "Where is the Louvre?", "answer": "The Louvre is in Paris. It is pink.",
     "contexts": [{"chunk_id": "lv", "text": "The Louvre is in Paris, France."}], "reference": "The Louvre is in Paris.",
     "query_type": "scenario"},
    {"question": "北京是什么？", "answer": "北京是中国的首都。", "contexts": ["北京是中国的首都，也是政治中心。"],
     "reference": "北京是中国的首都。", "query_type": "literal"},
    {"question": "What is the Seine?", "answer": "", "contexts": ["The Seine is a river."], "query_type": "scenario"},
]


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def answers(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in LINES) + "\n", encoding="utf-8")
    return path


def base(server, path, *extra):
    return ("judge", "--input", str(path), "--judge-model", "judge-model", "--judge-base-url", server.base_url, *extra)


def test_judge_scores_groups_and_keeps_details_and_a_rerun_is_free(judge_server, answers, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    details = tmp_path / "details.jsonl"
    code, out, err = cli(*base(judge_server, answers, "-m", "faithfulness,answer_correctness", "--group-by",
                               "query_type", "--format", "json", "--details", str(details)))
    assert code == 0, err
    data = json.loads(out)
    assert data["mean"]["faithfulness"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert data["measured"] == {"faithfulness": 3, "answer_correctness": 3}
    assert data["unmeasured"] == {"faithfulness": {"4": "empty_answer"}, "answer_correctness": {"4": "empty_answer"}}
    assert data["info"]["judge"]["judge_model"] == "judge-model" and "judgments" not in data["info"]
    assert [g["group"] for g in data["groups"]["groups"]] == ["literal", "scenario", "all"]
    lines = [json.loads(line) for line in details.read_text("utf-8").splitlines()]
    assert lines[1]["faithfulness"]["claims"][0]["chunk_id"] == "lv"
    assert lines[2]["faithfulness"]["claims"][0]["quote"] == "北京是中国的首都"
    sent = len(judge_server.chat_requests)
    assert (answers.parent / "answers.jsonl.judge-cache.sqlite").exists()
    code, again, err = cli(*base(judge_server, answers, "-m", "faithfulness,answer_correctness", "--group-by",
                                 "query_type", "--format", "json"))
    assert code == 0 and len(judge_server.chat_requests) == sent and "0 calls" in err
    assert json.loads(again)["mean"] == data["mean"]


def test_the_table_names_the_judge_and_counts_unmeasured(judge_server, answers, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    judge_server.on_prompt("It is pink", refusal())
    code, out, err = cli(*base(judge_server, answers, "--no-cache", "--answer-model", "judge-model"))
    assert code == 0, err
    assert "unmeasured faithfulness: 2 of 4 (empty_answer 1, refusal 1)" in out and "2/4" in out
    assert "judge: judge-model, prompt judges-v1" in out and "self-preference" in out


def test_dry_run_sends_nothing(judge_server, answers):
    code, out, err = cli(*base(judge_server, answers, "--dry-run", "-m", "faithfulness", "-m", "context_relevance",
                               "--price-input", "1", "--price-output", "2", "--no-cache"))
    assert code == 0, err
    data = json.loads(out)
    assert data["total"]["calls"] == 2 * 3 + 4 and judge_server.chat_requests == []
    assert data["total"]["estimated_cost"] > 0


def test_errors_are_one_line(judge_server, answers, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = cli("judge", "--input", str(answers), "--judge-model", "m")
    assert code == 2 and "no API key" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "x"}\n[1]\n', encoding="utf-8")
    code, _, err = cli(*base(judge_server, bad))
    assert code == 2 and "bad.jsonl:2: expected a JSON object" in err
    code, _, err = cli(*base(judge_server, answers, "-m", "helpfulness"))
    assert code == 2 and "judged metrics are" in err
    assert judge_server.chat_requests == []
