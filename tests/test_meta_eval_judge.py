"""An LLM judge measured against people: ``rag-eval meta-eval --judge`` and ``JudgeScorer`` in ``meta_evaluate``,
against the local OpenAI-compatible judge server (its grades known in advance, see ``judge_server.py``)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli  # noqa: E402
from openai_server import malformed  # noqa: E402

from rag_eval_adapters.agreement import JudgeScorer, load_ragchecker, meta_evaluate  # noqa: E402
from rag_eval_adapters.judges import LLMJudge  # noqa: E402
from rag_eval_adapters.testsets import OpenAICompatibleLLM  # noqa: E402

# (reference, answer 1, answer 2, the judge server's answer_correctness of answer 1 and answer 2, worked by hand:
# claims are sentences; precision = the answer's sentences found in the reference, recall = the reference's
# sentences found in the answer; F1 = 2PR / (P + R))
QUESTIONS = [
    ("Paris is in France. Paris is big.", "Paris is in France.", "Paris is in France. Paris is big.",
     2 / 3, 1.0),                                        # P=1 R=1/2; P=1 R=1
    ("Rome is in Italy. Rome is old.", "Rome is in Italy. Rome is old.", "Rome is in Spain.",
     1.0, 0.0),                                          # P=1 R=1; P=0 R=0
    ("Oslo is cold. Oslo is in Norway.", "Oslo is hot.", "Oslo is cold. Oslo is wet.",
     0.0, 0.5),                                          # P=0 R=0; P=1/2 R=1/2
    ("Lima is in Peru. Lima is large.", "Lima is in Peru. Lima is large. Lima is old.", "Lima is in Peru.",
     0.8, 2 / 3),                                        # P=2/3 R=1; P=1 R=1/2
]
LABELS = [(1, 2), (-2, -1), (1, 0), (0, -1)]  # overall_label of the two annotators of each question


def write_data(path: Path) -> Path:
    rows = []
    for i, ((reference, one, two, _, _), labels) in enumerate(zip(QUESTIONS, LABELS, strict=True)):
        for label in labels:
            rows.append({"instance_id": i, "dataset": "capitals" if i < 2 else "cities", "query": f"question {i}?",
                         "gt_answer": reference, "model1": {"model_name": "a", "response": one},
                         "model2": {"model_name": "b", "response": two}, "correctness_label": label,
                         "completeness_label": label, "overall_label": label})
    path.write_text(json.dumps(rows))
    return path


def hand_pearson(questions: list[int]) -> float:
    diff = [QUESTIONS[i][4] - QUESTIONS[i][3] for i in questions for _ in (0, 1)]
    labels = [label for i in questions for label in LABELS[i]]
    return float(np.corrcoef(diff, labels)[0, 1])


def test_the_cli_measures_the_judge_drops_an_unmeasured_answer_and_caches(tmp_path, judge_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    data = write_data(tmp_path / "pairs.json")
    judge_server.on_prompt("Rome is in Spain", malformed(), malformed())  # the reply and its repair: unreadable
    cache = tmp_path / "caches" / "judge.sqlite"
    argv = ("meta-eval", "--data", data, "-m", "answer_correctness", "--judge-model", "judge-model",
            "--judge-base-url", judge_server.base_url, "--cache-dir", cache.parent, "--label", "overall", "--bootstrap", "20",
            "--no-baselines", "--format", "json")
    code, out, err = run_cli(*argv)
    assert code == 0, err
    result = json.loads(out)
    name = "answer_correctness (judge judge-model)"
    assert list(result["scorers"]) == ["token_f1", name]
    assert result["dropped"] == {name: {"questions": 1, "judgements": 2, "reasons": {"invalid_output": 1}}}
    overall = result["scorers"][name]["overall"]["overall"]
    assert overall["n"] == 6  # question 1 dropped: its answer 2 was never scored, so it is no 0 and no NaN
    assert overall["statistics"]["pearson"]["value"] == pytest.approx(hand_pearson([0, 2, 3]), abs=1e-12)
    sent = len(judge_server.chat_requests)
    assert sent > 0 and cache.is_file() and "judge judge-model:" in err
    code, again, err = run_cli(*argv)
    assert code == 0 and json.loads(again) == result
    assert len(judge_server.chat_requests) == sent and "judge-model: 0 calls, " in err  # nothing paid twice
    code, table, _ = run_cli(*argv[:-2], "--format", "table")
    assert code == 0 and f"{name} [1 dropped]" in table
    assert f"{name}: 1 of 4 questions dropped (2 of 8 labels), an answer unmeasured: invalid_output 1" in table
    assert "nan" not in table.lower()
    code, text, _ = run_cli(*argv[:-2], "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert code == 0 and {r["dropped_questions"] for r in rows if r["scorer"] == name} == {"1"}
    assert {r["dropped_questions"] for r in rows if r["scorer"] == "token_f1"} == {"0"}


def test_judge_scorer_in_meta_evaluate_equals_the_hand_computation(tmp_path, judge_server):
    judgements = load_ragchecker(write_data(tmp_path / "pairs.json"))
    judge = LLMJudge(OpenAICompatibleLLM("judge-model", base_url=judge_server.base_url,
                                         api_key=judge_server.api_key), retry_base_delay=0.0)
    scorers = {"judge": JudgeScorer(judge), "recall": JudgeScorer(judge, "answer_correctness_recall")}
    result = meta_evaluate(judgements, scorers, labels=["overall"], baselines=False, n_bootstrap=0)
    assert result.dropped == {}
    assert result.results["judge"]["overall"]["pearson"].value == pytest.approx(hand_pearson([0, 1, 2, 3]), abs=1e-12)
    recalls = [(0.5, 1.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5)]
    diff = [b - a for a, b in recalls for _ in (0, 1)]
    expected = float(np.corrcoef(diff, [x for pair in LABELS for x in pair])[0, 1])
    assert result.results["recall"]["overall"]["pearson"].value == pytest.approx(expected, abs=1e-12)


def test_a_judge_needs_a_model_and_a_metric_the_pairs_can_give(tmp_path, judge_server):
    data = write_data(tmp_path / "pairs.json")
    code, _, err = run_cli("meta-eval", "--data", data, "-m", "answer_correctness")
    assert code == 2 and "-m answer_correctness is judged by an LLM: give --judge-model" in err
    code, _, err = run_cli("meta-eval", "--data", data, "-m", "faithfulness", "--judge-model", "m",
                           "--judge-base-url", judge_server.base_url)
    assert code == 2 and "faithfulness needs the retrieved contexts" in err
    code, _, err = run_cli("meta-eval", "--data", data, "-m", "answer_correctness", "--judge-model", "m",
                           "--judge-base-url", judge_server.base_url, "--cache", data)
    assert code == 2 and "--cache" in err and "is an input file" in err
    code, _, err = run_cli("meta-eval", "--data", data, "--judge-model", "m")
    assert code == 2 and "go with a judged metric" in err


def test_the_deprecated_judge_option_still_measures_the_judge(tmp_path, judge_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    data = write_data(tmp_path / "pairs.json")
    common = ("--judge-model", "judge-model", "--judge-base-url", judge_server.base_url, "--cache-dir", tmp_path / "c",
              "--label", "overall", "--bootstrap", "20", "--no-baselines", "--format", "json")
    code, old, err = run_cli("meta-eval", "--data", data, "--judge", "answer_correctness", *common)
    assert code == 0 and err.count("rag-eval: warning: --judge is deprecated; use -m/--metric\n") == 1
    code, new, err = run_cli("meta-eval", "--data", data, "-m", "answer_correctness", *common)
    assert code == 0 and "warning" not in err and json.loads(new) == json.loads(old)
