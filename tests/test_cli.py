"""`rag-eval evaluate`: formats, options, inputs, errors, progress, and trec_eval's reference means."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import TINY_QRELS, run_cli, tiny_files, write_jsonl, write_trec_run

from rag_eval_adapters.cli import main

DEFAULT_KEYS = [
    f"{m}@{k}" for m in ("hit_rate", "mrr", "precision", "recall", "f1", "ap", "ndcg") for k in (1, 3, 5, 10, 20)
]


# ---------------------------------------------------------------- trec_eval's own files


@pytest.mark.reference
def test_reference_means_match_trec_eval(reference_dir):
    code, out, err = run_cli(
        "evaluate", "--qrels", reference_dir / "qrels.test", "--run", reference_dir / "results.test",
        "-m", "ap", "-m", "precision@5", "-m", "ndcg@10", "-m", "mrr", "--format", "json",
    )
    assert code == 0, err
    mean = json.loads(out)["mean"]
    assert {k: round(v, 4) for k, v in mean.items()} == {
        "ap": 0.1785, "precision@5": 0.2667, "ndcg@10": 0.3016, "mrr": 0.4064,
    }


@pytest.mark.reference
def test_reference_relevance_level_two(reference_dir):
    # trec_eval -l 2 qrels.rel_level results.test: map 0.1667, recip_rank 0.3520, ndcg_cut_10 0.2656
    code, out, err = run_cli(
        "evaluate", "--qrels", reference_dir / "qrels.rel_level", "--run", reference_dir / "results.test",
        "-m", "ap,mrr,ndcg@10", "--relevance-level", "2", "--format", "json",
    )
    assert code == 0, err
    mean = json.loads(out)["mean"]
    assert {k: round(v, 4) for k, v in mean.items()} == {"ap": 0.1667, "mrr": 0.3520, "ndcg@10": 0.2656}


# ---------------------------------------------------------------- formats


def test_json_has_mean_per_query_and_counts(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-m", "ap",
                             "-m", "hit_rate@1", "-m", "precision@3", "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["mean"] == pytest.approx({"mrr": 0.5, "ap": 0.5, "hit_rate@1": 1 / 3, "precision@3": 2 / 9})
    assert data["per_query"]["q1"] == pytest.approx({"mrr": 0.5, "ap": 0.5, "hit_rate@1": 0.0, "precision@3": 1 / 3})
    assert data["per_query"]["q3"] == {"mrr": 0.0, "ap": 0.0, "hit_rate@1": 0.0, "precision@3": 0.0}
    assert data["counts"]["queries"] == 3 and data["counts"]["scored"] == 3
    assert data["errors"] == {}


def test_default_metrics_are_seven_measures_at_five_cutoffs(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "--format", "json")
    assert code == 0
    assert list(json.loads(out)["mean"]) == DEFAULT_KEYS


def test_table_is_a_metric_by_k_grid(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run)
    assert code == 0 and err == ""
    assert "mean over queries" in out and "queries: 3" in out
    code, markdown, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "--format", "markdown")
    assert code == 0
    assert "| metric | @1 | @3 | @5 | @10 | @20 |" in markdown
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1] for line in markdown.splitlines()
            if line.startswith("| ") and "metric" not in line}
    assert set(rows) == {"hit_rate", "mrr", "precision", "recall", "f1", "ap", "ndcg"}
    # mrr@20 of the tiny run is (1/2 + 1 + 0) / 3
    assert rows["mrr"][-1].strip() == "0.5000"
    for name, cells in rows.items():  # the terminal table shows the same names and values
        assert name in out and all(cell.strip() in out for cell in cells)


def test_table_lists_metrics_without_a_common_grid(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ap", "-m", "ndcg@3",
                           "--format", "markdown")
    assert code == 0
    assert "| metric | value |" in out
    assert "| ap | 0.5000 |" in out and "| ndcg@3 | 0.4133 |" in out


def test_csv_means_row_then_queries_worst_first(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr,ap", "--format", "csv",
                           "--per-query", "--sort-by", "mrr")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query_id", "mrr", "ap"]
    assert rows[1][0] == "all" and float(rows[1][1]) == pytest.approx(0.5)
    assert [r[0] for r in rows[2:]] == ["q3", "q1", "q2"]
    assert float(rows[3][1]) == pytest.approx(0.5)


def test_csv_without_per_query_has_only_the_means(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "csv")
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [["query_id", "mrr"], ["all", "0.5"]]


def test_markdown_tables(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-m", "ap",
                           "--format", "markdown", "--per-query")
    assert code == 0
    assert "| metric | value |" in out
    assert "| mrr | 0.5000 |" in out
    assert "| query_id | relevant | retrieved | first rel. rank |" in out
    query_rows = [line for line in out.splitlines() if line.startswith("| q") and "query_id" not in line]
    # sorted by ap (the first metric, as no nDCG is computed), worst first; q1's first relevant is at rank 2
    assert [r.split("|")[1].strip() for r in query_rows] == ["q3", "q1", "q2"]
    assert query_rows[1].split("|")[2:5] == [" 2 ", " 4 ", " 2 "]


def test_per_query_table_worst_first_with_details(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "--per-query")
    assert code == 0
    assert "Per query, worst ndcg@10 first" in out
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "--per-query", "--format", "markdown")
    assert code == 0
    assert "### Per query, worst ndcg@10 first" in out
    query_rows = [line for line in out.splitlines() if line.startswith("| q") and "query_id" not in line]
    assert [line.split("|")[1].strip() for line in query_rows] == ["q3", "q1", "q2"]
    q3 = [c.strip() for c in query_rows[0].split("|")[1:-1]]
    assert q3[:4] == ["q3", "1", "2", "-"]  # 1 relevant, 2 retrieved, none found


def test_json_per_query_adds_worst_queries(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json",
                           "--per-query", "--limit", "2")
    assert code == 0
    data = json.loads(out)
    assert data["sort_by"] == "mrr"
    assert [row["query_id"] for row in data["worst_queries"]] == ["q3", "q1"]
    assert data["worst_queries"][1] == {"query_id": "q1", "mrr": 0.5, "relevant": 2, "retrieved": 4,
                                        "first_relevant_rank": 2}


def test_output_file(tmp_path):
    qrels, run = tiny_files(tmp_path)
    target = tmp_path / "reports" / "tiny.json"
    target.parent.mkdir()
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json",
                             "--output", target)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["mean"] == {"mrr": 0.5}
    assert str(target) in err


# ---------------------------------------------------------------- options and inputs


def test_k_expands_metrics_given_without_cutoff(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndcg", "-m", "mrr@3",
                           "-m", "r_precision", "--k", "1,3", "--format", "json")
    assert code == 0
    assert list(json.loads(out)["mean"]) == ["ndcg@1", "ndcg@3", "mrr@3", "r_precision"]


def test_k_sets_cutoffs_of_the_default_metrics(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "--k", "2", "--format", "json")
    assert code == 0
    assert list(json.loads(out)["mean"]) == [f"{m}@2" for m in ("hit_rate", "mrr", "precision", "recall", "f1",
                                                                 "ap", "ndcg")]


def test_relevance_level(tmp_path):
    qrels, run = tiny_files(tmp_path)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--relevance-level", "2",
                           "--format", "json")
    assert code == 0
    # only d2 (grade 2, rank 4) counts for q1; q2 has no grade-2 document; q3's is not retrieved
    assert json.loads(out)["mean"]["mrr"] == pytest.approx(0.25 / 3)


def test_jsonl_inputs_score_like_trec_files(tmp_path):
    trec_qrels, trec_run = tiny_files(tmp_path)
    graded = write_jsonl(tmp_path / "graded.jsonl",
                         [{"query_id": q, "relevance": docs} for q, docs in TINY_QRELS.items()])
    ranked = write_jsonl(tmp_path / "ranked.jsonl", [
        {"query_id": "q1", "retrieved_ids": ["d3", "d1", "d4", "d2"]},
        {"query_id": "q2", "retrieved_ids": ["d5", "d6"], "scores": [2.0, 1.0]},
        {"query_id": "q3", "scores": {"d9": 0.5, "d8": 0.9}},
    ])
    args = ["-m", "mrr,ap,ndcg@3,precision@2", "--format", "json"]
    _, from_trec, _ = run_cli("evaluate", "--qrels", trec_qrels, "--run", trec_run, *args)
    code, from_jsonl, err = run_cli("evaluate", "--qrels", graded, "--run", ranked, *args)
    assert code == 0, err
    assert json.loads(from_jsonl)["per_query"] == json.loads(from_trec)["per_query"]


def test_jsonl_expected_ids_are_binary(tmp_path):
    qrels = write_jsonl(tmp_path / "q.jsonl", [{"query_id": "q1", "expected_ids": ["d1", "d2"]}])
    run = write_jsonl(tmp_path / "r.jsonl", [{"query_id": "q1", "retrieved_ids": ["d2", "d3"]}])
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndcg@2,recall@2", "--format", "json")
    assert code == 0
    mean = json.loads(out)["mean"]
    assert mean["recall@2"] == 0.5
    assert mean["ndcg@2"] == pytest.approx(1 / (1 + 1 / 1.584962500721156))


def test_query_missing_from_run_scores_zero(tmp_path):
    qrels, _ = tiny_files(tmp_path)
    run = write_trec_run(tmp_path / "partial.run", {"q2": ["d5"]})
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["mean"]["mrr"] == pytest.approx(1 / 3)
    assert data["counts"]["missing_from_run"] == 2


# ---------------------------------------------------------------- errors: one line, exit 2, no traceback


def _one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rag-eval: error: ")
    return lines[0]


def test_error_missing_qrels_file(tmp_path):
    _, run = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", tmp_path / "nope.qrels", "--run", run))
    assert line == f"rag-eval: error: qrels file not found: {tmp_path / 'nope.qrels'}"


def test_error_missing_run_file(tmp_path):
    qrels, _ = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", tmp_path / "nope.run"))
    assert "run file not found" in line and "nope.run" in line


def test_error_malformed_trec_line_names_its_number(tmp_path):
    qrels, run = tiny_files(tmp_path)
    lines = run.read_text().splitlines()
    lines[2] = "q1 Q0 d4 3"  # four fields instead of six
    run.write_text("\n".join(lines) + "\n")
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run))
    assert f"{run}:3:" in line


def test_error_malformed_trec_qrels_grade(tmp_path):
    qrels, run = tiny_files(tmp_path)
    qrels.write_text("q1 0 d1 1\nq1 0 d2 high\n")
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run))
    assert f"{qrels}:2:" in line and "'high'" in line


def test_error_malformed_jsonl_line_names_its_number(tmp_path):
    qrels, _ = tiny_files(tmp_path)
    run = tmp_path / "run.jsonl"
    run.write_text('{"query_id": "q1", "retrieved_ids": ["d1"]}\n\n{"query_id": "q2", "retrieved_ids": \n')
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run))
    assert f"{run}:3: not valid JSON" in line


def test_error_unknown_metric(tmp_path):
    qrels, run = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndcg@10", "-m", "bleu"))
    assert "unknown metric 'bleu'" in line and "ndcg" in line


def test_error_no_query_in_common(tmp_path):
    qrels, _ = tiny_files(tmp_path)
    run = write_trec_run(tmp_path / "other.run", {"x1": ["d1"], "x2": ["d5"]})
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run))
    assert line == "rag-eval: error: run other.run has no query in common with the qrels"


def test_error_plot_needs_png(tmp_path):
    qrels, run = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json",
                                    "--plot", tmp_path / "plot.pdf"))
    assert "PNG" in line and not (tmp_path / "plot.pdf").exists()


def test_error_bad_k(tmp_path):
    qrels, run = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run, "--k", "5,ten"))
    assert "--k" in line


def test_error_sort_by_must_be_computed(tmp_path):
    qrels, run = tiny_files(tmp_path)
    line = _one_error_line(*run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--per-query",
                                    "--sort-by", "ap"))
    assert "--sort-by ap" in line


def test_usage_errors_exit_2_without_traceback(tmp_path):
    code, out, err = run_cli("evaluate", "--run", "x")
    assert code == 2 and "--qrels" in err and "Traceback" not in err
    code, out, err = run_cli("evaluate", "--qrels", "a", "--run", "b", "--format", "xml")
    assert code == 2 and "invalid choice" in err


def test_version_and_help():
    code, out, _ = run_cli("--version")
    assert code == 0 and out.startswith("rag-eval ")
    code, out, _ = run_cli("evaluate", "--help")
    assert code == 0 and "--relevance-level" in out and "--per-query" in out


# ---------------------------------------------------------------- plot and progress


def test_plot_writes_a_png(tmp_path):
    qrels, run = tiny_files(tmp_path)
    target = tmp_path / "plots" / "tiny.png"
    target.parent.mkdir()
    code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "--format", "json", "--plot", target)
    assert code == 0
    json.loads(out)  # stdout stays pure JSON
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    assert str(target) in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_quiet_when_not_a_terminal(tmp_path, monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    qrels, run = tiny_files(tmp_path)
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr")
    assert code == 0 and err == ""


def test_progress_shown_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    qrels, run = tiny_files(tmp_path)
    err = _Terminal()
    code = main(["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "mrr"], stdout=io.StringIO(), stderr=err)
    assert code == 0
    assert "reading files" in err.getvalue() or "scoring" in err.getvalue()


def test_progress_disabled_by_tqdm_disable_even_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    qrels, run = tiny_files(tmp_path)
    err = _Terminal()
    code = main(["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "mrr"], stdout=io.StringIO(), stderr=err)
    assert code == 0 and err.getvalue() == ""


# ---------------------------------------------------------------- the installed console script


def test_installed_rag_eval_script(tmp_path):
    script = Path(sys.executable).with_name("rag-eval")
    if not script.exists():
        found = shutil.which("rag-eval")
        if found is None:
            pytest.skip("the rag-eval console script is not installed (pip install -e .)")
        script = Path(found)
    qrels, run = tiny_files(tmp_path)
    env = {**os.environ, "TQDM_DISABLE": "1"}
    done = subprocess.run([str(script), "evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "mrr",
                           "--format", "json"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mean"] == {"mrr": 0.5}
    bad = subprocess.run([str(script), "evaluate", "--qrels", str(tmp_path / "missing"), "--run", str(run)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip() == f"rag-eval: error: qrels file not found: {tmp_path / 'missing'}"
