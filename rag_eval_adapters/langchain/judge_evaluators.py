"""LLM judges as LangSmith ``RunEvaluator``s: faithfulness, answer correctness and context relevance.

The answer is read from the run's outputs as the answer evaluators read it (:func:`find_answer`); the contexts
from ``outputs["contexts"]`` (strings) or the retrieved documents (:func:`find_documents`: ``documents``,
``context``, ``source_documents``, or the retriever child run); the question from the inputs (``question``,
``query``, ``input``); the reference from the example's outputs (:func:`find_reference_answers`, the first).
An item the judge cannot score gives ``score=None`` with the reason in the comment (never a number), so
LangSmith's means are over the measured examples.

>>> evaluator = JudgeEvaluator(judge, "faithfulness")                        # doctest: +SKIP
>>> evaluator(inputs={"question": q}, outputs={"answer": a, "contexts": [c]})  # doctest: +SKIP
{'key': 'faithfulness', 'score': 1.0, 'comment': '2 of 2 claims supported'}
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any

from langsmith.evaluation import EvaluationResult, RunEvaluator

from ..answers import FIELD_NAMES
from ..judges import JudgeResult, LLMJudge
from .answer_evaluators import find_answer, find_reference_answers
from .documents import document_text, find_documents

__all__ = ["JudgeEvaluator", "JUDGE_EVALUATOR_METRICS", "QUESTION_KEYS"]

#: evaluator metric -> the judge's metric
JUDGE_EVALUATOR_METRICS = {"faithfulness": "faithfulness", "answer_correctness": "answer_correctness",
                           "context_relevance": "relevance"}
QUESTION_KEYS = (*FIELD_NAMES["question"], "input")  # the answer records' names, then LangSmith's
_FEEDBACK = {"type": "continuous", "min": 0.0, "max": 1.0}


def _question(inputs: Any) -> str | None:
    inputs = getattr(inputs, "inputs", inputs)
    if isinstance(inputs, str):
        return inputs
    if isinstance(inputs, Mapping):
        for key in QUESTION_KEYS:
            if isinstance(inputs.get(key), str):
                return inputs[key]
    return None


def _contexts(outputs: Any, query_id: Any) -> list[str]:
    values = getattr(outputs, "outputs", outputs)
    given = next((k for k in FIELD_NAMES["contexts"] if isinstance(values, Mapping)
                  and isinstance(values.get(k), list)), None)
    if given is not None:
        items = values[given]
    else:
        items = find_documents(outputs, query_id=query_id)
    texts = [item if isinstance(item, str) else document_text(item) for item in items]
    return [t for t in texts if t is not None]


def _comment(result: JudgeResult) -> str:
    if result.score is None:
        return f"unmeasured: {result.unmeasured} ({result.detail[:200]})"
    if result.claims:
        supported = sum(c.verdict == "supported" for c in result.claims)
        return f"{supported} of {len(result.claims)} claims supported"
    return result.reasoning or ""


class JudgeEvaluator(RunEvaluator):
    """A LangSmith ``RunEvaluator`` asking an :class:`~rag_eval_adapters.judges.LLMJudge`.

    Args:
        judge: the judge.
        metric: ``faithfulness`` (answer vs contexts), ``answer_correctness`` (answer vs the reference: claim
            F1) or ``context_relevance`` (mean grade / 3 of the contexts for the question).
        key: feedback key; default the metric.
        answer_key: the outputs key holding the answer (default: searched).
    """

    def __init__(self, judge: LLMJudge, metric: str = "faithfulness", *, key: str | None = None,
                 answer_key: str | None = None) -> None:
        if not isinstance(judge, LLMJudge):
            raise TypeError(f"judge must be an LLMJudge, got {type(judge).__name__}")
        if metric not in JUDGE_EVALUATOR_METRICS:
            raise ValueError(f"metric must be one of {', '.join(JUDGE_EVALUATOR_METRICS)}, got {metric!r}")
        self.judge, self.metric = judge, metric
        self.key = key or metric
        self.answer_key = answer_key

    @property
    def feedback_keys(self) -> list[str]:
        """The feedback key this evaluator emits."""
        return [self.key]

    def _judge(self, inputs: Any, outputs: Any, reference: Any, query_id: Any) -> JudgeResult:
        question = _question(inputs)
        if self.metric == "context_relevance":
            return self.judge.context_relevance([(question or "", list(_contexts(outputs, query_id)))])[0]
        answer = find_answer(outputs, self.answer_key, query_id=query_id)
        if self.metric == "faithfulness":
            return self.judge.faithfulness(answer, _contexts(outputs, query_id), question)
        return self.judge.correctness(answer, find_reference_answers(reference, query_id=query_id)[0], question)

    def _result(self, inputs: Any, outputs: Any, reference: Any, query_id: Any) -> EvaluationResult:
        result = self._judge(inputs, outputs, reference, query_id)
        return EvaluationResult(key=self.key, score=result.score, comment=_comment(result),
                                feedback_config=dict(_FEEDBACK), extra={"judgment": result.to_dict(),
                                                                        **self.judge.describe()})

    def evaluate_run(self, run: Any, example: Any = None, evaluator_run_id: uuid.UUID | None = None,
                     **kwargs: Any) -> EvaluationResult:
        """Judge the run (its inputs and outputs) against the example (its reference)."""
        query_id = str(example.id) if getattr(example, "id", None) is not None else None
        return self._result(getattr(run, "inputs", None) or getattr(example, "inputs", None), run, example, query_id)

    async def aevaluate_run(self, run: Any, example: Any = None, evaluator_run_id: uuid.UUID | None = None,
                            **kwargs: Any) -> EvaluationResult:
        """:meth:`evaluate_run` in a worker thread (the judge's limiter bounds the calls)."""
        return await asyncio.to_thread(self.evaluate_run, run, example)

    def __call__(self, *, inputs: Any = None, outputs: Any, reference_outputs: Any = None,
                 **kwargs: Any) -> dict[str, Any]:
        """openevals-style call: ``{"key", "score", "comment"}`` (``score`` None when unmeasured)."""
        result = self._result(inputs, outputs, reference_outputs, None)
        return {"key": result.key, "score": result.score, "comment": result.comment}

    def __repr__(self) -> str:
        return f"JudgeEvaluator({self.judge!r}, {self.metric!r}, key={self.key!r})"
