"""judged@k against ir_measures' Judged@k (the real package): the same number, the tie rule named apart."""

from __future__ import annotations

import random

import pytest

from rag_eval_adapters import evaluate, parse_metric
from rag_eval_adapters.metrics import judged


def _ir_measures(qrels, run, k):
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.parse_measure(f"Judged@{k}")
    rows = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], rows, scored)}


def test_judged_at_k_is_ir_measures_judged_at_k_on_random_runs_with_distinct_scores():
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in range(30)]
        qrels[f"q{q}"] = {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, rng.randint(1, 12))}
        retrieved = rng.sample(docs, rng.randint(1, 25))  # often fewer than k
        scores = rng.sample(range(1000), len(retrieved))
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
    for k in (1, 5, 10, 20):
        ours = evaluate(qrels, run, [f"judged@{k}"]).per_query
        theirs = _ir_measures(qrels, run, k)
        assert theirs.keys() == {q for q in ours}
        for q, value in theirs.items():
            assert ours[q][f"judged@{k}"] == pytest.approx(value), (q, k)


def test_a_ranking_shorter_than_k_is_judged_on_what_it_holds():
    # before: 2 judged of 3 retrieved at k=10 was 0.2 (divided by k); ir_measures says 2/3
    assert judged(["a", "b", "c"], {"a": 1, "c": 0}, k=10) == pytest.approx(2 / 3)
    assert evaluate({"q": {"a": 1}}, {"q": {"a": 2.0, "x": 1.0}}, ["Judged@5"]).per_query["q"]["Judged@5"] == 0.5
    assert judged([], {"a": 1}, k=5) == 0.0


def test_the_tie_rule_is_trec_evals_and_named_as_the_difference_from_ir_measures():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}  # tied: trec_eval ranks b first (ids descending), ir_measures a
    assert evaluate(qrels, run, ["judged@1"]).per_query["q"]["judged@1"] == 0.0
    assert _ir_measures(qrels, run, 1)["q"] == 1.0
    doc = type(parse_metric("judged@1")).__doc__ or ""
    assert "ties" in doc and "ascending" in doc and "descending" in doc
