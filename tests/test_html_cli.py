"""``-o report.html`` (or ``--format html``) of ``rag-eval evaluate``, ``compare`` and ``answers``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from cli_support import (  # noqa: E402
    TINY_QRELS,
    paired_collection,
    run_cli,
    tiny_files,
    write_jsonl,
    write_trec_qrels,
    write_trec_run,
)
from html_pages import embedded  # noqa: E402


def test_evaluate_writes_a_page_from_the_html_extension(tmp_path):
    qrels, run = tiny_files(tmp_path)
    out = tmp_path / "report.html"
    code, stdout, stderr = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndcg@2,ndcg@4,recall@2,recall@4",
                                   "-o", out, "--allow-errors")
    assert code == 0, stderr
    assert stdout == "" and f"wrote {out}" in stderr
    data = embedded(out.read_text(encoding="utf-8"))
    assert [c["name"] for c in data["configurations"]] == ["tiny.run"]
    assert data["families"] == ["ndcg", "recall"] and data["ks"] == [2, 4]
    ids = data["chunks"]["ids"]
    q1 = [q["id"] for q in data["questions"]].index("q1")
    assert [(ids[e[0]], e[2]) for e in data["retrieved"][0][q1]] == [("d3", 0), ("d1", 1), ("d4", 0), ("d2", 2)]
    assert {q["id"] for q in data["questions"]} == set(TINY_QRELS)


def test_evaluate_with_ci_shows_the_interval_of_each_mean_on_the_page(tmp_path):
    qrels, _, bad = paired_collection(12, 10)
    paths = [write_trec_qrels(tmp_path / "q.qrels", qrels), write_trec_run(tmp_path / "bad.run", bad)]
    out = tmp_path / "report.html"
    code, _, stderr = run_cli("evaluate", "--qrels", paths[0], "--run", paths[1], "-m", "ndcg@5,mrr", "--ci", "t",
                              "--confidence", "0.9", "-o", out)
    assert code == 0, stderr
    data = embedded(out.read_text(encoding="utf-8"))
    shown = data["configurations"][0]
    assert sorted(shown["intervals"]) == ["mrr", "ndcg@5"] and "t 90% interval" in data["interval_note"]
    assert all(low < shown["mean"][m] < high for m, (low, high) in shown["intervals"].items())


def test_compare_page_holds_every_paired_test(tmp_path):
    qrels, good, bad = paired_collection(12, 10)
    paths = [write_trec_qrels(tmp_path / "q.qrels", qrels), write_trec_run(tmp_path / "good.run", good),
             write_trec_run(tmp_path / "bad.run", bad)]
    code, stdout, stderr = run_cli("compare", "--qrels", paths[0], "--run", paths[1], "--run", paths[2],
                                   "-m", "ndcg@5", "-m", "mrr", "--permutations", "200", "--bootstrap", "200",
                                   "--format", "html")
    assert code == 0, stderr
    assert stdout.startswith("<!DOCTYPE html>")
    data = embedded(stdout)
    assert [c["name"] for c in data["configurations"]] == ["good.run", "bad.run"]
    assert [(t["metric"], t["a"], t["b"]) for t in data["tests"]] == [("ndcg@5", "good.run", "bad.run"),
                                                                       ("mrr", "good.run", "bad.run")]
    assert all(t["difference"] < 0 for t in data["tests"])
    assert len(data["retrieved"]) == 2 and len(data["questions"]) == 12


def test_answers_page_shows_each_answer_with_its_scores_and_claims(tmp_path):
    claim = {"text": "It is in Paris.", "verdict": "supported", "quote": "Paris", "chunk_id": "c1", "start": 0,
             "end": 5}
    records = write_jsonl(tmp_path / "answers.jsonl", [
        {"query_id": "q1", "query": "where is the Eiffel Tower", "prediction": "Paris.", "reference": "Paris",
         "query_type": "fact", "topic": "landmark", "claims": [claim]},
        {"query_id": "q2", "query": "what is the capital of Italy", "prediction": "Milan", "reference": "Rome",
         "query_type": "fact", "topic": "capital"}])
    out = tmp_path / "answers.html"
    code, _, stderr = run_cli("answers", "--predictions", records, "-m", "exact_match,token_f1", "-o", out)
    assert code == 0, stderr
    data = embedded(out.read_text(encoding="utf-8"))
    assert data["query_types"] == {"fact": 2}
    assert data["configurations"][0]["by_type"]["fact"] == {"exact_match": 0.5, "token_f1": 0.5}
    assert [(q["id"], q["text"], q["reference"]) for q in data["questions"]] == [
        ("q1", "where is the Eiffel Tower", "Paris"), ("q2", "what is the capital of Italy", "Rome")]
    assert data["answers"][0][0] == {"text": "Paris.", "scores": {"exact_match": 1.0, "token_f1": 1.0}, "claims": [claim]}
    assert data["answers"][0][1]["scores"] == {"exact_match": 0.0, "token_f1": 0.0}
    code, stdout, stderr = run_cli("answers", "--predictions", records, "-m", "exact_match", "--group-by", "topic",
                                   "--format", "html")
    assert code == 0, stderr
    data = embedded(stdout)
    assert data["query_types"] == {"landmark": 1, "capital": 1}
    assert [q["type"] for q in data["questions"]] == ["landmark", "capital"]


@pytest.mark.parametrize("command", ["evaluate", "compare", "answers"])
def test_the_help_lists_the_html_format(command):
    code, out, _ = run_cli(command, "--help")
    assert code == 0 and "markdown,html}" in out and ".html" in out


def test_judge_page_shows_each_answer_with_the_claims_the_judge_checked(judge_server, tmp_path, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    answers = write_jsonl(tmp_path / "answers.jsonl", [
        {"question": "Where is the Louvre?", "answer": "The Louvre is in Paris. It is pink.",
         "contexts": [{"chunk_id": "lv", "text": "The Louvre is in Paris, France."}],
         "reference": "The Louvre is in Paris.", "query_type": "scenario"}])
    out = tmp_path / "judge.html"
    code, _, stderr = run_cli("judge", "--input", answers, "--judge-model", "judge-model", "--judge-base-url",
                              judge_server.base_url, "-m", "faithfulness", "-o", out)
    assert code == 0, stderr
    data = embedded(out.read_text(encoding="utf-8"))
    assert [(q["id"], q["text"], q["type"]) for q in data["questions"]] == [("1", "Where is the Louvre?", "scenario")]
    answer = data["answers"][0][0]
    assert answer["text"] == "The Louvre is in Paris. It is pink." and answer["scores"] == {"faithfulness": 0.5}
    claims = {c["text"]: c for c in answer["claims"]}
    supported = [c for c in claims.values() if c["verdict"] == "supported"]
    assert len(claims) == 2 and supported[0]["chunk_id"] == "lv"
    assert "The Louvre is in Paris, France."[supported[0]["start"]:supported[0]["end"]] == supported[0]["quote"]
