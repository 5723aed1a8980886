"""Reranker relevancy as LangSmith evaluators: the real cohere SDK against the local Cohere server, inside a real
langsmith Client.evaluate / aevaluate with upload_results=False, and as openevals-style calls (no network)."""

from __future__ import annotations

import asyncio
import math
import re
import statistics
import uuid
from datetime import datetime, timezone

import pytest

pytest.importorskip("cohere", reason='needs the cohere SDK: pip install "rag-eval-adapters[cohere]"')
pytest.importorskip("langsmith", reason='needs langsmith: pip install "rag-eval-adapters[langchain]"')

import cohere
from cohere_server import FakeCohereServer, fail
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langsmith import Client
from langsmith.evaluation import RunEvaluator
from langsmith.schemas import Example, Run

from rag_eval_adapters.langchain import (
    CohereRerankRelevancyEvaluator,
    MRREvaluator,
    RerankRelevancyEvaluator,
)
from rag_eval_adapters.rerank import CallableScorer, LexicalScorer

pytestmark = pytest.mark.filterwarnings("ignore:'upload_results' parameter is in beta")

FAST = {"retry_base_delay": 0.001, "timeout": 5.0}
CORPUS = {
    "paris": "paris is the capital of france and sits on the seine",
    "berlin": "berlin is the capital of germany",
    "eiffel": "the eiffel tower in paris was finished in 1889",
    "seine": "the seine river flows through paris",
    "rhine": "the rhine river flows through germany",
    "alps": "the alps are the highest mountains in europe",
    "rust": "rust is a programming language focused on memory safety",
}
QUESTIONS = [
    "what is the capital of france",
    "which river flows through paris",
    "when was the eiffel tower finished",
    "which river flows through germany",
    "which language focuses on memory safety",
]


class KeywordRetriever(BaseRetriever):
    """A real langchain-core retriever: the k documents sharing most words with the query (ties by id)."""

    k: int = 3

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        words = set(re.findall(r"\w+", query.lower()))
        ranked = sorted(CORPUS, key=lambda d: (-len(words & set(CORPUS[d].split())), d))
        return [Document(id=d, page_content=CORPUS[d]) for d in ranked[: self.k]]


@pytest.fixture(autouse=True)
def _no_ambient_key(monkeypatch):
    for var in ("CO_API_KEY", "COHERE_API_KEY", "CO_API_URL", "COHERE_RERANK_MODEL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def client():
    return Client(api_key="offline-test-key", auto_batch_tracing=False, tracing_sampling_rate=0.0)


def make_examples(questions=QUESTIONS) -> list[Example]:
    dataset_id = uuid.uuid4()
    return [Example(id=uuid.uuid4(), dataset_id=dataset_id, inputs={"query": q}, outputs={}) for q in questions]


def cohere_evaluator(server: FakeCohereServer, **kwargs) -> CohereRerankRelevancyEvaluator:
    return CohereRerankRelevancyEvaluator(api_key=server.api_key, base_url=server.url, **{**FAST, **kwargs})


def expected(server: FakeCohereServer, query: str, texts: list[str], agg: str = "max") -> float:
    scores = server.expected_scores(query, texts)
    return {"max": max, "mean": statistics.fmean, "median": statistics.median}[agg](scores)


def results_by_query(rows) -> dict[str, dict]:
    return {row["example"].inputs["query"]: {r.key: r for r in row["evaluation_results"]["results"]} for row in rows}


def texts_of(question: str) -> list[str]:
    return [doc.page_content for doc in KeywordRetriever().invoke(question)]


# ----------------------------------------------------------------------------------------- LangSmith evaluate
def test_client_evaluate_scores_each_example_with_the_server(client, cohere_server):
    retriever = KeywordRetriever()

    def target(inputs: dict) -> dict:
        return {"documents": retriever.invoke(inputs["query"])}

    evaluators = [cohere_evaluator(cohere_server), cohere_evaluator(cohere_server, agg="mean")]
    rows = list(client.evaluate(target, data=make_examples(), evaluators=evaluators, upload_results=False))
    got = results_by_query(rows)
    assert set(got) == set(QUESTIONS)
    for question, results in got.items():
        assert set(results) == {"cohere_rerank_relevancy", "cohere_rerank_relevancy_mean"}
        for key, agg in (("cohere_rerank_relevancy", "max"), ("cohere_rerank_relevancy_mean", "mean")):
            result = results[key]
            assert result.extra is None and result.feedback_config == {"type": "continuous", "min": 0.0, "max": 1.0}
            assert result.score == pytest.approx(expected(cohere_server, question, texts_of(question), agg))
            assert result.comment.startswith(f"{agg} of 3 cohere/rerank-v3.5@{cohere_server.url} scores [")
    assert 0 < min(r["cohere_rerank_relevancy"].score for r in got.values()) < 1  # not trivially all 1
    assert len(cohere_server.rerank_requests) == 2 * len(QUESTIONS)
    assert {r.path for r in cohere_server.rerank_requests} == {"/v2/rerank"}


def test_answer_only_chain_is_scored_on_its_retriever_child_run(client, cohere_server):
    retriever = KeywordRetriever(k=2)

    def answer(inputs: dict) -> dict:  # a RAG chain returning only an answer: the documents are in a child run
        documents = retriever.invoke(inputs["query"])
        return {"answer": documents[0].page_content.split(" is ")[0]}

    rows = list(client.evaluate(answer, data=make_examples(QUESTIONS[:2]),
                                evaluators=[cohere_evaluator(cohere_server, agg="median")], upload_results=False))
    for question, results in results_by_query(rows).items():
        texts = [doc.page_content for doc in retriever.invoke(question)]
        assert results["cohere_rerank_relevancy_median"].score == pytest.approx(
            expected(cohere_server, question, texts, "median")
        )


def test_client_aevaluate_scores_many_examples_at_once_with_native_async(client, cohere_server):
    cohere_server.latency = 0.02
    questions = [f"{q} {i}" for i in range(5) for q in QUESTIONS]  # 25 distinct queries
    retriever = KeywordRetriever()
    with FakeCohereServer() as sync_only:  # the sync client points elsewhere: it must not be used
        evaluator = CohereRerankRelevancyEvaluator(
            client=cohere.ClientV2(api_key=sync_only.api_key, base_url=sync_only.url),
            async_client=cohere.AsyncClientV2(api_key=cohere_server.api_key, base_url=cohere_server.url),
            agg="mean", **FAST,
        )

        async def target(inputs: dict) -> dict:
            return {"documents": await retriever.ainvoke(inputs["query"])}

        async def run():
            results = await client.aevaluate(target, data=make_examples(questions), evaluators=[evaluator],
                                             upload_results=False, max_concurrency=8)
            return [row async for row in results]

        rows = asyncio.run(run())
        assert sync_only.rerank_requests == []
    got = results_by_query(rows)
    assert set(got) == set(questions)
    for question, results in got.items():
        assert results["cohere_rerank_relevancy_mean"].score == pytest.approx(
            expected(cohere_server, question, texts_of(question), "mean")
        )
    assert len(cohere_server.rerank_requests) == len(questions)
    assert cohere_server.max_in_flight >= 2  # examples were scored concurrently
    assert evaluator.usage.requests == len(questions)


@pytest.mark.parametrize("use_async", [False, True])
def test_failing_server_records_that_example_and_scores_the_others(client, cohere_server, use_async):
    doomed, flaky = QUESTIONS[1], QUESTIONS[3]
    cohere_server.on_query(doomed, fail(500), fail(429, retry_after_ms=1), fail(503, message="overloaded"))
    cohere_server.on_query(flaky, fail(429, retry_after_ms=1))  # retried once, then scored
    evaluator = cohere_evaluator(cohere_server, max_retries=2)
    retriever = KeywordRetriever()

    if use_async:
        async def atarget(inputs: dict) -> dict:
            return {"documents": await retriever.ainvoke(inputs["query"])}

        async def run():
            results = await client.aevaluate(atarget, data=make_examples(), evaluators=[evaluator],
                                             upload_results=False, max_concurrency=4)
            return [row async for row in results]

        rows = asyncio.run(run())
    else:
        def target(inputs: dict) -> dict:
            return {"documents": retriever.invoke(inputs["query"])}

        rows = list(client.evaluate(target, data=make_examples(), evaluators=[evaluator], upload_results=False))
    got = results_by_query(rows)
    assert len(got) == len(QUESTIONS)
    failed = got[doomed]["cohere_rerank_relevancy"]
    assert failed.score is None and failed.extra == {"error": True}
    assert failed.comment.startswith("RerankError: Cohere rerank failed for query 'which river flows through paris'")
    assert "after 3 attempt(s)" in failed.comment and "overloaded" in failed.comment
    for question in set(QUESTIONS) - {doomed}:
        result = got[question]["cohere_rerank_relevancy"]
        assert result.extra is None
        assert result.score == pytest.approx(expected(cohere_server, question, texts_of(question)))
    assert evaluator.usage.failures == 1 and evaluator.usage.retries == 3


def test_missing_query_is_that_examples_error_under_the_feedback_key(client, cohere_server):
    examples = make_examples(QUESTIONS[:2])
    examples[0] = Example(id=examples[0].id, dataset_id=examples[0].dataset_id,
                          inputs={"question": QUESTIONS[0]}, outputs={})
    retriever = KeywordRetriever()

    def target(inputs: dict) -> dict:
        return {"documents": retriever.invoke(inputs.get("query") or inputs["question"])}

    rows = list(client.evaluate(target, data=examples, evaluators=[cohere_evaluator(cohere_server)],
                                upload_results=False))
    by_id = {str(row["example"].id): row["evaluation_results"]["results"] for row in rows}
    [bad] = by_id[str(examples[0].id)]
    assert bad.key == "cohere_rerank_relevancy" and bad.score is None and bad.extra == {"error": True}
    assert "no query" in bad.comment and "query_key='question'" in bad.comment
    [good] = by_id[str(examples[1].id)]
    assert good.score == pytest.approx(expected(cohere_server, QUESTIONS[1], texts_of(QUESTIONS[1])))
    assert len(cohere_server.rerank_requests) == 1


# ----------------------------------------------------------------------------------------- openevals-style call
def test_openevals_style_call(cohere_server):
    evaluator = cohere_evaluator(cohere_server, agg="mean")
    docs = KeywordRetriever().invoke(QUESTIONS[0])
    texts = [d.page_content for d in docs]
    want = expected(cohere_server, QUESTIONS[0], texts, "mean")
    out = evaluator(inputs={"query": QUESTIONS[0]}, outputs={"documents": docs}, reference_outputs={"x": 1})
    assert out["key"] == "cohere_rerank_relevancy_mean" and out["score"] == pytest.approx(want)
    assert out["comment"].startswith("mean of 3 cohere/rerank-v3.5")
    # the query as a string, bare texts, (Document, score) pairs, serialized documents: same texts, same score
    assert evaluator(inputs=QUESTIONS[0], outputs=texts)["score"] == pytest.approx(want)
    assert evaluator(inputs={"query": QUESTIONS[0]}, outputs=[(d, 0.5) for d in docs])["score"] == pytest.approx(want)
    serialized = [{"page_content": d.page_content, "metadata": {}, "id": d.id, "type": "Document"} for d in docs]
    assert evaluator(inputs={"query": QUESTIONS[0]}, outputs={"context": serialized})["score"] == pytest.approx(want)
    assert [r.documents for r in cohere_server.rerank_requests] == [texts] * 4
    # a failing endpoint: no score, the error as the comment
    cohere_server.on_query("doomed", *[fail(500)] * 5)
    failed = evaluator(inputs={"query": "doomed"}, outputs=["doomed text"])
    assert failed["score"] is None and failed["comment"].startswith("RerankError:") and "'doomed'" in failed["comment"]


def test_no_documents_scores_zero_without_a_request(cohere_server):
    evaluator = cohere_evaluator(cohere_server)
    out = evaluator(inputs={"query": "anything"}, outputs={"documents": []})
    assert out["score"] == 0.0 and out["comment"].startswith("no documents retrieved")
    assert cohere_server.rerank_requests == []


# ----------------------------------------------------------------------------------------- runs, query lookup
def make_run(inputs, outputs, example_id=None) -> Run:
    return Run(id=uuid.uuid4(), name="target", start_time=datetime.now(timezone.utc), run_type="chain",
               inputs=inputs, outputs=outputs, reference_example_id=example_id)


def test_query_from_run_inputs_else_example_inputs(cohere_server):
    evaluator = cohere_evaluator(cohere_server, query_key="question")
    texts = texts_of(QUESTIONS[2])
    example = make_examples()[0]
    example = Example(id=example.id, dataset_id=example.dataset_id, inputs={"question": QUESTIONS[2]}, outputs={})
    run = make_run({"messages": "..."}, {"documents": texts}, example.id)
    result = evaluator.evaluate_run(run, example)
    assert result.key == "cohere_rerank_relevancy" and result.score == pytest.approx(
        expected(cohere_server, QUESTIONS[2], texts)
    )
    assert cohere_server.rerank_requests[-1].query == QUESTIONS[2]
    run = make_run({"question": QUESTIONS[0]}, {"documents": texts}, example.id)  # the run's own input wins
    assert asyncio.run(evaluator.aevaluate_run(run, example)).score == pytest.approx(
        expected(cohere_server, QUESTIONS[0], texts)
    )
    assert cohere_server.rerank_requests[-1].query == QUESTIONS[0]
    with pytest.raises(ValueError, match=rf"query '{example.id}': no query: run.inputs and example.inputs hold no "
                                         r"'question' \(run.inputs has keys \['messages'\]; example.inputs has keys "
                                         r"\['q'\]\); pass query_key='<the input key holding the question>' "
                                         r"\(string inputs: 'messages', 'q'\)"):
        evaluator.evaluate_run(make_run({"messages": "..."}, {"documents": texts}),
                               Example(id=example.id, dataset_id=example.dataset_id, inputs={"q": "x"}, outputs={}))
    with pytest.raises(ValueError, match=r"no query: run.inputs hold no 'question' \(run.inputs has keys \['q'\]\); "
                                         r"pass query_key='q'"):
        evaluator.evaluate_run(make_run({"q": "x"}, {"documents": texts}))


def test_bad_outputs_say_how_to_fix_them(cohere_server):
    evaluator = cohere_evaluator(cohere_server)
    with pytest.raises(TypeError, match=r"document at rank 2 is a dict .*return Documents"):
        evaluator(inputs={"query": "q"}, outputs={"documents": ["a text", {"text": "not a document"}]})
    with pytest.raises(ValueError, match="no retrieved documents found"):
        evaluator(inputs={"query": "q"}, outputs={"answer": "42"})
    with pytest.raises(ValueError, match="non-empty"):
        evaluator(inputs={"query": " "}, outputs=["a text"])
    with pytest.raises(TypeError, match="query must be a str"):
        evaluator(inputs={"query": 7}, outputs=["a text"])
    assert cohere_server.rerank_requests == []


# ----------------------------------------------------------------------------------------- construction, keys
def test_keys_repr_and_constructor_checks(cohere_server):
    default = cohere_evaluator(cohere_server)
    assert isinstance(default, RunEvaluator) and default.feedback_keys == ["cohere_rerank_relevancy"]
    assert default.model == "rerank-v3.5"
    assert repr(default) == f"CohereRerankRelevancyEvaluator(model='rerank-v3.5', base_url='{cohere_server.url}')"
    assert cohere_server.api_key not in repr(default)
    assert cohere_evaluator(cohere_server, agg="median").feedback_keys == ["cohere_rerank_relevancy_median"]
    renamed = cohere_evaluator(cohere_server, model="rerank-multilingual-v3.0", key="cohere_multi", query_key="q")
    assert renamed.feedback_keys == ["cohere_multi"]
    assert "key='cohere_multi'" in repr(renamed) and "query_key='q'" in repr(renamed)
    with pytest.raises(ValueError, match="agg must be one of max, mean, median; got 'min'"):
        CohereRerankRelevancyEvaluator(agg="min")  # refused before asking for a key
    with pytest.raises(ValueError, match="No Cohere API key"):
        CohereRerankRelevancyEvaluator()
    with pytest.raises(TypeError, match="query_key must be a non-empty string"):
        cohere_evaluator(cohere_server, query_key="")


def test_general_evaluator_with_lexical_and_uncalibrated_scorers():
    lexical = RerankRelevancyEvaluator(LexicalScorer())
    assert lexical.feedback_keys == ["rerank_relevancy"]
    out = lexical(inputs={"query": "capital of France"}, outputs=["Paris is the capital of France.", "Bananas."])
    assert out == {"key": "rerank_relevancy", "score": 1.0,
                   "comment": "max of 2 lexical-v1(bigram_weight=0.25) scores [1, 0]"}

    calls = []

    def fn(query, texts):
        raise AssertionError("aevaluate_run must not fall back to the sync scorer")

    async def afn(query, texts):
        calls.append(query)
        return [3.0 if "capital" in t else -3.0 for t in texts]

    logits = CallableScorer(fn, afn=afn, name="toy-logits", calibrated=False)
    with pytest.raises(ValueError, match="normalize='sigmoid'"):
        RerankRelevancyEvaluator(logits)
    evaluator = RerankRelevancyEvaluator(logits, agg="mean", normalize="sigmoid")
    assert evaluator.feedback_keys == ["rerank_relevancy_mean_sigmoid"]
    run = make_run({"query": "capital"}, {"documents": ["the capital", "a river"]})
    result = asyncio.run(evaluator.aevaluate_run(run))
    assert calls == ["capital"]
    assert result.score == pytest.approx((1 / (1 + math.exp(-3)) + 1 / (1 + math.exp(3))) / 2)
    assert result.comment.startswith("sigmoid, then mean of 2 toy-logits scores")
    with pytest.raises(TypeError, match="RelevanceScorer protocol"):
        RerankRelevancyEvaluator(lambda q, ts: [1.0] * len(ts))


def test_rerank_and_id_evaluators_side_by_side(client, cohere_server):
    """One LangSmith run with both kinds: the id metric needs a reference, the relevancy does not."""
    retriever = KeywordRetriever()
    dataset_id = uuid.uuid4()
    examples = [Example(id=uuid.uuid4(), dataset_id=dataset_id, inputs={"query": QUESTIONS[0]},
                        outputs={"expected_ids": ["paris"]})]

    def target(inputs: dict) -> dict:
        return {"documents": retriever.invoke(inputs["query"])}

    rows = list(client.evaluate(target, data=examples, evaluators=[MRREvaluator(), cohere_evaluator(cohere_server)],
                                upload_results=False))
    results = {r.key: r.score for r in rows[0]["evaluation_results"]["results"]}
    assert results == {"mrr": 1.0, "cohere_rerank_relevancy": pytest.approx(
        expected(cohere_server, QUESTIONS[0], texts_of(QUESTIONS[0])))}
