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
from .report_text import intro_lines
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


def _trust_lines(data: Mapping[str, Any]) -> list[str]:
    """The means corrected with human labels, one sentence each, for the page's summary (the intervals of
    ``--ci`` are in ``report.json``, ``report.md`` and ``report.txt``)."""
    lines = [f"{name} {metric}: {r['text']}" for name, c in data["configurations"].items()
             for metric, r in (c.get("human_labels") or {}).items()]
    ci = data.get("intervals")
    if ci:
        lines.append(f"Intervals ({ci['method']}, {ci['confidence']:.0%}) of every mean: report.md, report.txt and "
                     "report.json.")
    return lines


def bench_page(bench: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The page data of ``bench`` (a :class:`~rag_eval_adapters.bench.BenchResult`), given its ``report.json``
    dictionary ``data``: what :func:`rag_eval_adapters.reports.html.write_html_report` draws."""
    headline = data["headline_metric"]
    k = int(headline.split("@")[1])
    ks = list(bench.settings.ks)
    cases = list(bench.cases)
    chunk_of = {c.chunk_id: c for chunks in bench.chunks.values() for c in chunks}
    index: dict[str, int] = {}

    def chunk_index(chunk_id: str) -> int:
        if chunk_id not in index:
            index[chunk_id] = len(index)
        return index[chunk_id]

    query_metrics = [f"{family}@{k}" for family in METRIC_DEFINITIONS]
    answer_metrics: list[str] = []
    configs, per_query, retrieved, answers = [], [], [], []
    for result in bench.results:
        entry = data["configurations"][result.name]
        answer_data = entry.get("answers") or {}
        mean = dict(entry["mean"])
        mean.update(answer_data.get("mean") or {})
        by_type = {t: dict(g["mean"]) for t, g in entry["by_query_type"].items()}
        for t, g in (answer_data.get("by_query_type") or {}).items():
            by_type.setdefault(t, {}).update(g["mean"])
        answer_metrics += [m for m in answer_data.get("mean") or {} if m not in answer_metrics]
        configs.append({"name": result.name, "mean": mean, "by_type": by_type,
                        "info": {"chunking": result.chunking, "retriever": result.retriever,
                                 "reranker": result.reranker or ""}})
        qrels = bench.qrels[result.chunking]
        values = result.report.per_query
        per_query.append([[values[c.query_id][m] for m in query_metrics] if c.query_id in values else None
                          for c in cases])
        rows = []
        for case in cases:
            grades = qrels.get(case.query_id, {})
            ranking = []
            for chunk_id, score in result.run.get(case.query_id, [])[:k]:
                grade = grades.get(chunk_id, 0)
                offsets = evidence_offsets(chunk_of[chunk_id], case) if grade > 0 else []
                ranking.append([chunk_index(chunk_id), _round(score), grade, offsets])
            rows.append(ranking)
        retrieved.append(rows)
        answers.append([_answer(result, c.query_id) for c in cases])
        for row in answers[-1]:
            for claim in (row or {}).get("claims", ()):
                if claim.get("chunk_id") in chunk_of:
                    chunk_index(claim["chunk_id"])
    docs = {d.doc_id: d.text for d in bench.documents}
    questions = [{"id": c.query_id, "text": c.query, "type": c.query_type, "reference": c.answer or None,
                  "evidence": [docs[s.doc_id][s.start:s.end] for s in c.evidence_spans] or c.texts}
                 for c in cases]
    comparison = data.get("comparison") or {"tests": []}
    tests = [{"metric": t["metric"], "a": t["run_a"], "b": t["run_b"], "difference": t["difference"],
              "ci_low": t["ci_low"], "ci_high": t["ci_high"], "p": t["p_value"], "n": t["n_queries"],
              **({"p_adjusted": adjusted_p(t)} if adjusted_p(t) is not None else {})}
             for t in comparison["tests"]]
    return {
        "title": "rag-eval bench report", "summary": intro_lines(data) + [data["relevance"]] + _trust_lines(data),
        "verdict": list(data["verdict"]), "headline": headline, "families": list(METRIC_DEFINITIONS), "ks": ks,
        "extra_metrics": answer_metrics, "query_types": dict(data["query_types"]), "configurations": configs,
        "tests": tests, "questions": questions, "query_metrics": query_metrics, "per_query": per_query,
        "chunks": {"ids": list(index), "texts": [chunk_of[c].text for c in index]},
        "retrieved": retrieved, "answers": answers,
    }

