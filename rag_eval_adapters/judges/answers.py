""":func:`judge_answers`: judged metrics of RAG answers as one :class:`~rag_eval_adapters.Report`.

Metric names: ``faithfulness`` (supported claims / claims of the answer against its contexts),
``answer_correctness`` (claim F1 against the reference) with ``answer_correctness_precision`` and
``answer_correctness_recall`` (the same judging, no extra call), and ``context_relevance`` (the mean grade / 3
of the record's contexts for its question). An item the judge cannot score is an *unmeasured* cell of the
report with its reason, never a number; means are over measured items, with the count beside them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from ..report import Report
from .judge import LLMJudge
from .results import JudgeResult

__all__ = ["JUDGED_ANSWER_METRICS", "judge_answers", "is_judged_metric", "RECORD_FIELDS"]

#: judged metric name -> (the judge's metric, the part of its result reported)
JUDGED_ANSWER_METRICS: dict[str, tuple[str, str]] = {
    "faithfulness": ("faithfulness", "score"),
    "answer_correctness": ("answer_correctness", "score"),
    "answer_correctness_precision": ("answer_correctness", "precision"),
    "answer_correctness_recall": ("answer_correctness", "recall"),
    "context_relevance": ("relevance", "mean"),
}
#: record fields the judges read (the others are kept as the query's attributes, e.g. ``query_type``)
RECORD_FIELDS = ("query_id", "question", "query", "answer", "prediction", "response", "contexts", "reference",
                 "references", "ground_truth")


def is_judged_metric(name: Any) -> bool:
    """True when ``name`` is one of :data:`JUDGED_ANSWER_METRICS`."""
    return isinstance(name, str) and name in JUDGED_ANSWER_METRICS


def _reference(record: Mapping[str, Any]) -> Any:
    for name in ("reference", "ground_truth"):
        if name in record:
            return record[name]
    refs = record.get("references")
    if isinstance(refs, (list, tuple)):
        return refs[0] if refs else ""
    return refs


def _value(result: JudgeResult, part: str) -> float:
    return float(result.score if part == "score" else result.parts[part])


def _context_relevance(judge: LLMJudge, records: Sequence[Mapping[str, Any]]) -> list[JudgeResult]:
    """The mean grade / 3 of each record's contexts (unmeasured when none could be graded)."""
    from .items import as_chunks

    pairs, owner = [], []
    for i, record in enumerate(records):
        question = record.get("question", record.get("query"))
        for _, text in as_chunks(record.get("contexts"), f"record {i}"):
            pairs.append({"query": question if isinstance(question, str) else "", "passage": text})
            owner.append(i)
    graded = judge.judge_many("relevance", pairs)
    by_record: list[list[JudgeResult]] = [[] for _ in records]
    for result, i in zip(graded, owner, strict=True):
        by_record[i].append(result)
    out = []
    for mine in by_record:
        scores = [r.score for r in mine if r.score is not None]
        if scores:
            out.append(JudgeResult("relevance", sum(scores) / len(scores)))
        elif not mine:
            out.append(JudgeResult.failed("relevance", "empty_input", "no context to grade"))
        else:
            out.append(JudgeResult.failed("relevance", mine[0].unmeasured, mine[0].detail))
    return out


def judge_answers(
    records: Iterable[Mapping[str, Any]],
    metrics: str | Sequence[str] = ("faithfulness",),
    judge: LLMJudge | None = None,
    *,
    answer_model: str | None = None,
    keep_judgments: bool = True,
) -> Report:
    """Score every record with each judged metric.

    Parameters
    ----------
    records : iterable of mappings
        Each with ``answer`` (or ``prediction``), ``contexts`` (for faithfulness and context relevance),
        ``reference`` (or ``references``: the first is used; for correctness), optionally ``question`` and
        ``query_id`` (default: the record's 1-based position). Other fields (``query_type``...) are kept as
        attributes, so ``report.by("query_type")`` works.
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
        the calls, cache hits, tokens and cost.
    """
    if not isinstance(judge, LLMJudge):
        raise TypeError(f"judge must be an LLMJudge (e.g. LLMJudge(OpenAICompatibleLLM(...))), got {type(judge).__name__}")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [m for m in names if not is_judged_metric(m)]
    if unknown or not names:
        raise ValueError(f"judged metrics are {', '.join(JUDGED_ANSWER_METRICS)}; got {unknown or names}")
    names = list(dict.fromkeys(names))
    if isinstance(records, (Mapping, str, bytes)):
        raise TypeError("records must be an iterable of mappings (one per answer), not a single mapping or string")
    rows = list(records)
    ids: list[Hashable] = []
    for i, record in enumerate(rows):
        if not isinstance(record, Mapping):
            raise TypeError(f"record {i} must be a mapping, got {type(record).__name__}")
        qid = record.get("query_id", str(i + 1))
        if not isinstance(qid, Hashable) or qid in ids:
            raise ValueError(f"record {i}: query_id {qid!r} must be a string or number and unique")
        ids.append(qid)
    if not rows:
        raise ValueError("no records: give at least one {answer, contexts} record")
    items = [{"question": r.get("question", r.get("query")), "answer": r.get("answer", r.get("prediction")),
              "contexts": r.get("contexts"), "reference": _reference(r), "query_id": q} for r, q in zip(rows, ids,
                                                                                                       strict=True)]
    by_judge: dict[str, list[JudgeResult]] = {}
    for name in names:
        kind = JUDGED_ANSWER_METRICS[name][0]
        if kind not in by_judge:
            by_judge[kind] = (_context_relevance(judge, rows) if kind == "relevance"
                              else judge.judge_many(kind, [_for(kind, item) for item in items]))
    values = [[0.0] * len(names) for _ in rows]
    unmeasured: dict[str, dict[Hashable, str]] = {}
    for j, name in enumerate(names):
        kind, part = JUDGED_ANSWER_METRICS[name]
        for i, result in enumerate(by_judge[kind]):
            if result.score is None:
                unmeasured.setdefault(name, {})[ids[i]] = result.unmeasured or "invalid_output"
            else:
                values[i][j] = _value(result, "score" if part == "mean" else part)
    info: dict[str, Any] = {"judge": judge.describe(answer_model), "usage": judge.usage.to_dict()}
    if keep_judgments:
        info["judgments"] = {kind: {str(q): r.to_dict() for q, r in zip(ids, results, strict=True)}
                             for kind, results in by_judge.items()}
    attributes = {q: {k: v for k, v in r.items() if k not in RECORD_FIELDS} for q, r in zip(ids, rows, strict=True)}
    return Report(names, ids, values, relevance_level=None, attributes={q: a for q, a in attributes.items() if a},
                  unmeasured=unmeasured, info=info)


def _for(kind: str, item: Mapping[str, Any]) -> dict[str, Any]:
    """The fields one judge reads (a missing text is an empty one: unmeasured, not an error)."""
    out = {"query_id": item["query_id"], "answer": item["answer"], "question": item["question"]}
    out["contexts" if kind == "faithfulness" else "reference"] = item[
        "contexts" if kind == "faithfulness" else "reference"]
    return out
