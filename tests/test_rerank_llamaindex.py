"""Reranker relevancy as LlamaIndex metrics: the real cohere SDK against the local Cohere server, inside LlamaIndex's
own RetrieverEvaluator on a real in-memory VectorStoreIndex (no network)."""

from __future__ import annotations

import math
import statistics

import pytest

pytest.importorskip("cohere", reason='needs the cohere SDK: pip install "rag-eval-adapters[cohere]"')
pytest.importorskip("llama_index.core", reason='needs llama-index-core: pip install "rag-eval-adapters[llamaindex]"')

import cohere
from cohere_server import FakeCohereServer, fail
from llama_index.core import VectorStoreIndex
from llama_index.core.evaluation import RetrieverEvaluator
from llama_index.core.evaluation.retrieval import metrics as li
from llama_index.core.evaluation.retrieval.metrics_base import BaseRetrievalMetric
from llama_index.core.schema import TextNode
from offline_embedding import HashingEmbedding

from rag_eval_adapters.llamaindex import (
    CohereRerankRelevancyMetric,
    HitRate,
    RerankRelevancyMetric,
    evaluate_dataset,
    metrics_from_names,
)
from rag_eval_adapters.rerank import CallableScorer, LexicalScorer, RerankError

FAST = {"retry_base_delay": 0.001, "timeout": 5.0}
QUERY = "capital of france"
TEXTS = ["paris is the capital of france", "bananas are yellow", "france", "the capital"]

CORPUS = {
    "paris": "Paris is the capital of France and sits on the Seine.",
    "berlin": "Berlin is the capital of Germany.",
    "rome": "Rome is the capital of Italy, home of the Colosseum.",
    "seine": "The Seine river flows through Paris to the English Channel.",
    "rhine": "The Rhine flows through Germany and the Netherlands.",
    "colosseum": "The Colosseum is an amphitheatre in Rome.",
    "prado": "The Prado museum in Madrid holds Spanish paintings.",
}
QUESTIONS = [
    "What is the capital of Germany?",
    "Which river flows through Paris?",
    "Where is the Colosseum amphitheatre?",
    "Which museum holds Spanish paintings?",
]


@pytest.fixture(autouse=True)
def _no_ambient_key(monkeypatch):
    for var in ("CO_API_KEY", "COHERE_API_KEY", "CO_API_URL", "COHERE_RERANK_MODEL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def retriever():
    nodes = [TextNode(id_=node_id, text=text) for node_id, text in CORPUS.items()]
    return VectorStoreIndex(nodes, embed_model=HashingEmbedding()).as_retriever(similarity_top_k=3)


def ours(server: FakeCohereServer, **kwargs) -> CohereRerankRelevancyMetric:
    return CohereRerankRelevancyMetric(api_key=server.api_key, base_url=server.url, **{**FAST, **kwargs})


def theirs(server: FakeCohereServer) -> li.CohereRerankRelevancyMetric:
    """LlamaIndex's own class, its (v1) client pointed at the local server."""
    metric = li.CohereRerankRelevancyMetric(model="rerank-v3.5", api_key=server.api_key)
    metric._client = cohere.Client(api_key=server.api_key, base_url=server.url)
    return metric


def expected(server: FakeCohereServer, query: str, texts: list[str], agg: str) -> float:
    scores = server.expected_scores(query, texts)
    return {"max": max, "mean": statistics.fmean, "median": statistics.median}[agg](scores)


# ----------------------------------------------------------------------------------------- LlamaIndex parity
@pytest.mark.parametrize("agg", ["max", "mean", "median"])
def test_same_numbers_as_llamaindex_own_class(cohere_server, agg):
    texts = [f"capital of france {i}" if i % 3 else f"unrelated words {i}" for i in range(9)]
    want = theirs(cohere_server).compute(query=QUERY, retrieved_texts=texts, agg=agg)
    by_call = ours(cohere_server).compute(query=QUERY, retrieved_texts=texts, agg=agg)
    by_constructor = ours(cohere_server, agg=agg).compute(query=QUERY, retrieved_texts=texts)
    assert by_call.score == want.score and by_constructor.score == want.score  # bit for bit
    assert want.score == pytest.approx(expected(cohere_server, QUERY, texts, agg))
    assert by_constructor.metadata["agg"] == agg == want.metadata["agg"]
    assert by_constructor.metadata["scores"] == cohere_server.expected_scores(QUERY, texts)  # input order
    assert [r.path for r in cohere_server.rerank_requests] == ["/v1/rerank", "/v2/rerank", "/v2/rerank"]


def test_same_numbers_as_llamaindex_through_retriever_evaluator(cohere_server, retriever):
    mine = RetrieverEvaluator(metrics=[ours(cohere_server)], retriever=retriever)
    reference = RetrieverEvaluator(metrics=[theirs(cohere_server)], retriever=retriever)
    for question in QUESTIONS:
        a = mine.evaluate(query=question, expected_ids=[])
        b = reference.evaluate(query=question, expected_ids=[])
        assert list(a.metric_vals_dict) == ["cohere_rerank_relevancy"] == list(b.metric_vals_dict)
        assert a.metric_vals_dict == b.metric_vals_dict
        assert a.metric_vals_dict["cohere_rerank_relevancy"] == max(
            cohere_server.expected_scores(question, a.retrieved_texts)
        )
    # the numbers are not trivially equal: some retrievals are more relevant than others
    assert len({r.metric_vals_dict["cohere_rerank_relevancy"] for r in [mine.evaluate(q, []) for q in QUESTIONS]}) > 1


# ----------------------------------------------------------------------------------------- keys and options
def test_instances_differing_in_agg_get_their_own_keys_in_retriever_evaluator(cohere_server, retriever):
    metrics = [ours(cohere_server), ours(cohere_server, agg="mean"), ours(cohere_server, agg="median"), HitRate()]
    evaluator = RetrieverEvaluator(metrics=metrics, retriever=retriever)
    result = evaluator.evaluate(query=QUESTIONS[1], expected_ids=["seine"])
    values = result.metric_vals_dict
    assert list(values) == ["cohere_rerank_relevancy", "cohere_rerank_relevancy_mean",
                            "cohere_rerank_relevancy_median", "hit_rate"]
    for key, agg in (("cohere_rerank_relevancy", "max"), ("cohere_rerank_relevancy_mean", "mean"),
                     ("cohere_rerank_relevancy_median", "median")):
        assert values[key] == pytest.approx(expected(cohere_server, QUESTIONS[1], result.retrieved_texts, agg))
        assert result.metric_dict[key].metadata["key"] == key
    assert values["cohere_rerank_relevancy"] > values["cohere_rerank_relevancy_mean"]
    assert values["hit_rate"] == 1.0
    # LlamaIndex's name on the class, the instance's key on an instance
    assert CohereRerankRelevancyMetric.metric_name == li.CohereRerankRelevancyMetric.metric_name
    assert RerankRelevancyMetric.metric_name == "rerank_relevancy"


def test_agg_set_after_construction_is_validated_and_renames_the_key(cohere_server):
    metric = ours(cohere_server)
    metric.agg = "median"
    assert metric.metric_name == "cohere_rerank_relevancy_median"
    assert metric.compute(QUERY, retrieved_texts=TEXTS).score == pytest.approx(
        expected(cohere_server, QUERY, TEXTS, "median")
    )
    with pytest.raises(ValueError, match="'max', 'mean' or 'median'"):
        metric.agg = "min"
    with pytest.raises(ValueError, match="agg must be one of max, mean, median; got 'min'"):
        metric.compute(QUERY, retrieved_texts=TEXTS, agg="min")
    with pytest.raises(ValueError, match="agg must be one of"):
        CohereRerankRelevancyMetric(agg="avg")  # refused before asking for a key


def test_explicit_key_for_metrics_differing_only_in_model(cohere_server, retriever):
    a = ours(cohere_server)
    b = ours(cohere_server, model="rerank-multilingual-v3.0", key="cohere_multilingual")
    evaluator = RetrieverEvaluator(metrics=[a, b], retriever=retriever)
    result = evaluator.evaluate(query=QUESTIONS[0], expected_ids=[])
    assert set(result.metric_vals_dict) == {"cohere_rerank_relevancy", "cohere_multilingual"}
    assert [r.body["model"] for r in cohere_server.rerank_requests] == ["rerank-v3.5", "rerank-multilingual-v3.0"]
    assert b.model == "rerank-multilingual-v3.0" and "key='cohere_multilingual'" in repr(b)


def test_general_metric_with_lexical_and_uncalibrated_scorers(retriever):
    lexical = RerankRelevancyMetric(scorer=LexicalScorer())
    assert isinstance(lexical, BaseRetrievalMetric) and lexical.metric_name == "rerank_relevancy"
    result = lexical.compute("capital of France", retrieved_texts=["Paris is the capital of France.", "Bananas."])
    assert result.score == 1.0 and result.metadata["scores"] == [1.0, 0.0]

    logits = CallableScorer(lambda q, ts: [2.0 if "capital" in t else -2.0 for t in ts], name="toy-logits",
                            calibrated=False)
    with pytest.raises(ValueError, match="normalize='sigmoid'"):
        RerankRelevancyMetric(scorer=logits)
    metric = RerankRelevancyMetric(scorer=logits, agg="mean", normalize="sigmoid")
    assert metric.metric_name == "rerank_relevancy_mean_sigmoid"
    score = metric.compute("capital", retrieved_texts=["the capital", "a river"]).score
    assert score == pytest.approx((1 / (1 + math.exp(-2)) + 1 / (1 + math.exp(2))) / 2)
    assert repr(metric) == ("RerankRelevancyMetric(scorer=CallableScorer(name='toy-logits', calibrated=False), "
                            "agg='mean', normalize='sigmoid')")

    evaluator = RetrieverEvaluator(metrics=[lexical, metric], retriever=retriever)
    values = evaluator.evaluate(query=QUESTIONS[0], expected_ids=[]).metric_vals_dict
    assert set(values) == {"rerank_relevancy", "rerank_relevancy_mean_sigmoid"}
    assert all(0.0 <= v <= 1.0 for v in values.values())
    with pytest.raises(TypeError, match="RelevanceScorer protocol"):
        RerankRelevancyMetric(scorer=lambda q, ts: [1.0] * len(ts))


# ----------------------------------------------------------------------------------------- edge cases, errors
def test_no_retrieved_texts_scores_zero_without_a_request(cohere_server):
    for agg in ("max", "mean", "median"):
        assert ours(cohere_server, agg=agg).compute(QUERY, retrieved_texts=[]).score == 0.0
    assert cohere_server.rerank_requests == []


def test_bad_calls_say_how_to_fix_them(cohere_server):
    metric = ours(cohere_server)
    with pytest.raises(ValueError, match="query 'q1': retrieved_texts is missing.*RetrieverEvaluator passes them"):
        metric.compute("q1", retrieved_ids=["a"])
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['aggregation'\\]"):
        metric.compute(QUERY, retrieved_texts=TEXTS, aggregation="mean")
    with pytest.raises(ValueError, match="non-empty"):
        metric.compute("  ", retrieved_texts=TEXTS)
    with pytest.raises(TypeError, match="wrap a single text in a list"):
        metric.compute(QUERY, retrieved_texts="paris")
    with pytest.raises(TypeError, match=r"texts\[1\].*must be a str"):
        metric.compute(QUERY, retrieved_texts=["paris", None])
    assert cohere_server.rerank_requests == []
    with pytest.raises(ValueError, match="No Cohere API key"):
        CohereRerankRelevancyMetric()


def test_a_failing_endpoint_raises_rerank_error_naming_the_query(cohere_server):
    metric = ours(cohere_server, max_retries=1)
    cohere_server.queue(fail(503), fail(503))
    with pytest.raises(RerankError, match="'capital of france'.*after 2 attempt"):
        metric.compute(QUERY, retrieved_texts=TEXTS)
    assert metric.usage.failures == 1 and metric.usage.retries == 1


def test_evaluate_dataset_records_the_failing_query_and_scores_the_others(cohere_server, retriever):
    metric = ours(cohere_server, max_retries=2)
    cohere_server.on_query(QUESTIONS[2], fail(500), fail(429, retry_after_ms=1), fail(503))  # retries exhausted
    cohere_server.on_query(QUESTIONS[3], fail(429, retry_after_ms=1))  # retried, then scored
    evaluator = RetrieverEvaluator(metrics=[metric, ours(cohere_server, agg="mean")], retriever=retriever)
    rows = [{"query": q, "expected_ids": ["paris"]} for q in QUESTIONS]
    run = evaluate_dataset(evaluator, rows, workers=4, show_progress=False)
    assert run.indices == [0, 1, 3] and len(run.errors) == 1
    error = run.errors[0]
    assert error.index == 2 and "RerankError" in error.message and repr(QUESTIONS[2]) in error.message
    for result in run.results:
        for key, agg in (("cohere_rerank_relevancy", "max"), ("cohere_rerank_relevancy_mean", "mean")):
            assert result.metric_vals_dict[key] == pytest.approx(
                expected(cohere_server, result.query, result.retrieved_texts, agg)
            )
    assert set(run.mean) == {"cohere_rerank_relevancy", "cohere_rerank_relevancy_mean"}


def test_rerank_metrics_are_not_built_from_names():
    with pytest.raises(ValueError, match="CohereRerankRelevancyMetric\\(model=..., api_key=..."):
        metrics_from_names(["mrr", "cohere_rerank_relevancy"])
    assert [m.metric_name for m in metrics_from_names(iter(["mrr", "hit_rate@3"]))] == ["mrr", "hit_rate@3"]
