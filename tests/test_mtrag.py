"""The shipped MTRAG human evaluation: the loader, the annotators' agreement, the offline grounding metrics
against the mean human faithfulness rating, and ``rag-eval meta-eval --builtin mtrag`` (judges against the local
judge server)."""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import run_cli  # noqa: E402

from rag_eval_adapters.agreement import (  # noqa: E402
    load_mtrag,
    meta_evaluate_mtrag,
    mtrag_ceiling,
    mtrag_path,
    spearman_brown,
)
from rag_eval_adapters.agreement.mtrag import mtrag_metric_scorer  # noqa: E402
from rag_eval_adapters.answers import lexical_grounding  # noqa: E402

stats = pytest.importorskip("scipy.stats")


@pytest.fixture(scope="module")
def answers():
    return load_mtrag()


def test_the_file_its_license_and_notice_ship(answers):
    assert "Apache License" in mtrag_path("LICENSE").read_text("utf-8")
    assert "IBM" in mtrag_path("NOTICE").read_text("utf-8")
    assert (len(answers), len({a.task.task_id for a in answers})) == (477, 159)
    assert Counter(a.model_id for a in answers) == {"reference": 159, "llama-3.1-405b-instruct": 159, "gpt-4o": 159}
    assert sum(bool(a.task.contexts) for a in answers) == 450
    assert Counter(a.task.domain for a in answers) == {"ibmcloud": 129, "clapnq": 123, "fiqa": 114, "govt": 111}
    assert Counter(a.task.answerability for a in answers) == {"answerable": 405, "partial": 45, "unanswerable": 21,
                                                         "conversational": 6}
    assert all(a.task.conversation[-1][0] == "user" for a in answers)
    assert max(len(a.task.conversation) for a in answers) == 23
    assert all(len(a.task.conversation) == 2 * a.task.turn - 1 for a in answers)  # user and agent turns alternate
    assert Counter(len(a.ratings["faithfulness"]) for a in answers) == {3: 465, 2: 12}
    assert len({id(a.task) for a in answers}) == 159  # a task read once, shared by its three answers
    assert answers[0].group("model") == answers[0].model_id and answers[0].group("turn") == str(answers[0].task.turn)
    assert answers[0].scores["rl_f"] == pytest.approx(0.7142857142857143)


def test_a_record_carries_the_passages_and_the_conversation(answers):
    multi = next(a for a in answers if len(a.task.conversation) > 2 and a.task.contexts)
    record = multi.record()
    assert record["contexts"][0] == {"chunk_id": multi.task.contexts[0][0], "text": multi.task.contexts[0][1]}
    assert record["conversation"][-1] == {"speaker": "user", "text": multi.task.question}
    assert record["question"].startswith("user: ") and record["question"].endswith(multi.task.question)


def test_one_rating_against_the_mean_of_the_others_is_0_515(answers):
    one, rest = [], []
    for a in answers:
        r = list(a.ratings["faithfulness"].values())
        one += r
        rest += [np.mean(r[:k] + r[k + 1:]) for k in range(len(r))]
    expected = stats.spearmanr(one, rest)[0]
    got = mtrag_ceiling(answers, n_bootstrap=0)["spearman"].value
    assert got == pytest.approx(expected) and round(got, 3) == 0.515


def test_the_mean_of_three_by_spearman_brown(answers):
    x, y = zip(*[p for a in answers for p in permutations(a.ratings["faithfulness"].values(), 2)], strict=True)
    r1 = stats.spearmanr(x, y)[0]
    got = spearman_brown(answers, n_bootstrap=50)["spearman"]
    assert got.value == pytest.approx(3 * r1 / (1 + 2 * r1))
    assert got.low < got.value < got.high


def test_lexical_grounding_reaches_0_63_with_the_mean_faithfulness(answers):
    human = np.array([a.rating("faithfulness") for a in answers])
    lexical = np.array([lexical_grounding(a.answer, [t for _, t in a.task.contexts]) for a in answers])
    ragas = np.array([a.scores["rl_f"] for a in answers])
    has = np.array([bool(a.task.contexts) for a in answers])
    assert stats.spearmanr(lexical, human)[0] >= 0.63 > stats.spearmanr(ragas, human)[0]
    assert stats.spearmanr(lexical[has], human[has])[0] >= 0.63 > stats.spearmanr(ragas[has], human[has])[0]
    m = meta_evaluate_mtrag(answers, {"lexical": mtrag_metric_scorer("grounding_lexical")}, benchmark=["rl_f"],
                            n_bootstrap=0)
    assert m.results["lexical"]["faithfulness"]["spearman"].value == pytest.approx(stats.spearmanr(lexical, human)[0])
    assert m.results["lexical"]["faithfulness"].groups["with passages"]["spearman"].value == pytest.approx(
        stats.spearmanr(lexical[has], human[has])[0])
    assert round(m.results["benchmark: rl_f (RAGAS faithfulness judge)"]["faithfulness"]["spearman"].value, 3) == 0.582


def test_a_scorer_that_cannot_score_an_answer_drops_it_and_counts_it(answers):
    subset = answers[:30]
    scorer = lambda items: [None if i % 3 == 0 else float(len(a.answer)) for i, a in enumerate(items)]  # noqa: E731
    m = meta_evaluate_mtrag(subset, {"partial": scorer}, benchmark=(), n_bootstrap=0, group_by="domain")
    assert m.dropped["partial"]["questions"] == 10
    assert m.results["partial"]["faithfulness"].overall.n == 20
    with pytest.raises(ValueError, match="finite"):
        meta_evaluate_mtrag(subset, {"nan": lambda items: [float("nan")] * len(items)}, benchmark=(), n_bootstrap=0)
    with pytest.raises(ValueError, match="unknown label or group 'tone'"):
        meta_evaluate_mtrag(subset, {}, labels=["tone"], n_bootstrap=0)
    lone = lambda items: [1.0] + [None] * (len(items) - 1)  # noqa: E731
    with pytest.raises(ValueError, match=r"'lone' could score 1 items only; .* at least 2 \(29 dropped: unmeasured 29\)"):
        meta_evaluate_mtrag(subset, {"lone": lone}, benchmark=(), n_bootstrap=0)  # as meta_evaluate says it


def test_a_broken_copy_is_an_error_naming_the_answer(tmp_path):
    with gzip.open(mtrag_path(), "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    del data["evaluations"][5]["annotations"]["faithfulness"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken.json: evaluations\[5\]: no human faithfulness ratings"):
        load_mtrag(path)


def test_the_command_measures_grounding_beside_the_benchmark_and_the_annotators():
    code, out, err = run_cli("meta-eval", "--builtin", "mtrag", "--format", "json", "--bootstrap", "20")
    assert code == 0, err
    data = json.loads(out)
    assert (data["source"], data["questions"], data["labels"]) == ("mtrag", 477, ["faithfulness"])
    scorers = data["scorers"]
    assert list(scorers)[:2] == ["annotators: mean of 3 (Spearman-Brown)", "grounding_lexical"]
    overall = scorers["grounding_lexical"]["faithfulness"]["overall"]["statistics"]["spearman"]["value"]
    groups = {g["group"]: g for g in scorers["grounding_lexical"]["faithfulness"]["groups"]}
    assert overall >= 0.63 and groups["with passages"]["statistics"]["spearman"]["value"] >= 0.63
    assert groups["with passages"]["n"] == 450
    assert round(data["ceiling"]["faithfulness"]["overall"]["statistics"]["spearman"]["value"], 3) == 0.515
    assert "benchmark: rl_f (RAGAS faithfulness judge)" in scorers and "answer_length" in data["baselines"]


def test_the_command_groups_limits_and_refuses_what_does_not_fit():
    code, out, err = run_cli("meta-eval", "--builtin", "mtrag", "--limit", "20", "--group-by", "answerability",
                             "--label", "faithfulness,completeness", "--bootstrap", "20", "--statistic", "spearman")
    assert code == 0, err
    assert "Agreement with 60 human labels on 60 answers (mtrag)" in out
    assert "by group, label completeness" in out and "answerable" in out and "mean of its 2-3 human ratings" in out
    for args, message in [(("--limit", "3"), "--limit goes with --builtin mtrag"),
                          (("--label", "tone"), "--label tone: MTRAG's labels are")]:
        builtin = "ragchecker" if args[0] == "--limit" else "mtrag"
        code, _, err = run_cli("meta-eval", "--builtin", builtin, *args, "--bootstrap", "20")
        assert code != 0 and message in err
    code, _, err = run_cli("meta-eval", "--builtin", "mtrag", "--group-by", "colour", "--bootstrap", "20")
    assert code != 0 and "unknown label or group 'colour'" in err


def test_a_judge_through_the_same_command_against_the_local_judge_server(judge_server, tmp_path, monkeypatch):
    pytest.importorskip("openai")
    from openai_server import refusal

    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    cache = tmp_path / "judge.sqlite"
    judge_server.queue(refusal())  # the first call is refused: that answer is unmeasured, dropped and counted
    args = ("meta-eval", "--builtin", "mtrag", "--limit", "4", "--judge", "faithfulness", "--judge-model", "jm",
            "--judge-base-url", judge_server.base_url, "--cache", str(cache), "--bootstrap", "20", "--format", "json")
    code, out, err = run_cli(*args)
    assert code == 0, err
    data = json.loads(out)
    name = next(s for s in data["scorers"] if s.startswith("faithfulness (judge"))
    assert data["dropped"][name]["questions"] == 1
    assert data["scorers"][name]["faithfulness"]["overall"]["n"] == 11
    sent = len(judge_server.chat_requests)
    assert sent > 12 and "calls" in err
    code, out_again, err = run_cli(*args)  # the cache answers every measured answer: only the refused one is asked
    assert code == 0, err
    assert len(judge_server.chat_requests) - sent <= 2
    code, _, err = run_cli("meta-eval", "--builtin", "mtrag", "--judge", "bleu", "--judge-model", "jm",
                           "--judge-base-url", judge_server.base_url, "--no-cache")
    assert code != 0 and "--judge bleu: not a judged metric" in err


def test_the_benchmark_script_measures_the_endpoint_it_is_pointed_at(judge_server, tmp_path, monkeypatch):
    pytest.importorskip("openai")
    import importlib.util

    path = Path(__file__).parents[1] / "benchmarks" / "bench_mtrag_judge.py"
    spec = importlib.util.spec_from_file_location("bench_mtrag_judge", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    out = tmp_path / "judge.md"
    args = module.arguments(["--model", "jm", "--base-url", judge_server.base_url, "--limit", "2", "--bootstrap",
                             "20", "--cache", str(tmp_path / "c.sqlite"), "-o", str(out)])
    assert module.rag_eval(module.command(args)) == 0
    table = out.read_text("utf-8")
    assert "| faithfulness (judge " in table and "| grounding_lexical |" in table
    assert judge_server.chat_requests
