"""Offline behaviour of rag_eval_adapters.rerank: lexical scorer, aggregation, validation, cache, retry policy."""

from __future__ import annotations

import asyncio
import email.utils
import math
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_eval_adapters.rerank import (
    CachedScorer,
    CallableScorer,
    InMemoryScoreCache,
    LexicalScorer,
    RelevanceScorer,
    RetryPolicy,
    SqliteScoreCache,
    aggregate_scores,
    arerank_relevancy,
    arerank_relevancy_batch,
    parse_retry_after,
    rerank_relevancy,
    rerank_relevancy_batch,
    rerank_relevancy_result,
)


class Counting:
    """A plain scorer function with fixed scores per text, counting what it was asked."""

    def __init__(self, table: dict[str, float]):
        self.table = table
        self.calls: list[tuple[str, list[str]]] = []

    def __call__(self, query: str, texts: list[str]) -> list[float]:
        self.calls.append((query, list(texts)))
        return [self.table[t] for t in texts]


def fixed(table: dict[str, float], *, calibrated: bool = True, name: str = "fixed") -> tuple[CallableScorer, Counting]:
    fn = Counting(table)
    return CallableScorer(fn, name=name, calibrated=calibrated), fn


# ----------------------------------------------------------------------------------------- lexical scorer
def test_lexical_scorer_values():
    s = LexicalScorer()
    assert isinstance(s, RelevanceScorer) and s.calibrated is True
    scores = s.score(
        "capital of France",
        [
            "Paris is the capital of France.",  # every term and the phrase "capital france"
            "France has a capital city, Paris.",  # every term, not the phrase
            "The capital of Peru is Lima.",  # half the terms
            "Bananas are yellow.",
            "",
        ],
    )
    assert scores == [1.0, 0.75, 0.375, 0.0, 0.0]


def test_lexical_scorer_folds_case_and_plurals_and_stopword_queries():
    s = LexicalScorer()
    assert s.score("Capitals of CITIES", ["the capital city"]) == [1.0]
    # an all-stopword query matches on its stopwords instead of scoring everything 0
    assert s.score("to be", ["whether to be", "xyz"])[0] == 1.0
    assert s.score("to be", ["whether to be", "xyz"])[1] == 0.0


def test_lexical_scorer_is_pairwise_so_batch_composition_does_not_matter():
    s = LexicalScorer()
    texts = ["alpha beta", "beta gamma", "gamma delta alpha"]
    together = s.score("alpha gamma", texts)
    alone = [s.score("alpha gamma", [t])[0] for t in texts]
    assert together == alone
    assert s.score("alpha gamma", texts[::-1]) == together[::-1]


def test_lexical_bigram_weight_is_validated_and_used():
    with pytest.raises(ValueError, match="bigram_weight"):
        LexicalScorer(bigram_weight=1.5)
    assert LexicalScorer(bigram_weight=0.0).score("new york", ["york new"]) == [1.0]
    assert LexicalScorer(bigram_weight=1.0).score("new york", ["york new"]) == [0.0]
    assert LexicalScorer(0.0).name != LexicalScorer(1.0).name  # different scores, different cache namespace


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1).filter(str.strip), st.lists(st.text(), max_size=5))
def test_lexical_scores_always_in_unit_interval(query, texts):
    scores = LexicalScorer().score(query, texts)
    assert len(scores) == len(texts)
    assert all(0.0 <= x <= 1.0 and math.isfinite(x) for x in scores)


# ----------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("query", "texts", "exc", "pattern"),
    [
        (None, ["a"], TypeError, "query must be a str"),
        ("  ", ["a"], ValueError, "non-empty"),
        ("q1 text", "just one string", TypeError, r"texts for query 'q1 text' must be a sequence"),
        ("q1 text", ["ok", 3], TypeError, r"texts\[1\] for query 'q1 text' must be a str"),
        ("q1 text", None, TypeError, "texts for query 'q1 text'"),
    ],
)
def test_bad_input_names_field_and_query(query, texts, exc, pattern):
    with pytest.raises(exc, match=pattern):
        rerank_relevancy(query, texts, LexicalScorer())
    with pytest.raises(exc, match=pattern):
        LexicalScorer().score(query, texts)


# ----------------------------------------------------------------------------------------- aggregation
TABLE = {"a": 0.9, "b": 0.1, "c": 0.4, "d": 0.3}


@pytest.mark.parametrize(("agg", "expected"), [("max", 0.9), ("mean", 0.425), ("median", 0.35)])
def test_rerank_relevancy_aggregations(agg, expected):
    scorer, _ = fixed(TABLE)
    assert rerank_relevancy("q", ["a", "b", "c", "d"], scorer, agg=agg) == pytest.approx(expected)
    assert rerank_relevancy("q", ["a", "b", "c"], scorer, agg="median") == pytest.approx(0.4)


def test_default_agg_is_max_and_result_keeps_per_text_scores_in_input_order():
    scorer, _ = fixed(TABLE)
    res = rerank_relevancy_result("q", ["b", "a", "c"], scorer)
    assert res.score == 0.9 and res.agg == "max"
    assert res.scores == [0.1, 0.9, 0.4]
    assert res.scorer == "fixed"


def test_aggregate_scores_matches_numpy_like_llamaindex():
    rng = np.random.default_rng(7)
    scores = list(rng.random(37))
    ranked = sorted(scores, reverse=True)  # the order a rerank response lists them in
    assert aggregate_scores(scores, "max") == float(np.max(ranked))
    assert aggregate_scores(scores, "mean") == float(np.mean(ranked))
    assert aggregate_scores(scores, "median") == float(np.median(ranked))


def test_no_texts_scores_zero_and_calls_nothing():
    scorer, fn = fixed(TABLE)
    for agg in ("max", "mean", "median"):
        assert rerank_relevancy("q", [], scorer, agg=agg) == 0.0
    assert asyncio.run(arerank_relevancy("q", [], scorer)) == 0.0
    assert fn.calls == []


def test_unknown_agg_is_refused():
    scorer, _ = fixed(TABLE)
    with pytest.raises(ValueError, match="agg must be one of max, mean, median"):
        rerank_relevancy("q", ["a"], scorer, agg="min")


def test_uncalibrated_scores_need_normalize():
    logits = {"a": 2.0, "b": -3.0}
    scorer, _ = fixed(logits, calibrated=False, name="ce")
    with pytest.raises(ValueError, match="normalize='sigmoid'"):
        rerank_relevancy("q", ["a", "b"], scorer)
    got = rerank_relevancy("q", ["a", "b"], scorer, agg="mean", normalize="sigmoid")
    assert got == pytest.approx((1 / (1 + math.exp(-2.0)) + 1 / (1 + math.exp(3.0))) / 2)
    calibrated, _ = fixed(TABLE)
    with pytest.raises(ValueError, match="already returns calibrated"):
        rerank_relevancy("q", ["a"], calibrated, normalize="sigmoid")
    with pytest.raises(ValueError, match="normalize must be None or 'sigmoid'"):
        rerank_relevancy("q", ["a"], scorer, normalize="minmax")


def test_sigmoid_is_stable_for_huge_logits():
    scorer, _ = fixed({"a": 1000.0, "b": -1000.0}, calibrated=False)
    res = rerank_relevancy_result("q", ["a", "b"], scorer, normalize="sigmoid")
    assert res.scores == [1.0, 0.0]


@pytest.mark.parametrize(
    ("output", "pattern"),
    [
        ([0.5], "returned 1 scores for 2 texts for query 'q'"),
        ([0.5, float("nan")], r"non-finite score \(nan\) for texts\[1\] of query 'q'"),
        ([0.5, 1.2], r"claims calibrated scores but returned 1.2"),
        ([0.5, "x"], "non-numeric"),
    ],
)
def test_a_misbehaving_scorer_is_an_error_never_a_number(output, pattern):
    scorer = CallableScorer(lambda q, ts: output, name="bad", calibrated=True)
    with pytest.raises(ValueError, match=pattern):
        rerank_relevancy("q", ["a", "b"], scorer)


def test_non_scorer_is_refused():
    with pytest.raises(TypeError, match="RelevanceScorer protocol"):
        rerank_relevancy("q", ["a"], lambda q, t: [1.0])


def test_async_callable_scorer_paths():
    scorer, fn = fixed(TABLE)
    assert asyncio.run(arerank_relevancy("q", ["a", "b"], scorer, agg="mean")) == pytest.approx(0.5)
    assert fn.calls == [("q", ["a", "b"])]

    async def afn(query, texts):
        return [TABLE[t] for t in texts]

    native = CallableScorer(lambda q, t: pytest.fail("sync path used"), afn=afn, name="a", calibrated=True)
    assert asyncio.run(arerank_relevancy("q", ["c", "d"], native)) == 0.4


# ----------------------------------------------------------------------------------------- batches
def test_batch_records_failures_and_scores_the_rest():
    scorer = LexicalScorer()
    items = {"q1": ("capital of France", ["Paris is the capital of France."]), "q2": ("", ["x"]),
             "q3": ("bananas", []), "q4": ("yellow fruit", ["bananas are a yellow fruit", 7])}
    for result in (rerank_relevancy_batch(items, scorer), asyncio.run(arerank_relevancy_batch(items, scorer))):
        assert result.scores == {"q1": 1.0, "q3": 0.0}
        assert set(result.errors) == {"q2", "q4"}
        assert "query must be a non-empty string" in result.errors["q2"]
        assert "texts[1] for query 'yellow fruit'" in result.errors["q4"]
        assert result.mean() == 0.5


# ----------------------------------------------------------------------------------------- cache
def test_cached_scorer_sends_only_misses_once():
    scorer, fn = fixed(TABLE)
    cached = CachedScorer(scorer)
    assert cached.score("q", ["a", "b", "a"]) == [0.9, 0.1, 0.9]
    assert fn.calls == [("q", ["a", "b"])]  # the duplicate went once
    assert cached.score("q", ["c", "a"]) == [0.4, 0.9]
    assert fn.calls[-1] == ("q", ["c"])
    assert cached.score("q", ["a", "b", "c"]) == [0.9, 0.1, 0.4]
    assert len(fn.calls) == 2 and cached.hits == 4 and cached.misses == 3
    assert cached.score("other query", ["a"]) == [0.9]  # the query is part of the key
    assert len(fn.calls) == 3
    assert asyncio.run(cached.ascore("q", ["d", "a"])) == [0.3, 0.9]
    assert fn.calls[-1] == ("q", ["d"])


def test_sqlite_cache_survives_a_rerun_and_separates_models(tmp_path):
    path = tmp_path / "scores.sqlite"
    first, fn1 = fixed(TABLE, name="model-1")
    assert rerank_relevancy("q", ["a", "b"], CachedScorer(first, path)) == 0.9
    rerun, fn2 = fixed(TABLE, name="model-1")
    assert rerank_relevancy("q", ["a", "b"], CachedScorer(rerun, SqliteScoreCache(path)), agg="mean") == 0.5
    assert fn2.calls == []
    other, fn3 = fixed({"a": 0.2, "b": 0.2}, name="model-2")
    assert rerank_relevancy("q", ["a", "b"], CachedScorer(other, path)) == 0.2
    assert fn3.calls == [("q", ["a", "b"])]
    assert len(SqliteScoreCache(path)) == 4


def test_cache_validates_what_it_stores():
    bad = CallableScorer(lambda q, ts: [float("inf")] * len(ts), name="bad", calibrated=True)
    cache = InMemoryScoreCache()
    with pytest.raises(ValueError, match="non-finite"):
        CachedScorer(bad, cache).score("q", ["a"])
    assert len(cache) == 0


# ----------------------------------------------------------------------------------------- retry policy
def test_parse_retry_after():
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "100", "retry-after": "9"}) == 0.1  # ms wins
    assert parse_retry_after({"retry-after-ms": "soon", "retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "-1"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after({"retry-after": date}, now=now) <= 31


def test_retry_policy_backoff_and_caps():
    policy = RetryPolicy(max_retries=3, base_delay=0.1, max_delay=0.5)
    assert 0.1 <= policy.delay(0) <= 0.11
    assert 0.4 <= policy.delay(2) <= 0.44
    assert policy.delay(5) == 0.5
    assert policy.delay(0, {"retry-after-ms": "20"}) == 0.02
    assert policy.delay(0, {"retry-after": "100"}) == 0.5  # honoured, but capped
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="base_delay"):
        RetryPolicy(base_delay=float("nan"))


# ----------------------------------------------------------------------------------------- import hygiene
def test_importing_rerank_does_not_import_cohere():
    code = "import sys, rag_eval_adapters.rerank as r; r.rerank_relevancy('a b', ['a'], r.LexicalScorer()); " \
           "assert 'cohere' not in sys.modules, 'cohere imported'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_missing_cohere_sdk_says_how_to_install(monkeypatch):
    from rag_eval_adapters.rerank import CohereReranker

    monkeypatch.setitem(sys.modules, "cohere", None)  # makes `import cohere` fail like an absent package
    with pytest.raises(ImportError, match=r"^CohereReranker needs cohere: pip install 'rag-eval-adapters\[cohere\]'$"):
        CohereReranker(api_key="k")
