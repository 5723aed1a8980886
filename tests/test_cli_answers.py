"""``rag-eval answers``: JSONL in, tables, JSON, CSV and plots out; one-line errors with exit status 2."""

from __future__ import annotations

import io
import json

import pytest

from rag_eval_adapters.answers import rouge_l, token_f1
from rag_eval_adapters.cli import main

PREDICTIONS = [
    {"query_id": "q1", "prediction": "The Eiffel Tower is in Paris."},
    {"query_id": "q2", "prediction": "Москва"},
    {"query_id": 3, "prediction": "北京"},
    {"query_id": "q9", "prediction": "no reference for this one"},
]
REFERENCES = [
    {"query_id": "q1", "references": ["Paris", "in Paris, France"], "query_type": "fact"},
    {"query_id": "q2", "reference": "«Москва»", "query_type": "fact"},
    {"query_id": "3", "reference": "中国的首都北京", "query_type": "how"},
    {"query_id": "q4", "reference": "unanswered", "query_type": "how"},
]


def write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "pred.jsonl", PREDICTIONS), write(tmp_path / "ref.jsonl", REFERENCES)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["answers", *argv, "--allow-errors"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_report_with_groups(files):
    code, out, err = run("--predictions", files[0], "--references", files[1], "-m", "em", "-m", "token_f1,rouge_l",
                         "--group-by", "query_type", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["per_query"]["q1"]["token_f1"] == token_f1("The Eiffel Tower is in Paris.", ["Paris", "in Paris, France"]).f1
    assert data["per_query"]["3"]["rouge_l"] == pytest.approx(rouge_l("北京", "中国的首都北京").f1)
    assert data["per_query"]["q2"] == {"exact_match": 1.0, "token_f1": 1.0, "rouge_l": 1.0}
    assert "q4" in data["errors"] and "prediction" in data["errors"]["q4"]
    assert data["counts"] == {"queries": 4, "scored": 3, "errors": 1, "predictions_without_reference": 1}
    groups = {row["group"]: row for row in data["groups"]["groups"]}
    assert groups["fact"]["count"] == 2 and groups["how"]["errors"] == 1
    assert groups["fact"]["mean"]["exact_match"] == 1 / 2


def test_csv_markdown_table_and_plot(files, tmp_path):
    code, out, _ = run("--predictions", files[0], "--references", files[1], "--format", "csv", "--per-query")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "query_id,exact_match,token_f1,rouge_l" and lines[1].startswith("all,")
    code, out, _ = run("--predictions", files[0], "--references", files[1], "--format", "markdown",
                       "--group-by", "query_type")
    assert code == 0 and "### Mean by query_type" in out
    plot = tmp_path / "answers.png"
    code, out, err = run("--predictions", files[0], "--references", files[1], "--plot", str(plot),
                         "--group-by", "query_type")
    assert code == 0 and plot.stat().st_size > 1000 and "wrote" in err
    assert "fact" in out and "rouge_l" in out


def test_one_file_with_predictions_and_references(tmp_path):
    both = write(tmp_path / "both.jsonl", [{"query_id": "a", "prediction": "Paris", "reference": "paris"}])
    code, out, _ = run("--predictions", both, "--format", "json")
    assert code == 0 and json.loads(out)["mean"]["exact_match"] == 1.0


def test_semantic_similarity_through_an_openai_compatible_endpoint(files, openai_server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    cache = tmp_path / "emb.sqlite"
    argv = ("--predictions", files[0], "--references", files[1], "-m", "semantic_similarity", "--embedder",
            "openai:e5-small", "--embedder-base-url", openai_server.base_url, "--cache", str(cache), "--format", "json")
    code, out, err = run(*argv)
    assert code == 0, err
    values = json.loads(out)["per_query"]
    assert all(0 <= v["semantic_similarity"] <= 1 for v in values.values())
    calls = len(openai_server.embedding_requests)
    assert run(*argv)[1] == out and len(openai_server.embedding_requests) == calls  # all from the cache file


@pytest.mark.parametrize("argv, message", [
    (["-m", "bleu"], "unknown answer metric 'bleu'"),
    (["-m", "f1"], "'f1' is retrieval F1 (F1(): of retrieved ids, scored by rag_eval_adapters.evaluate), not an "
                   "answer metric; for answers use one of: token_f1, exact_match, token_precision, token_recall"),
    (["--group-by", "language"], "--group-by language: no record has that field"),
    (["--plot", "x.svg"], "ending in .png"),
    (["--sort-by", "rouge_l"], "--sort-by rouge_l: not among the computed metrics"),
    (["-m", "semantic_similarity", "--embedder", "word2vec"], "--embedder: unknown embedder 'word2vec': give one of e5, openai:MODEL"),
])
def test_expected_failures_are_one_line(files, argv, message):
    code, out, err = run("--predictions", files[0], "--references", files[1], "-m", "em", *argv)
    assert code == 2
    assert err.startswith("rag-eval: error: ") and message in err and err.count("\n") == 1


def test_unscored_answers_fail_the_command_unless_allowed(files):
    out, err = io.StringIO(), io.StringIO()
    code = main(["answers", "--predictions", files[0], "--references", files[1], "--format", "json"],
                stdout=out, stderr=err)
    assert code == 2
    assert "1 query could not be scored (first: q4" in err.getvalue() and "--allow-errors" in err.getvalue()
    assert json.loads(out.getvalue())["errors"]["q4"]  # the report is still written


def test_malformed_files_name_the_line(tmp_path, files):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q1", "prediction": "x"}\n{"query_id": \n', encoding="utf-8")
    code, _, err = run("--predictions", str(bad), "--references", files[1])
    assert code == 2 and f"{bad}:2: not valid JSON" in err
    dup = write(tmp_path / "dup.jsonl", [{"query_id": "q1", "prediction": "x"}, {"query_id": "q1", "prediction": "y"}])
    code, _, err = run("--predictions", dup, "--references", files[1])
    assert code == 2 and "dup.jsonl:2: query_id 'q1' appears twice" in err
    code, _, err = run("--predictions", files[0], "--references", files[1], "-o", files[1])
    assert code == 2 and "is an input file" in err and "unanswered" in open(files[1], encoding="utf-8").read()
    code, _, err = run("--predictions", str(tmp_path / "missing.jsonl"), "--references", files[1])
    assert code == 2 and "predictions file not found" in err


def test_the_embedding_cache_may_not_be_an_input_or_the_output(files, tmp_path):
    for cache, message in ((files[1], "--cache {} is an input file"), (tmp_path / "r.json", "--output and --cache both name")):
        code, _, err = run("--predictions", files[0], "--references", files[1], "-m", "em", "--output",
                           str(tmp_path / "r.json"), "--cache", str(cache))
        assert code == 2 and message.format(cache) in err and err.count("\n") == 2  # the deprecation, the refusal
        assert err.startswith("rag-eval: warning: --cache is deprecated; use --cache-dir\n")
    assert not (tmp_path / "r.json").exists() and json.loads(open(files[1], encoding="utf-8").readline())["query_id"] == "q1"
