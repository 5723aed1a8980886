""":func:`judge_answers`: judged metrics of RAG answers as one :class:`~rag_eval_adapters.Report`; a thin alias
of :func:`rag_eval_adapters.answers.evaluate_answers`, which scores the judged metrics with the others.

The judged metrics are registry metrics of the answer family (:mod:`rag_eval_adapters.answers.judged`):
``faithfulness`` (supported claims / claims of the answer against its contexts), ``answer_correctness`` (claim
F1 against the reference) with ``answer_correctness_precision`` and ``answer_correctness_recall`` (the same
judging, no extra call), and ``context_relevance`` (the mean grade / 3 of the record's contexts for its
question). An item the judge cannot score is an *unmeasured* cell of the report with its reason, never a
number; means are over measured items, with the count beside them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..answers import ANSWER_METRICS, evaluate_answers, parse_answer_metric
from ..answers.record import RECORD_FIELDS
from ..report import Report
from .judge import LLMJudge

__all__ = ["JUDGED_ANSWER_METRICS", "judge_answers", "is_judged_metric", "RECORD_FIELDS"]


def _judged_names() -> dict[str, tuple[str, str]]:
    """Judged metric name -> (the judge's metric, the part of its result reported), from the registry."""
    out = {}
    for cls in ANSWER_METRICS.values():
        if cls.needs_judge:
            judgment = getattr(cls, "judgment", "")
            for name, options in cls.names().items():
                out[name] = (judgment, "mean" if judgment == "relevance" else options.get("part", "score"))
    return out


#: judged metric name -> (the judge's metric, the part of its result reported); derived from the registry
JUDGED_ANSWER_METRICS: dict[str, tuple[str, str]] = _judged_names()


def is_judged_metric(name: Any) -> bool:
    """True when ``name`` names a judged metric of the registry (or is a judged metric object)."""
    if isinstance(name, str):
        try:
            return bool(parse_answer_metric(name).needs_judge)
        except (TypeError, ValueError):
            return False
    return bool(getattr(name, "needs_judge", False))


def judge_answers(
    records: Iterable[Mapping[str, Any]],
    metrics: str | Sequence[str] = ("faithfulness",),
    judge: LLMJudge | None = None,
    *,
    answer_model: str | None = None,
    keep_judgments: bool = True,
) -> Report:
    """Score every record with each judged metric: :func:`~rag_eval_adapters.answers.evaluate_answers` with
    judged metrics only, and ``query_id`` defaulting to the record's 1-based position.

    Parameters
    ----------
    records : iterable of mappings
        Each with ``answer`` (or ``prediction``), ``contexts`` (for faithfulness and context relevance),
        ``reference`` (or ``references``: the first is used; for correctness), optionally ``question``,
        ``answerable`` and ``query_id``; the names of :mod:`rag_eval_adapters.answers.record`. Other fields
        (``query_type``...) are kept as attributes, so ``report.by("query_type")`` works.
    metrics : str or sequence of str
        Names among :data:`JUDGED_ANSWER_METRICS`.
    judge : LLMJudge
        The judge.
    answer_model : str, optional
        The model that wrote the answers: the report warns when it is the judge (self-preference bias).
    keep_judgments : bool
        Keep each item's judge result (claims, verdicts, quotes, reasons) in ``report.info["judgments"]``.

    Returns
    -------
    Report
        One row per record; unmeasured cells in ``report.unmeasured`` by reason; ``report.info["judge"]``
        names the judge model, prompt version, structured-output mode and warnings; ``report.info["usage"]``
        the calls, cache hits, tokens and cost; ``report.info["abstained"]`` the answers that abstain.
    """
    if not isinstance(judge, LLMJudge):
        raise TypeError(f"judge must be an LLMJudge (e.g. LLMJudge(OpenAICompatibleLLM(...))), got {type(judge).__name__}")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [m for m in names if not is_judged_metric(m)]
    if unknown or not names:
        raise ValueError(f"judged metrics are {', '.join(JUDGED_ANSWER_METRICS)}; got {unknown or names}")
    if isinstance(records, (Mapping, str, bytes)):
        raise TypeError("records must be an iterable of mappings (one per answer), not a single mapping or string")
    rows = [{**r, "query_id": str(i + 1)} if isinstance(r, Mapping) and r.get("query_id") is None else r
            for i, r in enumerate(records)]
    if not rows:
        raise ValueError("no records: give at least one {answer, contexts} record")
    return evaluate_answers(rows, names, judge=judge, answer_model=answer_model, keep_judgments=keep_judgments,
                            progress=False)
