"""The offline demo: its shipped data, its two LlamaIndex retrievers, and `rag-eval demo` end to end."""

from __future__ import annotations

import io
import json
import re

import pytest

from rag_eval_adapters import evaluate
from rag_eval_adapters.cli import main
from rag_eval_adapters.demo import DEMO_METRICS, data_path, load_corpus, load_qrels, load_queries

pytest.importorskip("llama_index.core")
pytest.importorskip("bm25s")
pytest.importorskip("sklearn")


# ---------------------------------------------------------------- the shipped data


def _generator():
    """The demo data generator: a development tool kept outside the package (``tools/``)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "build_demo_data.py"
    if not path.is_file():
        pytest.skip("tools/build_demo_data.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("build_demo_data", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_files_are_what_the_generator_writes(tmp_path):
    _generator().write(tmp_path)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels.jsonl"):
        assert (tmp_path / name).read_text(encoding="utf-8") == data_path(name).read_text(encoding="utf-8")


def test_corpus_is_a_few_hundred_readable_passages():
    corpus = load_corpus()
    assert 200 <= len(corpus) <= 400
    assert len({p["id"] for p in corpus}) == len(corpus)
    assert len({p["text"] for p in corpus}) == len(corpus)
    assert len({p["topic"] for p in corpus}) >= 6
    for passage in corpus:
        words = passage["text"].split()
        assert 8 <= len(words) <= 60, passage
        assert passage["text"][0].isalnum() and passage["text"].rstrip()[-1] in ".!?"
        assert re.fullmatch(r"[A-Za-z0-9 ,.'*()\-;:%?!]+", passage["text"]), passage["text"]


def test_queries_and_graded_judgments_are_consistent():
    corpus_ids = {p["id"] for p in load_corpus()}
    queries, qrels = load_queries(), load_qrels()
    assert 40 <= len(queries) <= 80
    assert set(qrels) == set(queries)
    for qid, judged in qrels.items():
        assert set(judged) <= corpus_ids
        assert set(judged.values()) == {0, 1, 2}
        assert 1 <= sum(g == 2 for g in judged.values()) <= 2
        assert queries[qid].strip() and len(queries[qid].split()) >= 3


# ---------------------------------------------------------------- the retrievers


def test_retrievers_are_llamaindex_retrievers_ranking_best_first():
    from llama_index.core.base.base_retriever import BaseRetriever

    from rag_eval_adapters.demo.retrievers import BM25Scorer, TfidfScorer
    from rag_eval_adapters.llamaindex import ScoringRetriever, nodes_from_records

    corpus = load_corpus()
    nodes = nodes_from_records(corpus)
    texts = [p["text"] for p in corpus]
    target = next(p for p in corpus if p["id"] == "animals/octopus/0")
    for scorer in (BM25Scorer(texts), TfidfScorer(texts)):
        retriever = ScoringRetriever(nodes, scorer, top_k=5)
        assert isinstance(retriever, BaseRetriever)
        hits = retriever.retrieve(target["text"])
        assert 1 <= len(hits) <= 5
        assert hits[0].node.node_id == "animals/octopus/0"
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True) and scores[-1] > 0
        assert hits[0].node.metadata["topic"] == "animals"
    # only positive scores are returned: words found nowhere in the corpus retrieve nothing
    assert ScoringRetriever(nodes, BM25Scorer(texts), top_k=5).retrieve("zzzz qqqq") == []
    with pytest.raises(ValueError, match="top_k"):
        ScoringRetriever(nodes, BM25Scorer(texts), top_k=0)
    with pytest.raises(ValueError, match="returned 2 scores for"):
        ScoringRetriever(nodes, lambda q: [1.0, 2.0]).retrieve("anything")


def test_demo_package_imports_no_framework():
    import ast
    from pathlib import Path

    import rag_eval_adapters.demo as demo

    for path in Path(demo.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        modules += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in modules if m.startswith(("llama_index", "langchain", "langsmith", "cohere"))], path


# ---------------------------------------------------------------- rag-eval demo


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo") / "report"
    out, err = io.StringIO(), io.StringIO()
    code = main(["demo", "--output-dir", str(folder), "--permutations", "2000"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue(), folder


def test_demo_writes_its_report_folder(demo_run):
    code, out, err, folder = demo_run
    assert code == 0, err
    assert f"rag-eval: report written to {folder.resolve()}" in err
    assert str(folder.resolve()) in out
    for name in ("report.json", "report.md", "comparison.png", "bm25.jsonl", "tfidf.jsonl", "qrels.jsonl"):
        assert (folder / name).is_file(), name
    assert (folder / "comparison.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_prints_both_evaluations_and_the_comparison(demo_run):
    code, out, _, _ = demo_run
    assert code == 0
    assert "bm25: LlamaIndex RetrieverEvaluator" in out and "tfidf: LlamaIndex RetrieverEvaluator" in out
    assert "Paired tests" in out and "ndcg@10 graded" in out
    assert "worst questions" in out


def test_demo_report_json(demo_run):
    _, _, _, folder = demo_run
    report = json.loads((folder / "report.json").read_text())
    assert set(report["retrievers"]) == {"bm25", "tfidf"}
    bm25, tfidf = report["retrievers"]["bm25"]["mean"], report["retrievers"]["tfidf"]["mean"]
    assert list(bm25) == DEMO_METRICS
    assert all(0.0 <= v <= 1.0 for v in [*bm25.values(), *tfidf.values()])
    # the two retrievers differ measurably
    assert abs(bm25["ndcg@10"] - tfidf["ndcg@10"]) > 0.02
    tests = report["comparison"]["tests"]
    assert len(tests) == len(DEMO_METRICS)
    assert all({"difference", "ci_low", "ci_high", "p_value", "t_test_p_value"} <= set(t) for t in tests)
    assert report["retrievers"]["bm25"]["counts"] == {"queries": 72, "scored": 72, "errors": 0}


def test_demo_adapter_scores_equal_the_core_on_the_same_rankings(demo_run):
    """What LlamaIndex's RetrieverEvaluator reported through the adapters equals the core's binary scores."""
    _, _, _, folder = demo_run
    report = json.loads((folder / "report.json").read_text())
    binary = {q: {d: 1 for d, g in judged.items() if g >= 1} for q, judged in load_qrels().items()}
    for name in ("bm25", "tfidf"):
        run = {}
        for line in (folder / f"{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            run[row["query_id"]] = row["retrieved_ids"]
            assert len(row["retrieved_ids"]) <= 20
        core = evaluate(binary, run, DEMO_METRICS)
        adapter = report["retrievers"][name]["per_query"]
        for qid, values in core.per_query.items():
            assert adapter[qid] == pytest.approx(values, abs=1e-12), (name, qid)


def test_demo_runs_can_be_rescored_with_rag_eval(demo_run):
    _, _, _, folder = demo_run
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", "--qrels", str(folder / "qrels.jsonl"), "--run", str(folder / "bm25.jsonl"),
                 "--run", str(folder / "tfidf.jsonl"), "-m", "ndcg@10", "--format", "json",
                 "--permutations", "500", "--bootstrap", "500"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    report = json.loads((folder / "report.json").read_text())
    means = json.loads(out.getvalue())["mean"]
    assert means["bm25.jsonl"]["ndcg@10"] == pytest.approx(report["graded"]["bm25"]["mean"]["ndcg@10"])


def test_demo_rejects_a_top_k_below_the_largest_cutoff(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = main(["demo", "--output-dir", str(tmp_path / "r"), "--top-k", "5"], stdout=out, stderr=err)
    assert code == 2
    assert err.getvalue().strip().startswith("rag-eval: error: ") and "top_k" in err.getvalue()
