"""The judges inside LlamaIndex (BaseEvaluators in BatchEvalRunner) and LangSmith (RunEvaluators, openevals-style)."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

pytest.importorskip("openai")
pytest.importorskip("llama_index.core")
pytest.importorskip("langsmith")

from openai_server import refusal

from rag_eval_adapters.judges import LLMJudge
from rag_eval_adapters.testsets import OpenAICompatibleLLM

QUESTIONS = ["What is Paris?", "Where is the Louvre?"]
ANSWERS = ["Paris is the capital of France.", "The Louvre is in Paris. It is pink."]
CONTEXTS = [["Paris is the capital of France."], ["The Louvre is in Paris, France.", "Bananas are yellow."]]
REFERENCES = ["Paris is the capital of France.", "The Louvre is in Paris."]


def judge(server):
    return LLMJudge(OpenAICompatibleLLM("judge-model", base_url=server.base_url, api_key=server.api_key),
                    retry_base_delay=0.0)


def test_llamaindex_evaluators_work_in_batch_eval_runner(judge_server):
    from llama_index.core.evaluation import BatchEvalRunner

    from rag_eval_adapters.llamaindex import (
        JudgeCorrectnessEvaluator,
        JudgeFaithfulnessEvaluator,
        JudgeRelevancyEvaluator,
    )

    j = judge(judge_server)
    runner = BatchEvalRunner({"faithfulness": JudgeFaithfulnessEvaluator(j), "relevancy": JudgeRelevancyEvaluator(j),
                              "correctness": JudgeCorrectnessEvaluator(j)}, workers=2)
    results = runner.evaluate_response_strs(queries=QUESTIONS, response_strs=ANSWERS, contexts_list=CONTEXTS,
                                            reference=REFERENCES)
    assert [r.score for r in results["faithfulness"]] == [1.0, 0.5]
    assert [r.passing for r in results["faithfulness"]] == [True, False]
    assert [r.score for r in results["correctness"]] == [1.0, pytest.approx(2 / 3)]
    assert results["relevancy"][1].score == 0.5 and results["relevancy"][1].passing is False  # grades 3 and 0
    assert "judge-model" in results["faithfulness"][0].feedback


def test_llamaindex_evaluators_take_the_call_shape_of_the_ones_they_replace(judge_server):
    from llama_index.core.base.response.schema import Response
    from llama_index.core.evaluation import FaithfulnessEvaluator
    from llama_index.core.schema import NodeWithScore, TextNode

    from rag_eval_adapters.llamaindex import JudgeFaithfulnessEvaluator

    ours = JudgeFaithfulnessEvaluator(judge(judge_server))
    assert set(FaithfulnessEvaluator.evaluate.__code__.co_varnames[:4]) <= set(ours.evaluate.__code__.co_varnames)
    response = Response(ANSWERS[1], source_nodes=[NodeWithScore(node=TextNode(text=t), score=1.0) for t in CONTEXTS[1]])
    result = ours.evaluate_response(query=QUESTIONS[1], response=response)
    assert result.score == 0.5 and result.contexts == CONTEXTS[1]


def test_an_unmeasured_item_is_an_invalid_result_not_a_score(judge_server):
    from rag_eval_adapters.llamaindex import JudgeFaithfulnessEvaluator

    judge_server.on_prompt("It is pink", refusal())
    result = JudgeFaithfulnessEvaluator(judge(judge_server)).evaluate(query=QUESTIONS[1], response=ANSWERS[1],
                                                                        contexts=CONTEXTS[1])
    assert result.invalid_result and result.invalid_reason.startswith("refusal") and result.score is None


def test_langsmith_run_evaluators_and_openevals_calls(judge_server):
    from rag_eval_adapters.langchain import JudgeEvaluator

    j = judge(judge_server)
    faithful = JudgeEvaluator(j, "faithfulness")
    out = faithful(inputs={"question": QUESTIONS[1]}, outputs={"answer": ANSWERS[1], "contexts": CONTEXTS[1]})
    assert out == {"key": "faithfulness", "score": 0.5, "comment": "1 of 2 claims supported"}
    documents = [{"page_content": t, "metadata": {}} for t in CONTEXTS[1]]
    run = SimpleNamespace(id=uuid.uuid4(), inputs={"question": QUESTIONS[1]}, reference_example_id=None,
                          outputs={"answer": ANSWERS[1], "documents": documents}, child_runs=[], error=None)
    example = SimpleNamespace(id=uuid.uuid4(), inputs={"question": QUESTIONS[1]}, outputs={"answer": REFERENCES[1]})
    correct = JudgeEvaluator(j, "answer_correctness").evaluate_run(run, example)
    assert correct.key == "answer_correctness" and correct.score == pytest.approx(2 / 3)
    assert correct.extra["judge_model"] == "judge-model" and correct.extra["judgment"]["parts"]["recall"] == 1.0
    relevance = JudgeEvaluator(j, "context_relevance")(inputs={"question": QUESTIONS[1]},
                                                       outputs={"contexts": CONTEXTS[1]})
    assert relevance["score"] == 0.5
    judge_server.on_prompt("It is pink", refusal())
    unmeasured = JudgeEvaluator(j, "faithfulness", key="faith")(
        inputs={"question": "q"}, outputs={"answer": "It is pink.", "contexts": ["x y"]})
    assert unmeasured["score"] is None and unmeasured["comment"].startswith("unmeasured: refusal")
    with pytest.raises(ValueError, match="metric must be one of"):
        JudgeEvaluator(j, "helpfulness")
