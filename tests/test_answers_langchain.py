"""Answer evaluators in LangChain / LangSmith: Client.evaluate (offline), aevaluate_run, openevals-style calls."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage
from langsmith import Client
from langsmith.schemas import Example, Run

from rag_eval_adapters.answers import exact_match, rouge_l, semantic_similarity, token_f1
from rag_eval_adapters.langchain import (
    AnswerSimilarityEvaluator,
    ExactMatchEvaluator,
    LangChainEmbedder,
    RougeLEvaluator,
    TokenF1Evaluator,
    find_answer,
    find_reference_answers,
)

pytestmark = pytest.mark.filterwarnings("ignore:'upload_results' parameter is in beta")

DATA = [
    ("Where is the Eiffel Tower?", "The Eiffel Tower is in Paris.", {"answer": ["Paris", "in Paris, France"]}),
    ("Capital of Russia?", "Москва", {"answer": "«Москва»"}),
    ("首都是哪里？", "北京", {"reference": "中国的首都北京"}),
]


class LetterEmbeddings(Embeddings):
    """Counts of a few letters: deterministic and easy to reason about."""

    def embed_documents(self, texts):
        return [[t.lower().count(c) + 0.1 for c in "aeiostр"] for t in texts]

    def embed_query(self, text):
        return self.embed_documents([text])[0]


@pytest.fixture
def examples():
    dataset_id = uuid.uuid4()
    return [Example(id=uuid.uuid4(), dataset_id=dataset_id, inputs={"question": q}, outputs=ref) for q, _, ref in DATA]


def test_client_evaluate_scores_equal_the_core(examples):
    client = Client(api_key="offline-test-key", auto_batch_tracing=False, tracing_sampling_rate=0.0)
    answers = {q: a for q, a, _ in DATA}
    embedder = LangChainEmbedder(LetterEmbeddings())

    def target(inputs: dict) -> dict:
        question = inputs["question"]
        return {"output": AIMessage(content=answers[question])} if "Russia" in question else {"answer": answers[question]}

    evaluators = [ExactMatchEvaluator(), TokenF1Evaluator(), RougeLEvaluator(stem=True),
                  AnswerSimilarityEvaluator(embedder)]
    rows = list(client.evaluate(target, data=examples, evaluators=evaluators, upload_results=False))
    assert len(rows) == len(DATA)
    references = {q: list(r.values())[0] for q, _, r in DATA}
    for row in rows:
        question = row["example"].inputs["question"]
        got = {r.key: r.score for r in row["evaluation_results"]["results"]}
        assert all(r.extra is None for r in row["evaluation_results"]["results"]), row["evaluation_results"]
        answer, reference = answers[question], references[question]
        assert got == {
            "exact_match": exact_match(answer, reference),
            "token_f1": token_f1(answer, reference).f1,
            "rouge_l_stem": rouge_l(answer, reference, stem=True).f1,
            "semantic_similarity": pytest.approx(semantic_similarity(answer, reference, embedder)),
        }


def test_aevaluate_run_and_the_openevals_call():
    run = Run(id=uuid.uuid4(), name="rag", run_type="chain", inputs={}, outputs={"messages": [AIMessage("Москва")]},
              trace_id=uuid.uuid4(), start_time="2026-01-01T00:00:00")
    example = Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs={}, outputs={"answer": "МОСКВА!"})
    result = asyncio.run(ExactMatchEvaluator().aevaluate_run(run, example))
    assert (result.key, result.score) == ("exact_match", 1.0)
    call = TokenF1Evaluator(part="recall")(outputs={"answer": "in Paris"}, reference_outputs={"answer": "Paris, France"})
    assert call == {"key": "token_recall", "score": 0.5, "comment": None}


def test_where_the_answer_and_reference_are_found():
    assert find_answer({"output": AIMessage(content=[{"type": "text", "text": "Paris"}])}) == "Paris"
    assert find_answer("Paris") == "Paris"
    assert find_answer({"lc": 1, "type": "constructor", "id": ["AIMessage"], "kwargs": {"content": "Paris"}}) == "Paris"
    assert find_answer({"result": {"type": "ai", "content": "Paris"}}) == "Paris"
    assert find_answer({"text": "x", "final": "Paris"}, answer_key="final") == "Paris"
    assert find_reference_answers({"ground_truth": ["a", "b"]}) == ["a", "b"]
    with pytest.raises(ValueError, match=r"no answer in the outputs \(keys \['documents'\]\)"):
        find_answer({"documents": []})
    with pytest.raises(ValueError, match="no reference answer"):
        find_reference_answers({"expected_ids": ["d1"]}, query_id="q1")
    with pytest.raises(TypeError, match="must be a string or a non-empty list"):
        find_reference_answers({"answer": 3})
    with pytest.raises(ValueError, match="needs an embedder"):
        AnswerSimilarityEvaluator(None)


def test_langchain_embedder_uses_query_and_document_embeddings():
    embeddings = LetterEmbeddings()
    embedder = LangChainEmbedder(embeddings)
    assert embedder.embed_queries(["sea"]) == [embeddings.embed_query("sea")]
    assert embedder.embed_passages(["sea", "tree"]) == embeddings.embed_documents(["sea", "tree"])
    with pytest.raises(TypeError, match="Embeddings"):
        LangChainEmbedder(lambda texts: texts)
