"""Every human label is checked against its declared type and scale, naming file, line and field (issue 30,
item 4): a RAGChecker-layout preference of 1.5 or true is not read as 1, and ``"ndcg@10": 5`` is not a label."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli, write_jsonl, write_trec_qrels, write_trec_run  # noqa: E402

from rag_eval_adapters import Report  # noqa: E402
from rag_eval_adapters.agreement import load_ragchecker, ragchecker_path  # noqa: E402
from rag_eval_adapters.human_labels import read_human_labels  # noqa: E402
from rag_eval_adapters.stats.ppi import corrected_means  # noqa: E402


def _data_file(tmp_path, value, row=2, field="overall_label"):
    rows = json.loads(ragchecker_path().read_text())[:4]
    rows[row][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rows, indent=2))
    line = 1 + json.dumps(rows, indent=2).split("\n").index("  {", 1 + sum(
        json.dumps(r, indent=2).count("\n") + 1 for r in rows[:row]))
    return path, line


@pytest.mark.parametrize("value", [1.5, True, "1", None, -2.5])
def test_a_preference_that_is_not_a_whole_number_is_refused_naming_file_line_and_field(tmp_path, value):
    path, line = _data_file(tmp_path, value)
    with pytest.raises(ValueError) as error:
        load_ragchecker(path)
    assert str(error.value).startswith(f"bad.json:{line}: row 2: overall_label is {json.dumps(value)}; ")
    code, _, err = run_cli("meta-eval", "--data", path)
    assert code == 2 and f"bad.json:{line}: row 2: overall_label is {json.dumps(value)}" in err


def test_a_whole_preference_written_as_a_float_is_read_and_the_shipped_lines_are_named(tmp_path):
    path, _ = _data_file(tmp_path, 1.0)
    assert load_ragchecker(path)[2].labels["overall"] == 1
    path, line = _data_file(tmp_path, 3, row=3, field="correctness_label")
    with pytest.raises(ValueError, match=rf"bad.json:{line}: row 3: correctness_label is 3; labels lie in -2..2"):
        load_ragchecker(path)
    assert line == 62  # rows of 20 lines each after the opening bracket


def test_a_human_label_off_its_metrics_scale_is_refused_naming_file_line_and_field(tmp_path):
    labels = write_jsonl(tmp_path / "human.jsonl", [{"query_id": "q1", "ndcg@10": 0.5},
                                                    {"query_id": "q2", "ndcg@10": 5}])
    with pytest.raises(ValueError, match=r"human.jsonl:2: the human label \"ndcg@10\" is 5, off the metric's scale"):
        read_human_labels(labels)
    custom = write_jsonl(tmp_path / "custom.jsonl", [{"query_id": "q1", "my_scale": 5}])
    assert read_human_labels(custom) == {None: {"q1": {"my_scale": 5.0}}}  # a scale the registry does not know


def test_the_cli_refuses_a_label_of_five_for_ndcg_instead_of_reporting_it_corrected(tmp_path):
    rng = np.random.default_rng(1)
    docs = [f"d{i}" for i in range(10)]
    qrels = {f"q{j}": {docs[k]: 1 for k in rng.choice(10, size=2, replace=False)} for j in range(30)}
    run = {q: [docs[k] for k in rng.permutation(10)] for q in qrels}
    qrels_path = write_trec_qrels(tmp_path / "qrels.txt", qrels)
    run_path = write_trec_run(tmp_path / "run.txt", run)
    labels = write_jsonl(tmp_path / "human.jsonl", [{"query_id": f"q{i}", "ndcg@10": 5} for i in range(5)])
    code, out, err = run_cli("evaluate", "--qrels", qrels_path, "--run", run_path, "-m", "ndcg@10",
                             "--human-labels", labels)
    assert code == 2 and out == "" and "human.jsonl:1: the human label \"ndcg@10\" is 5" in err


def test_corrected_means_refuses_labels_off_the_scale_given_in_python():
    report = Report.from_per_query({f"q{i}": {"ndcg@10": i / 10} for i in range(10)})
    with pytest.raises(ValueError, match=r"query 'q1': the human label 'ndcg@10' is 5, off the metric's scale"):
        corrected_means(report, {"q0": {"ndcg@10": 0.5}, "q1": {"ndcg@10": 5}})
    with pytest.raises(ValueError, match=r"query 'q0': the human label 'ndcg@10' must be a finite number, got True"):
        corrected_means(report, {"q0": {"ndcg@10": True}, "q1": {"ndcg@10": 1}})
