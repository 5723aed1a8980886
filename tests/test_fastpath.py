"""evaluate() gives exactly the per-query functions' numbers and errors, whatever the input looks like.

The oracle is the public per-query API (``Metric.score``: one query at a time, validated and ranked on its own)
and pytrec_eval, never evaluate()'s own machinery. Batches larger than the bulk path's chunk of queries are
included, so chunk boundaries are crossed.
"""

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from rag_eval_adapters import evaluate
from rag_eval_adapters import metrics as fn
from rag_eval_adapters.measures import parse_metrics

ALL = [
    "hit_rate", "hit_rate@3", "hit_rate_granular@5", "mrr", "mrr@3", "mrr_granular@10", "precision",
    "precision@5", "recall@5", "recall", "f1@5", "f1", "ap", "ap@10", "r_precision", "dcg@5", "dcg_exp",
    "ndcg", "ndcg@3", "ndcg_exp@10",
]
FIELDS = (("retrieved_ids", "run"), ("expected", "qrels"))


def reference(qrels, run, metrics, level=1, missing="zero"):
    """The per-query functions, query by query: (query_ids, values, errors)."""
    ids, rows, errors = [], [], {}
    measures = parse_metrics(metrics)
    for qid, expected in qrels.items():
        if qid not in run and missing == "skip":
            continue
        ranking = run[qid] if qid in run else []
        try:
            row = [m.score(ranking, expected, relevance_level=level, query_id=qid) for m in measures]
        except (TypeError, ValueError) as exc:
            message = str(exc)
            for theirs, ours in FIELDS:  # the per-query functions name their arguments, evaluate its inputs
                message = message.replace(theirs, ours)
            errors[qid] = message
            continue
        ids.append(qid)
        rows.append(row)
    return ids, np.asarray(rows), errors


def assert_same(qrels, run, metrics=ALL, level=1, missing="zero"):
    report = evaluate(qrels, run, metrics, relevance_level=level, missing=missing)
    ids, values, errors = reference(qrels, run, metrics, level, missing)
    assert report.errors == errors
    assert report.query_ids == ids
    np.testing.assert_allclose(report.values, values.reshape(report.values.shape), rtol=0, atol=1e-12)
    return report


def random_batch(rng, n, tie_values=4, dup_rate=0.2, as_lists=False):
    """Graded qrels (some negative, some unretrieved) and runs with frequent ties and repeated ids."""
    qrels, run = {}, {}
    for q in range(n):
        pool = [f"d{i}" for i in rng.choice(60, size=30, replace=False)]
        depth = int(rng.integers(0, 25))
        if as_lists:
            ranking = [pool[int(i)] for i in rng.integers(0, 30, size=depth)] if rng.random() < dup_rate \
                else pool[:depth]
            run[f"q{q}"] = ranking
        else:
            run[f"q{q}"] = {d: float(rng.integers(0, tie_values)) / 2 for d in pool[:depth]}
        judged = rng.choice(pool, size=int(rng.integers(1, 12)), replace=False)
        qrels[f"q{q}"] = {str(d): int(rng.integers(-1, 4)) for d in judged}
    for q in rng.choice(n, size=n // 10, replace=False):  # some queries of the qrels are not in the run
        run.pop(f"q{q}", None)
    return qrels, run


@pytest.mark.parametrize("as_lists", [False, True])
@pytest.mark.parametrize("level", [1, 2])
def test_random_batches_equal_the_per_query_path(as_lists, level):
    rng = np.random.default_rng(7 + level + 10 * as_lists)
    qrels, run = random_batch(rng, 150, as_lists=as_lists)  # 150 random queries; chunks are crossed below
    assert_same(qrels, run, level=level)
    assert_same(qrels, run, level=level, missing="skip")


def test_values_equal_the_per_query_functions():
    rng = np.random.default_rng(3)
    qrels, run = random_batch(rng, 60)
    report = evaluate(qrels, run, ["ndcg@5", "ap", "mrr", "precision@3", "recall", "hit_rate_granular"])
    for qid in report.query_ids:
        ranked = run.get(qid, [])
        got = report.per_query[qid]
        assert got["ndcg@5"] == pytest.approx(fn.ndcg(ranked, qrels[qid], 5), abs=1e-12)
        assert got["ap"] == pytest.approx(fn.average_precision(ranked, qrels[qid]), abs=1e-12)
        assert got["mrr"] == pytest.approx(fn.mrr(ranked, qrels[qid]), abs=1e-12)
        assert got["precision@3"] == pytest.approx(fn.precision(ranked, qrels[qid], 3), abs=1e-12)
        assert got["recall"] == pytest.approx(fn.recall(ranked, qrels[qid]), abs=1e-12)
        assert got["hit_rate_granular"] == pytest.approx(fn.hit_rate(ranked, qrels[qid], granular=True), abs=1e-12)


def test_ties_are_broken_by_doc_id_descending():
    qrels = {"q": {"a": 1, "c": 1}}
    report = evaluate(qrels, {"q": {"a": 0.5, "b": 0.5, "c": 0.5, "z": 0.9}}, ["mrr", "ap"])
    # order: z (0.9), then c, b, a (ties, id descending): c at rank 2, a at rank 4
    assert report.per_query["q"]["mrr"] == 0.5
    assert report.per_query["q"]["ap"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert_same(qrels, {"q": {"a": 0.0, "b": -0.0, "c": 0.0}})  # -0.0 == 0.0: a tie
    assert_same(qrels, {"q": {"a": float("inf"), "b": float("-inf"), "c": float("inf")}})


def tied_queries(rng, n, first=0, throughout_only=False, pool_size=80, max_depth=70):
    """Queries with binary or constant scores: tied throughout, or (every 4th) tied at one score only."""
    qrels, run = {}, {}
    for q in range(first, first + n):
        pool = [f"d{i}" for i in rng.choice(500, size=pool_size, replace=False)]
        depth = int(rng.integers(0, max_depth))
        constant = [1.0, 0.0, -0.0, 0.5, float("inf"), 3][q % 6]
        if q % 4 == 3 and not throughout_only:  # tied at one score only
            run[f"q{q}"] = {d: (constant if i % 2 else float(i)) for i, d in enumerate(pool[:depth])}
        else:
            run[f"q{q}"] = dict.fromkeys(pool[:depth], constant)
        judged = rng.choice(pool, size=int(rng.integers(1, min(15, pool_size))), replace=False)
        qrels[f"q{q}"] = {str(d): int(rng.integers(-1, 4)) for d in judged}
    return qrels, run


def test_queries_whose_scores_are_all_equal_rank_by_doc_id():
    """Binary or constant scores: every query tied throughout, or tied at one score and not at others."""
    qrels, run = tied_queries(np.random.default_rng(11), 200)
    report = assert_same(qrels, run)
    assert not report.errors


def test_all_equal_scores_across_chunks():
    """A first chunk of queries all tied throughout, then a chunk mixing them with partly tied ones."""
    rng = np.random.default_rng(12)
    qrels, run = tied_queries(rng, 2100, throughout_only=True, pool_size=12, max_depth=10)  # > one chunk
    more_qrels, more_run = tied_queries(rng, 200, first=2100)
    report = assert_same(qrels | more_qrels, run | more_run, metrics=["mrr", "ndcg@5", "ap", "precision@3"])
    assert not report.errors and len(report.query_ids) == 2300


def test_a_query_tied_throughout_with_ids_of_mixed_types_gets_the_per_query_error():
    qrels = {"hit": {"a": 1}, "no hit": {"x": 1}, "bool": {"a": 1}, "good": {"b": 1, "c": 1}}
    run = {
        "hit": {1: 0.5, "a": 0.5, "b": 0.5},  # the judged document is tied with an int id
        "no hit": {1: 0.5, "a": 0.5},  # no judged document retrieved, still an impossible order
        "bool": dict.fromkeys("abcdef", 1.0) | {"g": True},
        "good": dict.fromkeys("abcdef", 1.0),
    }
    report = assert_same(qrels, run)
    assert sorted(report.errors) == ["bool", "hit", "no hit"]
    assert report.per_query["good"]["mrr"] == 1 / 4  # f, e, d, c: c is the first judged id


def test_repeated_ids_count_once_at_their_first_rank():
    qrels = {"q1": {"b": 1, "c": 2}, "q2": {"x": 1}}
    run = {"q1": ["a", "a", "b", "a", "c", "b"], "q2": ("y", "x", "x")}
    report = assert_same(qrels, run)
    assert report.per_query["q1"]["precision"] == pytest.approx(2 / 3)  # 3 distinct ids
    assert report.per_query["q1"]["mrr"] == 0.5
    assert report.per_query["q2"]["mrr"] == 0.5


BAD_RUNS = {
    "bool score": {"a": True, "b": 0.5},
    "string score": {"a": "0.9", "b": 0.5},
    "bytes score": {"a": b"0.9"},
    "decimal score": {"a": Decimal("0.5")},
    "complex score": {"a": 1j},
    "numpy complex score": {"a": np.complex128(0.5), "b": 0.25},
    "numpy bool score": {"a": np.bool_(True), "b": 0.5},
    "bool among many scores": {**{f"x{i}": i / 10 + 0.05 for i in range(20)}, "a": False},
    "nan score": {"a": float("nan"), "b": 1.0},
    "none score": {"a": None},
    "none id in scores": {None: 0.3, "a": 0.2},
    "none id in list": ["a", None],
    "unhashable id": ["a", ["b"]],
    "a string": "abc",
    "a number": 3,
    "mixed ids tied": {1: 0.5, "a": 0.5},
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_a_bad_run_entry_gets_the_per_query_error_and_the_rest_are_scored(case):
    qrels = {"good1": {"a": 1}, "bad": {"a": 1, 1: 1}, "good2": {"b": 2}}
    run = {"good1": {"a": 0.1, "b": 0.2}, "bad": BAD_RUNS[case], "good2": ["b", "a"]}
    report = assert_same(qrels, run)
    assert list(report.errors) == ["bad"]
    assert report.query_ids == ["good1", "good2"]
    assert "query 'bad'" in report.errors["bad"]


BAD_QRELS = {
    "empty": {},
    "bool grade": {"a": True},
    "string grade": {"a": "1"},
    "inf grade": {"a": float("inf")},
    "nan grade": {"a": float("nan")},
    "none id": {None: 1},
    "a string": "a",
    "none": None,
    "empty list": [],
}


@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_a_bad_qrels_entry_gets_the_per_query_error(case):
    qrels = {"good": {"a": 1}, "bad": BAD_QRELS[case], "good2": {"b": 1}}
    run = {"good": {"a": 0.1}, "bad": {"a": 0.5}, "good2": ["b"]}
    report = assert_same(qrels, run)
    assert list(report.errors) == ["bad"]


class Scores(Mapping):
    """A read-only mapping that is not a dict."""

    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def test_unusual_but_valid_inputs_are_scored_like_the_per_query_path():
    qrels = {
        "fraction": {"a": 1, "b": 2},
        "numpy": {"a": np.int64(1), "b": np.float32(2.0)},
        "set": {"a", "b"},
        "list": ["b"],
        "mapping": Scores({"a": 1}),
        "ones": {"a": 1, "c": 1},
        "mixed ids untied": {1: 1, "a": 1},
        "ints": {"a": 1},
    }
    run = {
        "fraction": {"a": Fraction(1, 3), "b": Fraction(1, 2)},
        "numpy": {"a": np.float32(0.25), "b": np.float64(0.5), "c": np.int64(1)},
        "set": Scores({"a": 0.1, "b": 0.2}),
        "list": ("a", "b"),
        "mapping": {"a": 1.0, "b": 0.0, "c": 1.0},  # exact 0.0 and 1.0 floats are scores, not bools
        "ones": {"a": 1, "b": 0, "c": 1},
        "mixed ids untied": {1: 0.5, "a": 0.25},
        "ints": {"a": 3, "b": 2**40},
    }
    report = assert_same(qrels, run)
    assert not report.errors
    assert report.per_query["mapping"]["mrr"] == 0.5  # a and c tie at 1.0: c ranks first (id descending)


def test_generic_mappings_for_qrels_and_run():
    qrels = Scores({"q1": {"a": 1}, "q2": {"b": 1}})
    run = Scores({"q1": {"a": 0.5, "b": 0.7}, "q3": ["x"]})
    report = evaluate(qrels, run, ["mrr"])
    assert report.per_query == {"q1": {"mrr": 0.5}, "q2": {"mrr": 0.0}}
    assert report.counts["not_in_qrels"] == 1 and report.counts["missing_from_run"] == 1


@pytest.mark.parametrize("as_lists", [False, True])
def test_a_batch_larger_than_a_chunk_equals_the_per_query_path(as_lists):
    rng = np.random.default_rng(21)
    qrels, run = random_batch(rng, 2100, as_lists=as_lists)
    run["q5"] = {"a": float("nan")}  # an error in the first chunk, one in the second
    run["q2090"] = ["a", ["b"]]
    report = assert_same(qrels, run, metrics=["ndcg@5", "ap", "mrr_granular", "precision@3"])
    assert set(report.errors) == {"q5", "q2090"}


def test_agrees_with_pytrec_eval_across_many_chunks():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(11)
    qrels, run = random_batch(rng, 5000, tie_values=6)
    run = {q: r for q, r in run.items() if r}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recip_rank"}).evaluate(run)
    report = evaluate(qrels, run, ["ap", "ndcg@10", "precision@5", "mrr"], missing="skip")
    assert set(report.query_ids) == set(theirs)
    for qid, row in zip(report.query_ids, report.values, strict=False):
        expected = [theirs[qid][k] for k in ("map", "ndcg_cut_10", "P_5", "recip_rank")]
        np.testing.assert_allclose(row, expected, rtol=0, atol=1e-9)


def test_one_very_long_ranking_among_short_ones():
    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(3000, 20)} for i in range(40)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 50)) for j in range(3000 if i == 7 else 4)} for i in range(40)}
    assert_same(qrels, run)


@pytest.mark.parametrize("repeated", [False, True])
def test_long_ranked_lists_among_short_ones(repeated):
    # lists longer than the numbers the list path keeps ready (1,024), judged documents deep in them
    rng = np.random.default_rng(9)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(3000, 20)} for i in range(40)}
    run = {f"q{i}": [f"d{j}" for j in range(3000 if i in (3, 7) else 4)] for i in range(40)}
    if repeated:
        run["q7"][1500:1500] = ["d10", "d2000", "d10"]  # ids already ranked: count once, at their first rank
    report = assert_same(qrels, run)
    assert len(report.query_ids) == 40
