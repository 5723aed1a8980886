"""``--ci`` and ``--human-labels`` on evaluate and answers: every mean with its named interval, PPI when labelled."""

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

from rag_eval_adapters import evaluate, read_qrels, read_run  # noqa: E402
from rag_eval_adapters.answers import token_f1  # noqa: E402
from rag_eval_adapters.intervals import mean_interval  # noqa: E402
from rag_eval_adapters.ppi import ppi_mean  # noqa: E402


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(10)]
    qrels = {f"q{j}": {docs[k]: 1 for k in rng.choice(10, size=2, replace=False)} for j in range(30)}
    run = {q: [docs[k] for k in rng.permutation(10)] for q in qrels}
    return write_trec_qrels(tmp_path / "qrels.txt", qrels), write_trec_run(tmp_path / "run.txt", run)


def test_evaluate_ci_names_its_interval(files):
    qrels, run = files
    report = evaluate(read_qrels(qrels), read_run(run), ["mrr", "p@1"])
    for method in ("t", "bootstrap"):
        code, out, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "-m", "p@1", "--ci", method,
                                 "--format", "json")
        assert code == 0, err
        intervals = json.loads(out)["intervals"]
        for key in ("mrr", "p@1"):
            expected = mean_interval(report.column(key), method=method)
            got = intervals[key]
            assert got["interval"] == f"{method} 95%" and got["method"] == method
            assert (got["estimate"], got["low"], got["high"]) == pytest.approx(
                (expected.estimate, expected.low, expected.high))
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--ci", "t", "--format", "markdown")
    assert "### Means with their intervals" in out and "| t 95% |" in out
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--ci", "normal", "--format", "csv",
                           "--confidence", "0.9")
    rows = {r["query_id"]: r for r in csv.DictReader(io.StringIO(out))}
    expected = mean_interval(report.column("mrr"), method="normal", confidence=0.9)
    assert float(rows["ci_low"]["mrr"]) == pytest.approx(expected.low)
    assert float(rows["ci_high"]["mrr"]) == pytest.approx(expected.high)
    code, out, _ = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--format", "json")
    assert "intervals" not in json.loads(out)  # no --ci: the output is as before


def test_human_labels_correct_a_judged_mean(tmp_path):
    rng = np.random.default_rng(2)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    rows, refs = [], []
    for i in range(80):
        ref = " ".join(rng.choice(words, size=4))
        pred = " ".join(rng.choice(words, size=4))
        rows.append({"query_id": f"q{i}", "prediction": pred, "reference": ref})
        refs.append((pred, ref))
    preds = write_jsonl(tmp_path / "answers.jsonl", rows)
    f1 = np.array([token_f1(p, r).f1 for p, r in refs])
    human = np.clip(f1 + rng.normal(0, 0.1, size=80) - 0.1, 0, 1)  # people are stricter than token F1
    labelled = list(range(0, 80, 4))
    labels = write_jsonl(tmp_path / "human.jsonl", [{"query_id": f"q{i}", "token_f1": float(human[i])} for i in labelled])
    code, out, err = run_cli("answers", "--predictions", preds, "-m", "token_f1", "-m", "exact_match", "--human-labels", labels,
                             "--format", "json")
    assert code == 0, err
    intervals = json.loads(out)["intervals"]
    assert list(intervals) == ["token_f1"]  # only the labelled metric without --ci
    others = [i for i in range(80) if i not in labelled]
    expected = ppi_mean(human[labelled], f1[labelled], f1[others])
    got = intervals["token_f1"]
    assert got["method"] == "ppi++" and got["interval"] == "ppi++ 95%" and got["n"] == 20
    assert (got["estimate"], got["low"], got["high"], got["judge_mean"]) == pytest.approx(
        (expected.estimate, expected.low, expected.high, float(f1.mean())))
    assert got["text"].startswith(f"judge mean {f1.mean():.2f}, corrected {expected.estimate:.2f}")
    code, out, _ = run_cli("answers", "--predictions", preds, "-m", "token_f1", "-m", "exact_match", "--human-labels", labels,
                           "--ci", "t", "--format", "markdown")
    assert "| ppi++ 95% | judge mean" in out and "corrected from 20 human labels" in out and "| t 95% |" in out


def test_bad_human_labels_are_one_line_errors(files, tmp_path):
    qrels, run = files
    labels = write_jsonl(tmp_path / "human.jsonl", [{"query_id": "q1", "ndcg@10": 0.5}])
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--human-labels", labels)
    assert code == 2 and "human label 'ndcg@10' is not a metric of the report" in err
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--human-labels",
                           tmp_path / "missing.jsonl")
    assert code == 2 and "missing.jsonl" in err
    code, _, err = run_cli("evaluate", "--qrels", qrels, "--run", run, "-m", "mrr", "--ci", "wald")
    assert code == 2 and "invalid choice: 'wald'" in err
