"""An LLM judge as a relevance scorer: each (query, text) graded 0-3 on the UMBRELA scale, scored grade / 3.

It sits beside :class:`~rag_eval_adapters.rerank.CohereReranker` and
:class:`~rag_eval_adapters.rerank.LexicalScorer` wherever a scorer goes: :func:`rerank_relevancy` (relevancy
of retrieved texts without expected ids, ``mean`` or ``max``), its LlamaIndex metric and its LangChain
evaluator. The judge's own cache, limiter and retries apply; the texts of one query are graded concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..judges import JudgeResult, LLMJudge
from .base import validate_query_texts
from .errors import RerankError, short_query

__all__ = ["JudgeScorer", "JudgeUnmeasured"]


class JudgeUnmeasured(RerankError):
    """The judge gave no grade for a text (the message names the text and the reason); batch runs record it
    as that query's error, never as a number."""


class JudgeScorer:
    """Relevance scores from an :class:`~rag_eval_adapters.judges.LLMJudge`: grade / 3, in [0, 1] (calibrated).

    Parameters
    ----------
    judge : LLMJudge
        The judge (its model, cache, concurrency and retries).

    Attributes
    ----------
    last_results : list of JudgeResult
        The judge's results for the texts of the last ``score`` call (grades, reasoning).
    """

    calibrated = True

    def __init__(self, judge: LLMJudge) -> None:
        if not isinstance(judge, LLMJudge):
            raise TypeError(f"judge must be an LLMJudge, got {type(judge).__name__}")
        self.judge = judge
        self.name = f"llm-judge:{judge.name}:{judge.prompt_version}"
        self.last_results: list[JudgeResult] = []

    def __repr__(self) -> str:
        return f"JudgeScorer({self.judge!r})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """``grade / 3`` of each text for ``query``, in input order.

        Raises
        ------
        JudgeUnmeasured
            When the judge gives no grade for a text (refusal, invalid output, failed call, empty text).
        """
        items = validate_query_texts(query, texts)
        results = self.judge.judge_many("relevance", [{"query": query, "passage": t} for t in items]) if items else []
        self.last_results = results
        scores: list[float] = []
        for i, result in enumerate(results):
            if result.score is None:
                raise JudgeUnmeasured(f"the judge gave no grade for text {i} of query {short_query(query)}: "
                                      f"{result.unmeasured} ({result.detail[:200]})", query=query)
            scores.append(float(result.score))
        return scores

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        """:meth:`score` in a worker thread."""
        return await asyncio.to_thread(self.score, query, texts)
