"""Rendering :meth:`Report.by <rag_eval_adapters.Report.by>`'s per-group means and intervals."""

from __future__ import annotations

import csv
import io
import json

from ..report import GroupedReport
from ._text import FORMATS, _fmt, _markdown_table, _render_rich, _rich_table, repr_float


def _group_rows(grouped: GroupedReport) -> tuple[list[str], list[list[str]]]:
    pct = int(round(grouped.confidence * 100))
    header = [grouped.field, "queries", "errors"]
    for k in grouped.keys:
        header += [k, f"{pct}% CI"]
    rows = []
    for row in grouped.rows:
        cells = [str(row.group), str(row.count), str(row.errors)]
        for k in grouped.keys:
            if k in row.mean:
                shown = _fmt(row.mean[k]) + (f" (n={row.measured[k]})" if row.measured else "")
                cells += [shown, f"[{row.ci_low[k]:.4f}, {row.ci_high[k]:.4f}]"]
            else:
                cells += ["-", "-"]
        rows.append(cells)
    return header, rows


def render_groups(grouped: GroupedReport, fmt: str = "table") -> str:
    """Render :meth:`Report.by <rag_eval_adapters.Report.by>`'s result: one row per group, the overall row
    (``all``) last.

    Parameters
    ----------
    grouped : GroupedReport
        The result of ``report.by(field)``.
    fmt : {"table", "json", "csv", "markdown"}
        ``csv`` is wide: ``<field>,queries,errors``, then for each metric ``<metric>,<metric> ci_low,<metric>
        ci_high`` (empty cells for a group with no scored query).

    Returns
    -------
    str
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not isinstance(grouped, GroupedReport):
        raise TypeError(f"render_groups takes the result of Report.by(...), got {type(grouped).__name__}")
    if fmt == "json":
        return json.dumps(grouped.to_dict(), indent=2, default=str) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([grouped.field, "queries", "errors"]
                        + [c for k in grouped.keys for c in (k, f"{k} ci_low", f"{k} ci_high")])
        for row in grouped.rows:
            cells = [row.group, row.count, row.errors]
            for k in grouped.keys:
                cells += [repr_float(d[k]) if k in d else "" for d in (row.mean, row.ci_low, row.ci_high)]
            writer.writerow(cells)
        return buffer.getvalue()
    header, rows = _group_rows(grouped)
    title = f"Mean by {grouped.field}"
    if fmt == "markdown":
        from .markup import escape_markdown

        return f"### {escape_markdown(title)}\n\n" + _markdown_table(header, rows) + "\n"
    return _render_rich([_rich_table(title, header, rows)])
