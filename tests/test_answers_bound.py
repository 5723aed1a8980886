"""BoundAnswerMetric: an answer metric with its embedder, the part both frameworks' answer evaluators share."""

from __future__ import annotations

import asyncio
import doctest
import threading

import pytest

from rag_eval_adapters.answers import (
    BoundAnswerMetric,
    CallableEmbedder,
    TokenF1,
    bound,
    lexical,
    semantic_similarity,
    token_f1,
)


def _counting_embedder(calls: list[tuple[str, str]]) -> CallableEmbedder:
    def embed(texts: list[str]) -> list[list[float]]:
        calls.extend((text, threading.current_thread().name) for text in texts)
        return [[float(len(text)), 1.0, float(text.count("a"))] for text in texts]

    return CallableEmbedder(embed, name="counting")


def test_a_lexical_metric_scores_as_the_metric_itself_sync_and_async():
    bound = BoundAnswerMetric("token_f1")
    assert bound.metric == TokenF1()
    expected = token_f1("in Paris, France", ["Paris", "Lyon"]).f1
    assert bound.score("in Paris, France", ["Paris", "Lyon"]) == pytest.approx(expected)
    assert expected == pytest.approx(0.5)
    assert asyncio.run(bound.ascore("in Paris, France", ["Paris", "Lyon"])) == pytest.approx(expected)


def test_a_metric_that_embeds_without_an_embedder_names_the_metric_and_what_is_accepted():
    with pytest.raises(ValueError, match=r"semantic_similarity needs an embedder: a BaseEmbedding or an Embedder"):
        BoundAnswerMetric("semantic_similarity", accepted="a BaseEmbedding or an Embedder")
    assert BoundAnswerMetric("exact_match").embedder is None  # a lexical metric needs none


def test_embedding_is_cached_by_content_and_async_scoring_embeds_off_the_event_loop_thread():
    calls: list[tuple[str, str]] = []
    bound = BoundAnswerMetric("semantic_similarity", _counting_embedder(calls))
    expected = semantic_similarity("a banana", ["an apple"], _counting_embedder([]))
    assert bound.score("a banana", ["an apple"]) == pytest.approx(expected)
    assert bound.score("a banana", ["an apple"]) == pytest.approx(expected)
    assert sorted(text for text, _ in calls) == ["a banana", "an apple"]  # each text embedded once
    calls.clear()
    loop_thread: list[str] = []

    async def score() -> float:
        loop_thread.append(threading.current_thread().name)
        return await bound.ascore("a cherry", ["an apple"])

    assert asyncio.run(score()) == pytest.approx(semantic_similarity("a cherry", ["an apple"], _counting_embedder([])))
    assert [text for text, _ in calls] == ["a cherry"]
    assert all(thread != loop_thread[0] for _, thread in calls)


def test_the_examples_of_the_lexical_metrics_and_of_the_bound_metric_run():
    for module in (lexical, bound):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted >= 1, module.__name__
