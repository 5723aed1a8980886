""":class:`JudgeScorer`: an LLM judge (:class:`~rag_eval_adapters.judges.LLMJudge`) as one more scorer of
:func:`~rag_eval_adapters.agreement.meta_evaluate`, measured against people exactly like an answer metric.

The judge scores each answer against its reference (``answer_correctness``: the F1 of claim precision and
recall; ``answer_correctness_precision`` / ``_recall`` its parts). Every answer gets a
:class:`~rag_eval_adapters.judges.JudgeResult`: a score, or an unmeasured result with its reason (refusal,
invalid output, failed call). :func:`meta_evaluate` drops a pair the judge could not score on either answer
(for this scorer only) and counts it, with the reasons, in ``MetaEvaluation.dropped``: an unmeasured answer
never becomes a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["JudgeScorer", "JUDGE_SCORER_METRICS"]

#: the judged metrics a scorer of answers and references can give: metric name -> the part of the result
JUDGE_SCORER_METRICS = {"answer_correctness": "score", "answer_correctness_precision": "precision",
                        "answer_correctness_recall": "recall"}
_NEEDS_CONTEXTS = ("faithfulness", "context_relevance")


class JudgeScorer:
    """An LLM judge's score of each answer against its reference, as a scorer (``scorer(answers, references,
    queries)``).

    Parameters
    ----------
    judge : LLMJudge
        The judge (its cache keeps every reply: a second run calls nothing).
    metric : str
        One of :data:`JUDGE_SCORER_METRICS` (default ``answer_correctness``). ``faithfulness`` and
        ``context_relevance`` need the retrieved contexts, which pairwise judgements do not have.

    Calling it returns one :class:`~rag_eval_adapters.judges.JudgeResult` per answer (with the part the metric
    names as its score); :func:`~rag_eval_adapters.agreement.meta_evaluate` reads their scores and counts the
    unmeasured ones.
    """

    def __init__(self, judge: Any, metric: str = "answer_correctness") -> None:
        from ..judges import LLMJudge

        if not isinstance(judge, LLMJudge):
            raise TypeError(f"judge must be an LLMJudge (e.g. LLMJudge(OpenAICompatibleLLM(...))), got "
                            f"{type(judge).__name__}")
        if metric in _NEEDS_CONTEXTS:
            raise ValueError(f"the judge's {metric} needs the retrieved contexts, which pairwise judgements do not "
                             f"have; judge {', '.join(JUDGE_SCORER_METRICS)} against the reference answer")
        if metric not in JUDGE_SCORER_METRICS:
            raise ValueError(f"unknown judged metric {metric!r}; choose one of {', '.join(JUDGE_SCORER_METRICS)}")
        self.judge = judge
        self.metric = metric
        self.name = f"{metric} (judge {judge.name})"

    def __call__(self, answers: Sequence[str], references: Sequence[str], queries: Sequence[str] = ()) -> list[Any]:
        """One :class:`~rag_eval_adapters.judges.JudgeResult` per answer, its score the metric's part."""
        from dataclasses import replace

        questions: list[str | None] = [*queries] or [None] * len(answers)
        items = [{"answer": a, "reference": r, "question": q}
                 for a, r, q in zip(answers, references, questions, strict=True)]
        part = JUDGE_SCORER_METRICS[self.metric]
        results = self.judge.judge_many("answer_correctness", items)
        return [r if part == "score" or r.score is None else replace(r, score=r.parts[part]) for r in results]

    def __repr__(self) -> str:
        return f"JudgeScorer({self.judge!r}, metric={self.metric!r})"
