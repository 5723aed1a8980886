"""rag-eval bench: the command, its options and errors, an LLM answerer on a local OpenAI-compatible server,
and LlamaIndex / LangChain chunkings and retrievers in the Python API."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import HashEmbedder, case_records, documents  # noqa: E402
from openai_server import fail  # noqa: E402

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run  # noqa: E402
from rag_eval_adapters.bench import BenchSettings, LLMAnswerer, run_bench  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")


@pytest.fixture()
def inputs(bench_inputs):
    return bench_inputs


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_bench_command_writes_a_report_that_evaluate_rescores(inputs, tmp_path):
    docs, testset = inputs
    out = tmp_path / "report"
    code, stdout, stderr = run("bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "16:0",
                               "--chunking", "32:8", "--retriever", "bm25", "--rerank", "lexical", "--k", "1,3,5",
                               "--skip-e2e", "--permutations", "200", "--output", str(out))
    assert code == 0, stderr
    assert "s16o0/bm25+lexical" in stdout and "In plain words" in stdout and "On all questions" in stdout
    assert f"rag-eval: report written to {out.resolve()}" in stderr
    report = json.loads((out / "report.json").read_text())
    assert set(report["configurations"]) == {"s16o0/bm25", "s16o0/bm25+lexical", "s32o8/bm25", "s32o8/bm25+lexical"}
    for conf in report["configurations"].values():
        assert conf["answers"] == {}  # --skip-e2e
        qrels, run_ = read_trec_qrels(out / conf["files"]["qrels"]), read_trec_run(out / conf["files"]["run"])
        assert evaluate(qrels, run_, list(conf["mean"])).mean == conf["mean"]
    # the report's own command line re-scores a configuration
    code, stdout, _ = run("evaluate", "--qrels", str(out / "qrels" / "s32o8.qrels"), "--run",
                          str(out / "runs" / "s32o8__bm25.trec"), "-m", "ndcg@5", "--format", "json")
    assert code == 0 and json.loads(stdout)["mean"]["ndcg@5"] == report["configurations"]["s32o8/bm25"]["mean"]["ndcg@5"]


def test_eval_mode_semantic_scores_paraphrase_and_scenario_questions_only(inputs, tmp_path):
    docs, testset = inputs
    code, _, stderr = run("bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "32:8",
                          "--retriever", "bm25", "--eval-mode", "semantic", "--skip-e2e", "--output", str(tmp_path / "r"))
    assert code == 0, stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["query_types"] == {"paraphrase": 3, "scenario": 2}
    assert set(report["configurations"]["s32o8/bm25"]["per_query"]) == {"q2", "q4", "q5", "q6", "q8"}


def test_a_bad_test_set_line_is_one_error_line_naming_it(inputs, tmp_path):
    docs, testset = inputs
    lines = testset.read_text().splitlines()
    lines[4] = json.dumps({"query_id": "q5", "query": "x", "query_type": "literal"})
    testset.write_text("\n".join(lines) + "\n")
    code, _, stderr = run("bench", "--documents", str(docs), "--testset", str(testset), "--retriever", "bm25",
                          "--skip-e2e", "--output", str(tmp_path / "r"))
    assert code == 2
    assert stderr.startswith("rag-eval: error: ") and "testset.jsonl:5:" in stderr and "q5" in stderr
    assert stderr.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--candidates", "0"], "--candidates must be a positive integer"),
    (["--e2e-limit", "-1"], "--e2e-limit must be a non-negative integer, got -1"),
    (["--chunking", "abc"], "SIZE:OVERLAP"),
    (["--generate"], "give --testset FILE or --generate"),
])
def test_bad_options_are_refused_before_any_work(inputs, tmp_path, argv, message):
    docs, testset = inputs
    code, _, stderr = run("bench", "--documents", str(docs), "--testset", str(testset), "--retriever", "bm25",
                          "--skip-e2e" if "--e2e-limit" not in argv else "--k=1", *argv, "--output", str(tmp_path / "r"))
    assert code == 2 and message in stderr, stderr


def test_e2e_limit_with_an_llm_answerer_on_a_local_openai_compatible_server(inputs, tmp_path, openai_server):
    docs, testset = inputs
    openai_server.handler = lambda body: "Vesuvius." if "Pompeii" in body["messages"][-1]["content"] else "No idea."
    answerer = LLMAnswerer(_llm(openai_server), cache=str(tmp_path / "answers.sqlite"))
    result = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=2), answerer=answerer, embedder=HashEmbedder(),
                       output_dir=tmp_path / "r")
    answers = result.results[0].answers
    assert answers.query_ids == ["q1", "q2"]
    assert answers.per_query["q1"]["token_f1"] == pytest.approx(0.5)  # "Vesuvius" vs "The eruption of Vesuvius."
    prompts = [r.body["messages"][-1]["content"] for r in openai_server.chat_requests]
    assert len(prompts) == 2 and all("Context:" in p and "[1]" in p for p in prompts)
    usage = json.loads((tmp_path / "r" / "report.json").read_text())["usage"]["answerer"]
    assert usage["calls"] == 2 and usage["input_tokens"] > 0 and usage["output_tokens"] == 3
    # a re-run is answered from the cache: no new request, nothing paid
    again = LLMAnswerer(_llm(openai_server), cache=str(tmp_path / "answers.sqlite"))
    run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"],
              settings=BenchSettings(ks=(1, 3), e2e_limit=2), answerer=again, embedder=HashEmbedder())
    assert len(openai_server.chat_requests) == 2 and again.usage["cache_hits"] == 2


def test_a_failing_llm_call_is_recorded_for_its_question(inputs, tmp_path, openai_server):
    from rag_eval_adapters.modelcalls import RetryPolicy

    docs, testset = inputs
    openai_server.queue(fail(400))
    answerer = LLMAnswerer(_llm(openai_server), retry=RetryPolicy(max_retries=0))
    result = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"],
                       settings=BenchSettings(ks=(1,), e2e_limit=2), answerer=answerer, embedder=HashEmbedder())
    conf = result.results[0]
    assert list(conf.answer_errors) == ["q1"] and "HTTP 400" in conf.answer_errors["q1"]
    assert conf.answers.query_ids == ["q2"] and answerer.usage["failures"] == 1


def test_the_cli_answers_with_an_llm_model_on_a_base_url(inputs, tmp_path, openai_server, monkeypatch):
    docs, testset = inputs
    openai_server.handler = lambda body: "An answer."
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    code, stdout, stderr = run("bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "32:8",
                               "--retriever", "bm25", "--e2e-limit", "3", "--llm-model", "test-model",
                               "--llm-base-url", openai_server.base_url, "--output", str(tmp_path / "r"))
    assert code == 0, stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["configurations"]["s32o8/bm25"]["answers"]["queries"] == 3
    assert report["usage"]["answerer"]["name"] == "llm:test-model" and len(openai_server.chat_requests) == 3


def test_generate_writes_a_test_set_with_the_llm_and_benchmarks_on_it(inputs, tmp_path, openai_server, monkeypatch):
    docs, _ = inputs
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    out = tmp_path / "r"
    code, stdout, stderr = run("bench", "--documents", str(docs), "--generate", "--samples", "4", "--chunking", "32:8",
                               "--retriever", "bm25", "--skip-e2e", "--llm-model", "test-model", "--llm-base-url",
                               openai_server.base_url, "--output", str(out))
    assert code == 0, stderr
    generated = [json.loads(line) for line in (out / "testset.jsonl").read_text().splitlines() if line.strip()]
    assert generated and all(c["evidence_spans"] for c in generated)
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["testset"]["cases"] == len(generated)
    assert report["configurations"]["s32o8/bm25"]["mean"]["hit_rate@20"] > 0


def _llm(server):
    from rag_eval_adapters.testsets import OpenAICompatibleLLM

    return OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key=server.api_key)


# ---------------------------------------------------------------- framework chunkings and retrievers


def test_a_langchain_text_splitter_and_a_llamaindex_node_parser_as_chunkings():
    pytest.importorskip("langchain_text_splitters")
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from llama_index.core.node_parser import TokenTextSplitter

    from rag_eval_adapters.langchain.chunking import text_splitter_chunking
    from rag_eval_adapters.llamaindex.chunking import node_parser_chunking

    chunkings = [text_splitter_chunking(RecursiveCharacterTextSplitter(chunk_size=80, chunk_overlap=20,
                                                                       add_start_index=True), "lc80"),
                 node_parser_chunking(TokenTextSplitter(chunk_size=24, chunk_overlap=4), "tok24")]
    result = run_bench(documents(), case_records(), chunkings=chunkings, retrievers=["bm25"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=0))
    for name in ("lc80", "tok24"):
        chunks = result.chunks[name]
        texts = {d["doc_id"]: d["text"] for d in documents()}
        assert chunks and all(texts[c.doc_id][c.start:c.end] == c.text for c in chunks)
        assert result.result(f"{name}/bm25").report.mean["hit_rate@3"] > 0.5


def test_llamaindex_and_langchain_retrievers_in_the_benchmark():
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from llama_index.core import VectorStoreIndex
    from offline_embedding import HashingEmbedding

    from rag_eval_adapters.langchain.chunk_retrievers import LangChainRetriever
    from rag_eval_adapters.llamaindex.chunk_retrievers import LlamaIndexRetriever

    class WordOverlap(BaseRetriever):
        docs: list

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            words = set(query.lower().split())
            ranked = sorted(self.docs, key=lambda d: -len(words & set(d.page_content.lower().split())))
            return ranked[:5]

    llama = LlamaIndexRetriever(lambda nodes: VectorStoreIndex(nodes, embed_model=HashingEmbedding())
                                .as_retriever(similarity_top_k=5), "li-vector")
    lang = LangChainRetriever(lambda docs: WordOverlap(docs=docs), "lc-words")
    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=[llama, lang],
                       settings=BenchSettings(ks=(1, 3, 5), e2e_limit=0))
    ids = {c.chunk_id for c in result.chunks["s32o8"]}
    for name in ("s32o8/li-vector", "s32o8/lc-words"):
        conf = result.result(name)
        assert all(d in ids for hits in conf.run.values() for d, _ in hits)
        assert conf.report.mean["hit_rate@5"] > 0.5


def test_the_report_never_overwrites_an_input(inputs, tmp_path):
    docs, testset = inputs
    out = tmp_path / "r"
    out.mkdir()
    inside = out / "report.json"
    inside.write_text(testset.read_text())
    code, _, stderr = run("bench", "--documents", str(docs), "--testset", str(inside), "--retriever", "bm25",
                          "--skip-e2e", "--output", str(out))
    assert code == 2 and "would write over the input" in stderr
    assert inside.read_text() == testset.read_text()
    kept = out / "my_testset.jsonl"  # a test set beside the report files is fine
    kept.write_text(testset.read_text())
    code, _, stderr = run("bench", "--documents", str(docs), "--testset", str(kept), "--chunking", "32:8",
                          "--retriever", "bm25", "--skip-e2e", "--output", str(out), "--force")
    assert code == 0, stderr  # report.json is there already: replacing it takes --force
    assert kept.read_text() == testset.read_text()
