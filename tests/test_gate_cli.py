"""``rag-eval gate``: decisions and exit statuses, inputs (report.json of evaluate / bench, runs and qrels),
refusals, the files CI reads (Markdown, JUnit, JSON, report.html, $GITHUB_STEP_SUMMARY) and --power."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from cli_support import run_cli, write_trec_qrels, write_trec_run

N = 80


def _collection(tmp_path):
    """80 questions, one relevant document each; the baseline finds it at rank 1 (70%) or 3; ``worse`` pushes it
    out of the top 10 for 40% of the questions; ``same`` is the baseline again."""
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(N)}
    first = rng.random(N) < 0.7
    base, worse = {}, {}
    for i in range(N):
        others = [f"x{i}_{j}" for j in range(12)]
        base[f"q{i}"] = ([f"d{i}"] + others) if first[i] else (others[:2] + [f"d{i}"] + others[2:])
        worse[f"q{i}"] = (others + [f"d{i}"]) if rng.random() < 0.4 else base[f"q{i}"]
    return (write_trec_qrels(tmp_path / "qrels.txt", qrels), write_trec_run(tmp_path / "base.trec", base),
            write_trec_run(tmp_path / "worse.trec", worse), write_trec_run(tmp_path / "same.trec", base))


@pytest.fixture
def files(tmp_path):
    qrels, base, worse, same = _collection(tmp_path)
    out = {"qrels": qrels, "base.trec": base, "worse.trec": worse, "same.trec": same}
    for name, run in (("base", base), ("worse", worse), ("same", same)):
        code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "ndcg@10,mrr@10",
                               "--format", "json", "-o", tmp_path / f"{name}.json")
        assert code == 0, err
        out[name] = tmp_path / f"{name}.json"
    return out


def test_a_real_drop_fails_and_no_change_passes(files):
    code, out, err = run_cli("gate", "--baseline", files["base"], "--candidate", files["worse"], "-m",
                             "ndcg@10:0.02", "-m", "mrr@10:0.02")
    assert code == 1, err
    assert out.startswith("Gate FAIL: worse.json vs base.json: 2 fail (ndcg@10, mrr@10)")
    assert "worse by more than the margin" in out and "Holm's correction over 2 metrics" in out
    code, out, err = run_cli("gate", "--baseline", files["base"], "--candidate", files["same"], "-m", "ndcg@10:0.02")
    assert (code, out.splitlines()[0]) == (0, "Gate PASS: same.json vs base.json: 1 pass"), err


def test_runs_and_qrels_decide_as_their_reports_do(files, tmp_path):
    code, by_runs, err = run_cli("gate", "--qrels", files["qrels"], "--baseline", files["base.trec"], "--candidate",
                                 files["worse.trec"], "-m", "ndcg@10:0.02", "--format", "json")
    assert code == 1, err
    code, by_reports, _ = run_cli("gate", "--baseline", files["base"], "--candidate", files["worse"],
                                  "-m", "ndcg@10:0.02", "--format", "json")
    runs, reports = json.loads(by_runs), json.loads(by_reports)
    assert runs["metrics"][0]["p_fail"] == reports["metrics"][0]["p_fail"] > 0
    assert runs["metrics"][0]["n"] == N and runs["exit_code"] == 1


def test_inconclusive_exits_3_or_passes_when_asked(files, tmp_path):
    data = json.loads(files["base"].read_text())
    rows = dict(list(data["per_query"].items())[:6])
    cand = {q: {"ndcg@10": v["ndcg@10"] + d} for (q, v), d in zip(rows.items(), (0.1, -0.1, 0.05, -0.08, 0.0, 0.02),
                                                                     strict=True)}
    (tmp_path / "b.json").write_text(json.dumps({"mean": {"ndcg@10": 0.5}, "per_query": rows}))
    (tmp_path / "c.json").write_text(json.dumps({"mean": {"ndcg@10": 0.5}, "per_query": cand}))
    args = ("gate", "--baseline", tmp_path / "b.json", "--candidate", tmp_path / "c.json", "-m", "ndcg@10")
    code, out, _ = run_cli(*args)
    assert code == 3 and out.startswith("Gate INCONCLUSIVE") and "more questions are needed" in out
    assert "margin 0.02" in out  # the default margin of a retrieval metric
    assert "[only 5 of 6 questions changed: the test's error rates are rough" in out
    code, out, _ = run_cli(*args, "--inconclusive", "pass")
    assert code == 0 and out.startswith("Gate INCONCLUSIVE (counted as a pass)")


def test_a_report_without_per_question_values_is_refused_with_the_command_that_writes_them(files, tmp_path):
    data = json.loads(files["base"].read_text())
    del data["per_query"]
    (tmp_path / "means.json").write_text(json.dumps(data))
    code, _, err = run_cli("gate", "--baseline", tmp_path / "means.json", "--candidate", files["same"], "-m", "ndcg@10")
    assert code == 2
    assert "means.json holds no per-question values" in err and "rag-eval evaluate" in err and "--format json" in err


def test_bad_values_and_options_are_errors_naming_them(files, tmp_path):
    data = json.loads(files["base"].read_text())
    data["per_query"]["q3"]["ndcg@10"] = "high"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    code, _, err = run_cli("gate", "--baseline", tmp_path / "bad.json", "--candidate", files["same"], "-m", "ndcg@10")
    assert code == 2 and "bad.json: question 'q3', field 'ndcg@10': 'high' is not a finite number" in err
    base = ("gate", "--baseline", files["base"], "--candidate", files["same"])
    for option, message in ((("-m", "ndcg@10:-0.1"), "margin >= 0"), (("-m", "ndcg@10:x"), "must be a number"),
                            (("-m", "map"), "has no metric 'map'; it has ndcg@10, mrr@10"),
                            (("-m", "ndcg@10", "--alpha", "0.7"), "--alpha"),
                            (("-m", "ndcg@10", "--config", "a"), "not a bench report"),
                            (("-m", "ndcg@10", "--candidate", "-"), "not standard input")):
        code, _, err = run_cli(*base, *option)
        assert code == 2 and message in err, (option, err)


def _bench_report(path, configs):
    """A report.json shaped as rag-eval bench writes it (bench/report_files.py): configurations with per-question
    retrieval values and answers (with the questions' attributes beside the answer metrics)."""
    data = {"headline_metric": "ndcg@10", "configurations": {}}
    for name, (ndcg, f1) in configs.items():
        data["configurations"][name] = {
            "mean": {"ndcg@10": float(np.mean(ndcg))}, "per_query": {f"q{i}": {"ndcg@10": v} for i, v in enumerate(ndcg)},
            "answers": {"mean": {"token_f1": float(np.mean(f1))},
                        "per_query": {f"q{i}": {"query_type": "literal", "token_f1": v} for i, v in enumerate(f1)}}}
    path.write_text(json.dumps(data))
    return path


def test_a_bench_configuration_is_picked_by_name(tmp_path):
    rng = np.random.default_rng(2)
    ndcg, f1 = rng.random(60), rng.random(60)
    report = _bench_report(tmp_path / "report.json", {"s256/bm25": (ndcg, f1), "s96/bm25": (ndcg - 0.2, f1)})
    code, out, err = run_cli("gate", "--baseline", report, "--candidate", report, "--baseline-config", "s256/bm25",
                             "--candidate-config", "s96/bm25", "-m", "ndcg@10", "-m", "token_f1", "--format", "json")
    data = json.loads(out)
    assert code == 1, err
    assert [(m["metric"], m["outcome"], m["margin"]) for m in data["metrics"]] == [
        ("ndcg@10", "fail", 0.02), ("token_f1", "pass", 0.03)]
    code, _, err = run_cli("gate", "--baseline", report, "--candidate", report, "-m", "ndcg@10")
    assert code == 2 and "bench report of 2 configurations: pick one with --config (s256/bm25, s96/bm25)" in err
    code, _, err = run_cli("gate", "--baseline", report, "--candidate", report, "--config", "nope", "-m", "ndcg@10")
    assert code == 2 and "no configuration 'nope'" in err


def test_ci_files_markdown_junit_json_html_and_the_step_summary(files, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    paths = {k: tmp_path / f"gate.{k}" for k in ("md", "xml", "json", "html")}
    code, _, err = run_cli("gate", "--baseline", files["base"], "--candidate", files["worse"], "-m", "ndcg@10:0.02",
                           "-m", "mrr@10:0.5", "--markdown", paths["md"], "--junit", paths["xml"], "--json",
                           paths["json"], "--html", paths["html"])
    assert code == 1, err
    markdown = paths["md"].read_text()
    assert markdown.startswith("### rag-eval gate: ❌ fail") and "| ndcg@10 | ❌ fail |" in markdown
    assert summary.read_text() == "earlier step\n" + markdown
    suite = ET.parse(paths["xml"]).getroot().find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    assert "worse by more than the margin" in cases["ndcg@10"].find("failure").get("message")
    assert cases["mrr@10"].find("failure") is None  # a drop within its 0.5 margin passes
    decision = json.loads(paths["json"].read_text())
    assert decision["outcome"] == "fail" and decision["metrics"][1]["outcome"] == "pass"
    page = paths["html"].read_text()
    assert "rag-eval gate: worse.json vs base.json" in page and "worse by more than the margin" in page


def test_power_gives_the_questions_needed_and_the_detectable_drop(files):
    code, out, err = run_cli("gate", "--baseline", files["base"], "--candidate", files["worse"], "-m", "ndcg@10:0.02",
                             "--power", "--drop", "0.05", "--format", "json")
    assert code == 0, err
    (power,) = json.loads(out)["power"]
    assert power["n"] == N and power["alpha"] == 0.05
    from rag_eval_adapters.gate import detectable_drop, questions_needed

    assert power["needed"]["0.05"] == questions_needed(power["sd"], 0.05, 0.02, 0.05)
    assert power["detectable_drop"] == pytest.approx(detectable_drop(power["sd"], N, 0.02, 0.05))
    code, out, _ = run_cli("gate", "--baseline", files["base"], "--candidate", files["worse"], "-m", "ndcg@10:0.02",
                           "-m", "mrr@10", "--power")
    assert code == 0 and "detectable drop (80%)" in out and " 0.025 " in out  # Holm's first step: 0.05 / 2


def test_human_labels_test_a_judged_metric_on_its_ppi_difference(tmp_path):
    rng = np.random.default_rng(4)
    judge_b = rng.random(100)
    judge_c = np.clip(judge_b + rng.normal(0, 0.05, 100), 0, 1)
    for name, values in (("b", judge_b), ("c", judge_c)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"mean": {"faithfulness": 0.5}, "per_query": {
            f"q{i}": {"faithfulness": float(v)} for i, v in enumerate(values)}}))
    labels = [{"query_id": f"q{i}", "run": run, "faithfulness": float(round(v[i]))}
              for i in range(30) for run, v in (("baseline", judge_b), ("candidate", judge_c))]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    args = ("gate", "--baseline", tmp_path / "b.json", "--candidate", tmp_path / "c.json", "-m", "faithfulness",
            "--format", "json")
    _, plain, _ = run_cli(*args)
    code, out, err = run_cli(*args, "--human-labels", tmp_path / "labels.jsonl")
    with_labels = json.loads(out)["metrics"][0]
    assert with_labels["method"] == "ppi++" and with_labels["n_labelled"] == 30, err
    assert with_labels["std_error"] > json.loads(plain)["metrics"][0]["std_error"]  # the labels' noise counts
    (tmp_path / "anyrun.jsonl").write_text(json.dumps({"query_id": "q1", "faithfulness": 1}) + "\n")
    code, _, err = run_cli(*args, "--human-labels", tmp_path / "anyrun.jsonl")
    assert code == 2 and 'names its run, "baseline" or "candidate"; got no run' in err
