"""LLM judges as LlamaIndex evaluators that drop in where ``FaithfulnessEvaluator``, ``RelevancyEvaluator`` and
``CorrectnessEvaluator`` are used: the same call shape (``evaluate(query=, response=, contexts=, reference=)``,
``evaluate_response(query=, response=)``), so they work in ``BatchEvalRunner``.

Scores are in [0, 1] (faithfulness: supported claims / claims; relevancy: the mean grade / 3 of the contexts;
correctness: claim F1 against the reference) and ``passing = score >= threshold``. An item the judge cannot
score is ``EvaluationResult(invalid_result=True, invalid_reason="<reason>: <detail>")`` with ``score=None``:
never NaN, never an exception that stops the batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.evaluation.base import BaseEvaluator, EvaluationResult
from llama_index.core.prompts import PromptTemplate
from llama_index.core.prompts.mixin import PromptDictType

from ..judges import CLAIMS_PROMPT, RELEVANCE_PROMPT, VERIFY_PROMPT, JudgeResult, LLMJudge
from ..validation import check_fraction

__all__ = ["JudgeEvaluator", "JudgeFaithfulnessEvaluator", "JudgeRelevancyEvaluator", "JudgeCorrectnessEvaluator"]


class JudgeEvaluator(BaseEvaluator):
    """A LlamaIndex evaluator asking an :class:`~rag_eval_adapters.judges.LLMJudge` (see the module docstring).

    Parameters
    ----------
    judge : LLMJudge
        The judge (its model, cache, limiter, retries).
    threshold : float
        ``passing`` is ``score >= threshold``.
    """

    metric = ""

    def __init__(self, judge: LLMJudge, *, threshold: float = 1.0) -> None:
        if not isinstance(judge, LLMJudge):
            raise TypeError(f"judge must be an LLMJudge, got {type(judge).__name__}")
        self.judge, self.threshold = judge, check_fraction(threshold, "threshold", inclusive=True)

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        pass

    def _judge(self, query: str | None, response: str, contexts: Sequence[str], reference: str | None) -> JudgeResult:
        raise NotImplementedError

    def _result(self, query: str | None, response: str | None, contexts: Sequence[str] | None,
                reference: str | None) -> EvaluationResult:
        result = self._judge(query, response or "", list(contexts or []), reference)
        if result.score is None:
            return EvaluationResult(query=query, response=response, contexts=contexts, invalid_result=True,
                                    invalid_reason=f"{result.unmeasured}: {result.detail}"[:500])
        return EvaluationResult(query=query, response=response, contexts=contexts, score=result.score,
                                passing=result.score >= self.threshold,
                                feedback=f"{self.metric} = {result.score:.4f} ({self.judge.name}, "
                                         f"{self.judge.prompt_version})")

    async def aevaluate(self, query: str | None = None, response: str | None = None,
                        contexts: Sequence[str] | None = None, reference: str | None = None,
                        sleep_time_in_seconds: int = 0, **kwargs: Any) -> EvaluationResult:
        """Judge ``response`` (against ``contexts`` or ``reference``); runs in a worker thread."""
        if sleep_time_in_seconds:
            await asyncio.sleep(sleep_time_in_seconds)
        return await asyncio.to_thread(self._result, query, response, contexts, reference)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.judge!r}, threshold={self.threshold:g})"


class JudgeFaithfulnessEvaluator(JudgeEvaluator):
    """Faithfulness of the response to the contexts (where ``FaithfulnessEvaluator`` is used)."""

    metric = "faithfulness"

    def _get_prompts(self) -> PromptDictType:
        return {"claims": PromptTemplate(CLAIMS_PROMPT), "verify": PromptTemplate(VERIFY_PROMPT)}

    def _judge(self, query, response, contexts, reference) -> JudgeResult:
        return self.judge.faithfulness(response, contexts, query)


class JudgeRelevancyEvaluator(JudgeEvaluator):
    """Relevance of the contexts to the query: the mean grade / 3 (where ``RelevancyEvaluator`` is used);
    passing by default when the contexts average at least "partly answers" (2 of 3)."""

    metric = "relevancy"

    def __init__(self, judge: LLMJudge, *, threshold: float = 2 / 3) -> None:
        super().__init__(judge, threshold=threshold)

    def _get_prompts(self) -> PromptDictType:
        return {"relevance": PromptTemplate(RELEVANCE_PROMPT)}

    def _judge(self, query, response, contexts, reference) -> JudgeResult:
        return self.judge.context_relevance([(query or "", list(contexts))])[0]


class JudgeCorrectnessEvaluator(JudgeEvaluator):
    """Correctness against the reference: claim F1 (where ``CorrectnessEvaluator`` is used)."""

    metric = "correctness"

    def __init__(self, judge: LLMJudge, *, threshold: float = 0.8) -> None:
        super().__init__(judge, threshold=threshold)

    def _get_prompts(self) -> PromptDictType:
        return {"claims": PromptTemplate(CLAIMS_PROMPT), "verify": PromptTemplate(VERIFY_PROMPT)}

    def _judge(self, query, response, contexts, reference) -> JudgeResult:
        return self.judge.correctness(response, reference or "", query)
