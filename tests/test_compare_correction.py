"""Corrected tests in compare: Holm by default over every test of one comparison, adjusted p beside the raw p in
the JSON, CSV and tables; and prediction-powered means and differences from human labels (``--human-labels``)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli, write_jsonl, write_trec_qrels, write_trec_run  # noqa: E402

from rag_eval_adapters import Report, evaluate  # noqa: E402
from rag_eval_adapters.compare import compare_per_query, compare_reports  # noqa: E402
from rag_eval_adapters.ppi import corrected_means, ppi_paired  # noqa: E402

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


def _per_query(seed: int = 0, runs: int = 5, n: int = 40):
    rng = np.random.default_rng(seed)
    base = rng.uniform(size=n)
    return {f"r{i}": {f"q{j}": {"m1": float(np.clip(base[j] + 0.04 * i + rng.normal(0, 0.1), 0, 1)),
                                "m2": float(rng.uniform())} for j in range(n)} for i in range(runs)}


def test_every_test_of_a_comparison_is_one_holm_family():
    c = compare_per_query(_per_query(), ["m1", "m2"], n_permutations=2000, n_bootstrap=200)
    raw = [t.p_value for t in c.tests]
    assert len(raw) == 20 and c.correction.family_size == 20 and c.correction.method == "holm"
    np.testing.assert_allclose([t.adjusted_p_value for t in c.tests], multipletests(raw, method="holm")[1],
                               rtol=0, atol=1e-15)
    bh = compare_per_query(_per_query(), ["m1", "m2"], n_permutations=2000, n_bootstrap=200, correction="bh")
    np.testing.assert_allclose([t.adjusted_p_value for t in bh.tests], multipletests(raw, method="fdr_bh")[1],
                               rtol=0, atol=1e-15)
    none = compare_per_query(_per_query(), ["m1", "m2"], n_permutations=2000, n_bootstrap=200, correction="none")
    assert [t.adjusted_p_value for t in none.tests] == raw
    assert {(t.metric, t.run_a, t.run_b) for t in c.significant()} == {
        (t.metric, t.run_a, t.run_b) for t in c.tests if t.adjusted_p_value < 0.05}
    assert len(c.significant()) < len(none.significant())  # fewer survive the correction on this data
    data = c.to_dict()
    assert data["correction"] == {"method": "holm", "family_size": 20, "alpha": 0.05, "scope": "",
                                  "text": "at 0.05 after Holm's correction over 20 comparisons"}
    assert all(t["adjusted_p_value"] >= t["p_value"] for t in data["tests"])
    assert "adjusted p=" in repr(c.tests[0])
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        compare_per_query(_per_query(), ["m1"], correction="sidak")


def test_compare_reports_corrects_too():
    per_query = _per_query(runs=3)
    reports = {name: Report.from_per_query(rows) for name, rows in per_query.items()}
    c = compare_reports(reports, n_permutations=500, n_bootstrap=100)
    assert c.correction.family_size == 6
    np.testing.assert_allclose([t.adjusted_p_value for t in c.tests],
                               multipletests([t.p_value for t in c.tests], method="holm")[1], atol=1e-15)


@pytest.fixture()
def three_runs(tmp_path):
    rng = np.random.default_rng(3)
    docs = [f"d{i}" for i in range(20)]
    qrels = {f"q{j}": {docs[k]: 1 for k in rng.choice(20, size=3, replace=False)} for j in range(60)}
    paths = []
    for i in range(3):
        run = {q: [docs[k] for k in rng.permutation(20)] for q in qrels}
        for q, rel in qrels.items():  # better runs put a relevant document first more often
            if rng.uniform() < 0.25 * i:
                first = next(iter(rel))
                run[q].remove(first)
                run[q].insert(0, first)
        paths.append(write_trec_run(tmp_path / f"run{i}.txt", run))
    return write_trec_qrels(tmp_path / "qrels.txt", qrels), paths, qrels


def test_cli_writes_adjusted_p_beside_raw_p(three_runs):
    qrels, runs, _ = three_runs
    base = ["compare", "--qrels", qrels, *[x for r in runs for x in ("--run", r)], "-m", "mrr", "-m", "p@1",
            "--permutations", "2000", "--bootstrap", "200"]
    code, out, err = run_cli(*base, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    raw = [t["p_value"] for t in data["tests"]]
    assert [t["adjusted_p_value"] for t in data["tests"]] == pytest.approx(multipletests(raw, method="holm")[1])
    assert data["correction"]["text"] == "at 0.05 after Holm's correction over 6 comparisons"
    code, out, _ = run_cli(*base, "--format", "csv", "--correction", "bh")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [float(r["adjusted_p_value"]) for r in rows] == pytest.approx(
        multipletests([float(r["p_value"]) for r in rows], method="fdr_bh")[1])
    assert {r["correction"] for r in rows} == {"bh"}
    code, out, _ = run_cli(*base, "--format", "markdown")
    assert "| adjusted p |" in out
    assert "adjusted p: holm over all 6 tests; * = significant at 0.05 after Holm's correction over 6 comparisons" in out
    code, _, err = run_cli(*base, "--correction", "sidak")
    assert code == 2 and "invalid choice: 'sidak'" in err


def test_cli_human_labels_give_ppi_means_and_differences(three_runs, tmp_path):
    qrels_path, runs, qrels = three_runs
    names = ["run0.txt", "run1.txt", "run2.txt"]
    rng = np.random.default_rng(8)
    labelled = [f"q{j}" for j in range(0, 60, 3)]
    lines = [{"query_id": q, "run": name, "mrr": float(rng.uniform())} for name in names[:2] for q in labelled]
    labels = write_jsonl(tmp_path / "human.jsonl", lines)
    code, out, err = run_cli("compare", "--qrels", qrels_path, *[x for r in runs for x in ("--run", r)], "-m", "mrr",
                             "--permutations", "500", "--bootstrap", "100", "--human-labels", labels,
                             "--format", "json")
    assert code == 0, err
    human = json.loads(out)["human_labels"]
    assert set(human["means"]) == {"run0.txt", "run1.txt"}  # run2 has no labels
    from rag_eval_adapters import read_qrels, read_run

    reports = {n: evaluate(read_qrels(qrels_path), read_run(r), ["mrr"]) for n, r in zip(names, runs, strict=True)}
    by_run = {n: {row["query_id"]: {"mrr": row["mrr"]} for row in lines if row["run"] == n} for n in names[:2]}
    expected = corrected_means(reports["run0.txt"], by_run["run0.txt"])["mrr"]
    got = human["means"]["run0.txt"]["mrr"]
    assert (got["estimate"], got["low"], got["high"]) == pytest.approx((expected.estimate, expected.low, expected.high))
    judge = {n: reports[n].column("mrr") for n in names[:2]}
    ids = reports["run0.txt"].query_ids
    rows = [ids.index(q) for q in labelled]
    others = [i for i in range(len(ids)) if ids[i] not in labelled]
    diff = ppi_paired([by_run["run0.txt"][q]["mrr"] for q in labelled], [by_run["run1.txt"][q]["mrr"] for q in labelled],
                      judge["run0.txt"][rows], judge["run1.txt"][rows], judge["run0.txt"][others],
                      judge["run1.txt"][others])
    (d,) = human["differences"]
    assert (d["metric"], d["run_a"], d["run_b"]) == ("mrr", "run0.txt", "run1.txt")
    assert d["estimate"] == pytest.approx(diff.estimate) and d["high"] == pytest.approx(diff.high)
    code, out, _ = run_cli("compare", "--qrels", qrels_path, *[x for r in runs for x in ("--run", r)], "-m", "mrr",
                           "--permutations", "500", "--bootstrap", "100", "--human-labels", labels,
                           "--format", "markdown")
    assert "### Corrected with human labels (prediction-powered, PPI++)" in out
    assert "- run0.txt mrr: judge mean " in out and "from 20 human labels (ppi++, 95%)" in out


def test_cli_human_labels_must_name_their_run(three_runs, tmp_path):
    qrels, runs, _ = three_runs
    labels = write_jsonl(tmp_path / "human.jsonl", [{"query_id": "q1", "mrr": 1.0}])
    code, _, err = run_cli("compare", "--qrels", qrels, "--run", runs[0], "--run", runs[1], "-m", "mrr",
                           "--human-labels", labels)
    assert code == 2 and 'every human label of a comparison names its run ("run": ... on each line)' in err
    labels = write_jsonl(tmp_path / "other.jsonl", [{"query_id": "q1", "run": "dense", "mrr": 1.0}])
    code, _, err = run_cli("compare", "--qrels", qrels, "--run", runs[0], "--run", runs[1], "-m", "mrr",
                           "--human-labels", labels)
    assert code == 2 and "human labels for run 'dense', which is not compared" in err


def test_each_metric_can_be_its_own_family_and_a_resolution_floor_is_said():
    from rag_eval_adapters.reports import render_comparison

    c = compare_per_query(_per_query(), ["m1", "m2"], n_permutations=99, n_bootstrap=50, family="metric")
    assert c.correction.family_size == 10 and str(c.correction).endswith("over 10 comparisons of each metric")
    for metric in ("m1", "m2"):
        tests = [t for t in c.tests if t.metric == metric]
        np.testing.assert_allclose([t.adjusted_p_value for t in tests],
                                   multipletests([t.p_value for t in tests], method="holm")[1], atol=1e-15)
    text = render_comparison(c, "markdown")
    assert "adjusted p: holm over the 10 tests of each metric" in text
    # m1's clearest differences are settled by Hoeffding's bound, below the count's floor: some test can reach 0.05
    assert min(t.p_value for t in c.tests) < 0.01 / 99 and "no test can reach" not in text
    # m2 differs by chance only. 99 permutations: the smallest p is 0.01, and 10 of them adjusted together reach 0.1
    null = compare_per_query(_per_query(), ["m2"], n_permutations=99, n_bootstrap=50, family="metric")
    assert "no test can reach 0.05 here: the smallest p-value the test gives is 0.01" in render_comparison(
        null, "markdown")
    with pytest.raises(ValueError, match="family must be 'all'"):
        compare_per_query(_per_query(), ["m1"], family="run")


def test_cli_ci_gives_every_runs_mean_its_named_interval(three_runs):
    from rag_eval_adapters import read_qrels, read_run
    from rag_eval_adapters.intervals import mean_interval

    qrels, runs, _ = three_runs
    base = ["compare", "--qrels", qrels, "--run", runs[0], "--run", runs[1], "-m", "mrr", "--permutations", "200",
            "--bootstrap", "100", "--ci", "t"]
    code, out, err = run_cli(*base, "--format", "json")
    assert code == 0, err
    intervals = json.loads(out)["intervals"]
    report = evaluate(read_qrels(qrels), read_run(runs[1]), ["mrr"])
    expected = mean_interval(report.column("mrr"), method="t")
    got = intervals["run1.txt"]["mrr"]
    assert got["interval"] == "t 95%" and (got["low"], got["high"]) == pytest.approx((expected.low, expected.high))
    code, out, _ = run_cli(*base, "--format", "markdown")
    assert "### Mean over 60 queries [t 95% interval]" in out and f"[{expected.low:.4f}, {expected.high:.4f}]" in out
