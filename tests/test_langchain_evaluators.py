"""rag_eval_adapters.langchain: evaluators called directly (openevals style and evaluate_run on real runs)."""

from __future__ import annotations

import asyncio
import datetime
import math
import threading
import uuid

import pytest
from langchain_core.documents import Document
from langchain_core.load import dumpd
from langsmith.evaluation import EvaluationResult
from langsmith.schemas import Example, Run

from rag_eval_adapters.langchain import (
    AveragePrecisionEvaluator,
    F1Evaluator,
    HitRateEvaluator,
    MRREvaluator,
    NDCGEvaluator,
    PrecisionEvaluator,
    RecallEvaluator,
    RetrievalMetricEvaluator,
    RetrievalMetricsEvaluator,
    document_text,
    find_documents,
    retrieved_ids,
)
from rag_eval_adapters.measures import F1, NDCG, HitRate, parse_metric

SPECS = [
    "hit_rate", "hit_rate@1", "hit_rate_granular@3", "mrr", "mrr@1", "mrr_granular", "precision", "precision@2",
    "recall@2", "recall", F1(k=3), F1(), "ap", "ap@2", "r_precision", "ndcg", "ndcg@2", "ndcg_exp@3",
]
REFERENCES = {
    "binary": ["d1", "d3", "d9"],
    "graded": {"d1": 2, "d3": 1, "d9": 3, "d4": 0},
}
RETRIEVALS = {
    "ranked": ["d7", "d1", "d4", "d3", "d2"],
    "repeats": ["d3", "d3", "d8", "d1", "d9", "d1"],
    "no_relevant": ["d5", "d6"],
    "empty": [],
}


def docs(ids):
    return [Document(page_content=f"text of {doc_id}", id=doc_id) for doc_id in ids]


def make_run(outputs, child_runs=None, run_type="chain", error=None):
    now = datetime.datetime.now(datetime.timezone.utc)
    run_id = uuid.uuid4()
    return Run(id=run_id, trace_id=run_id, name="target", run_type=run_type, start_time=now, inputs={},
               outputs=outputs, child_runs=child_runs, error=error)


def make_example(outputs):
    return Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs={"question": "q"}, outputs=outputs)


@pytest.mark.parametrize("retrieval", sorted(RETRIEVALS))
@pytest.mark.parametrize("reference", sorted(REFERENCES))
@pytest.mark.parametrize("spec", SPECS)
def test_direct_call_equals_core(spec, reference, retrieval):
    ids, expected = RETRIEVALS[retrieval], REFERENCES[reference]
    metric = parse_metric(spec)
    result = RetrievalMetricEvaluator(spec)(
        inputs={"question": "q"}, outputs={"documents": docs(ids)}, reference_outputs={"expected_ids": expected}
    )
    assert set(result) == {"key", "score", "comment"}
    assert result["key"] == metric.key
    assert result["score"] == metric.score(ids, expected)
    assert 0.0 <= result["score"] <= 1.0


def test_hand_computed_scores():
    outputs = {"documents": docs(["d7", "d1", "d3"])}
    reference = {"expected_ids": ["d1", "d3"]}
    scores = {r["key"]: r["score"] for r in RetrievalMetricsEvaluator(
        ["hit_rate@1", "hit_rate@2", "mrr", "precision@2", "recall@3", "ap", "mrr_granular"]
    )(outputs=outputs, reference_outputs=reference)}
    assert scores == pytest.approx({
        "hit_rate@1": 0.0, "hit_rate@2": 1.0, "mrr": 0.5, "precision@2": 0.5, "recall@3": 1.0,
        "ap": (1 / 2 + 2 / 3) / 2, "mrr_granular": (1 / 2 + 1 / 3) / 2,
    })


@pytest.mark.parametrize("spec", ["hit_rate@3", "mrr", "precision@5", "recall", F1(k=2), "ap", "ndcg@10", "r_precision"])
def test_empty_retrieval_scores_zero(spec):
    result = RetrievalMetricEvaluator(spec)(outputs={"documents": []}, reference_outputs={"expected_ids": ["d1"]})
    assert result["score"] == 0.0
    assert "retrieved 0 ids" in result["comment"]


@pytest.mark.parametrize(
    ("evaluator", "key", "metric"),
    [
        (HitRateEvaluator(3), "hit_rate@3", "hit_rate@3"),
        (HitRateEvaluator(k=3, granular=True), "hit_rate_granular@3", "hit_rate_granular@3"),
        (MRREvaluator(), "mrr", "mrr"),
        (MRREvaluator(granular=True), "mrr_granular", "mrr_granular"),
        (PrecisionEvaluator(2), "precision@2", "precision@2"),
        (RecallEvaluator(4), "recall@4", "recall@4"),
        (F1Evaluator(3), "f1@3", F1(k=3)),
        (AveragePrecisionEvaluator(100), "ap@100", "ap@100"),
        (NDCGEvaluator(10), "ndcg@10", "ndcg@10"),
        (NDCGEvaluator(3, gain="exponential"), "ndcg_exp@3", "ndcg_exp@3"),
        (RetrievalMetricEvaluator(NDCG(k=2)), "ndcg@2", "ndcg@2"),
        (RetrievalMetricEvaluator("mrr", k=2), "mrr@2", "mrr@2"),
        (RetrievalMetricEvaluator("map@5"), "map@5", "ap@5"),  # the name asked for is the key read back
        (RetrievalMetricEvaluator("P(rel=2)@5"), "P(rel=2)@5", "precision_rel2@5"),
    ],
)
def test_thin_evaluators_keys_and_scores(evaluator, key, metric):
    """The same key and score called openevals-style and as LangSmith calls a RunEvaluator (evaluate_run)."""
    assert evaluator.feedback_keys == [key]
    ids, expected = RETRIEVALS["ranked"], REFERENCES["graded"]
    score = parse_metric(metric).score(ids, expected)
    result = evaluator(outputs={"documents": docs(ids)}, reference_outputs={"expected_ids": expected})
    assert result["key"] == key
    assert result["score"] == score
    feedback = evaluator.evaluate_run(make_run({"documents": docs(ids)}), make_example({"expected_ids": expected}))
    assert isinstance(feedback, EvaluationResult)
    assert (feedback.key, feedback.score) == (key, score)


def test_custom_key_and_relevance_level():
    evaluator = RetrievalMetricEvaluator("hit_rate@2", key="retrieval_hit", relevance_level=2)
    assert evaluator.feedback_keys == ["retrieval_hit"]
    # d1 has grade 1 (< 2) and d3 grade 2: only d3 counts, and it is ranked 3rd.
    result = evaluator(outputs=["d1", "d5", "d3"], reference_outputs={"expected_ids": {"d1": 1, "d3": 2}})
    assert result == {"key": "retrieval_hit", "score": 0.0, "comment": result["comment"]}
    assert HitRate(k=3).score(["d1", "d5", "d3"], {"d1": 1, "d3": 2}, relevance_level=2) == 1.0
    assert RetrievalMetricEvaluator("hit_rate@3", relevance_level=2)(
        outputs=["d1", "d5", "d3"], reference_outputs={"expected_ids": {"d1": 1, "d3": 2}})["score"] == 1.0


# --- where documents are found, and in which forms --------------------------------------------------------------


DOC_FORMS = {
    "documents": lambda ids: docs(ids),
    "api_dicts": lambda ids: [d.model_dump(mode="json") for d in docs(ids)],
    "lc_serialized": lambda ids: [dumpd(d) for d in docs(ids)],
    "with_scores": lambda ids: [(d, 1.0 / rank) for rank, d in enumerate(docs(ids), start=1)],
    "plain_ids": lambda ids: list(ids),
    "ids_with_scores": lambda ids: [(doc_id, 0.5) for doc_id in ids],
    "tuple_of_ids": lambda ids: tuple(ids),
}


@pytest.mark.parametrize("form", sorted(DOC_FORMS))
def test_document_forms(form):
    ids = ["d7", "d1", "d3"]
    outputs = {"documents": DOC_FORMS[form](ids)}
    assert retrieved_ids(outputs) == ids
    result = MRREvaluator()(outputs=outputs, reference_outputs={"expected_ids": ["d1"]})
    assert result["score"] == 0.5


def test_document_text_and_rebuilt_documents():
    items = find_documents({"documents": [docs(["d1"])[0].model_dump(mode="json"), "d2"]})
    assert isinstance(items[0], Document) and items[0].id == "d1"
    assert document_text(items[0]) == "text of d1"
    assert document_text(dumpd(docs(["d3"])[0])) == "text of d3"
    assert document_text("d2") is None


@pytest.mark.parametrize(
    "outputs",
    [
        {"output": docs(["d7", "d1"])},
        {"context": docs(["d7", "d1"]), "answer": "something"},
        {"source_documents": docs(["d7", "d1"]), "result": "an answer"},
        {"output": {"documents": docs(["d7", "d1"]), "answer": "x"}},
        {"output": "an answer string", "context": docs(["d7", "d1"])},
        {"documents": docs(["d7", "d1"]), "output": docs(["d1"])},  # "documents" wins
        docs(["d7", "d1"]),  # bare list
    ],
)
def test_documents_found_under_common_keys(outputs):
    assert retrieved_ids(outputs) == ["d7", "d1"]
    assert MRREvaluator()(outputs=outputs, reference_outputs={"expected_ids": ["d1"]})["score"] == 0.5


def test_documents_key_option():
    evaluator = MRREvaluator(documents_key="hits")
    outputs = {"documents": docs(["d1"]), "hits": docs(["d7", "d1"])}
    assert evaluator(outputs=outputs, reference_outputs={"expected_ids": ["d1"]})["score"] == 0.5
    with pytest.raises(ValueError, match=r"outputs\['hits'\] is missing.*documents"):
        evaluator(outputs={"documents": docs(["d1"])}, reference_outputs={"expected_ids": ["d1"]})


def test_retriever_child_run_used_when_outputs_hold_no_documents():
    serialized = [d.model_dump(mode="json") for d in docs(["d7", "d1"])]
    other = make_run({"documents": docs(["d1"])}, run_type="chain")  # not a retriever: ignored
    retriever = make_run({"documents": serialized}, run_type="retriever")
    later = make_run({"documents": docs(["d1"])}, run_type="retriever")
    llm = make_run({"generations": []}, child_runs=[retriever], run_type="chain")
    run = make_run({"output": "Paris."}, child_runs=[other, llm, later])
    example = make_example({"expected_ids": ["d1"]})
    result = MRREvaluator().evaluate_run(run, example)
    assert isinstance(result, EvaluationResult)
    assert result.score == 0.5


def test_ids_from_metadata_key_and_id_fn():
    documents = [Document(page_content="x", metadata={"doc_id": name, "n": n}) for n, name in enumerate("abc")]
    reference = {"expected_ids": ["b"]}
    assert MRREvaluator(id_key="doc_id")(outputs={"documents": documents}, reference_outputs=reference)["score"] == 0.5
    by_number = MRREvaluator(id_fn=lambda doc: doc.metadata["n"])
    assert by_number(outputs={"documents": documents}, reference_outputs={"expected_ids": [2]})["score"] == 1 / 3
    # id_fn receives Documents rebuilt from serialized dicts too.
    serialized = [d.model_dump(mode="json") for d in documents]
    assert by_number(outputs={"documents": serialized}, reference_outputs={"expected_ids": ["2"]})["score"] == 1 / 3


def test_int_and_uuid_ids_match_their_strings():
    key = uuid.uuid4()
    reference = {"expected_ids": [3, key]}
    assert RecallEvaluator()(outputs=["3", str(key)], reference_outputs=reference)["score"] == 1.0
    assert RecallEvaluator()(outputs=[key, 3], reference_outputs={"expected_ids": ["3", str(key)]})["score"] == 1.0


def test_graded_reference_mapping():
    ids, expected = ["d9", "d3", "d1"], {"d1": 2, "d3": 1, "d9": 3}
    result = NDCGEvaluator(2)(outputs=docs(ids), reference_outputs={"expected_ids": expected})
    ideal = 3 + 2 / math.log2(3)
    assert result["score"] == pytest.approx((3 + 1 / math.log2(3)) / ideal)
    assert result["score"] == NDCG(k=2).score(ids, expected)
    assert "expected 3 {d1: 2, d3: 1, d9: 3}" in result["comment"]


def test_bare_reference_list_and_custom_reference_key():
    assert HitRateEvaluator(1)(outputs=["d1"], reference_outputs=["d1"])["score"] == 1.0
    evaluator = HitRateEvaluator(1, reference_key="relevant")
    assert evaluator(outputs=["d1"], reference_outputs={"relevant": ["d1"]})["score"] == 1.0


# --- evaluate_run / aevaluate_run on langsmith schemas ------------------------------------------------------------


def test_evaluate_run_result_fields():
    run = make_run({"documents": docs(["d7", "d1", "d3"])})
    example = make_example({"expected_ids": ["d1", "d3"]})
    result = HitRateEvaluator(1).evaluate_run(run, example, evaluator_run_id=uuid.uuid4())
    assert isinstance(result, EvaluationResult)
    assert result.key == "hit_rate@1" and result.score == 0.0
    assert result.feedback_config == {"type": "continuous", "min": 0.0, "max": 1.0}
    assert result.comment == "retrieved 3 ids [d7, d1, d3]; expected 2 [d1, d3]"


def test_metrics_evaluator_returns_evaluation_results():
    run = make_run({"documents": docs(["d7", "d1", "d3"])})
    example = make_example({"expected_ids": {"d1": 1, "d3": 2}})
    evaluator = RetrievalMetricsEvaluator(["hit_rate@3", "mrr", "ndcg@10"])
    assert evaluator.feedback_keys == ["hit_rate@3", "mrr", "ndcg@10"]
    results = evaluator.evaluate_run(run, example)
    assert [r.key for r in results["results"]] == ["hit_rate@3", "mrr", "ndcg@10"]
    for result in results["results"]:
        assert isinstance(result, EvaluationResult)
        assert result.score == parse_metric(result.key).score(["d7", "d1", "d3"], {"d1": 1, "d3": 2})
        assert result.feedback_config["type"] == "continuous"
    direct = evaluator(outputs=run.outputs, reference_outputs=example.outputs)
    assert [(d["key"], d["score"]) for d in direct] == [(r.key, r.score) for r in results["results"]]


def test_aevaluate_run_is_native_async():
    threads = []

    def id_fn(doc):
        threads.append(threading.get_ident())
        return doc.id

    run = make_run({"documents": docs(["d7", "d1"])})
    example = make_example({"expected_ids": ["d1"]})
    evaluator = RetrievalMetricsEvaluator(["mrr", "hit_rate@1"], id_fn=id_fn)

    async def main():
        return threading.get_ident(), await evaluator.aevaluate_run(run, example)

    loop_thread, results = asyncio.run(main())
    assert [(r.key, r.score) for r in results["results"]] == [("mrr", 0.5), ("hit_rate@1", 0.0)]
    assert set(threads) == {loop_thread}  # scored on the event loop, not in a thread pool
    single = asyncio.run(MRREvaluator().aevaluate_run(run, example))
    assert single.score == 0.5


# --- errors ---------------------------------------------------------------------------------------------------------


def test_missing_reference_errors_name_what_is_missing():
    run = make_run({"documents": docs(["d1"])})
    with pytest.raises(ValueError, match=r"no reference.*expected_ids.*example_id"):
        MRREvaluator().evaluate_run(run, None)
    example = make_example({"answer": "Paris"})
    with pytest.raises(ValueError, match=rf"query '{example.id}'.*outputs\['expected_ids'\] is missing.*answer"):
        MRREvaluator().evaluate_run(run, example)
    with pytest.raises(ValueError, match=r"outputs\['expected_ids'\] is missing"):
        MRREvaluator().evaluate_run(run, make_example(None))
    with pytest.raises(ValueError, match=r"outputs\['gold'\] is empty"):
        MRREvaluator(reference_key="gold")(outputs=["d1"], reference_outputs={"gold": []})
    with pytest.raises(TypeError, match=r"single string.*\['d1'\]"):
        MRREvaluator()(outputs=["d1"], reference_outputs={"expected_ids": "d1"})
    with pytest.raises(ValueError, match="no reference"):
        MRREvaluator()(outputs=["d1"])


def test_outputs_without_documents_raise_value_error():
    example = make_example({"expected_ids": ["d1"]})
    run = make_run({"answer": "Paris", "output": "Paris"})
    with pytest.raises(ValueError, match=r"no retrieved documents found.*\['answer', 'output'\].*documents_key"):
        MRREvaluator().evaluate_run(run, example)
    with_children = make_run({"answer": "Paris"}, child_runs=[make_run({"generations": []}, run_type="llm")])
    with pytest.raises(ValueError, match="no retriever child run returned documents"):
        MRREvaluator().evaluate_run(with_children, example)
    failed = make_run(None, error="KeyError('question')")
    with pytest.raises(ValueError, match=r"failed \(KeyError\('question'\)\)"):
        MRREvaluator().evaluate_run(failed, example)


def test_documents_without_usable_ids():
    reference = {"expected_ids": ["d1"]}
    with pytest.raises(ValueError, match=r"document at rank 2 has no id.*id_key.*id_fn"):
        MRREvaluator()(outputs=[Document(page_content="a", id="d1"), Document(page_content="b")],
                       reference_outputs=reference)
    with pytest.raises(ValueError, match=r"rank 1 has no metadata\['doc_id'\].*\['source'\]"):
        MRREvaluator(id_key="doc_id")(outputs=[Document(page_content="a", metadata={"source": "x"})],
                                      reference_outputs=reference)
    with pytest.raises(TypeError, match=r"rank 1 is a float.*id_fn"):
        MRREvaluator()(outputs=[1.5], reference_outputs=reference)
    with pytest.raises(TypeError, match=r"id_fn\(document at rank 1\) must be a string id"):
        MRREvaluator(id_fn=lambda doc: [doc.id])(outputs=docs(["d1"]), reference_outputs=reference)


def test_invalid_configuration():
    with pytest.raises(ValueError, match="not bounded by 1.*ndcg"):
        RetrievalMetricEvaluator("dcg@10")
    with pytest.raises(ValueError, match="not bounded"):
        RetrievalMetricsEvaluator(["mrr", "dcg"])
    with pytest.raises(ValueError, match="unknown metric 'ndgc@10'"):
        RetrievalMetricEvaluator("ndgc@10")
    with pytest.raises(ValueError, match="already has cutoff 10.*k=5"):
        RetrievalMetricEvaluator("ndcg@10", k=5)
    with pytest.raises(ValueError, match="r_precision takes no cutoff"):
        RetrievalMetricEvaluator("r_precision", k=5)
    with pytest.raises(ValueError, match="positive int"):
        HitRateEvaluator(0)
    with pytest.raises(ValueError, match=r"\['mrr'\] are given more than once"):
        RetrievalMetricsEvaluator(["mrr", "recip_rank"])
    with pytest.raises(ValueError, match="no metric given"):
        RetrievalMetricsEvaluator([])
    with pytest.raises(TypeError, match="id_fn must be a callable"):
        MRREvaluator(id_fn="doc_id")
    with pytest.raises(TypeError, match="documents_key must be a string, got 3"):
        MRREvaluator(documents_key=3)
    with pytest.raises(TypeError, match="text_key must be a string, got b'texts'"):
        RetrievalMetricsEvaluator(["mrr"], text_key=b"texts")
    assert MRREvaluator(id_key="").id_key == ""  # any string: only the rerank evaluator's keys must be non-empty


def test_repr():
    assert repr(HitRateEvaluator(3)) == "HitRateEvaluator('hit_rate@3')"
    assert repr(RetrievalMetricEvaluator("mrr", key="rr", id_key="doc_id")) == (
        "RetrievalMetricEvaluator('mrr', key='rr', id_key='doc_id')"
    )
    assert repr(RetrievalMetricsEvaluator(["mrr", "ndcg@10"], reference_key="gold")) == (
        "RetrievalMetricsEvaluator(['mrr', 'ndcg@10'], reference_key='gold')"
    )
