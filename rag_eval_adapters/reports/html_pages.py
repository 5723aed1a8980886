"""Page data for ``report.html`` from the core's results: one or more :class:`~rag_eval_adapters.Report`
objects (``rag-eval evaluate``, ``rag-eval answers``), with their paired tests (``rag-eval compare``), each
query's ranking and judgments, and answer records. :mod:`rag_eval_adapters.reports.html` draws it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..trec import trec_order
from ._text import split_key

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..report import Report

__all__ = ["report_page", "claims_of", "judged_claims", "adjusted_p", "interval_fields", "CLAIM_FIELDS"]

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
    ranked: list[tuple[Hashable, float | None]]
    if isinstance(run, Mapping):
        ranked = [(doc, float(run[doc])) for doc in trec_order((score, doc) for doc, score in run.items())]
    else:
        ranked = [(doc, None) for doc in run]
    out: list[list[Any]] = []
    for doc, score in ranked[:depth]:
        key = str(doc)
        index.setdefault(key, len(index))
        grade = judged.get(doc, 0)
        out.append([index[key], score, grade if isinstance(grade, int) else float(grade), []])
    return out


def _metric_keys(reports: Mapping[str, Report]) -> list[str]:
    """Every report's metrics, in order of first appearance."""
    keys: list[str] = []
    for report in reports.values():
        keys += [k for k in report.keys if k not in keys]
    return keys


def _question_ids(reports: Mapping[str, Report], by_id: Mapping[str, Mapping[str, Any]],
                  group_by: str) -> tuple[list[str], dict[str, str]]:
    """``(ids, {id: type})``: every report's queries (scored or failed), then the records' others."""
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
    return qids, types


def _questions(qids: Sequence[str], types: Mapping[str, str],
               by_id: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The page's questions: id, text and reference read from each query's answer record, its type."""
    questions = []
    for qid in qids:
        record = by_id.get(qid, {})
        text, reference, _ = record_texts(record)
        questions.append({"id": qid, "text": text, "type": types[qid] or None, "reference": reference,
                          "evidence": []})
    return questions


def _answer_entry(record: Mapping[str, Any], report: Report, key: Hashable, qid: str) -> dict[str, Any]:
    """A record's answer with the report's scores of query ``key``, its error and its claims."""
    entry: dict[str, Any] = {"text": record_texts(record)[2],
                             "scores": dict(report.per_query.get(key, {}))}
    if key in report.errors:
        entry["error"] = str(report.errors[key])
    claims = claims_of(record)
    if claims is None:
        claims = judged_claims(getattr(report, "info", {}) or {}, qid)
    if claims is not None:
        entry["claims"] = claims
    return entry


def _type_counts(qids: Sequence[str], types: Mapping[str, str]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for qid in qids:
        if types[qid]:
            counted[types[qid]] = counted.get(types[qid], 0) + 1
    return counted


def _tests(comparison: Comparison) -> list[dict[str, Any]]:
    """The page's paired tests of ``comparison`` (``p_adjusted`` when a test carries one)."""
    return [{"metric": t.metric, "a": t.run_a, "b": t.run_b, "difference": t.difference, "ci_low": t.ci_low,
             "ci_high": t.ci_high, "p": t.p_value, "n": t.n_queries,
             **({"p_adjusted": adjusted_p(t)} if adjusted_p(t) is not None else {})}
            for t in comparison.tests]


def _retrieved(names: Sequence[str], runs: Mapping[str, Mapping[Any, Any]],
               qrels: Mapping[Any, Mapping[Any, Any]] | None, qids: Sequence[str],
               depth: int) -> tuple[list[list[Any]], dict[str, list[str]]]:
    """``(retrieved, chunks)``: each report's top ``depth`` documents per question, the documents' ids."""
    index: dict[str, int] = {}
    judged = {str(q): j for q, j in (qrels or {}).items()}
    retrieved = []
    for name in names:
        run = {str(q): r for q, r in runs.get(name, {}).items()}
        retrieved.append([_ranking(run[q], judged.get(q, {}), depth, index) if q in run else None for q in qids])
    return retrieved, {"ids": list(index), "texts": [""] * len(index)}


def _field(value: Any, name: str) -> Any:
    """``value[name]`` of a mapping, else the attribute ``name`` (None when absent)."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def _interval_pair(interval: Any) -> tuple[float, float, float] | None:
    """``(estimate, low, high)`` of a :class:`~rag_eval_adapters.intervals.MeanInterval` or its dict form."""
    estimate, low, high = (_field(interval, k) for k in ("estimate", "low", "high"))
    if isinstance(estimate, (int, float)) and isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return float(estimate), float(low), float(high)
    return None


def interval_fields(mean: Mapping[str, float], intervals: Mapping[str, Any] | None) -> dict[str, list[float]]:
    """``{metric: [low, high]}``: the intervals (``MeanInterval`` or dicts with ``estimate``, ``low``, ``high``)
    of the means in ``mean``; an interval whose estimate is not the mean shown (a PPI-corrected mean, or one
    over other queries) is left out."""
    out: dict[str, list[float]] = {}
    for metric, interval in (intervals or {}).items():
        triple = _interval_pair(interval)
        value = mean.get(metric)
        if triple is not None and isinstance(value, (int, float)) and abs(triple[0] - value) <= 1e-9:
            out[metric] = [triple[1], triple[2]]
    return out


def _interval_note(intervals: Mapping[str, Mapping[str, Any]]) -> str | None:
    """``"[low, high] under each mean: its t 95% interval."``: the method and coverage of the first interval
    given, or None."""
    for by in intervals.values():
        for interval in by.values():
            confidence = _field(interval, "confidence")
            if isinstance(confidence, (int, float)):
                return f"[low, high] under each mean: its {_field(interval, 'method')} {confidence:.0%} interval."
    return None


def report_page(
    reports: Mapping[str, Report],
    *,
    title: str,
    summary: Sequence[str] = (),
    comparison: Comparison | None = None,
    runs: Mapping[str, Mapping[Any, Any]] | None = None,
    qrels: Mapping[Any, Mapping[Any, Any]] | None = None,
    depth: int = 10,
    records: Sequence[Mapping[str, Any]] | None = None,
    group_by: str = "query_type",
    intervals: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The page data of named reports (see :mod:`rag_eval_adapters.reports.html` for its shape).

    Parameters
    ----------
    reports : mapping of name to Report
        One configuration each; a per-query attribute (``group_by``, default ``query_type``) gives the
        question types: the by-type table, chart and filters.
    title, summary
        The page's title and the lines under its verdict.
    comparison : Comparison, optional
        Its paired tests (``p``: the randomization test's; ``p_adjusted`` when a test carries one), and its
        runs' intervals (``--ci``) where they are intervals of the means shown.
    runs, qrels : optional
        Each report's run (``{query: {doc: score}}`` or ``{query: [doc, ...]}``, by the same names) and the
        judgments: the drill-down then lists each query's top ``depth`` documents (in trec_eval's order, or as
        ranked) with their grades.
    records : sequence of mappings, optional
        Answer records (``query_id``, ``prediction`` or ``answer``, ``reference(s)``, ``query`` or
        ``question``, optional ``claims``: ``[{text, verdict, quote, chunk_id, start, end}]``) of the first
        report: the drill-down shows each answer with its scores and claims (a record's own, else those the
        judges checked, from the report's ``info["judgments"]``).
    intervals : mapping of name to {metric: MeanInterval}, optional
        Each report's intervals of its means (:func:`rag_eval_adapters.intervals.report_intervals`), shown under
        each mean; one whose estimate is not the mean shown (a PPI-corrected mean) is left out.
    """
    names = list(reports)
    keys = _metric_keys(reports)
    families, ks = _families(keys)
    by_id = {str(r["query_id"]): r for r in records or ()}
    qids, types = _question_ids(reports, by_id, group_by)
    held = [{str(q): q for q in [*r.query_ids, *r.errors]} for r in reports.values()]
    page: dict[str, Any] = {
        "title": title, "summary": list(summary), "verdict": [], "headline": keys[0] if keys else None,
        "families": families, "ks": ks, "metrics": keys, "query_types": _type_counts(qids, types),
        "configurations": [{"name": n, "info": {}, "mean": dict(r.mean), "by_type": _by_type(r, group_by)}
                           for n, r in reports.items()],
        "questions": _questions(qids, types, by_id), "query_metrics": keys,
        "per_query": [[[r.per_query[h[q]].get(m) for m in keys] if h.get(q, q) in r.per_query else None
                       for q in qids] for r, h in zip(reports.values(), held, strict=True)],
    }
    given = {**((comparison.intervals or {}) if comparison is not None else {}), **(intervals or {})}
    for config in page["configurations"]:
        shown = interval_fields(config["mean"], given.get(config["name"]))
        if shown:
            config["intervals"] = shown
    if any("intervals" in c for c in page["configurations"]):
        page["interval_note"] = _interval_note(given)
    if comparison is not None:
        page["tests"] = _tests(comparison)
    if runs is not None:
        page["retrieved"], page["chunks"] = _retrieved(names, runs, qrels, qids, depth)
    if records is not None:
        first = reports[names[0]] if names else None
        answers = [None if by_id.get(q) is None or first is None else
                   _answer_entry(by_id[q], first, held[0].get(q, q), q) for q in qids]
        page["answers"] = [answers] + [[None] * len(qids) for _ in names[1:]]
    return page
