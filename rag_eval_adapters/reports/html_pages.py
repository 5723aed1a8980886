"""Page data for ``report.html`` from the core's results: one or more :class:`~rag_eval_adapters.Report`
objects (``rag-eval evaluate``, ``rag-eval answers``), with their paired tests (``rag-eval compare``), each
query's ranking and judgments, and answer records. :mod:`rag_eval_adapters.reports.html` draws it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._ranking import trec_order
from ._text import split_key

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..report import Report

__all__ = ["report_page", "claims_of", "judged_claims", "adjusted_p", "CLAIM_FIELDS"]

CLAIM_FIELDS = ("text", "verdict", "quote", "chunk_id", "start", "end")
_ADJUSTED_P = ("p_adjusted", "adjusted_p_value", "p_value_adjusted")


def adjusted_p(test: Any) -> float | None:
    """A paired test's p-value corrected for multiple tests, when it carries one (as an attribute or a key:
    ``p_adjusted``, ``adjusted_p_value`` or ``p_value_adjusted``), else None."""
    for name in _ADJUSTED_P:
        value = test.get(name) if isinstance(test, Mapping) else getattr(test, name, None)
        if isinstance(value, (int, float)):
            return float(value)
    return None


def _families(keys: Sequence[str]) -> tuple[list[str], list[int]]:
    """``(families, ks)`` when every key is ``family@k`` over one shared set of at least two ks, else empty."""
    by_family: dict[str, list[int]] = {}
    for key in keys:
        family, k = split_key(key)
        if k is None:
            return [], []
        by_family.setdefault(family, []).append(k)
    cut_sets = {tuple(sorted(ks)) for ks in by_family.values()}
    if len(cut_sets) != 1 or len(next(iter(cut_sets))) < 2:
        return [], []
    return list(by_family), list(next(iter(cut_sets)))


def _by_type(report: Report, field: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[Hashable]] = {}
    for qid in report.query_ids:
        qtype = report.attributes.get(qid, {}).get(field)
        if qtype is not None:
            groups.setdefault(str(qtype), []).append(qid)
    values = report.per_query
    return {t: {m: sum(values[q][m] for q in ids) / len(ids) for m in report.keys} for t, ids in groups.items()}


def claims_of(record: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The judged claims of an answer record, as the page reads them (``[{text, verdict, quote, chunk_id,
    start, end}]``; missing fields are None), or None when the record has no ``claims`` list. A claim's text
    may be under ``text`` or, as the judges write it (:class:`rag_eval_adapters.judges.ClaimVerdict`), ``claim``."""
    claims = record.get("claims")
    if not isinstance(claims, (list, tuple)):
        return None
    return [{k: c.get(k, c.get("claim") if k == "text" else None) for k in CLAIM_FIELDS}
            for c in claims if isinstance(c, Mapping)]


def record_texts(record: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """``(question, reference, answer)`` of an answer record, each under any of its names (the one alias table
    of :mod:`rag_eval_adapters.answers.record`); several references joined by `` | ``; None when absent or
    given twice with different values (the evaluation reports that record's error)."""
    from ..answers.record import field_value

    out = []
    for field in ("question", "references", "prediction"):
        try:
            value = field_value(record, field, "")[1]
        except ValueError:
            value = None
        out.append(" | ".join(map(str, value)) if isinstance(value, list) else value)
    question, reference, answer = out
    return (question if isinstance(question, str) else None), reference, answer


def judged_claims(info: Mapping[str, Any], qid: str) -> list[dict[str, Any]] | None:
    """The claims the judges checked for query ``qid`` in a report's ``info["judgments"]`` (faithfulness first,
    then answer correctness), as :func:`claims_of` reads them; None when no judgment holds claims."""
    judgments = info.get("judgments") or {}
    for kind in ("faithfulness", "answer_correctness", *judgments):
        result = (judgments.get(kind) or {}).get(str(qid))
        if isinstance(result, Mapping) and result.get("claims"):
            return claims_of(result)
    return None


def _ranking(run: Mapping[Hashable, float] | Sequence[Hashable], judged: Mapping[Hashable, Any], depth: int,
             index: dict[str, int]) -> list[list[Any]]:
    """``[[doc index, score, grade, []], ...]``: a ``{doc: score}`` query in trec_eval's order, a ranked list as
    given (its score is then None)."""
    if isinstance(run, Mapping):
        ranked = [(doc, float(run[doc])) for doc in trec_order((score, doc) for doc, score in run.items())]
    else:
        ranked = [(doc, None) for doc in run]
    out = []
    for doc, score in ranked[:depth]:
        key = str(doc)
        index.setdefault(key, len(index))
        grade = judged.get(doc, 0)
        out.append([index[key], score, grade if isinstance(grade, int) else float(grade), []])
    return out


def report_page(
    reports: Mapping[str, Report],
    *,
    title: str,
    summary: Sequence[str] = (),
    comparison: Comparison | None = None,
    runs: Mapping[str, Mapping[Hashable, Mapping[Hashable, float]]] | None = None,
    qrels: Mapping[Hashable, Mapping[Hashable, Any]] | None = None,
    depth: int = 10,
    records: Sequence[Mapping[str, Any]] | None = None,
    group_by: str = "query_type",
) -> dict[str, Any]:
    """The page data of named reports (see :mod:`rag_eval_adapters.reports.html` for its shape).

    Parameters
    ----------
    reports : mapping of name to Report
        One configuration each; a per-query attribute (``group_by``, default ``query_type``) gives the
        question types: the by-type table, chart and filters.
    title, summary
        The page's title and the lines under it.
    comparison : Comparison, optional
        Its paired tests (``p``: the randomization test's; ``p_adjusted`` when a test carries one).
    runs, qrels : optional
        Each report's run (``{query: {doc: score}}`` or ``{query: [doc, ...]}``, by the same names) and the
        judgments: the drill-down then lists each query's top ``depth`` documents (in trec_eval's order, or as
        ranked) with their grades.
    records : sequence of mappings, optional
        Answer records (``query_id``, ``prediction`` or ``answer``, ``reference(s)``, ``query`` or
        ``question``, optional ``claims``: ``[{text, verdict, quote, chunk_id, start, end}]``) of the first
        report: the drill-down shows each answer with its scores and claims (a record's own, else those the
        judges checked, from the report's ``info["judgments"]``).
    """
    names = list(reports)
    keys: list[str] = []
    for report in reports.values():
        keys += [k for k in report.keys if k not in keys]
    families, ks = _families(keys)
    by_id = {str(r["query_id"]): r for r in records or ()}
    qids: list[str] = []
    types: dict[str, str] = {}
    for report in reports.values():
        for qid in [*report.query_ids, *report.errors]:
            if str(qid) not in types:
                qids.append(str(qid))
                types[str(qid)] = str(report.attributes.get(qid, {}).get(group_by, ""))
    for qid in by_id:
        if qid not in types:
            qids.append(qid)
            types[qid] = str(by_id[qid].get(group_by, ""))
    questions = []
    for qid in qids:
        record = by_id.get(qid, {})
        text, reference, _ = record_texts(record)
        questions.append({"id": qid, "text": text, "type": types[qid] or None, "reference": reference,
                          "evidence": []})
    counted: dict[str, int] = {}
    for qid in qids:
        if types[qid]:
            counted[types[qid]] = counted.get(types[qid], 0) + 1
    held = [{str(q): q for q in [*r.query_ids, *r.errors]} for r in reports.values()]
    page: dict[str, Any] = {
        "title": title, "summary": list(summary), "verdict": [], "headline": keys[0] if keys else None,
        "families": families, "ks": ks, "metrics": keys, "query_types": counted,
        "configurations": [{"name": n, "info": {}, "mean": dict(r.mean), "by_type": _by_type(r, group_by)}
                           for n, r in reports.items()],
        "questions": questions, "query_metrics": keys,
        "per_query": [[[r.per_query[h[q]].get(m) for m in keys] if h.get(q, q) in r.per_query else None
                       for q in qids] for r, h in zip(reports.values(), held, strict=True)],
    }
    if comparison is not None:
        page["tests"] = [{"metric": t.metric, "a": t.run_a, "b": t.run_b, "difference": t.difference,
                          "ci_low": t.ci_low, "ci_high": t.ci_high, "p": t.p_value, "n": t.n_queries,
                          **({"p_adjusted": adjusted_p(t)} if adjusted_p(t) is not None else {})}
                         for t in comparison.tests]
    if runs is not None:
        index: dict[str, int] = {}
        judged = {str(q): j for q, j in (qrels or {}).items()}
        page["retrieved"] = []
        for name in names:
            run = {str(q): r for q, r in runs.get(name, {}).items()}
            page["retrieved"].append([_ranking(run[q], judged.get(q, {}), depth, index) if q in run else None
                                      for q in qids])
        page["chunks"] = {"ids": list(index), "texts": [""] * len(index)}
    if records is not None:
        first = reports[names[0]] if names else None
        answers = []
        for qid in qids:
            record = by_id.get(qid)
            if record is None or first is None:
                answers.append(None)
                continue
            key = held[0].get(qid, qid)
            entry: dict[str, Any] = {"text": record_texts(record)[2],
                                     "scores": dict(first.per_query.get(key, {}))}
            if key in first.errors:
                entry["error"] = str(first.errors[key])
            claims = claims_of(record)
            if claims is None:
                claims = judged_claims(getattr(first, "info", {}) or {}, qid)
            if claims is not None:
                entry["claims"] = claims
            answers.append(entry)
        page["answers"] = [answers] + [[None] * len(qids) for _ in names[1:]]
    return page

