"""Writing a benchmark's report folder: ``report.html``, ``report.json``, ``report.md``, ``report.txt``, charts, and each
configuration's run as a TREC file with its chunking's qrels (so ``rag-eval evaluate`` re-scores it)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..reports.html import write_html_report
from .html_page import bench_page
from .report_text import render_markdown, render_text
from .scoring import METRIC_DEFINITIONS, RELEVANCE_NOTE, headline_metric

__all__ = ["write_report", "write_report_files", "report_dict", "file_stem", "write_trec_run", "write_trec_qrels"]


def file_stem(name: str) -> str:
    """A file-system-safe stem for a configuration or chunking name (``s256o32/bm25`` -> ``s256o32__bm25``)."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name.replace("/", "__"))


def write_trec_run(path: Path, run: dict, tag: str) -> None:
    """``qid Q0 chunk_id rank score tag`` lines; scores written exactly (``repr``), best first."""
    with open(path, "w", encoding="utf-8") as handle:
        for qid, hits in run.items():
            for rank, (doc, score) in enumerate(hits, start=1):
                handle.write(f"{qid} Q0 {doc} {rank} {score!r} {tag}\n")


def write_trec_qrels(path: Path, qrels: dict) -> None:
    """``qid 0 chunk_id grade`` lines."""
    with open(path, "w", encoding="utf-8") as handle:
        for qid, judged in qrels.items():
            for doc, grade in judged.items():
                handle.write(f"{qid} 0 {doc} {grade}\n")


def _span_texts(case: Any, docs: dict[str, str]) -> list[str]:
    return [docs[s.doc_id][s.start:s.end] for s in case.evidence_spans] or case.texts or list(case.relevant_chunk_ids)


def _worst(result: Any, bench: Any, metric: str, texts: dict[str, str], docs: dict[str, str]) -> list[dict]:
    cases = {c.query_id: c for c in bench.cases}
    qrels = bench.qrels[result.chunking]
    rows = sorted(result.report.per_query.items(), key=lambda kv: (kv[1][metric], str(kv[0])))
    out = []
    for qid, values in rows[: bench.settings.worst]:
        case = cases[qid]
        out.append({
            "query_id": qid, "query": case.query, "query_type": case.query_type, metric: values[metric],
            "evidence": _span_texts(case, docs),
            "relevant_chunks": sorted(qrels.get(qid, {}), key=lambda d: -qrels[qid][d])[:5],
            "retrieved": [{"chunk_id": d, "score": s, "grade": qrels.get(qid, {}).get(d, 0), "text": texts[d]}
                          for d, s in result.run.get(qid, [])[:3]],
        })
    return out


def _answers(result: Any) -> dict[str, Any]:
    report = result.answers
    if report is None:
        return {"queries": 0} if result.answer_errors else {}
    grouped = report.by("query_type", n_bootstrap=200)
    per_query = {str(q): {**report.attributes.get(q, {}), **v} for q, v in report.per_query.items()}
    out = {"queries": len(report.query_ids), "mean": report.mean,
           "by_query_type": {str(g.group): g.to_dict() for g in grouped.groups},
           "per_query": per_query, "errors": {str(q): e for q, e in report.errors.items()}}
    if report.unmeasured:  # judged metrics: means over the measured answers, counted
        out["measured"] = dict(report.measured)
        out["unmeasured"] = {k: {str(q): r for q, r in cells.items()} for k, cells in report.unmeasured.items()}
    if report.info.get("judgments"):
        out["judgments"] = report.info["judgments"]
    return out


def _config_dict(result: Any, bench: Any, metric: str, texts: dict, docs: dict) -> dict[str, Any]:
    report = result.report
    return {
        "chunking": result.chunking, "retriever": result.retriever, "reranker": result.reranker,
        "stage": result.stage, "mean": report.mean, "counts": report.counts,
        "errors": {str(q): e for q, e in report.errors.items()},
        "unjudged": bench.unjudged.get(result.chunking, {}),
        "by_query_type": {str(g.group): g.to_dict() for g in result.by_type.groups},
        "per_query": {str(q): v for q, v in report.per_query.items()},
        "files": {"run": f"runs/{file_stem(result.name)}.trec", "qrels": f"qrels/{file_stem(result.chunking)}.qrels"},
        "worst_queries": _worst(result, bench, metric, texts, docs),
        "judged": dict(result.judged),
        "answers": _answers(result),
        "answer_errors": result.answer_errors,
        "seconds": round(result.seconds, 3),
        "intervals": {part: {"all": {k: iv.to_dict() for k, iv in by["all"].items()},
                             "by_query_type": {t: {k: iv.to_dict() for k, iv in ivs.items()}
                                               for t, ivs in by["by_query_type"].items()}}
                      for part, by in result.intervals.items()},
        "human_labels": {k: r.to_dict() for k, r in result.human.items()},
    }


def report_dict(bench: Any) -> dict[str, Any]:
    """Everything the run computed, ready for JSON: provenance, definitions, configurations, tests, verdict."""
    metric = headline_metric(bench.settings.ks)
    docs = {d.doc_id: d.text for d in bench.documents}
    texts = {name: {c.chunk_id: c.text for c in chunks} for name, chunks in bench.chunks.items()}
    return {
        "provenance": bench.provenance,
        "metric_definitions": dict(METRIC_DEFINITIONS),
        "relevance": RELEVANCE_NOTE,
        "headline_metric": metric,
        "left_out": list(getattr(bench, "left_out", None) or []),
        "query_types": {t: sum(c.query_type == t for c in bench.cases) for t in sorted({c.query_type for c in bench.cases})},
        "configurations": {r.name: _config_dict(r, bench, metric, texts[r.chunking], docs) for r in bench.results},
        "comparison": bench.comparison.to_dict() if bench.comparison is not None else None,
        "judgments": bench.judgments,
        "verdict": bench.verdict,
        "intervals": ({"method": bench.settings.ci, "confidence": bench.settings.confidence}
                      if bench.settings.ci else None),
        "human_labels": bench.human_labels or None,
        "timings": bench.timings,
        "usage": bench.usage,
    }


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"refusing to write a non-finite number ({value!r}) into report.json")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_report(bench: Any, out: Path) -> list[Path]:
    """:func:`write_report_files`, and ``bench.files`` and ``bench.output_dir`` set to what it wrote (the
    benchmark's write stage returns a new result instead)."""
    files = write_report_files(bench, out)
    bench.files, bench.output_dir = files, out
    return files


def write_report_files(bench: Any, out: Path) -> list[Path]:
    """Write the report folder ``out`` (created if needed); returns the files written. Files an earlier report
    left in ``runs/``, ``qrels/`` and ``charts/`` that this run did not write are removed (no stale run is
    left beside the new ones)."""
    from .charts import plot_by_type, plot_vs_k

    for sub in ("runs", "qrels", "charts"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    files = []
    for name, qrels in bench.qrels.items():
        write_trec_qrels(out / "qrels" / f"{file_stem(name)}.qrels", qrels)
        files.append(out / "qrels" / f"{file_stem(name)}.qrels")
    for result in bench.results:
        write_trec_run(out / "runs" / f"{file_stem(result.name)}.trec", result.run, file_stem(result.name))
        files.append(out / "runs" / f"{file_stem(result.name)}.trec")
    data = _finite(report_dict(bench))
    files += [plot_by_type(bench, out / "charts" / "by_query_type.png"), plot_vs_k(bench, out / "charts" / "metrics_vs_k.png")]
    (out / "report.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "report.md").write_text(render_markdown(data), encoding="utf-8")
    (out / "report.txt").write_text(render_text(data), encoding="utf-8")
    write_html_report(bench_page(bench, data), out / "report.html")
    files = [out / "report.html", out / "report.json", out / "report.md", out / "report.txt"] + files
    written = set(files)
    for sub in ("runs", "qrels", "charts"):  # an earlier report's files that this run did not write
        for stale in (out / sub).iterdir():
            if stale.is_file() and stale not in written:
                stale.unlink()
    return files
