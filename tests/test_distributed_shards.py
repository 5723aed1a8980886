"""score_shard, combine and shard_of without any engine: what a Spark or Dask job calls."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

from distributed_support import METRICS, random_tables  # noqa: E402

from rag_eval_adapters import evaluate_columns  # noqa: E402
from rag_eval_adapters.distributed import STATUS_COLUMNS, Combined, combine, score_shard, shard_of  # noqa: E402


def cogroup(qrels, run, shards, fn):
    """What Spark's ``groupBy(shard).cogroup(...).applyInPandas(fn)`` does: fn on each shard's two frames."""
    qs, rs = shard_of(qrels["query_id"], shards), shard_of(run["query_id"], shards)
    return [fn(qrels[qs == i], run[rs == i]) for i in range(shards)]


@pytest.mark.parametrize("missing", ["zero", "skip"])
@pytest.mark.parametrize("by", ["score", "rank"])
def test_shards_scored_alone_equal_the_whole(missing, by):
    qrels, run = random_tables(11, by)
    report = evaluate_columns(qrels, run, METRICS, missing=missing)
    parts = cogroup(qrels, run, 7, lambda q, r: score_shard(q, r, METRICS, missing=missing).to_pandas())
    rows = pd.concat(parts, ignore_index=True)
    assert list(rows.columns) == [*STATUS_COLUMNS, *report.keys]
    scored = rows[rows["scored"]]
    assert {r.pop("query_id"): r for r in scored[["query_id", *report.keys]].to_dict("records")} == report.per_query
    total = combine(parts)
    assert total.counts == report.counts and total.errors == report.errors
    assert total.mean == pytest.approx(report.mean, rel=1e-12)
    # associative: combine the shards in two groups, then the groups
    halves = combine([combine(parts[:3]), combine(parts[3:])])
    assert halves.counts == total.counts and halves.mean == pytest.approx(total.mean, rel=1e-15)


def test_a_shard_whose_queries_all_fail_reports_each_error():
    qrels = pd.DataFrame({"query_id": ["a", "b", "b"], "doc_id": ["x", "y", "y"], "grade": [np.inf, 1.0, 2.0]})
    run = pd.DataFrame({"query_id": ["a", "b", "c"], "doc_id": ["x", "y", "z"], "score": [1.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="no query could be scored"):
        evaluate_columns(qrels, run, ["mrr"])
    rows = score_shard(qrels, run, ["mrr"]).to_pandas()
    assert rows["query_id"].tolist() == ["a", "b", "c"]
    assert rows["scored"].tolist() == [False, False, False]
    assert rows["in_qrels"].tolist() == [True, True, False]
    # the front doors word errors alike: the per-query validators' messages
    assert "must be a finite grade" in rows["error"][0] and "judges a document twice" in rows["error"][1]
    with pytest.raises(ValueError, match="no query could be scored; 2 errors"):
        combine([rows]).check()


def test_shards_without_common_queries_are_not_errors_until_combined():
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "grade": [1]})
    run = pd.DataFrame({"query_id": ["b"], "doc_id": ["x"], "score": [1.0]})
    rows = score_shard(qrels, run, ["mrr"], missing="skip")
    assert rows.num_rows == 2 and not any(rows["scored"].to_pylist())
    with pytest.raises(ValueError, match="no query in common"):
        combine([rows]).check("skip")
    with pytest.raises(ValueError, match=r"1 queries of qrels are missing from the run \('a'\)"):
        score_shard(qrels, run, ["mrr"], missing="error")
    with pytest.raises(ValueError, match=r"^1 queries of qrels are missing from the run \('a'\); pass"):
        combine([score_shard(qrels, run, ["mrr"])]).check("error")
    empty = score_shard(qrels.iloc[:0], run, ["mrr"])  # a shard with run rows only
    assert empty.num_rows == 1 and empty["in_qrels"].to_pylist() == [False]
    with pytest.raises(ValueError, match="qrels is empty"):
        combine([empty]).check()


def test_combine_rejects_other_tables_and_other_metrics():
    qrels, run = random_tables(12)
    a = score_shard(qrels, run, ["mrr"])
    b = score_shard(qrels, run, ["ndcg@10"])
    with pytest.raises(ValueError, match="different metrics"):
        combine([a, b])
    with pytest.raises(ValueError, match="columns"):
        combine([qrels])
    assert isinstance(combine([a]), Combined) and "Combined(scored=" in repr(combine([a]))


def test_shard_of_is_stable_across_processes_and_id_types():
    ids = ["q1", "q2", "query three", "é", "q1"]
    here = shard_of(ids, 16).tolist()
    code = f"from rag_eval_adapters.distributed import shard_of; print(shard_of({ids!r}, 16).tolist())"
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"  # a hash seed other than this process's
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == str(here)
    assert here[0] == here[4]
    ints = shard_of(np.array([7, 8, 9], dtype=np.int64), 10)
    assert shard_of(np.array([7, 8, 9], dtype=np.int32), 10).tolist() == ints.tolist()
    assert shard_of(np.array([7, 8, 9], dtype=object), 10).tolist() == ints.tolist()
    assert shard_of(pa.chunked_array([[7], [8, 9]]), 10).tolist() == ints.tolist()
    assert shard_of(np.array([7.0, 8.0, 9.0]), 10).tolist() == ints.tolist()
    assert shard_of(pa.array(["q1", "q2"]), 16).tolist() == here[:2]
    assert len(set(shard_of(np.arange(10_000), 8).tolist())) == 8  # all shards used
    with pytest.raises(ValueError, match="empty \\(None/NaN\\) at row 1"):
        shard_of(np.array(["a", None], dtype=object), 4)
    with pytest.raises(ValueError, match="positive integer"):
        shard_of(ids, 0)
