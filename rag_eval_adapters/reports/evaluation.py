"""Rendering one run's :class:`~rag_eval_adapters.Report`: the mean table, the counts and the per-query listing."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..report import Report, as_report
from ._text import (
    FORMATS,
    MEAN_ROW,
    _counts_line,
    _fmt,
    _grid,
    _markdown_table,
    _render_rich,
    _rich_table,
    metric_parts,
    repr_float,
)


@dataclass(frozen=True)
class QueryDetail:
    """What a query's run looked like: judged-relevant count, retrieved count, first relevant rank."""

    relevant: int
    retrieved: int
    first_relevant_rank: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "relevant": self.relevant,
            "retrieved": self.retrieved,
            "first_relevant_rank": self.first_relevant_rank,
        }


def worst_queries(
    per_query: Mapping[Any, Mapping[str, float]],
    metric: str,
    errors: Mapping[Any, str] | None = None,
) -> list[Any]:
    """Query ids ordered worst first: ascending ``metric``, ties by query id; failed queries last.

    The ids (a report's hashable query ids) must be comparable with each other, as they are when all are
    strings or all numbers."""
    errors = errors or {}
    scored = [q for q in per_query if q not in errors and metric in per_query[q]]
    scored.sort(key=lambda q: (per_query[q][metric], q))
    return scored + sorted(q for q in errors if q not in scored)


def _parts(report: Report) -> dict[str, tuple[str, int | None]]:
    """Column key -> (metric name, cutoff), read from the report's metric objects (not from the label text)."""
    return {key: metric_parts(metric, key) for metric, key in zip(report.metrics, report.keys, strict=True)}


def _default_sort_metric(report: Report) -> str:
    """nDCG@10 (by whatever name it was asked for) when present, else the first nDCG, else the first metric."""
    parts = _parts(report)
    for wanted in (("ndcg", 10), None):
        for key, (name, k) in parts.items():
            if name == "ndcg" and (wanted is None or k == wanted[1]):
                return key
    return report.keys[0]


def _per_query_columns(report: Report, sort_by: str, max_columns: int = 8) -> list[str]:
    """Metric columns of the per-query listing: all when few, else those at sort_by's cutoff."""
    keys = report.keys
    if len(keys) <= max_columns:
        return list(keys)
    parts = _parts(report)
    cut = parts[sort_by][1]
    same = [k for k in keys if parts[k][1] == cut]
    if sort_by not in same:
        same.insert(0, sort_by)
    return same[:max_columns]


def evaluation_to_dict(
    report: Report,
    *,
    per_query: bool = True,
    sort_by: str | None = None,
    details: Mapping[str, QueryDetail] | None = None,
    limit: int | None = None,
    run_name: str | None = None,
    intervals: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The evaluation as plain data for JSON output.

    Parameters
    ----------
    report : Report
        The evaluation (a ``DatasetEvaluation`` is converted with its ``to_report()``).
    per_query : bool
        Include ``per_query``.
    sort_by : str, optional
        Add ``worst_queries``: the worst queries by this metric first (at most ``limit``), each with its
        ``sort_by`` value, its details when given, and its error for a failed query.
    details : mapping, optional
        Query id -> :class:`QueryDetail`.
    limit : int, optional
        At most this many ``worst_queries``.
    run_name : str, optional
        Recorded as ``run``.
    intervals : mapping, optional
        Metric key -> :class:`~rag_eval_adapters.intervals.MeanInterval` (``report_intervals``), recorded as
        ``intervals`` with the method each was made by.

    Returns
    -------
    dict
        ``{"mean", "per_query", "counts", "errors"}`` (and ``run``, ``sort_by``, ``worst_queries``,
        ``intervals``).
    """
    report = as_report(report, "report")
    out: dict[str, Any] = {}
    if run_name is not None:
        out["run"] = run_name
    out["mean"] = dict(report.mean)
    if intervals:
        out["intervals"] = {k: iv.to_dict() for k, iv in intervals.items()}
    if per_query:
        out["per_query"] = {q: dict(v) for q, v in report.per_query.items()}
    out["counts"] = dict(report.counts)
    out["errors"] = dict(report.errors)
    if report.unmeasured:
        out["measured"] = dict(report.measured)
        out["unmeasured"] = {k: {str(q): r for q, r in cells.items()} for k, cells in report.unmeasured.items()}
    if report.info:
        out["info"] = dict(report.info)
    if sort_by is not None:
        ordered = worst_queries(report.per_query, sort_by, out["errors"])
        if limit:
            ordered = ordered[:limit]
        worst = []
        for q in ordered:
            row: dict[str, Any] = {"query_id": q, sort_by: report.per_query.get(q, {}).get(sort_by)}
            if details and q in details:
                row.update(details[q].to_dict())
            if q in out["errors"]:
                row["error"] = out["errors"][q]
            worst.append(row)
        out["sort_by"] = sort_by
        out["worst_queries"] = worst
    return out


def _mean_rows(mean: Mapping[str, float], report: Report | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the mean table: a metric x k grid when possible, else metric | value; with
    unmeasured cells, metric | value | measured (the count each mean is over)."""
    keys = list(mean)
    if report is not None and report.unmeasured:
        total = len(report.query_ids)
        return ["metric", "value", "measured"], [
            [k, _fmt(mean[k]) if k in mean else "-", f"{report.measured[k]}/{total}"] for k in report.keys]
    grid = _grid(keys)
    if grid is None:
        return ["metric", "value"], [[k, _fmt(mean[k])] for k in keys]
    rows, cuts, cells = grid
    header = ["metric"] + [f"@{k}" for k in cuts]
    return header, [[r] + [_fmt(mean[cells[(r, k)]]) for k in cuts] for r in rows]


INTERVAL_TITLE = "Means with their intervals"


def _interval_rows(intervals: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the interval table: one metric a row, the interval's method named."""
    rows = []
    for key, iv in intervals.items():
        note = ""
        if getattr(iv, "judge_mean", None) is not None and iv.method.startswith("ppi"):
            note = f"judge mean {_fmt(iv.judge_mean)}, corrected from {iv.n} human labels"
        rows.append([key, _fmt(iv.estimate), _fmt(iv.low), _fmt(iv.high), f"{iv.method} {iv.confidence:.0%}", note])
    return ["metric", "mean", "low", "high", "interval", ""], rows


def notes_lines(report: Report) -> list[str]:
    """What a report says besides its numbers: the unmeasured cells per metric by reason, the judge that
    scored it (model, prompt version, structured output) and its warnings (self-preference)."""
    lines = []
    for key, cells in report.unmeasured.items():
        reasons: dict[str, int] = {}
        for reason in cells.values():
            reasons[reason] = reasons.get(reason, 0) + 1
        listed = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items()))
        lines.append(f"unmeasured {key}: {len(cells)} of {len(report.query_ids)} ({listed})")
    judge = report.info.get("judge")
    if isinstance(judge, Mapping):
        lines.append(f"judge: {judge.get('judge_model')}, prompt {judge.get('prompt_version')}, structured output "
                     f"{judge.get('structured_output')}, temperature {judge.get('temperature')}, seed {judge.get('seed')}")
        lines += [f"warning: {w}" for w in judge.get("warnings") or []]
    abstained = report.info.get("abstained")
    if isinstance(abstained, Mapping):  # beside every judged mean: an abstention is no claim, no faithfulness
        lines.append(f"abstained: {abstained.get('count')} of {len(report.query_ids)} answers ({abstained.get('rate'):.1%})")
    return lines


def _per_query_rows(
    report: Report,
    sort_by: str,
    details: Mapping[str, QueryDetail] | None,
    limit: int | None,
) -> tuple[list[str], list[list[str]]]:
    columns = _per_query_columns(report, sort_by)
    errors = report.errors
    ordered = worst_queries(report.per_query, sort_by, errors)
    if limit:
        ordered = ordered[:limit]
    header = ["query_id"]
    if details is not None:
        header += ["relevant", "retrieved", "first rel. rank"]
    header += columns
    rows = []
    for q in ordered:
        row = [q]
        if details is not None:
            d = details.get(q)
            row += (
                [str(d.relevant), str(d.retrieved), str(d.first_relevant_rank or "-")]
                if d
                else ["-", "-", "-"]
            )
        if q in errors:
            row += [f"error: {errors[q]}"] + [""] * (len(columns) - 1)
        else:
            row += [_fmt(report.per_query[q].get(c)) for c in columns]
        rows.append(row)
    return header, rows


def evaluation_tables(
    report: Report,
    *,
    per_query: bool = False,
    sort_by: str | None = None,
    details: Mapping[str, QueryDetail] | None = None,
    limit: int | None = None,
    title: str = "Mean over queries",
    intervals: Mapping[str, Any] | None = None,
) -> list[Any]:
    """Rich renderables for the terminal: the mean table, the counts line, the intervals and, with ``per_query``,
    the per-query table worst first (parameters as in :func:`render_evaluation`)."""
    report = as_report(report, "report")
    from rich.text import Text

    header, rows = _mean_rows(report.mean, report)
    out: list[Any] = [_rich_table(title, header, rows), Text(_counts_line(report.counts))]
    out += [Text(line) for line in notes_lines(report)]
    if intervals:
        out.append(_rich_table(INTERVAL_TITLE, *_interval_rows(intervals), numeric_from=1))
    if per_query:
        sort_by = sort_by or _default_sort_metric(report)
        h, r = _per_query_rows(report, sort_by, details, limit)
        out.append(_rich_table(f"Per query, worst {sort_by} first", h, r))
    elif report.errors:
        n = len(report.errors)
        out.append(Text(f"{n} {'query' if n == 1 else 'queries'} failed; use --per-query to see {'it' if n == 1 else 'them'}"))
    return out


def render_evaluation(
    report: Report,
    fmt: str = "table",
    *,
    per_query: bool = False,
    sort_by: str | None = None,
    details: Mapping[str, QueryDetail] | None = None,
    limit: int | None = None,
    run_name: str | None = None,
    intervals: Mapping[str, Any] | None = None,
) -> str:
    """Render one run's evaluation as text.

    Parameters
    ----------
    report : Report
        The evaluation (a ``DatasetEvaluation`` is converted with its ``to_report()``).
    fmt : {"table", "json", "csv", "markdown"}
        ``table`` is plain text for a terminal. ``json`` always holds ``mean``, ``per_query``, ``counts``
        and ``errors`` (plus ``worst_queries`` with ``per_query=True``). ``csv`` is wide: a header
        ``query_id,<metrics>``, a first row ``all`` with the means, then (``per_query=True``) one row per
        query, worst first.
    per_query : bool
        Add the per-query listing, worst first.
    sort_by : str, optional
        The metric that orders it (default nDCG@10 by whatever name it was asked, e.g. ``nDCG@10`` or
        ``ndcg_cut_10``, else the first nDCG, else the first metric).
    details : mapping, optional
        Query id -> :class:`QueryDetail`, shown beside each query.
    limit : int, optional
        At most this many queries in the listing.
    run_name : str, optional
        A title for the run.
    intervals : mapping, optional
        Metric key -> :class:`~rag_eval_adapters.intervals.MeanInterval`: shown as a table (JSON: ``intervals``;
        CSV: rows ``ci_low`` and ``ci_high`` after the means), each with the method it was made by.

    Returns
    -------
    str
    """
    report = as_report(report, "report")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    keys = list(report.mean)
    if per_query or fmt == "json":
        sort_by = sort_by or _default_sort_metric(report)
    if fmt == "json":
        data = evaluation_to_dict(
            report, sort_by=sort_by if per_query else None, details=details, limit=limit, run_name=run_name,
            intervals=intervals,
        )
        return json.dumps(data, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["query_id"] + keys)
        keys = report.keys if report.unmeasured else keys
        writer.writerow([MEAN_ROW] + [repr_float(report.mean[k]) if k in report.mean else "" for k in keys])
        if report.unmeasured:
            writer.writerow(["measured"] + [str(report.measured[k]) for k in keys])
        if intervals:
            for bound in ("low", "high"):
                writer.writerow([f"ci_{bound}"] + [repr_float(getattr(intervals[k], bound)) if k in intervals else ""
                                                   for k in keys])
        if per_query:
            errors = report.errors
            order_by = sort_by or _default_sort_metric(report)  # set above; said again for the type checker
            for q in worst_queries(report.per_query, order_by, errors)[: limit or None]:
                values = report.per_query.get(q, {})
                writer.writerow([q] + [repr_float(values[k]) if k in values else "" for k in keys])
        return buffer.getvalue()
    if fmt == "markdown":
        header, rows = _mean_rows(report.mean, report)
        parts = []
        if run_name:
            from .markup import escape_markdown

            parts.append(f"## {escape_markdown(run_name)}\n")
        parts += ["### Mean over queries\n", _markdown_table(header, rows), "", _counts_line(report.counts), ""]
        parts += [f"- {line}" for line in notes_lines(report)] + ([""] if notes_lines(report) else [])
        if intervals:
            parts += [f"### {INTERVAL_TITLE}\n", _markdown_table(*_interval_rows(intervals), numeric_from=1), ""]
        if per_query:
            order_by = sort_by or _default_sort_metric(report)  # set above; said again for the type checker
            h, r = _per_query_rows(report, order_by, details, limit)
            parts += [f"### Per query, worst {order_by} first\n", _markdown_table(h, r), ""]
        return "\n".join(parts)
    title = f"{run_name}: mean over queries" if run_name else "Mean over queries"
    return _render_rich(
        evaluation_tables(report, per_query=per_query, sort_by=sort_by, details=details, limit=limit, title=title,
                          intervals=intervals)
    )
