"""CohereReranker: the real cohere SDK against a local server speaking Cohere's rerank API."""

from __future__ import annotations

import asyncio
import math

import pytest

pytest.importorskip("cohere", reason='needs the cohere SDK: pip install "rag-eval-adapters[cohere]"')

from cohere_server import FakeCohereServer, fail, malformed, overlap_score, slow

from rag_eval_adapters.rerank import (
    CohereReranker,
    RelevanceScorer,
    RerankError,
    RerankResponseError,
    arerank_relevancy,
    arerank_relevancy_batch,
    rerank_relevancy,
    rerank_relevancy_result,
)

QUERY = "capital of france"
TEXTS = ["paris is the capital of france", "bananas are yellow", "france", "the capital"]
FAST = {"retry_base_delay": 0.001, "timeout": 5.0}


@pytest.fixture(autouse=True)
def _no_ambient_key(monkeypatch):
    for var in ("CO_API_KEY", "COHERE_API_KEY", "CO_API_URL", "COHERE_RERANK_MODEL"):
        monkeypatch.delenv(var, raising=False)


def make(server: FakeCohereServer, **kwargs) -> CohereReranker:
    return CohereReranker(api_key=server.api_key, base_url=server.url, **{**FAST, **kwargs})


# ----------------------------------------------------------------------------------------- basics
def test_scores_in_input_order_with_bearer_token_and_usage(cohere_server):
    reranker = make(cohere_server)
    assert isinstance(reranker, RelevanceScorer) and reranker.calibrated
    assert reranker.score(QUERY, TEXTS) == cohere_server.expected_scores(QUERY, TEXTS)
    (request,) = cohere_server.rerank_requests
    assert request.path == "/v2/rerank"
    assert request.authorization == f"Bearer {cohere_server.api_key}"
    assert request.body["model"] == "rerank-v3.5"
    assert request.body["query"] == QUERY and request.body["documents"] == TEXTS
    assert request.body["top_n"] == len(TEXTS)
    usage = reranker.usage
    assert (usage.requests, usage.attempts, usage.retries, usage.documents, usage.search_units) == (1, 1, 0, 4, 1.0)
    assert "test-cohere-key" not in repr(reranker)


@pytest.mark.parametrize("agg", ["max", "mean", "median"])
def test_rerank_relevancy_aggregates_cohere_scores(cohere_server, agg):
    reranker = make(cohere_server)
    scores = cohere_server.expected_scores(QUERY, TEXTS)
    expected = {"max": max(scores), "mean": sum(scores) / 4, "median": sorted(scores)[1:3]}[agg]
    if agg == "median":
        expected = sum(expected) / 2
    assert rerank_relevancy(QUERY, TEXTS, reranker, agg=agg) == pytest.approx(expected, abs=1e-15)
    assert asyncio.run(arerank_relevancy(QUERY, TEXTS, reranker, agg=agg)) == pytest.approx(expected, abs=1e-15)


def test_empty_texts_score_zero_without_a_request(cohere_server):
    reranker = make(cohere_server)
    assert reranker.score(QUERY, []) == []
    assert asyncio.run(reranker.ascore(QUERY, [])) == []
    assert rerank_relevancy(QUERY, [], reranker) == 0.0
    assert asyncio.run(arerank_relevancy(QUERY, (), reranker, agg="mean")) == 0.0
    assert cohere_server.requests == [] and reranker.usage.attempts == 0


def test_bad_input_is_refused_before_any_request(cohere_server):
    reranker = make(cohere_server)
    with pytest.raises(TypeError, match=r"texts\[0\] for query 'capital of france'"):
        reranker.score(QUERY, [None])
    with pytest.raises(ValueError, match="non-empty"):
        asyncio.run(reranker.ascore("", ["x"]))
    assert cohere_server.requests == []


# ----------------------------------------------------------------------------------------- keys and clients
def test_missing_key_is_a_value_error_naming_cohere_api_key(cohere_server):
    with pytest.raises(ValueError, match="COHERE_API_KEY"):
        CohereReranker(base_url=cohere_server.url)
    with pytest.raises(ValueError, match="COHERE_API_KEY"):
        CohereReranker(api_key="   ", base_url=cohere_server.url)


def test_key_from_environment_co_api_key_first(cohere_server, monkeypatch):
    monkeypatch.setenv("COHERE_API_KEY", cohere_server.api_key)
    assert CohereReranker(base_url=cohere_server.url, **FAST).score(QUERY, ["france"]) == [1 / 3]
    monkeypatch.setenv("CO_API_KEY", "wrong-key")  # CO_API_KEY wins, as in the SDK
    with pytest.raises(RerankError, match="HTTP 401.*COHERE_API_KEY"):
        CohereReranker(base_url=cohere_server.url, **FAST).score(QUERY, ["france"])
    monkeypatch.setenv("CO_API_KEY", cohere_server.api_key)
    monkeypatch.setenv("CO_API_URL", cohere_server.url)
    monkeypatch.setenv("COHERE_RERANK_MODEL", "rerank-v3.5-custom")
    reranker = CohereReranker.from_env(**FAST)
    assert reranker.score(QUERY, ["france"]) == [1 / 3]
    assert cohere_server.rerank_requests[-1].body["model"] == "rerank-v3.5-custom"


def test_wrong_key_fails_once_without_retrying(cohere_server):
    reranker = CohereReranker(api_key="nope", base_url=cohere_server.url, **FAST)
    with pytest.raises(RerankError) as info:
        rerank_relevancy(QUERY, TEXTS, reranker)
    assert info.value.status_code == 401 and info.value.attempts == 1 and info.value.query == QUERY
    assert len(cohere_server.rerank_requests) == 1


def test_user_supplied_sdk_clients_are_used_and_sdk_retries_stay_off(cohere_server):
    import cohere

    client = cohere.ClientV2(api_key=cohere_server.api_key, base_url=cohere_server.url)  # SDK default: 2 retries
    aclient = cohere.AsyncClientV2(api_key=cohere_server.api_key, base_url=cohere_server.url)
    reranker = CohereReranker(model="rerank-english-v3.0", client=client, async_client=aclient, max_retries=0)
    cohere_server.queue(fail(429, retry_after_ms=1))
    with pytest.raises(RerankError, match="HTTP 429"):
        reranker.score(QUERY, TEXTS)
    assert len(cohere_server.rerank_requests) == 1  # neither we nor the SDK retried
    assert asyncio.run(reranker.ascore(QUERY, TEXTS)) == cohere_server.expected_scores(QUERY, TEXTS)
    assert cohere_server.rerank_requests[-1].body["model"] == "rerank-english-v3.0"
    with pytest.raises(TypeError, match="cohere.ClientV2"):
        CohereReranker(client=cohere.Client(api_key="k", base_url=cohere_server.url))


def test_sync_client_only_still_serves_ascore(cohere_server):
    import cohere

    client = cohere.ClientV2(api_key=cohere_server.api_key, base_url=cohere_server.url)
    reranker = CohereReranker(client=client)
    assert asyncio.run(reranker.ascore(QUERY, TEXTS)) == cohere_server.expected_scores(QUERY, TEXTS)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"model": ""}, "model"),
        ({"max_docs_per_request": 0}, "max_docs_per_request"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"base_url": "localhost:80"}, "base_url"),
    ],
)
def test_constructor_validates_options(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        CohereReranker(api_key="k", **kwargs)


# ----------------------------------------------------------------------------------------- batching
def test_more_than_1000_texts_are_split_and_merged_in_order(cohere_server):
    texts = [f"doc {i} " + ("capital of france" if i % 7 == 0 else "other words") for i in range(2500)]
    reranker = make(cohere_server)
    assert reranker.score(QUERY, texts) == cohere_server.expected_scores(QUERY, texts)
    sizes = [len(r.documents) for r in cohere_server.rerank_requests]
    assert sizes == [1000, 1000, 500]
    assert [r.documents[0] for r in cohere_server.rerank_requests] == [texts[0], texts[1000], texts[2000]]
    assert reranker.usage.search_units == 25.0 and reranker.usage.requests == 3
    assert asyncio.run(reranker.ascore(QUERY, texts)) == cohere_server.expected_scores(QUERY, texts)
    assert sorted(len(r.documents) for r in cohere_server.rerank_requests[3:]) == [500, 1000, 1000]


def test_small_batches_keep_order_under_async_concurrency(cohere_server):
    cohere_server.latency = 0.005
    texts = [f"france {'capital ' * (i % 3)}{i}" for i in range(11)]
    reranker = make(cohere_server, max_docs_per_request=2)
    assert asyncio.run(reranker.ascore(QUERY, texts)) == cohere_server.expected_scores(QUERY, texts)
    assert len(cohere_server.rerank_requests) == 6


# ----------------------------------------------------------------------------------------- retries
def test_429_and_5xx_are_retried_honouring_retry_after_ms(cohere_server):
    reranker = make(cohere_server, retry_base_delay=0.0)
    cohere_server.queue(fail(429, retry_after_ms=20), fail(503), fail(429, retry_after_ms=15))
    assert reranker.score(QUERY, TEXTS) == cohere_server.expected_scores(QUERY, TEXTS)
    assert [r.status for r in cohere_server.rerank_requests] == [429, 503, 429, 200]
    usage = reranker.usage
    assert (usage.attempts, usage.retries, usage.requests, usage.failures) == (4, 3, 1, 0)
    assert usage.retry_wait_seconds == pytest.approx(0.035)  # 20 ms + 0 + 15 ms, as the server asked


def test_async_retries_then_success(cohere_server):
    reranker = make(cohere_server)
    cohere_server.queue(fail(500), fail(429, retry_after="0"), fail(502))
    assert asyncio.run(reranker.ascore(QUERY, TEXTS)) == cohere_server.expected_scores(QUERY, TEXTS)
    assert [r.status for r in cohere_server.rerank_requests] == [500, 429, 502, 200]


@pytest.mark.parametrize("use_async", [False, True])
def test_retries_exhausted_is_an_error_naming_the_query(cohere_server, use_async):
    reranker = make(cohere_server, max_retries=2)
    cohere_server.queue(fail(500), fail(429, retry_after_ms=1), fail(503, message="overloaded"))
    with pytest.raises(RerankError) as info:
        if use_async:
            asyncio.run(arerank_relevancy(QUERY, TEXTS, reranker))
        else:
            rerank_relevancy(QUERY, TEXTS, reranker)
    err = info.value
    assert "'capital of france'" in str(err) and "after 3 attempt(s)" in str(err) and "overloaded" in str(err)
    assert (err.status_code, err.attempts, err.query) == (503, 3, QUERY)
    assert len(cohere_server.rerank_requests) == 3
    assert reranker.usage.failures == 1 and reranker.usage.requests == 0


def test_501_and_400_are_not_retried(cohere_server):
    reranker = make(cohere_server)
    cohere_server.queue(fail(501))
    with pytest.raises(RerankError, match="HTTP 501"):
        reranker.score(QUERY, TEXTS)
    cohere_server.max_documents = 3  # the server refuses 4 documents with a 400
    with pytest.raises(RerankError, match="HTTP 400.*too many documents"):
        reranker.score(QUERY, TEXTS)
    assert len(cohere_server.rerank_requests) == 2


def test_slow_answer_times_out_and_is_retried(cohere_server):
    reranker = make(cohere_server, timeout=0.2)
    cohere_server.queue(slow(0.6))
    assert reranker.score(QUERY, TEXTS) == cohere_server.expected_scores(QUERY, TEXTS)
    assert reranker.usage.retries == 1 and len(cohere_server.rerank_requests) == 2
    cohere_server.queue(slow(0.6), slow(0.6))
    reranker = make(cohere_server, timeout=0.2, max_retries=1)
    with pytest.raises(RerankError, match=r"timed out after 0.2s"):
        asyncio.run(reranker.ascore(QUERY, TEXTS))


def test_slow_answer_within_the_timeout_is_fine(cohere_server):
    reranker = make(cohere_server, timeout=2.0)
    cohere_server.queue(slow(0.05))
    assert reranker.score(QUERY, TEXTS) == cohere_server.expected_scores(QUERY, TEXTS)
    assert reranker.usage.retries == 0


@pytest.mark.parametrize(
    "kind",
    ["not-json", "no-results", "missing-index", "duplicate-index", "bad-index", "nan-score", "out-of-range",
     "string-score"],
)
def test_malformed_bodies_are_errors_not_scores(cohere_server, kind):
    reranker = make(cohere_server)
    cohere_server.queue(malformed(kind))
    with pytest.raises(RerankResponseError, match="query 'capital of france'"):
        rerank_relevancy(QUERY, TEXTS, reranker)
    assert len(cohere_server.rerank_requests) == 1  # served and billed: not retried
    assert reranker.usage.failures == 1


def test_uncalibrated_compatible_endpoint_needs_normalize(cohere_server):
    cohere_server.score_fn = lambda q, d: 8.0 * overlap_score(q, d) - 3.0  # logits, as some endpoints return
    strict = make(cohere_server)
    with pytest.raises(RerankResponseError, match="outside"):
        strict.score(QUERY, TEXTS)
    raw = make(cohere_server, calibrated=False)
    with pytest.raises(ValueError, match="normalize='sigmoid'"):
        rerank_relevancy(QUERY, TEXTS, raw)
    res = rerank_relevancy_result(QUERY, TEXTS, raw, agg="mean", normalize="sigmoid")
    expected = [1 / (1 + math.exp(-s)) for s in cohere_server.expected_scores(QUERY, TEXTS)]
    assert res.scores == pytest.approx(expected) and 0.0 <= res.score <= 1.0


# ----------------------------------------------------------------------------------------- many queries at once
def test_async_many_queries_share_the_concurrency_cap(cohere_server):
    cohere_server.latency = 0.02
    reranker = make(cohere_server, max_concurrency=4)
    queries = {f"q{i}": (f"topic {i} capital", [f"topic {i}", "capital city", f"noise {i}"]) for i in range(40)}
    result = asyncio.run(arerank_relevancy_batch(queries, reranker, agg="mean", max_concurrency=40))
    assert result.errors == {}
    for qid, (query, texts) in queries.items():
        assert result.scores[qid] == pytest.approx(sum(cohere_server.expected_scores(query, texts)) / 3)
    assert len(cohere_server.rerank_requests) == 40
    assert 2 <= cohere_server.max_in_flight <= 4


def test_async_batch_keeps_scoring_when_one_query_fails(cohere_server):
    reranker = make(cohere_server, max_retries=1)
    cohere_server.on_query("doomed query", fail(500), fail(500))
    cohere_server.on_query("flaky query", fail(429, retry_after_ms=1))
    items = {"a": ("doomed query", ["doomed"]), "b": ("flaky query", ["flaky query"]), "c": (QUERY, TEXTS)}
    result = asyncio.run(arerank_relevancy_batch(items, reranker))
    assert set(result.scores) == {"b", "c"} and result.scores["b"] == 1.0
    assert "RerankError" in result.errors["a"] and "'doomed query'" in result.errors["a"]


def test_reranker_works_across_event_loops(cohere_server):
    reranker = make(cohere_server)
    for _ in range(3):  # e.g. one asyncio.run per evaluation call
        assert asyncio.run(reranker.ascore(QUERY, TEXTS)) == cohere_server.expected_scores(QUERY, TEXTS)


# ----------------------------------------------------------------------------------------- cache
def test_cache_means_a_rerun_does_not_pay_twice(cohere_server, tmp_path):
    path = tmp_path / "rerank-cache.sqlite"
    first = make(cohere_server, cache=path)
    assert first.score(QUERY, TEXTS) == cohere_server.expected_scores(QUERY, TEXTS)
    rerun = make(cohere_server, cache=path)
    assert rerank_relevancy(QUERY, TEXTS, rerun, agg="mean") == pytest.approx(
        sum(cohere_server.expected_scores(QUERY, TEXTS)) / 4
    )
    assert asyncio.run(rerun.ascore(QUERY, TEXTS[:2] + ["a new text about france"])) == pytest.approx(
        cohere_server.expected_scores(QUERY, TEXTS[:2] + ["a new text about france"])
    )
    assert [len(r.documents) for r in cohere_server.rerank_requests] == [4, 1]  # only the new text was sent
    assert rerun.usage.cache_hits == 6 and rerun.usage.search_units == 1.0
    other_model = make(cohere_server, model="rerank-multilingual-v3.0", cache=path)
    other_model.score(QUERY, TEXTS)
    assert len(cohere_server.rerank_requests) == 3  # the model is part of the key


# ----------------------------------------------------------------------------------------- LlamaIndex parity
@pytest.mark.parametrize("agg", ["max", "mean", "median"])
def test_same_numbers_as_llamaindex_cohere_rerank_relevancy(cohere_server, agg):
    metrics = pytest.importorskip("llama_index.core.evaluation.retrieval.metrics")
    import cohere

    texts = [f"{w} capital of france {i}" if i % 3 else f"unrelated {i}" for i, w in enumerate(["a"] * 9)]
    theirs = metrics.CohereRerankRelevancyMetric(model="rerank-v3.5", api_key=cohere_server.api_key)
    theirs._client = cohere.Client(api_key=cohere_server.api_key, base_url=cohere_server.url)  # v1 client
    expected = theirs.compute(query=QUERY, retrieved_texts=texts, agg=agg).score
    ours = rerank_relevancy(QUERY, texts, make(cohere_server), agg=agg)
    assert ours == expected  # bit for bit
    assert [r.path for r in cohere_server.rerank_requests] == ["/v1/rerank", "/v2/rerank"]
