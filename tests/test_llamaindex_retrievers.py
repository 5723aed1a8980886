"""ScoringRetriever, nodes_from_records and evaluate_retriever through a real RetrieverEvaluator."""

import pytest

pytest.importorskip("llama_index.core")

from rag_eval_adapters import evaluate  # noqa: E402
from rag_eval_adapters.llamaindex import (  # noqa: E402
    NDCG,
    ScoringRetriever,
    evaluate_retriever,
    nodes_from_records,
)

RECORDS = [
    {"id": "a", "text": "apples are red", "topic": "fruit"},
    {"id": "b", "text": "bananas are yellow", "topic": "fruit"},
    {"id": "c", "text": "carrots are orange", "topic": "veg"},
]


def overlap(query):
    words = set(query.split())
    return [len(words & set(r["text"].split())) for r in RECORDS]


def test_evaluate_retriever_scores_like_the_core():
    retriever = ScoringRetriever(nodes_from_records(RECORDS), overlap, top_k=2)
    dataset = [
        {"query": "apples are red", "expected_ids": ["a"]},
        {"query": "yellow carrots", "expected_ids": ["b", "c"]},
        {"query": "orange", "expected_ids": ["b"]},
    ]
    result = evaluate_retriever(retriever, dataset, ["hit_rate@1", "mrr", NDCG(top_k=2)], show_progress=False)
    assert result.errors == []
    run = {i: list(r.retrieved_ids) for i, r in enumerate(result.results)}
    qrels = {i: {d: 1 for d in row["expected_ids"]} for i, row in enumerate(dataset)}
    core = evaluate(qrels, run, ["hit_rate@1", "mrr", "ndcg@2"])
    assert result.mean == pytest.approx(core.mean)
    assert run[0] == ["a", "b"]  # b and c tie on "are": broken by node order


def test_nodes_from_records_and_bad_input():
    nodes = nodes_from_records(RECORDS)
    assert [n.node_id for n in nodes] == ["a", "b", "c"] and nodes[2].metadata == {"topic": "veg"}
    with pytest.raises(ValueError, match="record 0 must be a mapping with 'id' and 'text'"):
        nodes_from_records([{"text": "no id"}])
    with pytest.raises(ValueError, match="no records"):
        nodes_from_records([])
    with pytest.raises(TypeError, match="score_fn must be callable"):
        ScoringRetriever(nodes, "bm25")
    assert repr(ScoringRetriever(nodes, overlap, top_k=2)) == "ScoringRetriever(nodes=3, score_fn=overlap, top_k=2)"
