"""The relevance judge as a rerank-relevancy scorer (plain, LlamaIndex, LangChain) and in fill_judgments."""

from __future__ import annotations

import pytest

pytest.importorskip("openai")

from openai_server import refusal

from rag_eval_adapters import evaluate
from rag_eval_adapters.judges import FilledQrels, LLMJudge, fill_judgments
from rag_eval_adapters.rerank import JudgeScorer, JudgeUnmeasured, rerank_relevancy, rerank_relevancy_batch
from rag_eval_adapters.testsets import OpenAICompatibleLLM

QUERY = "capital of France"
TEXTS = ["Paris is the capital of France.", "France is in Europe.", "Bananas are yellow."]  # grades 3, 1, 0


def judge(server, **kwargs):
    llm = OpenAICompatibleLLM("judge-model", base_url=server.base_url, api_key=server.api_key)
    return LLMJudge(llm, retry_base_delay=0.0, **kwargs)


def test_the_judge_scores_retrieved_texts_mean_or_max(judge_server):
    scorer = JudgeScorer(judge(judge_server))
    assert scorer.score(QUERY, TEXTS) == [1.0, pytest.approx(1 / 3), 0.0]
    assert rerank_relevancy(QUERY, TEXTS, scorer, "mean") == pytest.approx(4 / 9)
    assert rerank_relevancy(QUERY, TEXTS, scorer, "max") == 1.0
    assert [r.grade for r in scorer.last_results] == [3, 1, 0]
    assert scorer.calibrated and "judge-model" in scorer.name
    assert rerank_relevancy(QUERY, [], scorer) == 0.0 and len(judge_server.chat_requests) == 9


def test_an_ungraded_text_is_that_querys_error_never_a_number(judge_server):
    judge_server.on_prompt("Bananas", refusal())
    batch = rerank_relevancy_batch({"q1": (QUERY, TEXTS), "q2": (QUERY, TEXTS[:1])}, JudgeScorer(judge(judge_server)))
    assert batch.scores == {"q2": 1.0} and "refusal" in batch.errors["q1"]
    with pytest.raises(JudgeUnmeasured, match="text 0"):
        JudgeScorer(judge(judge_server)).score(QUERY, [" "])


def test_the_llamaindex_metric_and_langchain_evaluator_take_the_judge(judge_server):
    pytest.importorskip("llama_index.core")
    pytest.importorskip("langchain_core")
    from rag_eval_adapters.langchain import RerankRelevancyEvaluator
    from rag_eval_adapters.llamaindex import RerankRelevancyMetric

    scorer = JudgeScorer(judge(judge_server))
    result = RerankRelevancyMetric(scorer=scorer, agg="mean").compute(QUERY, retrieved_texts=TEXTS)
    assert result.score == pytest.approx(4 / 9)
    evaluator = RerankRelevancyEvaluator(scorer, agg="mean")
    out = evaluator(inputs={"query": QUERY}, outputs={"documents": [{"page_content": t} for t in TEXTS]})
    assert out["score"] == pytest.approx(4 / 9)


# ----------------------------------------------------------------------------------------- fill_judgments
QUERIES = {"q1": QUERY, "q2": "capital of Spain"}
DOCS = {"d1": "Paris is the capital of France.", "d2": "France is in Europe.", "d3": "Bananas are yellow.",
        "d4": "Madrid is the capital of Spain.", "d5": "Spain borders France."}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d5": 0.1}, "q2": {"d4": 0.9, "d1": 0.5, "d5": 0.4}}
QRELS = {"q1": {"d1": 1}, "q2": {"d4": 1, "d5": 0}}


def test_fill_judgments_grades_only_unjudged_documents_within_depth(judge_server):
    filled = fill_judgments(QRELS, RUN, judge(judge_server), depth=3, queries=QUERIES, documents=DOCS,
                            source="evidence_span")
    assert isinstance(filled, FilledQrels)
    asked = sorted(r.prompt.split("<passage>\n")[1].split("\n")[0] for r in judge_server.chat_requests)
    assert asked == sorted([DOCS["d2"], DOCS["d3"], DOCS["d1"]])  # q1: d2, d3; q2: d1 (d5 of q1 is below depth)
    assert filled.qrels == {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 0, "d1": 2}}
    assert filled.sources == {"q1": {"d1": "evidence_span", "d2": "llm", "d3": "llm"},
                              "q2": {"d4": "evidence_span", "d5": "evidence_span", "d1": "llm"}}
    assert filled.counts == {"evidence_span": 3, "llm": 3, "unmeasured": 0} and filled.agreement is None
    assert filled.judge["judge_model"] == "judge-model"
    binary = fill_judgments(QRELS, RUN, judge(judge_server), depth=3, queries=QUERIES, documents=DOCS,
                            binary_threshold=2)
    assert binary.qrels["q1"] == {"d1": 1, "d2": 0, "d3": 0} and binary.qrels["q2"]["d1"] == 1
    assert evaluate(binary.qrels, RUN, ["P@3"]).mean["P@3"] == pytest.approx((1 / 3 + 2 / 3) / 2)


def test_audited_pairs_give_kappa_and_a_confusion_matrix(judge_server):
    filled = fill_judgments(QRELS, RUN, judge(judge_server), depth=3, queries=QUERIES, documents=DOCS, audit=3)
    agreement = filled.agreement
    # given d1/q1 = 1 (grade 3), d4/q2 = 1 (grade 3), d5/q2 = 0 (grade 2: "capital of Spain" vs "Spain borders France")
    assert agreement.pairs == 3 and agreement.confusion == {0: {1: 1}, 1: {3: 2}}
    assert agreement.observed == 1.0 and agreement.kappa == 1.0
    assert filled.qrels["q2"]["d5"] == 0 and filled.sources["q2"]["d5"] == "given"  # given labels kept
    assert filled.agreement.to_dict()["confusion"] == {"0": {"1": 1}, "1": {"3": 2}}


def test_an_ungraded_pair_stays_unjudged_and_is_listed(judge_server):
    judge_server.on_prompt("Bananas", refusal())
    filled = fill_judgments(QRELS, RUN, judge(judge_server), depth=3, queries=QUERIES, documents=DOCS)
    assert filled.unmeasured == {("q1", "d3"): "refusal"} and "d3" not in filled.qrels["q1"]


def test_fill_judgments_refuses_bad_arguments(judge_server):
    j = judge(judge_server)
    with pytest.raises(ValueError, match="no text for document 'd9'"):
        fill_judgments({}, {"q1": {"d9": 1.0}}, j, queries=QUERIES, documents=DOCS)
    with pytest.raises(ValueError, match="depth must be a positive integer, got 0"):
        fill_judgments(QRELS, RUN, j, depth=0, queries=QUERIES, documents=DOCS)
    with pytest.raises(TypeError, match="LLMJudge"):
        fill_judgments(QRELS, RUN, object(), queries=QUERIES, documents=DOCS)
    assert judge_server.chat_requests == []


def test_judged_at_k_counts_judgments_of_any_grade_and_fill_judgments_raises_it(judge_server):
    from rag_eval_adapters.metrics import judged

    assert judged(["d1", "d2", "d3", "d4"], {"d1": 0, "d3": 2, "d9": 1}, k=4) == 0.5  # grade 0 is judged too
    assert judged(["d1"], {"d1": 1}, k=4) == 1.0 and judged([], {"d1": 1}) == 0.0  # of the ids ranked, as ir_measures
    before = evaluate(QRELS, RUN, ["judged@3"]).per_query
    assert before == {"q1": {"judged@3": 1 / 3}, "q2": {"judged@3": 2 / 3}}
    filled = fill_judgments(QRELS, RUN, judge(judge_server), depth=3, queries=QUERIES, documents=DOCS)
    assert evaluate(filled.qrels, RUN, ["Judged@3"]).mean["Judged@3"] == 1.0
