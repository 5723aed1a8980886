"""Regression tests for the rerank cache and batch (issue 10 items 6, 7 and 13), through the public API."""

from __future__ import annotations

import asyncio
import sqlite3
import warnings

import pytest

pytest.importorskip("cohere", reason='needs the cohere SDK: pip install "rag-eval-adapters[cohere]"')

from rag_eval_adapters.modelcalls import CacheError, CacheWriteWarning
from rag_eval_adapters.rerank import (
    CachedScorer,
    CallableScorer,
    CohereReranker,
    InMemoryScoreCache,
    SqliteScoreCache,
    arerank_relevancy_batch,
    cache_key,
    rerank_relevancy,
    rerank_relevancy_batch,
)


def recording(table=None, name="rec", calibrated=True):
    calls = []

    def fn(query, texts):
        calls.append((query, list(texts)))
        return [table[(query, t)] if table else 0.5 for t in texts]

    return CallableScorer(fn, name=name, calibrated=calibrated), calls


# ----------------------------------------------------------------------------------------- item 6
def test_nul_joined_pairs_no_longer_share_a_cache_entry():
    assert cache_key("m", "paris\0france", "paris") != cache_key("m", "paris", "france\0paris")
    table = {("paris\0france", "paris"): 0.9, ("paris", "france\0paris"): 0.1}
    scorer, calls = recording(table)
    cached = CachedScorer(scorer, InMemoryScoreCache())
    assert cached.score("paris\0france", ["paris"]) == [0.9]
    assert cached.score("paris", ["france\0paris"]) == [0.1]
    assert len(calls) == 2


def test_a_tampered_cached_score_is_recomputed_not_returned(tmp_path):
    path = tmp_path / "scores.sqlite"
    scorer, calls = recording()
    assert rerank_relevancy("q", ["a"], CachedScorer(scorer, path)) == 0.5
    with sqlite3.connect(path) as conn:
        assert conn.execute("UPDATE calls SET value = '7.5'").rowcount == 1
    assert rerank_relevancy("q", ["a"], CachedScorer(scorer, path)) == 0.5
    assert len(calls) == 2


def test_an_out_of_range_value_in_a_custom_cache_is_recomputed():
    scorer, calls = recording()
    cache = InMemoryScoreCache()
    cache.set_many({cache_key("rec", "q", "a"): 7.5})
    assert CachedScorer(scorer, cache).score("q", ["a"]) == [0.5] and len(calls) == 1


def test_corrupt_or_unopenable_cache_file_names_the_path(tmp_path, cohere_server):
    bad = tmp_path / "broken-cache.sqlite"
    bad.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(CacheError, match="broken-cache.sqlite"):
        CohereReranker(api_key=cohere_server.api_key, base_url=cohere_server.url, cache=bad)
    with pytest.raises(CacheError, match="broken-cache.sqlite"):
        CachedScorer(recording()[0], bad)
    folder = tmp_path / "is-a-dir"
    folder.mkdir()
    with pytest.raises(CacheError, match="is-a-dir"):
        CachedScorer(recording()[0], folder)


# ----------------------------------------------------------------------------------------- item 7
@pytest.mark.parametrize("run_async", [False, True])
def test_batch_keeps_query_ids_1_and_str_1_apart(run_async):
    scorer, _ = recording({("q int", "a"): 0.25, ("q str", "a"): 0.75})
    items = {1: ("q int", ["a"]), "1": ("q str", ["a"])}
    result = asyncio.run(arerank_relevancy_batch(items, scorer)) if run_async else rerank_relevancy_batch(items, scorer)
    assert result.scores == {1: 0.25, "1": 0.75}
    assert result.errors == {}


# ----------------------------------------------------------------------------------------- item 13
@pytest.mark.parametrize("exc", [OSError("disk gone"), KeyError("x"), ZeroDivisionError("boom")])
def test_sync_batch_records_any_failure_per_query(exc):
    def fn(query, texts):
        if query == "bad":
            raise exc
        return [0.5] * len(texts)

    scorer = CallableScorer(fn, name="f", calibrated=True)
    items = {"ok": ("good", ["a"]), "broken": ("bad", ["a"])}
    sync = rerank_relevancy_batch(items, scorer)
    both = asyncio.run(arerank_relevancy_batch(items, scorer))
    for result in (sync, both):
        assert result.scores == {"ok": 0.5}
        assert set(result.errors) == {"broken"} and type(exc).__name__ in result.errors["broken"]


def test_a_locked_cache_never_loses_a_paid_score(tmp_path, cohere_server):
    path = tmp_path / "shared.sqlite"
    cache = SqliteScoreCache(path, busy_timeout=0.05)
    reranker = CohereReranker(api_key=cohere_server.api_key, base_url=cohere_server.url, cache=cache,
                              retry_base_delay=0.001)
    other = sqlite3.connect(path)  # a second writer holds the write lock
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.warns(CacheWriteWarning, match="shared.sqlite"):
            result = rerank_relevancy_batch({"q1": ("capital of france", ["paris is the capital of france", "x"]),
                                             "q2": ("yellow", ["bananas are yellow"])}, reranker)
    finally:
        other.rollback()
        other.close()
    assert result.errors == {}
    assert result.scores["q1"] == pytest.approx(cohere_server.expected_scores("capital of france",
                                                                              ["paris is the capital of france"])[0])
    assert len(cohere_server.rerank_requests) == 2
    with warnings.catch_warnings():  # the lock is gone: the next run fills the cache, then a re-run is free
        warnings.simplefilter("error")
        rerank_relevancy_batch({"q1": ("capital of france", ["x"])}, reranker)
        rerank_relevancy_batch({"q1": ("capital of france", ["x"])}, reranker)
    assert len(cohere_server.rerank_requests) == 3


def test_two_processes_share_one_rerank_cache_file(tmp_path):
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "shared-scores.sqlite"
    code = textwrap.dedent(f"""
        import sys
        from rag_eval_adapters.rerank import CachedScorer, LexicalScorer, rerank_relevancy_batch
        scorer = CachedScorer(LexicalScorer(), {str(path)!r})
        items = {{f"q{{i}}": (f"query {{sys.argv[1]}} {{i}}", [f"text {{i}}", f"other {{sys.argv[1]}}"]) for i in range(120)}}
        result = rerank_relevancy_batch(items, scorer, progress=False)
        assert not result.errors, result.errors
        print(scorer.misses)
    """)
    procs = [subprocess.Popen([sys.executable, "-W", "error::RuntimeWarning", "-c", code, name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in "ab"]
    outs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    assert sum(int(out) for out, _ in outs) == len(SqliteScoreCache(path)) == 480
