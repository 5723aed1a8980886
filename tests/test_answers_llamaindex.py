"""Answer evaluators in LlamaIndex: BaseEvaluator results, BatchEvalRunner, and the BaseEmbedding adapter."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.evaluation import BatchEvalRunner, SemanticSimilarityEvaluator
from offline_embedding import HashingEmbedding

from rag_eval_adapters.answers import exact_match, rouge_l, token_f1
from rag_eval_adapters.llamaindex import (
    AnswerSimilarityEvaluator,
    ExactMatchEvaluator,
    LlamaIndexEmbedder,
    RougeLEvaluator,
    TokenF1Evaluator,
)

QUERIES = ["Where is the Eiffel Tower?", "Capital of Russia?", "首都是哪里？"]
ANSWERS = ["The Eiffel Tower is in Paris.", "Москва", "北京"]
REFERENCES = [["Paris", "in Paris, France"], "Москва.", "中国的首都北京"]


def test_evaluators_return_scores_and_passing_by_threshold():
    result = TokenF1Evaluator(threshold=0.5).evaluate(query=QUERIES[0], response=ANSWERS[0], reference=REFERENCES[0])
    assert result.score == token_f1(ANSWERS[0], REFERENCES[0]).f1
    assert result.passing is (result.score >= 0.5)
    assert result.query == QUERIES[0] and result.response == ANSWERS[0]
    assert ExactMatchEvaluator().evaluate(response="Москва", reference="«МОСКВА»").passing is True
    strict = RougeLEvaluator(threshold=0.9).evaluate(response=ANSWERS[2], reference=REFERENCES[2])
    assert strict.score == pytest.approx(rouge_l(ANSWERS[2], REFERENCES[2]).f1) and strict.passing is False
    with pytest.raises(ValueError, match="needs both response and reference"):
        ExactMatchEvaluator().evaluate(response="x")
    with pytest.raises(ValueError, match="threshold"):
        TokenF1Evaluator(threshold=2)


def test_batch_eval_runner_with_our_lexical_evaluators():
    runner = BatchEvalRunner(
        {"em": ExactMatchEvaluator(), "f1": TokenF1Evaluator(), "rouge_l": RougeLEvaluator(stem=True)}, workers=2
    )
    results = runner.evaluate_response_strs(queries=QUERIES, response_strs=ANSWERS, reference=REFERENCES)
    assert [r.score for r in results["em"]] == [exact_match(a, r) for a, r in zip(ANSWERS, REFERENCES, strict=False)] == [0, 1, 0]
    assert [r.score for r in results["f1"]] == [token_f1(a, r).f1 for a, r in zip(ANSWERS, REFERENCES, strict=False)]
    assert [r.score for r in results["rouge_l"]] == [rouge_l(a, r, stem=True).f1 for a, r in zip(ANSWERS, REFERENCES, strict=False)]
    assert [r.passing for r in results["f1"]] == [r.score >= 0.5 for r in results["f1"]]


def test_answer_similarity_beside_llamaindex_semantic_similarity():
    embed_model = HashingEmbedding()
    answers = ["The Eiffel Tower is in Paris.", "Moscow", "Rust focuses on memory safety"]
    references = ["Paris", "Moscow is the capital", "Python was created by Guido"]
    runner = BatchEvalRunner(
        {"ours": AnswerSimilarityEvaluator(embed_model, side="passage"),
         "theirs": SemanticSimilarityEvaluator(embed_model=embed_model)},
        workers=2,
    )
    results = runner.evaluate_response_strs(queries=["q"] * 3, response_strs=answers, reference=references)
    for ours, theirs in zip(results["ours"], results["theirs"], strict=False):
        assert ours.score == pytest.approx(max(0.0, theirs.score), abs=1e-9)
        assert ours.passing == (ours.score >= 0.8)
    assert [0 < r.score < 1 for r in results["ours"]] == [True, True, False]


def test_an_embedding_without_direction_is_an_error_not_a_nan():
    # the hashing embedding has no token for Cyrillic text: a zero vector (LlamaIndex's evaluator gives NaN)
    with pytest.raises(ValueError, match="zero vector"):
        AnswerSimilarityEvaluator(HashingEmbedding()).evaluate(response="Москва", reference="Moscow")


def test_llamaindex_embedder_uses_query_and_text_embeddings():
    embed_model = HashingEmbedding()
    embedder = LlamaIndexEmbedder(embed_model)
    assert embedder.embed_queries(["paris tower"]) == [embed_model.get_query_embedding("paris tower")]
    assert embedder.embed_passages(["a", "b"]) == embed_model.get_text_embedding_batch(["a", "b"])
    assert "HashingEmbedding" in embedder.name
    with pytest.raises(TypeError, match="BaseEmbedding"):
        LlamaIndexEmbedder(object())


def test_async_evaluation():
    evaluator = AnswerSimilarityEvaluator(LlamaIndexEmbedder(HashingEmbedding()))
    result = asyncio.run(evaluator.aevaluate(response="paris tower", reference=["london", "the paris tower"]))
    # (1, 1) against (1, 1, 1) in the hashed buckets of "paris", "tower" and "the"
    assert result.score == pytest.approx(2 / 6 ** 0.5)
