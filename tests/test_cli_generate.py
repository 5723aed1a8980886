"""``rag-eval generate`` end to end against the local OpenAI-compatible server."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("openai")
pytest.importorskip("llama_index.core")

from cli_support import write_files

from rag_eval_adapters.cli import main

NOTES = {
    "heart.md": "The heart pumps blood through the body. It beats about seventy times a minute at rest.\n\n"
                "The right side sends blood to the lungs. The left side sends it to the rest of the body, "
                "through the aorta, which is the largest artery.",
    "sub/lungs.txt": "The lungs take oxygen from the air. Carbon dioxide leaves the body when we breathe out. "
                     "Small air sacs called alveoli exchange the gases with the blood.",
}


def write_folder(tmp_path):
    return write_files(tmp_path / "corpus", NOTES)


def cli(*argv, env_key=None):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def base(server, corpus, *extra):
    return ("generate", "--documents", str(corpus), "--llm-model", "gpt-4o-mini", "--llm-base-url", server.base_url,
            "--llm-api-key-env", "FAKE_KEY", "--min-chunk-chars", "10", "--chunk-size", "24", "--chunk-overlap", "4",
            *extra)


def test_generate_from_a_folder_resumes_and_maps_spans(openai_server, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", openai_server.api_key)
    corpus, out = write_folder(tmp_path), tmp_path / "testset.jsonl"
    code, stdout, stderr = cli(*base(openai_server, corpus, "--samples", "4", "--output", str(out)))
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["requested"] == 4 and summary["generated"] + sum(summary["dropped"].values()) == 4
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(cases) == summary["generated"] >= 3
    for case in cases:
        for span in case["evidence_spans"]:
            assert NOTES[span["doc_id"]][span["start"] : span["end"]] == case["evidence"]
        assert case["expected_ids"] == case["relevant_chunk_ids"]
    sent = len(openai_server.chat_requests)
    code, stdout, _ = cli(*base(openai_server, corpus, "--samples", "4", "--output", str(out)))
    assert code == 0 and len(openai_server.chat_requests) == sent and json.loads(stdout)["resumed_cases"] == len(cases)
    # the test set is a qrels file for rag-eval evaluate
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"query_id": c["query_id"], "retrieved_ids": [c["source_chunk_id"]]}) + "\n"
                           for c in cases), encoding="utf-8")
    code, stdout, stderr = cli("evaluate", "--qrels", str(out), "--run", str(run), "--metric", "recall", "--k", "1",
                               "--format", "json")
    assert code == 0, stderr
    assert '"recall@1": 1.0' in stdout


def test_a_jsonl_of_documents_is_chunked(openai_server, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", openai_server.api_key)
    corpus, out = tmp_path / "docs.jsonl", tmp_path / "t.jsonl"
    corpus.write_text("".join(json.dumps({"doc_id": name, "text": text}) + "\n" for name, text in NOTES.items()),
                      encoding="utf-8")
    code, stdout, stderr = cli(*base(openai_server, corpus, "--samples", "3", "--types", "literal", "--output", str(out)))
    assert code == 0, stderr
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(cases) == 3 and all("#" in c["source_chunk_id"] for c in cases)
    for case in cases:
        (span,) = case["evidence_spans"]
        assert NOTES[span["doc_id"]][span["start"] : span["end"]] == case["evidence"]


def test_dry_run_sends_nothing(openai_server, tmp_path):
    corpus = tmp_path / "chunks.jsonl"
    corpus.write_text("\n".join(json.dumps({"chunk_id": f"c{i}", "text": f"Fact number {i} is that water boils at "
                                            f"{90 + i} degrees on that mountain."}) for i in range(5)), encoding="utf-8")
    code, stdout, stderr = cli(*base(openai_server, corpus, "--samples", "5", "--dry-run", "--price-input", "1"))
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["dry_run"] is True and summary["calls"] == 5 and summary["estimated_cost"] > 0
    assert openai_server.requests == []


@pytest.mark.parametrize("extra, message", [
    (("--samples", "0", "--output", "x.jsonl"), "--samples must be a positive integer, got 0"),
    (("--seed", "-1", "--output", "x.jsonl"), "--seed must be a non-negative integer, got -1"),
    (("--samples", "2"), "give --output"),
    (("--types", "trivia", "--output", "x.jsonl"), "types must be"),
])
def test_option_errors_are_one_line(openai_server, tmp_path, extra, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, stderr = cli(*base(openai_server, write_folder(tmp_path), *extra))
    assert code == 2 and stderr.startswith("rag-eval: error: ") and message in stderr
    assert stderr.count("\n") == 1 and openai_server.requests == []


def test_corpus_errors_name_the_line_and_the_key_is_required(openai_server, tmp_path, monkeypatch):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"chunk_id": "a", "text": "fine text here"}\n{not json\n', encoding="utf-8")
    code, _, stderr = cli(*base(openai_server, bad, "--output", str(tmp_path / "o.jsonl")))
    assert code == 2 and "bad.jsonl:2: not valid JSON" in stderr
    code, _, stderr = cli(*base(openai_server, bad, "--output", str(bad)))
    assert code == 2 and "is the corpus" in stderr
    monkeypatch.setenv("FAKE_KEY", "wrong-key")
    code, _, stderr = cli(*base(openai_server, write_folder(tmp_path), "--output", str(tmp_path / "o.jsonl")))
    assert code == 2 and "HTTP 401" in stderr and stderr.count("rag-eval: error") == 1
    assert stderr.splitlines()[0].startswith("rag-eval: generate (gpt-4o-mini) expects 15 model call(s)")  # said first
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, stderr = cli("generate", "--documents", str(write_folder(tmp_path)), "--llm-model", "gpt-4o-mini",
                          "--output", str(tmp_path / "o.jsonl"))
    assert code == 2 and "no API key: set OPENAI_API_KEY" in stderr


def test_nothing_generated_is_an_error_and_failed_calls_are_said(openai_server, tmp_path, monkeypatch):
    from openai_server import fail

    monkeypatch.setenv("FAKE_KEY", openai_server.api_key)
    corpus = write_folder(tmp_path)
    openai_server.queue(*[fail(500, retry_after="0")] * 15)  # the server is down: 3 tasks x 5 attempts
    code, stdout, stderr = cli(*base(openai_server, corpus, "--samples", "3", "--types", "literal",
                                     "--output", str(tmp_path / "down.jsonl")))
    expects, shortfall, error = stderr.splitlines()
    assert code == 2 and error.startswith("rag-eval: error: no test case was generated")
    assert "requested: 3, generated: 0, call_failed: 3; failed model calls: 3" in error
    assert expects.startswith("rag-eval: generate (gpt-4o-mini) expects 3 model call(s) (0 more from the cache)")
    assert shortfall == "rag-eval: generated 0 of 3 requested questions; 3 dropped: call_failed 3"
    assert json.loads(stdout)["dropped"] == {"call_failed": 3}
    openai_server.queue(*[fail(500, retry_after="0")] * 5)  # one task of four fails, the others answer
    code, stdout, stderr = cli(*base(openai_server, corpus, "--samples", "4", "--max-concurrency", "1",
                                     "--output", str(tmp_path / "partly.jsonl")))
    assert code == 0 and json.loads(stdout)["failed_calls"] == 1
    assert stderr.splitlines()[1] == "rag-eval: generated 3 of 4 requested questions; 1 dropped: call_failed 1"
    assert stderr.split("\n", 2)[2] == ("rag-eval: warning: 1 model call(s) failed after their retries; 1 of 4 requested cases were "
                      "dropped as call_failed (re-run with the same --output to ask for them again)\n")


def test_the_cache_may_not_be_an_input_or_an_output(openai_server, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", openai_server.api_key)
    corpus, out = tmp_path / "chunks.jsonl", tmp_path / "t.jsonl"
    corpus.write_text(json.dumps({"chunk_id": "c", "text": "Water boils at 100 degrees at sea level."}) + "\n",
                      encoding="utf-8")
    for cache, message in ((out, "--output and --cache both name"), (corpus, "--cache {} is an input file")):
        code, _, stderr = cli(*base(openai_server, corpus, "--samples", "1", "--output", str(out), "--cache", str(cache)))
        assert code == 2 and message.format(cache) in stderr and openai_server.requests == []
    assert not out.exists() and corpus.read_text(encoding="utf-8").count("\n") == 1


def test_the_api_refuses_a_cache_that_is_the_output_or_its_journal(openai_server, tmp_path):
    from rag_eval_adapters.testsets import OpenAICompatibleLLM, generate_testset

    llm = OpenAICompatibleLLM("gpt-4o-mini", base_url=openai_server.base_url, api_key=openai_server.api_key)
    chunks = [{"chunk_id": "c", "text": "Water boils at 100 degrees at sea level."}]
    out = tmp_path / "t.jsonl"
    for cache, what in ((out, "is the output;"), (tmp_path / "t.jsonl.progress", "is the output's journal")):
        with pytest.raises(ValueError, match=what):
            generate_testset(chunks, llm, samples=1, min_chunk_chars=1, cache=cache, output=out)
    assert openai_server.requests == [] and not out.exists()
