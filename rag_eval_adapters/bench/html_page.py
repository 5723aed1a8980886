"""The page data of a benchmark's ``report.html`` (:mod:`rag_eval_adapters.reports.html` renders it).

Beside the numbers of ``report.json`` (means, by query type, paired tests, verdict) the page holds, for every
question and configuration, the top-k chunks (k = the headline metric's cutoff) with their score, their grade
and where the evidence lies inside the chunk's text, and the answer with its scores and, where a record has
them, its judged claims. Chunk texts are stored once and referred to by index, so a page of 1,000 questions x
20 configurations stays small.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..reports.html_pages import adjusted_p, claims_of, judged_claims
from .report_text import interval_note, intro_lines
from .scoring import METRIC_DEFINITIONS

__all__ = ["bench_page", "evidence_offsets"]


def _text_offsets(text: str, expected: str) -> list[int]:
    words = expected.split()
    if not words:
        return []
    found = re.search(r"\s+".join(map(re.escape, words)), text, flags=re.IGNORECASE)
    if found:
        return [found.start(), found.end()]
    inner = " ".join(text.split()).lower()
    return [0, len(text)] if inner and inner in " ".join(words).lower() else []


def evidence_offsets(chunk: Any, case: Any) -> list[int]:
    """``[start, end, start, end, ...]``: where ``case``'s evidence lies inside ``chunk.text``.

    With evidence spans, the overlap of each span of the chunk's document with the chunk, in the chunk's own
    characters; with expected texts, where each text occurs in the chunk (case and runs of white space
    ignored, as the text matcher does), or the whole chunk when the chunk lies inside the text; with chunk
    ids, nothing (the whole chunk is the evidence).
    """
    out: list[int] = []
    if case.evidence_spans:
        for span in case.evidence_spans:
            if span.doc_id != chunk.doc_id:
                continue
            start, end = max(chunk.start, span.start), min(chunk.end, span.end)
            if end > start:
                out += [start - chunk.start, end - chunk.start]
        return out
    for expected in case.texts:
        out += _text_offsets(chunk.text, expected)
    return out


def _answer(result: Any, qid: str) -> dict[str, Any] | None:
    texts = getattr(result, "answer_texts", {}) or {}
    report = result.answers
    if qid in result.answer_errors:
        return {"error": result.answer_errors[qid]}
    if report is None or qid not in texts:
        return None
    entry: dict[str, Any] = {"text": texts[qid], "scores": dict(report.per_query.get(qid, {}))}
    if qid in report.errors:
        entry["error"] = str(report.errors[qid])
    claims = claims_of(report.attributes.get(qid, {}))
    if claims is None:
        claims = judged_claims(getattr(report, "info", {}) or {}, qid)
    if claims is not None:
        entry["claims"] = claims
    return entry


def _round(value: float) -> float:
    return float(f"{value:.4g}")


def _human_label_lines(data: Mapping[str, Any]) -> list[str]:
    """The means corrected with human labels, one sentence each, then those left uncorrected and why, as
    report.md lists them (the page's own list, under the table)."""
    lines = [f"{name} {metric}: {r['text']}" for name, c in data["configurations"].items()
             for metric, r in (c.get("human_labels") or {}).items()]
    skipped = (data.get("human_labels") or {}).get("not_corrected") or {}
    return lines + [f"not corrected: {name} {metric}: {why}" for name, by in skipped.items()
                    for metric, why in by.items()]


def _judge_lines(data: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """``(summary lines, warnings)`` of the answers' judge: its model and prompt version (as report.md and
    report.txt name them) and its warnings (a judge grading its own model's answers)."""
    judge = (data.get("judgments") or {}).get("judge")
    if not judge:
        return [], []
    line = f"Answers judged by {judge['judge_model']} (prompt {judge['prompt_version']})."
    return [line], [str(w) for w in judge.get("warnings") or []]


def _intervals(entry: Mapping[str, Any]) -> tuple[dict[str, list[float]], dict[str, dict[str, list[float]]]]:
    """``({metric: [low, high]}, {type: {metric: [low, high]}})``: a configuration's ``--ci`` intervals of its
    retrieval and answer means, from its ``report.json`` entry."""
    overall: dict[str, list[float]] = {}
    by_type: dict[str, dict[str, list[float]]] = {}
    for part in (entry.get("intervals") or {}).values():
        for metric, iv in part["all"].items():
            overall[metric] = [iv["low"], iv["high"]]
        for qtype, ivs in part["by_query_type"].items():
            by_type.setdefault(qtype, {}).update({m: [iv["low"], iv["high"]] for m, iv in ivs.items()})
    return overall, by_type


def _configuration(result: Any, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The page's entry of one configuration: its info, means (retrieval and answers), by type, intervals."""
    answer_data = entry.get("answers") or {}
    mean = dict(entry["mean"])
    mean.update(answer_data.get("mean") or {})
    by_type = {t: dict(g["mean"]) for t, g in entry["by_query_type"].items()}
    for t, g in (answer_data.get("by_query_type") or {}).items():
        by_type.setdefault(t, {}).update(g["mean"])
    config = {"name": result.name, "mean": mean, "by_type": by_type,
              "info": {"chunking": result.chunking, "retriever": result.retriever, "reranker": result.reranker or ""}}
    overall, typed = _intervals(entry)
    if overall:
        config["intervals"], config["intervals_by_type"] = overall, typed
    return config


def _rankings(result: Any, bench: Any, k: int, chunk_of: Mapping[str, Any], index: dict[str, int]) -> list[Any]:
    """Each question's top ``k`` chunks of ``result``: ``[chunk index, score, grade, evidence offsets]``."""
    qrels = bench.qrels[result.chunking]
    rows = []
    for case in bench.cases:
        grades = qrels.get(case.query_id, {})
        ranking = []
        for chunk_id, score in result.run.get(case.query_id, [])[:k]:
            grade = grades.get(chunk_id, 0)
            offsets = evidence_offsets(chunk_of[chunk_id], case) if grade > 0 else []
            ranking.append([index.setdefault(chunk_id, len(index)), _round(score), grade, offsets])
        rows.append(ranking)
    return rows


def _questions(bench: Any) -> list[dict[str, Any]]:
    docs = {d.doc_id: d.text for d in bench.documents}
    return [{"id": c.query_id, "text": c.query, "type": c.query_type, "reference": c.answer or None,
             "evidence": [docs[s.doc_id][s.start:s.end] for s in c.evidence_spans] or c.texts}
            for c in bench.cases]


def _tests(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    comparison = data.get("comparison") or {"tests": []}
    return [{"metric": t["metric"], "a": t["run_a"], "b": t["run_b"], "difference": t["difference"],
             "ci_low": t["ci_low"], "ci_high": t["ci_high"], "p": t["p_value"], "n": t["n_queries"],
             **({"p_adjusted": adjusted_p(t)} if adjusted_p(t) is not None else {})}
            for t in comparison["tests"]]


def _notes(data: dict[str, Any]) -> dict[str, Any]:
    """The page's notes: summary, warnings, human-label lines, the intervals' note and the left-out questions."""
    judged, warnings = _judge_lines(data)
    notes: dict[str, Any] = {"summary": intro_lines(data) + [data["relevance"]] + judged, "warnings": warnings,
                             "human_labels": _human_label_lines(data)}
    if data.get("intervals"):
        notes["interval_note"] = " ".join(interval_note(data))
    if data.get("left_out"):
        notes["left_out"] = [dict(entry) for entry in data["left_out"]]
    return notes


def bench_page(bench: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The page data of ``bench`` (a :class:`~rag_eval_adapters.bench.BenchResult`), given its ``report.json``
    dictionary ``data``: what :func:`rag_eval_adapters.reports.html.write_html_report` draws.

    Beside the numbers it carries what ``report.md`` and ``report.txt`` say around them: the judge's model and
    prompt version (summary) and warnings, each mean's ``--ci`` interval, the means corrected with human labels,
    and the questions left out of a chunking's scores (``report.json``'s ``left_out``).
    """
    headline = data["headline_metric"]
    k = int(headline.split("@")[1])
    chunk_of = {c.chunk_id: c for chunks in bench.chunks.values() for c in chunks}
    index: dict[str, int] = {}
    query_metrics = [f"{family}@{k}" for family in METRIC_DEFINITIONS]
    configs = [_configuration(r, data["configurations"][r.name]) for r in bench.results]
    answer_metrics: list[str] = []
    for result in bench.results:
        answer_mean = (data["configurations"][result.name].get("answers") or {}).get("mean") or {}
        answer_metrics += [m for m in answer_mean if m not in answer_metrics]
    per_query = [[[r.report.per_query[c.query_id][m] for m in query_metrics] if c.query_id in r.report.per_query
                  else None for c in bench.cases] for r in bench.results]
    retrieved, answers = [], []
    for result in bench.results:  # chunks numbered as met: a configuration's rankings, then its claims
        retrieved.append(_rankings(result, bench, k, chunk_of, index))
        answers.append([_answer(result, c.query_id) for c in bench.cases])
        for claim in (c for row in answers[-1] for c in (row or {}).get("claims", ())):
            if claim.get("chunk_id") in chunk_of:
                index.setdefault(claim["chunk_id"], len(index))
    return {
        "title": "rag-eval bench report", **_notes(dict(data)), "verdict": list(data["verdict"]), "headline": headline,
        "families": list(METRIC_DEFINITIONS), "ks": list(bench.settings.ks), "extra_metrics": answer_metrics,
        "query_types": dict(data["query_types"]), "configurations": configs, "tests": _tests(data),
        "questions": _questions(bench), "query_metrics": query_metrics, "per_query": per_query,
        "chunks": {"ids": list(index), "texts": [chunk_of[c].text for c in index]},
        "retrieved": retrieved, "answers": answers,
    }
