"""rag-eval bench with an LLM judge: judged answer metrics per configuration and query type, and grades for the
retrieved chunks that no evidence span labels."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("bm25s")
pytest.importorskip("llama_index.core")
pytest.importorskip("openai")

from bench_helpers import HashEmbedder  # noqa: E402
from html_pages import embedded  # noqa: E402

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run  # noqa: E402
from rag_eval_adapters.bench import BenchSettings, run_bench  # noqa: E402
from rag_eval_adapters.cli import main  # noqa: E402
from rag_eval_adapters.judges import LLMJudge  # noqa: E402
from rag_eval_adapters.testsets import OpenAICompatibleLLM  # noqa: E402


@pytest.fixture()
def inputs(bench_inputs):
    return bench_inputs


def test_judged_answers_and_unlabelled_chunks_graded_and_rescored(inputs, tmp_path, judge_server):
    docs, testset = inputs
    judge = LLMJudge(OpenAICompatibleLLM("judge-model", base_url=judge_server.base_url, api_key=judge_server.api_key),
                     retry_base_delay=0.0)
    plain = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"],
                      settings=BenchSettings(ks=(1, 3), e2e_limit=3, permutations=100), embedder=HashEmbedder())
    result = run_bench(str(docs), str(testset), chunkings=["32:8"], retrievers=["bm25"],
                       settings=BenchSettings(ks=(1, 3), e2e_limit=3, permutations=100), embedder=HashEmbedder(),
                       output_dir=tmp_path / "r", judge=judge, judge_unlabelled=True)
    conf = result.results[0]
    answers = conf.answers
    assert answers.keys == ["token_f1", "semantic_similarity", "faithfulness", "answer_correctness"]
    assert answers.measured["faithfulness"] + len(answers.unmeasured.get("faithfulness", {})) == 3
    assert set(answers.mean) >= {"faithfulness"} and 0 <= answers.mean["faithfulness"] <= 1
    unlabelled = result.judgments["unlabelled"]["s32o8"]
    sources = unlabelled["sources"]
    assert unlabelled["counts"]["llm"] > 0 and unlabelled["counts"]["evidence_span"] > 0
    assert all(src in ("evidence_span", "llm") for docs_ in sources.values() for src in docs_.values())
    assert all(d in result.qrels["s32o8"].get(q, {}) for q, hits in conf.run.items() for d, _ in hits[:3])
    assert plain.results[0].judged["judged@3"] < conf.judged["judged@3"]  # every retrieved top-3 chunk now judged
    llm_grades = {result.qrels["s32o8"][q][d] for q, docs_ in sources.items() for d, s in docs_.items() if s == "llm"}
    assert llm_grades <= {0, 50, 100}
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    written = report["configurations"]["s32o8/bm25"]
    qrels = read_trec_qrels(tmp_path / "r" / written["files"]["qrels"])
    run_ = read_trec_run(tmp_path / "r" / written["files"]["run"])
    assert evaluate(qrels, run_, list(written["mean"])).mean == written["mean"]  # scored on the completed qrels
    assert written["judged"] == conf.judged and report["judgments"]["judge"]["judge_model"] == "judge-model"
    assert "faithfulness" in written["answers"]["mean"]
    text = (tmp_path / "r" / "report.txt").read_text()
    assert "faithfulness" in text and "judged by judge-model" in text
    page = embedded((tmp_path / "r" / "report.html").read_text())  # the page names the judge as report.txt does
    prompt = report["judgments"]["judge"]["prompt_version"]
    assert f"Answers judged by judge-model (prompt {prompt})." in page["summary"] and page["warnings"] == []


def test_the_cli_judges_with_a_judge_model_on_a_base_url(inputs, tmp_path, judge_server, monkeypatch):
    docs, testset = inputs
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    out, err = io.StringIO(), io.StringIO()
    code = main(["bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "32:8", "--retriever",
                 "bm25", "--e2e-limit", "2", "--judge", "--judge-model", "judge-model", "--judge-base-url",
                 judge_server.base_url, "--permutations", "100", "--output", str(tmp_path / "r")], stdout=out,
                stderr=err)
    assert code == 0, err.getvalue()
    printed = out.getvalue()
    assert "faithfulness" in printed and "(judged)" in printed and "judged@5" in printed, printed
    sent = len(judge_server.chat_requests)
    assert sent > 0 and (tmp_path / "r" / ".cache" / "judge.sqlite").exists()
    code = main(["bench", "--documents", str(docs), "--testset", str(testset), "--chunking", "32:8", "--retriever",
                 "bm25", "--e2e-limit", "2", "--judge", "--judge-model", "judge-model", "--judge-base-url",
                 judge_server.base_url, "--permutations", "100", "--output", str(tmp_path / "r"), "--force"],
                stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0 and len(judge_server.chat_requests) == sent  # judged once, paid once (the cache is kept)
    code = main(["bench", "--documents", str(docs), "--testset", str(testset), "--judge", "--output",
                 str(tmp_path / "x")], stdout=io.StringIO(), stderr=err)
    assert code == 2 and "need a judge" in err.getvalue()
