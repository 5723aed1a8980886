"""Our metrics inside LlamaIndex's own RetrieverEvaluator, on a real in-memory VectorStoreIndex (no network)."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.evaluation import RetrieverEvaluator, get_retrieval_results_df
from llama_index.core.evaluation.retrieval import metrics as li
from llama_index.core.schema import TextNode
from offline_embedding import HashingEmbedding

from rag_eval_adapters import llamaindex as ours

CORPUS = {
    "paris": "Paris is the capital of France and sits on the Seine.",
    "berlin": "Berlin is the capital of Germany.",
    "rome": "Rome is the capital of Italy, home of the Colosseum.",
    "madrid": "Madrid is the capital of Spain.",
    "seine": "The Seine river flows through Paris to the English Channel.",
    "rhine": "The Rhine flows through Germany and the Netherlands.",
    "colosseum": "The Colosseum is an amphitheatre in Rome.",
    "prado": "The Prado museum in Madrid holds Spanish paintings.",
}

QUESTIONS = [
    ("What is the capital of Germany?", ["berlin"]),
    ("Which river flows through Paris?", ["seine", "paris"]),
    ("Where is the Colosseum amphitheatre?", ["colosseum", "rome"]),
    ("Which museum holds Spanish paintings?", ["prado"]),
    ("Which river flows through the Netherlands?", ["rhine"]),
]


@pytest.fixture(scope="module")
def retriever():
    nodes = [TextNode(id_=node_id, text=text) for node_id, text in CORPUS.items()]
    index = VectorStoreIndex(nodes, embed_model=HashingEmbedding())
    return index.as_retriever(similarity_top_k=3)


def test_default_options_give_llamaindex_numbers_through_retriever_evaluator(retriever):
    mine = RetrieverEvaluator(
        metrics=[ours.HitRate(), ours.MRR(), ours.Precision(), ours.Recall(), ours.AveragePrecision(), ours.NDCG()],
        retriever=retriever,
    )
    theirs = RetrieverEvaluator(
        metrics=[li.HitRate(), li.MRR(), li.Precision(), li.Recall(), li.AveragePrecision(), li.NDCG()],
        retriever=retriever,
    )
    for query, expected in QUESTIONS:
        a = mine.evaluate(query=query, expected_ids=expected)
        b = theirs.evaluate(query=query, expected_ids=expected)
        assert a.retrieved_ids == b.retrieved_ids
        assert list(a.metric_vals_dict) == ["hit_rate", "mrr", "precision", "recall", "ap", "ndcg"]
        assert a.metric_vals_dict == pytest.approx(b.metric_vals_dict, abs=1e-12)
    # the retriever is meaningful: the answer is ranked first for the first question
    assert mine.evaluate(query=QUESTIONS[0][0], expected_ids=["berlin"]).metric_vals_dict["mrr"] == 1.0


def test_instances_with_different_options_do_not_collide(retriever):
    evaluator = RetrieverEvaluator(
        metrics=[ours.HitRate(), ours.HitRate(top_k=1), ours.MRR(), ours.MRR(use_granular_mrr=True),
                 ours.NDCG(), ours.NDCG(mode="exponential", top_k=2), ours.Precision(top_k=5), ours.F1()],
        retriever=retriever,
    )
    result = evaluator.evaluate(query="Which river flows through Paris?", expected_ids=["seine", "paris"])
    assert list(result.metric_dict) == [
        "hit_rate", "hit_rate@1", "mrr", "mrr_granular", "ndcg", "ndcg_exp@2", "precision@5", "f1"]
    values = result.metric_vals_dict
    relevant_ranks = [i + 1 for i, node_id in enumerate(result.retrieved_ids) if node_id in {"seine", "paris"}]
    assert values["hit_rate@1"] == (1.0 if relevant_ranks[0] == 1 else 0.0)
    assert values["mrr"] == 1 / relevant_ranks[0]
    assert values["mrr_granular"] == pytest.approx(sum(1 / r for r in relevant_ranks) / len(relevant_ranks))
    assert values["precision@5"] == pytest.approx(len(relevant_ranks) / 5)
    # the class attribute stays LlamaIndex's
    assert ours.HitRate.metric_name == "hit_rate" and ours.NDCG.metric_name == "ndcg"


def test_aevaluate_and_llamaindex_results_table(retriever):
    evaluator = RetrieverEvaluator(metrics=ours.metrics_from_names(["hit_rate", "hit_rate@1", "mrr"]),
                                   retriever=retriever)

    async def run_all():
        return await asyncio.gather(*(evaluator.aevaluate(query=q, expected_ids=e) for q, e in QUESTIONS))

    results = asyncio.run(run_all())
    assert [r.query for r in results] == [q for q, _ in QUESTIONS]
    sync = [evaluator.evaluate(query=q, expected_ids=e) for q, e in QUESTIONS]
    assert [r.metric_vals_dict for r in results] == [r.metric_vals_dict for r in sync]
    table = get_retrieval_results_df(["vector"], [results], metric_keys=["hit_rate", "hit_rate@1", "mrr"])
    assert table.loc[0, "hit_rate"] == pytest.approx(sum(r.metric_vals_dict["hit_rate"] for r in results) / 5)


def test_text_expectations_through_retriever_evaluator(retriever):
    evaluator = RetrieverEvaluator(metrics=[ours.HitRate(), ours.Recall(), ours.MRR()], retriever=retriever)
    result = evaluator.evaluate(
        query="What is the capital of Germany?", expected_ids=[], expected_texts=["berlin is the CAPITAL of germany"]
    )
    assert result.metric_vals_dict == {"hit_rate": 1.0, "recall": 1.0, "mrr": 1.0}
    assert all(r.metadata["match"] == "text" for r in result.metric_dict.values())


def test_llamaindex_own_metrics_cannot_do_what_ours_do(retriever):
    # LlamaIndex keys both HitRate instances "hit_rate": the second silently overwrites the first
    evaluator = RetrieverEvaluator(metrics=[li.HitRate(), li.HitRate(use_granular_hit_rate=True)], retriever=retriever)
    result = evaluator.evaluate(query="Which river flows through Paris?", expected_ids=["seine", "paris", "rhine"])
    assert list(result.metric_dict) == ["hit_rate"]
    ours_evaluator = RetrieverEvaluator(
        metrics=[ours.HitRate(), ours.HitRate(use_granular_hit_rate=True)], retriever=retriever)
    result = ours_evaluator.evaluate(query="Which river flows through Paris?", expected_ids=["seine", "paris", "rhine"])
    assert list(result.metric_dict) == ["hit_rate", "hit_rate_granular"]
