"""Models and components by name: resolve_llm / resolve_embedder (real openai SDK against the local server), the
old import paths, one key rule for every command, and the retriever / reranker tables the CLI, the demo, the
docs and run_bench read."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("openai")

from bench_helpers import case_records, documents, write_bench_files  # noqa: E402
from openai_server import fake_embedding  # noqa: E402

from rag_eval_adapters import modelcalls  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402
from rag_eval_adapters.modelcalls import (  # noqa: E402
    EMBEDDERS,
    LLM_PROVIDERS,
    ChatLLM,
    Completion,
    OpenAICompatibleLLM,
    OpenAIEmbedder,
    resolve_embedder,
    resolve_llm,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


class EchoLLM:
    name, temperature = "echo", 0.0

    def chat(self, messages):
        return Completion(messages[-1]["content"])


# ------------------------------------------------------------------------------------------- LLMs
def test_a_model_name_is_an_openai_compatible_llm_that_answers(openai_server, monkeypatch):  # noqa: F811
    openai_server.handler = lambda body: "pong"
    monkeypatch.setenv("MY_KEY", openai_server.api_key)
    for spec in ("gpt-4o-mini", "openai:gpt-4o-mini"):
        llm = resolve_llm(spec, base_url=openai_server.base_url, api_key_env="MY_KEY", temperature=0.5)
        assert isinstance(llm, OpenAICompatibleLLM) and llm.model == "gpt-4o-mini" and llm.temperature == 0.5
        assert llm.chat([{"role": "user", "content": "ping"}]).text == "pong"
    assert [r.authorization for r in openai_server.chat_requests] == [
        f"Bearer {openai_server.api_key}"] * 2
    ollama = resolve_llm("qwen2.5:7b-instruct", base_url=openai_server.base_url)  # a colon, not a provider
    assert ollama.model == "qwen2.5:7b-instruct"


def test_a_missing_key_is_one_rule_with_one_message(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match=r"^no API key: set OPENAI_API_KEY .* local server \(LLM 'gpt-4o-mini'\)$"):
        resolve_llm("gpt-4o-mini")
    assert resolve_llm("gpt-4o-mini", require_key=False).model == "gpt-4o-mini"  # a dry run calls nothing
    (tmp_path / "docs").mkdir()
    for d in documents():
        (tmp_path / "docs" / d["doc_id"]).write_text(d["text"], encoding="utf-8")
    messages = []
    for argv in (("generate", "--documents", tmp_path / "docs", "--output", tmp_path / "t.jsonl"),
                 ("bench", "--documents", tmp_path / "docs", "--generate", "--output", tmp_path / "r")):
        code, _, stderr = cli(*argv, "--llm-model", "gpt-4o-mini")
        assert code == 2
        messages.append(stderr)
    assert messages[0] == messages[1] == ("rag-eval: error: no API key: set OPENAI_API_KEY (or name another "
                                          "variable), or give the base URL of a local server (LLM 'gpt-4o-mini')\n")


def test_objects_pass_through_and_wrong_ones_are_refused():
    echo = EchoLLM()
    assert resolve_llm(echo) is echo and isinstance(echo, ChatLLM)
    with pytest.raises(ValueError, match="an LLM object comes configured"):
        resolve_llm(echo, temperature=1.0)
    with pytest.raises(TypeError, match="llm must be a LlamaIndex LLM, a LangChain chat model"):
        resolve_llm(42)
    with pytest.raises(ValueError, match=r"LLM 'openai:' needs a model: openai:MODEL"):
        resolve_llm("openai:")


def test_the_bench_answerer_takes_a_model_name(openai_server, monkeypatch):  # noqa: F811
    from rag_eval_adapters.bench import LLMAnswerer

    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    openai_server.handler = lambda body: "Vesuvius."
    answerer = LLMAnswerer("test-model")
    assert answerer.name == "llm:test-model" and isinstance(answerer.llm, OpenAICompatibleLLM)


# --------------------------------------------------------------------------------------- embedders
def test_embedder_names_build_the_backend_and_objects_are_wrapped(openai_server):  # noqa: F811
    embedder = resolve_embedder("openai:e5-small", base_url=openai_server.base_url, api_key=openai_server.api_key)
    assert isinstance(embedder, OpenAIEmbedder)
    assert [list(v) for v in embedder.embed_passages(["a b c"])] == [pytest.approx(fake_embedding("a b c"))]
    for spec, message in (("openai", r"embedder 'openai' needs a model: openai:MODEL"),
                          ("e5:large", r"embedder 'e5' takes no model name"),
                          ("word2vec", r"unknown embedder 'word2vec': give one of e5, openai:MODEL")):
        with pytest.raises(ValueError, match=message):
            resolve_embedder(spec)
    with pytest.raises(ValueError, match="runs locally: it takes no base URL"):
        resolve_embedder("e5", base_url=openai_server.base_url)
    fake = pytest.importorskip("langchain_core.embeddings").FakeEmbeddings(size=4)
    wrapped = resolve_embedder(fake)
    assert type(wrapped).__name__ == "LangChainEmbedder" and len(wrapped.embed_queries(["x"])[0]) == 4
    assert resolve_embedder(wrapped) is wrapped
    with pytest.raises(TypeError, match="embedder must have embed_queries and embed_passages"):
        resolve_embedder(object())


def test_old_import_paths_still_work():
    from rag_eval_adapters.answers import CallableEmbedder, E5Embedder, Embedder
    from rag_eval_adapters.answers import OpenAIEmbedder as AnswersOpenAIEmbedder
    from rag_eval_adapters.answers.openai_embedder import OpenAIEmbedder as OldModuleEmbedder
    from rag_eval_adapters.testsets import ChatLLM as OldChatLLM
    from rag_eval_adapters.testsets import Completion as OldCompletion
    from rag_eval_adapters.testsets import OpenAICompatibleLLM as OldLLM
    from rag_eval_adapters.testsets import as_chat_llm
    from rag_eval_adapters.testsets.llm import OpenAICompatibleLLM as OldModuleLLM

    assert OldChatLLM is ChatLLM and OldCompletion is Completion and OldLLM is OldModuleLLM is OpenAICompatibleLLM
    assert Embedder is modelcalls.Embedder and AnswersOpenAIEmbedder is OldModuleEmbedder is OpenAIEmbedder
    assert as_chat_llm is modelcalls.as_chat_llm and CallableEmbedder and E5Embedder
    assert set(LLM_PROVIDERS) == {"openai"} and set(EMBEDDERS) == {"e5", "openai"}


# ------------------------------------------------------------------------------ retrievers, rerankers
def test_the_docs_and_the_cli_list_every_retriever_and_reranker():
    from rag_eval_adapters.bench import DEFAULT_RETRIEVERS, RERANKERS, RETRIEVERS
    from rag_eval_adapters.demo import DEMO_RETRIEVERS

    text = (DOCS / "bench.md").read_text(encoding="utf-8")
    for name in [*RETRIEVERS, *RERANKERS]:
        assert f"`{name}`" in text, f"docs/bench.md does not describe {name!r}"
    code, stdout, _ = cli("bench", "--help")
    helptext = " ".join(stdout.split())
    assert all(f"{n}: {c.summary}" in helptext for n, c in {**RETRIEVERS, **RERANKERS}.items())
    assert f"default {', '.join(DEFAULT_RETRIEVERS)}" in helptext and DEMO_RETRIEVERS == DEFAULT_RETRIEVERS
    code, _, stderr = cli("bench", "--documents", ".", "--testset", "x", "--retriever", "nope", "--output", "o")
    assert code == 2 and re.search(r"invalid choice: 'nope' \(choose from '?bm25'?, '?e5'?, '?hybrid'?\)", stderr)


def build_renamed_bm25(embedder, depth):
    """A retriever registered by a test: BM25 under another name."""
    from rag_eval_adapters.bench import BM25Retriever

    retriever = BM25Retriever()
    retriever.name = "bm25-copy"
    return retriever


def test_a_new_retriever_is_one_table_entry(monkeypatch, tmp_path):
    pytest.importorskip("bm25s")
    pytest.importorskip("llama_index.core")
    from rag_eval_adapters.bench import RETRIEVERS, BenchSettings, Component, run_bench

    monkeypatch.setitem(RETRIEVERS, "bm25-copy", Component("BM25 again", f"{__name__}:build_renamed_bm25"))
    settings = BenchSettings(ks=(1, 3), e2e_limit=0, permutations=20)
    result = run_bench(documents(), case_records(), chunkings=["32:8"], retrievers=["bm25", "bm25-copy"],
                       settings=settings)
    copy, original = result.result("s32o8/bm25-copy").report, result.result("s32o8/bm25").report
    assert copy.per_query == original.per_query
    folder, testset = write_bench_files(tmp_path)
    code, _, stderr = cli("bench", "--documents", folder, "--testset", testset, "--chunking", "32:8",
                          "--retriever", "bm25-copy", "--skip-e2e", "--k", "1,3", "--permutations", "20",
                          "--output", tmp_path / "r")
    assert code == 0, stderr
    assert set(json.loads((tmp_path / "r" / "report.json").read_text())["configurations"]) == {"s32o8/bm25-copy"}
