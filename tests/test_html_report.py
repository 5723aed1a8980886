"""report.html without a browser: the embedded data, the escaping, the page-data checks, and what the bench writes."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from html import unescape
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_helpers import HashEmbedder, case_records, documents  # noqa: E402
from html_pages import DATA_BLOCK, PROBE_TEXT, embedded, probe_page, small_page  # noqa: E402

from rag_eval_adapters import read_trec_qrels, read_trec_run  # noqa: E402
from rag_eval_adapters.bench import BenchSettings, Chunk, cases_from_records, run_bench  # noqa: E402
from rag_eval_adapters.bench.html_page import evidence_offsets  # noqa: E402
from rag_eval_adapters.reports.html import (  # noqa: E402
    check_page,
    json_for_script,
    render_html,
    write_html_report,
)


def test_embedded_json_round_trips_and_cannot_close_its_script_element():
    page = probe_page()
    html = render_html(page)
    block = DATA_BLOCK.findall(html)[0]
    assert not set(block) & set("<>&\u2028\u2029")
    assert embedded(html) == json.loads(json.dumps(page))
    # exactly the two script elements of the page: its data and its own code
    assert html.lower().count("<script") == 2 and html.lower().count("</script") == 2


def test_json_for_script_escapes_and_refuses_non_finite_numbers():
    assert json_for_script({"t": "</script>&\u2028"}) == '{"t":"\\u003c/script\\u003e\\u0026\\u2028"}'
    with pytest.raises(ValueError, match=r"data\.configurations\[0\]\.mean\.ndcg@10"):
        json_for_script({"configurations": [{"mean": {"ndcg@10": float("nan")}}]})


def test_the_title_is_escaped_and_the_page_allows_only_its_own_script():
    html = render_html({**small_page(), "title": "<b>x</b> & \"y\""})
    assert "<title>&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;</title>" in html
    policy = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1))
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy.split("script-src")[1]
    code = re.findall(r"<script>(.*?)</script>", html, re.S)[0]
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy


def test_the_script_never_parses_data_as_markup_and_the_page_names_no_remote_address():
    html = render_html(small_page())
    code = re.findall(r"<script>(.*?)</script>", html, re.S)[0]
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                 "setAttribute(\"href\"", "setAttribute(\"src\""):
        assert sink not in code, sink
    addresses = set(re.findall(r"(?:https?:)?//[\w.-]+", html))
    assert addresses <= {"http://www.w3.org"}  # the SVG namespace name, never fetched


def test_the_style_sheet_and_script_are_package_data_files_the_page_embeds():
    from importlib import resources

    from rag_eval_adapters.reports.html_assets import PAGE_SCRIPT, PAGE_STYLE, asset_text

    folder = resources.files("rag_eval_adapters.reports").joinpath("assets")
    css = folder.joinpath("report.css").read_text(encoding="utf-8")
    js = folder.joinpath("report.js").read_text(encoding="utf-8")
    assert "unicode-bidi" in css and "report-ready" in js and "__PALETTE__" in js
    assert PAGE_STYLE.strip() == css.strip() and "__PALETTE__" not in PAGE_SCRIPT
    html = render_html(small_page())
    assert f"<style>\n{PAGE_STYLE}\n</style>" in html and PAGE_SCRIPT in html
    with pytest.raises(FileNotFoundError, match="report.txt"):
        asset_text("report.txt")


def test_check_page_names_the_field_at_fault():
    with pytest.raises(TypeError, match="'title' must be a string"):
        check_page({"configurations": []})
    with pytest.raises(TypeError, match=r"configurations\[1\] must be a mapping with a string 'name'"):
        check_page({"title": "t", "configurations": [{"name": "a"}, {"mean": {}}]})
    page = small_page()
    page["retrieved"] = page["retrieved"][:1]
    with pytest.raises(ValueError, match=r"'retrieved' must hold one list per configuration \(2\), got 1"):
        render_html(page)
    page = small_page()
    page["per_query"][1] = page["per_query"][1][:1]
    with pytest.raises(ValueError, match=r"per_query\[1\] must hold one entry per question \(2\)"):
        check_page(page)
    page = small_page()
    page["chunks"]["texts"].pop()
    with pytest.raises(ValueError, match="chunks.ids and chunks.texts must have the same length"):
        check_page(page)


def test_write_html_report_writes_the_rendered_page(tmp_path):
    path = write_html_report(small_page(), tmp_path / "report.html")
    assert path.read_text(encoding="utf-8") == render_html(small_page())
    assert PROBE_TEXT not in path.read_text(encoding="utf-8")


def test_evidence_offsets_follow_spans_texts_and_chunk_ids():
    case = cases_from_records([{"query_id": "q", "query": "x", "evidence_spans": [
        {"doc_id": "d", "start": 5, "end": 15}, {"doc_id": "e", "start": 0, "end": 3}]}])[0]
    assert evidence_offsets(Chunk("d#0", "d", "abcdefghij", 10, 20), case) == [0, 5]
    assert evidence_offsets(Chunk("d#1", "d", "abcdefghij", 0, 10), case) == [5, 10]
    assert evidence_offsets(Chunk("d#2", "d", "abcdefghij", 20, 30), case) == []
    by_text = cases_from_records([{"query_id": "q", "query": "x", "evidence": "Oxbow   LAKE forms"}])[0]
    chunk = Chunk("r#0", "r", "When a loop is cut off an oxbow lake\nforms.", 0, 43)
    start, end = evidence_offsets(chunk, by_text)
    assert chunk.text[start:end] == "oxbow lake\nforms"
    inside = Chunk("r#1", "r", "oxbow lake", 0, 10)
    assert evidence_offsets(inside, by_text) == [0, 10]
    by_id = cases_from_records([{"query_id": "q", "query": "x", "relevant_chunk_ids": ["r#0"]}])[0]
    assert evidence_offsets(chunk, by_id) == []


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory):
    pytest.importorskip("llama_index.core")
    pytest.importorskip("bm25s")
    out = tmp_path_factory.mktemp("bench_html") / "report"
    result = run_bench(documents(), case_records(), chunkings=["16:0", "32:8"], retrievers=["bm25", "e5"],
                       rerankers=["lexical"], settings=BenchSettings(ks=(1, 3, 5), e2e_limit=4, permutations=100),
                       embedder=HashEmbedder(), output_dir=out)
    return out, result


@pytest.fixture(scope="module")
def bench_folder(bench_run):
    return bench_run[0]


def test_the_bench_page_holds_the_runs_grades_and_evidence_of_its_report_folder(bench_folder):
    data = embedded((bench_folder / "report.html").read_text(encoding="utf-8"))
    report = json.loads((bench_folder / "report.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in data["configurations"]] == list(report["configurations"])
    assert data["verdict"] == report["verdict"] and data["headline"] == report["headline_metric"] == "ndcg@5"
    ids, texts = data["chunks"]["ids"], data["chunks"]["texts"]
    evidence = {r["query_id"]: r["evidence"] for r in case_records()}
    qids = [q["id"] for q in data["questions"]]
    for ci, (name, conf) in enumerate(report["configurations"].items()):
        run = read_trec_run(bench_folder / conf["files"]["run"])
        qrels = read_trec_qrels(bench_folder / conf["files"]["qrels"])
        assert data["configurations"][ci]["mean"] == {**conf["mean"], **conf["answers"]["mean"]}
        for qi, qid in enumerate(qids):
            ranking = data["retrieved"][ci][qi]
            expected = sorted(run.get(qid, {}).items(), key=lambda kv: -kv[1])[:5]
            assert [ids[e[0]] for e in ranking] == [d for d, _ in expected], (name, qid)
            assert [e[2] for e in ranking] == [qrels[qid].get(ids[e[0]], 0) for e in ranking]
            for chunk, _, grade, offsets in ranking:
                assert bool(offsets) == (grade > 0)
                for start, end in zip(offsets[::2], offsets[1::2], strict=True):
                    assert texts[chunk][start:end] in evidence[qid]
            values = data["per_query"][ci][qi]
            assert values == [conf["per_query"][qid][m] for m in data["query_metrics"]]
        answered = {str(q) for q in conf["answers"]["per_query"]}
        assert {qids[qi] for qi, a in enumerate(data["answers"][ci]) if a} == answered
        for qi, answer in enumerate(data["answers"][ci]):
            if answer:
                held = conf["answers"]["per_query"][qids[qi]]
                assert answer["scores"] == {m: held[m] for m in conf["answers"]["mean"]}
                assert isinstance(answer["text"], str)
    assert len(data["tests"]) == len(report["comparison"]["tests"])


def test_the_bench_page_carries_the_judge_its_warnings_and_the_left_out_questions_of_report_json(bench_run):
    from rag_eval_adapters.bench.html_page import bench_page

    folder, result = bench_run
    data = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    plain = bench_page(result, data)
    assert plain["warnings"] == [] and "left_out" not in plain and "interval_note" not in plain
    assert not any("judged by" in line for line in plain["summary"])
    warning = "the judge openai:gpt-x is the answering model gpt-x: it may prefer its own answers"
    data["judgments"] = {"judge": {"judge_model": "openai:gpt-x", "prompt_version": "v7", "warnings": [warning]}}
    data["left_out"] = [{"chunking": "s16o0", "reason": "no_relevant_chunk", "query_ids": ["q1", "q2"], "questions": 8,
                         "message": "2 of 8 questions have no relevant chunk in s16o0 and are left out: q1, q2"}]
    page = bench_page(result, data)
    check_page(page)
    assert "Answers judged by openai:gpt-x (prompt v7)." in page["summary"] and page["warnings"] == [warning]
    assert page["left_out"] == data["left_out"]
    assert {k: v for k, v in page.items() if k not in ("summary", "warnings", "left_out")} == \
        {k: v for k, v in plain.items() if k not in ("summary", "warnings")}
    with pytest.raises(TypeError, match=r"left_out\[0\] must be a mapping with a list 'query_ids'"):
        check_page({**page, "left_out": [{"chunking": "s16o0", "query_ids": "q1"}]})


# ---------------------------------------------------------------- pages of evaluate, compare and answers

QRELS = {"q1": {"d1": 2, "d3": 1}, "q2": {"d2": 1}, "q3": {"d9": 1}}
RUN_A = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d1": 0.4, "d2": 0.3}, "q3": {"d4": 1.0}}
RUN_B = {"q1": {"d3": 0.8, "d1": 0.7}, "q2": {"d2": 0.9}, "q3": {"d9": 0.2, "d4": 0.1}}
METRICS = ["ndcg@2", "ndcg@5", "recall@2", "recall@5"]


def test_report_page_of_runs_holds_means_per_query_values_rankings_and_tests():
    from rag_eval_adapters import evaluate
    from rag_eval_adapters.compare import compare_reports
    from rag_eval_adapters.reports import report_page

    types = {"q1": {"query_type": "literal"}, "q2": {"query_type": "literal"}, "q3": {"query_type": "scenario"}}
    reports = {name: evaluate(QRELS, run, METRICS).with_attributes(types) for name, run in (("A", RUN_A), ("B", RUN_B))}
    comparison = compare_reports(reports, n_permutations=100, n_bootstrap=100)
    page = report_page(reports, title="t", comparison=comparison, runs={"A": RUN_A, "B": RUN_B}, qrels=QRELS, depth=2)
    check_page(page)
    assert page["families"] == ["ndcg", "recall"] and page["ks"] == [2, 5] and page["headline"] == "ndcg@2"
    assert page["query_types"] == {"literal": 2, "scenario": 1}
    assert [c["mean"] for c in page["configurations"]] == [reports["A"].mean, reports["B"].mean]
    literal = page["configurations"][0]["by_type"]["literal"]
    assert literal["ndcg@2"] == pytest.approx((reports["A"].per_query["q1"]["ndcg@2"]
                                               + reports["A"].per_query["q2"]["ndcg@2"]) / 2)
    assert [q["id"] for q in page["questions"]] == ["q1", "q2", "q3"]
    assert page["per_query"][1][2] == [reports["B"].per_query["q3"][m] for m in METRICS]
    ids = page["chunks"]["ids"]
    # trec_eval's order (score descending, ties by doc id descending), cut at depth, with the qrels' grades
    assert [(ids[e[0]], e[2]) for e in page["retrieved"][0][0]] == [("d1", 2), ("d3", 1)]
    assert [(ids[e[0]], e[2]) for e in page["retrieved"][1][2]] == [("d9", 1), ("d4", 0)]
    assert [(t["a"], t["b"], t["metric"], t["p"]) for t in page["tests"]] == [
        (t.run_a, t.run_b, t.metric, t.p_value) for t in comparison.tests]
    # compare corrects its family (Holm's by default): the page carries each test's adjusted p beside the raw one
    assert [t["p_adjusted"] for t in page["tests"]] == [t.adjusted_p_value for t in comparison.tests]
    assert all(t.adjusted_p_value is not None for t in comparison.tests)
    uncorrected = compare_reports(reports, n_permutations=100, n_bootstrap=100, correction="none")
    assert all(t["p_adjusted"] == t["p"] for t in report_page(reports, title="t", comparison=uncorrected)["tests"])
    only_map = report_page({"A": evaluate(QRELS, RUN_A, ["map", "ndcg@5"])}, title="t")
    assert only_map["families"] == [] and only_map["metrics"] == ["map", "ndcg@5"]


def test_report_page_shows_the_intervals_of_the_means_it_shows():
    from rag_eval_adapters import evaluate
    from rag_eval_adapters.compare import compare_reports
    from rag_eval_adapters.intervals import report_intervals
    from rag_eval_adapters.reports import report_page

    reports = {name: evaluate(QRELS, run, METRICS) for name, run in (("A", RUN_A), ("B", RUN_B))}
    given = {"A": report_intervals(reports["A"], method="t", confidence=0.9)}
    page = report_page(reports, title="t", intervals=given)
    check_page(page)
    first, second = page["configurations"]
    assert first["intervals"] == {m: [given["A"][m].low, given["A"][m].high] for m in METRICS}
    assert "intervals" not in second and page["interval_note"] == "[low, high] under each mean: its t 90% interval."
    # an interval of another mean (a PPI-corrected one, or over other queries) is not put under this mean
    moved = {"A": {"ndcg@2": {"estimate": reports["A"].mean["ndcg@2"] + 0.1, "low": 0.0, "high": 1.0}}}
    assert "intervals" not in report_page(reports, title="t", intervals=moved)["configurations"][0]
    comparison = compare_reports(reports, n_permutations=50, n_bootstrap=50)
    from dataclasses import replace

    comparison = replace(comparison, intervals={n: report_intervals(r, method="normal") for n, r in reports.items()})
    page = report_page(reports, title="t", comparison=comparison)
    assert [sorted(c["intervals"]) for c in page["configurations"]] == [sorted(METRICS)] * 2


def test_report_page_of_answer_records_shows_answers_scores_and_claims():
    from rag_eval_adapters.answers import evaluate_answers
    from rag_eval_adapters.reports import report_page

    claim = {"text": "Vesuvius did it.", "verdict": "supported", "quote": "Vesuvius", "chunk_id": "c1", "start": 4,
             "end": 12}
    records = [{"query_id": "q1", "query": "which volcano buried Pompeii", "prediction": "Vesuvius",
                "reference": "Vesuvius", "query_type": "literal", "claims": [claim]},
               {"query_id": 2, "question": "what makes dough rise", "prediction": "heat",
                "references": ["yeast", "Yeast."], "query_type": "paraphrase"}]
    report = evaluate_answers(records, ["exact_match", "token_f1"], progress=False)
    page = report_page({"answers": report}, title="answers", records=records)
    check_page(page)
    assert [(q["id"], q["text"], q["type"], q["reference"]) for q in page["questions"]] == [
        ("q1", "which volcano buried Pompeii", "literal", "Vesuvius"),
        ("2", "what makes dough rise", "paraphrase", "yeast | Yeast.")]
    first, second = page["answers"][0]
    assert first == {"text": "Vesuvius", "scores": {"exact_match": 1.0, "token_f1": 1.0}, "claims": [claim]}
    assert second == {"text": "heat", "scores": {"exact_match": 0.0, "token_f1": 0.0}}


def test_adjusted_p_is_read_from_any_of_its_names():
    from rag_eval_adapters.reports.html_pages import adjusted_p

    assert adjusted_p({"p_adjusted": 0.2}) == adjusted_p({"adjusted_p_value": 0.2}) == 0.2
    assert adjusted_p(type("T", (), {"p_value_adjusted": 0.04})()) == 0.04
    assert adjusted_p({"p_value": 0.01}) is None


def test_judged_claims_are_read_from_a_reports_judgments():
    from rag_eval_adapters.reports.html_pages import judged_claims

    verdict = {"claim": "Vesuvius buried Pompeii.", "verdict": "supported", "chunk_id": "c1", "quote": "Vesuvius",
               "start": 4, "end": 12, "note": ""}
    info = {"judgments": {"answer_correctness": {"q1": {"score": 1.0}},
                          "faithfulness": {"q1": {"score": 1.0, "claims": [verdict]}}}}
    assert judged_claims(info, "q1") == [{"text": "Vesuvius buried Pompeii.", "verdict": "supported",
                                          "quote": "Vesuvius", "chunk_id": "c1", "start": 4, "end": 12}]
    assert judged_claims(info, "q2") is None and judged_claims({}, "q1") is None
