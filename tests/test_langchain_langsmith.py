"""rag_eval_adapters.langchain inside LangSmith and LangChain: evaluate(), aevaluate(), EvaluatorCallbackHandler.

Everything runs offline: a real langchain-core InMemoryVectorStore with a deterministic bag-of-words embedding,
a real langsmith Client with upload_results=False, and a Client subclass that keeps feedback in memory for the
callback handler. The conftest socket guard blocks the network; ``no_network`` also fails a test when anything
(including a background thread) merely tried to reach it.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import socket
import uuid
import warnings
from operator import itemgetter

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.evaluation import EvaluatorCallbackHandler
from langchain_core.vectorstores import InMemoryVectorStore
from langsmith import Client
from langsmith.schemas import Example

import rag_eval_adapters
from rag_eval_adapters.langchain import (
    HitRateEvaluator,
    MRREvaluator,
    NDCGEvaluator,
    RetrievalMetricEvaluator,
    RetrievalMetricsEvaluator,
)

pytestmark = pytest.mark.filterwarnings("ignore:'upload_results' parameter is in beta")

CORPUS = {
    "paris": "Paris is the capital of France and sits on the Seine.",
    "berlin": "Berlin is the capital of Germany.",
    "eiffel": "The Eiffel Tower in Paris was finished in 1889.",
    "seine": "The Seine river flows through Paris to the English Channel.",
    "rhine": "The Rhine river flows from the Alps through Germany to the North Sea.",
    "alps": "The Alps are the highest mountains in Europe.",
    "python": "Python is a programming language created by Guido van Rossum.",
    "rust": "Rust is a programming language focused on memory safety.",
}
DATASET = [
    ("What is the capital of France?", ["paris"]),
    ("Which river flows through Paris?", {"seine": 2, "paris": 1}),
    ("When was the Eiffel Tower finished?", ["eiffel", "paris"]),
    ("Which rivers flow through Germany?", ["rhine", "berlin"]),
    ("Which language focuses on memory safety?", ["rust"]),
]


class BagOfWordsEmbeddings(Embeddings):
    """Deterministic embedding: word counts hashed (md5) into buckets, L2-normalised."""

    def __init__(self, size: int = 256) -> None:
        self.size = size

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self.size
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.size] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


class FeedbackRecordingClient(Client):
    """A real langsmith Client that keeps feedback and dataset examples in memory instead of calling the API."""

    def __init__(self, examples: list[Example]) -> None:
        super().__init__(api_key="offline-test-key", auto_batch_tracing=False, tracing_sampling_rate=0.0)
        self.examples = {ex.id: ex for ex in examples}
        self.feedback: list[dict] = []

    def read_example(self, example_id, **kwargs) -> Example:
        return self.examples[uuid.UUID(str(example_id))]

    def create_feedback(self, run_id=None, key="unnamed", **kwargs):
        self.feedback.append({"run_id": run_id, "key": key, **kwargs})


@pytest.fixture
def no_network(_socket_guard, monkeypatch):
    """Record every attempt to leave loopback (the guard still blocks it), and fail the test if there was one."""
    attempts = []
    guarded_connect, guarded_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address):
        try:
            return guarded_connect(sock, address)
        except Exception as exc:
            attempts.append(repr(exc))
            raise

    def getaddrinfo(host, *args, **kwargs):
        try:
            return guarded_getaddrinfo(host, *args, **kwargs)
        except Exception as exc:
            attempts.append(repr(exc))
            raise

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield attempts
    assert attempts == [], f"something tried to reach the network: {attempts}"


@pytest.fixture
def retriever():
    store = InMemoryVectorStore(BagOfWordsEmbeddings())
    store.add_documents([Document(id=doc_id, page_content=text) for doc_id, text in CORPUS.items()])
    return store.as_retriever(search_kwargs={"k": 3})


@pytest.fixture
def examples():
    dataset_id = uuid.uuid4()
    return [
        Example(id=uuid.uuid4(), dataset_id=dataset_id, inputs={"question": q}, outputs={"expected_ids": ids})
        for q, ids in DATASET
    ]


@pytest.fixture
def client(no_network):
    return Client(api_key="offline-test-key", auto_batch_tracing=False, tracing_sampling_rate=0.0)


def evaluators():
    return [
        HitRateEvaluator(k=1),
        MRREvaluator(),
        NDCGEvaluator(k=3),
        RetrievalMetricEvaluator("hit_rate_granular@2"),
        RetrievalMetricsEvaluator(["hit_rate@3", "recall@2", "ap", "mrr_granular", "ndcg_exp"]),
    ]


KEYS = ["hit_rate@1", "mrr", "ndcg@3", "hit_rate_granular@2", "hit_rate@3", "recall@2", "ap", "mrr_granular",
        "ndcg_exp"]


def core_scores(examples, ranked: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """The core's per-query scores (rag_eval_adapters.evaluate) for the ids each question retrieved."""
    qrels, run = {}, {}
    for ex in examples:
        expected = ex.outputs["expected_ids"]
        qrels[str(ex.id)] = dict(expected) if isinstance(expected, dict) else {doc: 1 for doc in expected}
        run[str(ex.id)] = ranked[ex.inputs["question"]]
    report = rag_eval_adapters.evaluate(qrels, run, KEYS)
    assert not report.errors
    return report.per_query


def feedback_by_example(rows) -> dict[str, dict[str, float]]:
    scores = {}
    for row in rows:
        results = row["evaluation_results"]["results"]
        for result in results:
            assert result.extra is None, f"evaluator error: {result.comment}"
            assert result.feedback_config == {"type": "continuous", "min": 0.0, "max": 1.0}
        scores[str(row["example"].id)] = {result.key: result.score for result in results}
    return scores


def assert_equal_scores(got, want):
    assert set(got) == set(want)
    for qid in want:
        assert set(got[qid]) == set(KEYS)
        for key in KEYS:
            assert got[qid][key] == pytest.approx(want[qid][key], abs=1e-12), (qid, key)


def test_client_evaluate_scores_equal_core(client, retriever, examples):
    ranked = {}

    def target(inputs: dict) -> dict:
        documents = retriever.invoke(inputs["question"])
        ranked[inputs["question"]] = [doc.id for doc in documents]
        return {"documents": documents}

    results = client.evaluate(target, data=examples, evaluators=evaluators(), upload_results=False)
    got = feedback_by_example(results)
    assert len(got) == len(examples)
    want = core_scores(examples, ranked)
    assert_equal_scores(got, want)
    # The data set is built so that the metrics are not trivially all 1 or all 0.
    assert 0 < sum(scores["hit_rate@1"] for scores in got.values()) < len(examples)


def test_client_evaluate_with_lcel_chain_and_child_retriever_run(client, retriever, examples):
    """A chain returning a bare list (outputs['output']) and a RAG chain whose documents are only in a child run."""
    ranked = {question: [doc.id for doc in retriever.invoke(question)] for question, _ in DATASET}
    want = core_scores(examples, ranked)

    chain = RunnableLambda(itemgetter("question")) | retriever
    got = feedback_by_example(client.evaluate(chain, data=examples, evaluators=evaluators(), upload_results=False))
    assert_equal_scores(got, want)

    def answer(inputs: dict) -> dict:
        documents = retriever.invoke(inputs["question"])
        return {"answer": documents[0].page_content.split(".")[0]}

    got = feedback_by_example(client.evaluate(answer, data=examples, evaluators=evaluators(), upload_results=False))
    assert_equal_scores(got, want)


def test_client_evaluate_reports_bad_examples_as_errors(client, retriever, examples):
    examples[1] = Example(id=examples[1].id, dataset_id=examples[1].dataset_id, inputs=examples[1].inputs,
                          outputs={"answer": "The Seine"})
    bad_target_question = examples[2].inputs["question"]

    def target(inputs: dict) -> dict:
        if inputs["question"] == bad_target_question:
            return {"answer": "1889"}  # no documents anywhere
        return {"documents": retriever.invoke(inputs["question"])}

    rows = list(client.evaluate(target, data=examples, evaluators=[MRREvaluator(), RetrievalMetricsEvaluator(
        ["hit_rate@3", "ndcg@3"])], upload_results=False))
    assert len(rows) == len(examples)
    by_id = {str(row["example"].id): row["evaluation_results"]["results"] for row in rows}
    for position, ex in enumerate(examples):
        results = by_id[str(ex.id)]
        assert [r.key for r in results] == ["mrr", "hit_rate@3", "ndcg@3"]
        if position == 1:
            assert all(r.score is None and r.extra == {"error": True} for r in results)
            assert all("ValueError" in r.comment and "outputs['expected_ids'] is missing" in r.comment
                       for r in results)
        elif position == 2:
            assert all(r.score is None and r.extra == {"error": True} for r in results)
            assert all("no retrieved documents found" in r.comment and "'answer'" in r.comment for r in results)
        else:
            assert all(r.extra is None and 0.0 <= r.score <= 1.0 for r in results)


def test_client_aevaluate_scores_equal_core(client, retriever, examples):
    ranked = {}

    async def target(inputs: dict) -> dict:
        documents = await retriever.ainvoke(inputs["question"])
        ranked[inputs["question"]] = [doc.id for doc in documents]
        return {"documents": documents}

    async def run():
        results = await client.aevaluate(target, data=examples, evaluators=evaluators(), upload_results=False,
                                         max_concurrency=2)
        return [row async for row in results]

    rows = asyncio.run(run())
    got = feedback_by_example(rows)
    assert_equal_scores(got, core_scores(examples, ranked))


def test_evaluator_callback_handler_records_core_scores(no_network, retriever, examples):
    client = FeedbackRecordingClient(examples)
    chain = RunnableLambda(itemgetter("question")) | retriever
    ranked, recorded = {}, []
    for ex in examples:
        handler = EvaluatorCallbackHandler(evaluators=evaluators(), client=client, example_id=ex.id,
                                           max_concurrency=0)
        for runnable, inputs in ((retriever, ex.inputs["question"]), (chain, ex.inputs)):
            before = len(client.feedback)
            documents = runnable.invoke(inputs, config={"callbacks": [handler]})
            ranked[ex.inputs["question"]] = [doc.id for doc in documents]
            recorded.append((str(ex.id), client.feedback[before:]))
    want = core_scores(examples, ranked)

    assert len(recorded) == 2 * len(examples)
    for qid, feedback in recorded:
        assert len({fb["run_id"] for fb in feedback}) == 1  # all on the root run of that invocation
        scores = {fb["key"]: fb["score"] for fb in feedback}
        assert set(scores) == set(KEYS) and len(feedback) == len(KEYS)
        for key in KEYS:
            assert scores[key] == pytest.approx(want[qid][key], abs=1e-12), (qid, key)
        assert all(fb["comment"].startswith("retrieved 3 ids") for fb in feedback)


def test_callback_handler_without_example_logs_the_missing_reference(no_network, retriever, caplog):
    client = FeedbackRecordingClient([])
    handler = EvaluatorCallbackHandler(evaluators=[MRREvaluator()], client=client, max_concurrency=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        retriever.invoke("capital of France", config={"callbacks": [handler]})
    assert client.feedback == []
    assert "no reference" in caplog.text and "example_id" in caplog.text
