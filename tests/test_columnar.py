"""evaluate_columns: the numbers, query order, counts and errors of evaluate(), from tables instead of dicts."""

import numpy as np
import pytest

from rag_eval_adapters import evaluate
from rag_eval_adapters.columnar import evaluate_columns

METRICS = ["ndcg@5", "ndcg_exp", "ap", "ap@10", "mrr", "mrr_granular@3", "precision", "precision@5",
           "recall@10", "f1@5", "r_precision", "hit_rate@3", "dcg@10"]


def random_dicts(rng, n, ties=5):
    qrels, run = {}, {}
    for q in range(n):
        pool = [f"d{i}" for i in rng.choice(80, size=40, replace=False)]
        depth = int(rng.integers(1, 30))
        run[f"q{q}"] = {d: float(rng.integers(0, ties)) / 4 for d in pool[:depth]}
        judged = rng.choice(pool, size=int(rng.integers(1, 12)), replace=False)
        qrels[f"q{q}"] = {str(d): int(rng.integers(-1, 4)) for d in judged}
    for q in rng.choice(n, size=n // 8, replace=False):
        run.pop(f"q{q}")
    run["extra"] = {"d1": 1.0}  # a run query that is not in the qrels
    return qrels, run


def to_columns(nested, value, rng=None):
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    if rng is not None:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    q, d, v = zip(*rows, strict=False)
    return {"query_id": np.array(q, dtype=object), "doc_id": np.array(d, dtype=object), value: np.array(v)}


def assert_same_report(ours, theirs):
    assert ours.query_ids == theirs.query_ids
    assert ours.keys == theirs.keys
    np.testing.assert_allclose(ours.values, theirs.values, rtol=0, atol=1e-12)
    assert ours.counts == theirs.counts


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("level", [1, 2])
def test_scores_equal_evaluate_from_dicts(shuffle, level):
    rng = np.random.default_rng(4 + level)
    qrels, run = random_dicts(rng, 400)
    qcols = to_columns(qrels, "grade")
    rcols = to_columns(run, "score", rng if shuffle else None)
    for missing in ("zero", "skip"):
        ours = evaluate_columns(qcols, rcols, METRICS, relevance_level=level, missing=missing)
        assert_same_report(ours, evaluate(qrels, run, METRICS, relevance_level=level, missing=missing))


def test_ranks_equal_evaluate_from_lists_with_repeated_ids():
    rng = np.random.default_rng(9)
    qrels, scored = random_dicts(rng, 200)
    ranked = {}
    for q, docs in scored.items():
        ids = list(docs) + [list(docs)[0]] * int(rng.integers(0, 2))  # sometimes an id comes back again
        ranked[q] = ids
    rows = [(q, d, r) for q, ids in ranked.items() for r, d in enumerate(ids, 1)]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    q, d, r = zip(*rows, strict=False)
    rcols = {"query_id": list(q), "doc_id": list(d), "rank": np.array(r)}
    ours = evaluate_columns(to_columns(qrels, "grade"), rcols, METRICS)
    assert_same_report(ours, evaluate(qrels, ranked, METRICS))


def test_pandas_and_arrow_tables():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    qrels, run = random_dicts(rng, 50)
    expected = evaluate(qrels, run, METRICS)
    qframe = pd.DataFrame(to_columns(qrels, "grade"))
    rframe = pd.DataFrame(to_columns(run, "score"))
    assert_same_report(evaluate_columns(qframe, rframe, METRICS), expected)
    qtable = pa.Table.from_pandas(qframe.astype({"query_id": str, "doc_id": str}))
    rtable = pa.Table.from_pandas(rframe.astype({"query_id": str, "doc_id": str}))
    assert_same_report(evaluate_columns(qtable, rtable, METRICS), expected)


def test_integer_ids_and_ties_broken_by_id_descending():
    qrels = {"query_id": np.array([7, 7]), "doc_id": np.array([1, 3]), "grade": np.array([1, 1])}
    run = {"query_id": np.array([7, 7, 7, 7]), "doc_id": np.array([1, 2, 3, 9]),
           "score": np.array([0.5, 0.5, 0.5, 0.9])}
    report = evaluate_columns(qrels, run, ["mrr", "ap"])
    assert report.query_ids == [7]
    assert report.mean["mrr"] == 0.5  # 9, then 3, 2, 1
    assert report.mean["ap"] == pytest.approx((1 / 2 + 2 / 4) / 2)


def test_bad_queries_are_recorded_and_the_rest_scored():
    qrels = {"query_id": ["ok", "nan", "dup", "grade", "grade"], "doc_id": ["a", "a", "a", "a", "b"],
             "grade": [1, 1, 1, float("inf"), 1]}
    run = {"query_id": ["ok", "nan", "dup", "dup", "grade"], "doc_id": ["a", "a", "a", "a", "a"],
           "score": [1.0, float("nan"), 0.3, 0.2, 0.5]}
    report = evaluate_columns(qrels, run, ["mrr"])
    assert report.query_ids == ["ok"]
    assert report.mean == {"mrr": 1.0}
    assert set(report.errors) == {"nan", "dup", "grade"}
    assert "NaN" in report.errors["nan"] and "twice" in report.errors["dup"] and "finite" in report.errors["grade"]


def test_missing_queries_and_input_errors():
    qrels = {"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "grade": [1, 1]}
    run = {"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]}
    assert evaluate_columns(qrels, run, ["mrr"]).per_query == {"q1": {"mrr": 1.0}, "q2": {"mrr": 0.0}}
    assert evaluate_columns(qrels, run, ["mrr"], missing="skip").query_ids == ["q1"]
    with pytest.raises(ValueError, match="missing from the run"):
        evaluate_columns(qrels, run, ["mrr"], missing="error")
    with pytest.raises(ValueError, match="needs the columns"):
        evaluate_columns(qrels, {"query_id": ["q1"], "doc_id": ["a"]}, ["mrr"])
    with pytest.raises(ValueError, match="doc_id column is empty"):
        evaluate_columns(qrels, {"query_id": ["q1"], "doc_id": [None], "score": [1.0]}, ["mrr"])
    with pytest.raises(TypeError, match="booleans"):
        evaluate_columns(qrels, {"query_id": ["q1"], "doc_id": ["a"], "score": [True]}, ["mrr"])
    with pytest.raises(ValueError, match="qrels is empty"):
        evaluate_columns({"query_id": [], "doc_id": [], "grade": []}, run, ["mrr"])
