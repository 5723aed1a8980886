"""Formatting of evaluation and comparison results: table, JSON, CSV, Markdown, and plots.

The functions take the core's :class:`~rag_eval_adapters.Report` (the one result type: a LlamaIndex
``DatasetEvaluation`` becomes one with ``to_report()``), its per-group view
:class:`~rag_eval_adapters.GroupedReport` and :class:`~rag_eval_adapters.compare.Comparison`
objects and return text, so the command line, notebooks and tests share one implementation.
``rich`` (tables) and ``matplotlib`` (plots) are imported only when those outputs are asked for.

Metric keys such as ``ndcg@10`` are split into a row name (``ndcg``) and a cutoff (``10``): when
every metric is measured at the same cutoffs the table is a grid (metric x k), otherwise a list.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

from .report import GroupedReport, Report, as_report

if TYPE_CHECKING:
    from .compare import Comparison

__all__ = [
    "FORMATS",
    "QueryDetail",
    "split_key",
    "worst_queries",
    "evaluation_to_dict",
    "render_evaluation",
    "evaluation_tables",
    "comparison_to_dict",
    "render_comparison",
    "comparison_tables",
    "render_groups",
    "plot_metrics",
]

FORMATS = ("table", "json", "csv", "markdown")
MEAN_ROW = "all"  # label of the mean row in CSV output, as trec_eval labels its summary lines


@dataclass(frozen=True)
class QueryDetail:
    """What a query's run looked like: judged-relevant count, retrieved count, first relevant rank."""

    relevant: int
    retrieved: int
    first_relevant_rank: Optional[int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "relevant": self.relevant,
            "retrieved": self.retrieved,
            "first_relevant_rank": self.first_relevant_rank,
        }


def split_key(key: str) -> tuple[str, Optional[int]]:
    """Split ``"ndcg@10"`` into ``("ndcg", 10)``; a key without a cutoff gives ``(key, None)``."""
    name, sep, cut = key.rpartition("@")
    if sep and cut.isdigit():
        return name, int(cut)
    return key, None


def _fmt(value: Optional[float], digits: int = 4) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def _fmt_p(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def _grid(keys: Sequence[str]) -> Optional[tuple[list[str], list[int], dict[tuple[str, int], str]]]:
    """Rows, cutoffs and cells when the keys form a full metric x k grid (at least 2 cutoffs)."""
    rows: list[str] = []
    cuts: list[int] = []
    cells: dict[tuple[str, int], str] = {}
    for key in keys:
        name, k = split_key(key)
        if k is None:
            return None
        if name not in rows:
            rows.append(name)
        if k not in cuts:
            cuts.append(k)
        cells[(name, k)] = key
    if len(cuts) < 2 or len(cells) != len(rows) * len(cuts):
        return None
    return rows, sorted(cuts), cells


def worst_queries(
    per_query: Mapping[str, Mapping[str, float]],
    metric: str,
    errors: Optional[Mapping[str, str]] = None,
) -> list[str]:
    """Query ids ordered worst first: ascending ``metric``, ties by query id; failed queries last."""
    errors = errors or {}
    scored = [q for q in per_query if q not in errors and metric in per_query[q]]
    scored.sort(key=lambda q: (per_query[q][metric], q))
    return scored + sorted(q for q in errors if q not in scored)


def _default_sort_metric(keys: Sequence[str]) -> str:
    """ndcg@10 when present, else the first nDCG key, else the first key."""
    if "ndcg@10" in keys:
        return "ndcg@10"
    for key in keys:
        if split_key(key)[0] == "ndcg":
            return key
    return keys[0]


def _per_query_columns(keys: Sequence[str], sort_by: str, max_columns: int = 8) -> list[str]:
    """Metric columns of the per-query listing: all when few, else those at sort_by's cutoff."""
    if len(keys) <= max_columns:
        return list(keys)
    cut = split_key(sort_by)[1]
    same = [k for k in keys if split_key(k)[1] == cut]
    if sort_by not in same:
        same.insert(0, sort_by)
    return same[:max_columns]


def evaluation_to_dict(
    report: Report,
    *,
    per_query: bool = True,
    sort_by: Optional[str] = None,
    details: Optional[Mapping[str, QueryDetail]] = None,
    limit: Optional[int] = None,
    run_name: Optional[str] = None,
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

    Returns
    -------
    dict
        ``{"mean", "per_query", "counts", "errors"}`` (and ``run``, ``sort_by``, ``worst_queries``).
    """
    report = as_report(report, "report")
    out: dict[str, Any] = {}
    if run_name is not None:
        out["run"] = run_name
    out["mean"] = dict(report.mean)
    if per_query:
        out["per_query"] = {q: dict(v) for q, v in report.per_query.items()}
    out["counts"] = dict(report.counts)
    out["errors"] = dict(report.errors)
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


def _mean_rows(mean: Mapping[str, float]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the mean table: a metric x k grid when possible, else metric | value."""
    keys = list(mean)
    grid = _grid(keys)
    if grid is None:
        return ["metric", "value"], [[k, _fmt(mean[k])] for k in keys]
    rows, cuts, cells = grid
    header = ["metric"] + [f"@{k}" for k in cuts]
    return header, [[r] + [_fmt(mean[cells[(r, k)]]) for k in cuts] for r in rows]


def _per_query_rows(
    report: Report,
    sort_by: str,
    details: Optional[Mapping[str, QueryDetail]],
    limit: Optional[int],
) -> tuple[list[str], list[list[str]]]:
    keys = list(report.mean)
    columns = _per_query_columns(keys, sort_by)
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


def _counts_line(counts: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items())


def _rich_table(title: Optional[str], header: Sequence[str], rows: Iterable[Sequence[str]], numeric_from: int = 1):
    """A rich table with its title on a line of its own above it (so a narrow table never wraps it)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table()
    for i, h in enumerate(header):
        table.add_column(h, justify="right" if i >= numeric_from else "left")
    for row in rows:
        table.add_row(*row)
    if not title:
        return table
    return Group(Text(title, style="bold"), table)


def _markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric_from: int = 1) -> str:
    def esc(cell: str) -> str:
        return str(cell).replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |"]
    lines.append("|" + "|".join("---:" if i >= numeric_from else ":---" for i in range(len(header))) + "|")
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _render_rich(renderables: Sequence[Any], width: int = 120) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None, highlight=False)
    for r in renderables:
        console.print(r)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def evaluation_tables(
    report: Report,
    *,
    per_query: bool = False,
    sort_by: Optional[str] = None,
    details: Optional[Mapping[str, QueryDetail]] = None,
    limit: Optional[int] = None,
    title: str = "Mean over queries",
) -> list[Any]:
    """Rich renderables for the terminal: the mean table, the counts line and, with ``per_query``, the
    per-query table worst first (parameters as in :func:`render_evaluation`)."""
    report = as_report(report, "report")
    from rich.text import Text

    header, rows = _mean_rows(report.mean)
    out: list[Any] = [_rich_table(title, header, rows), Text(_counts_line(report.counts))]
    if per_query:
        sort_by = sort_by or _default_sort_metric(list(report.mean))
        h, r = _per_query_rows(report, sort_by, details, limit)
        out.append(_rich_table(f"Per query, worst {sort_by} first", h, r))
    elif report.errors:
        out.append(Text(f"{len(report.errors)} queries failed; use --per-query to see them"))
    return out


def render_evaluation(
    report: Report,
    fmt: str = "table",
    *,
    per_query: bool = False,
    sort_by: Optional[str] = None,
    details: Optional[Mapping[str, QueryDetail]] = None,
    limit: Optional[int] = None,
    run_name: Optional[str] = None,
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
        The metric that orders it (default ``ndcg@10``, else the first nDCG, else the first metric).
    details : mapping, optional
        Query id -> :class:`QueryDetail`, shown beside each query.
    limit : int, optional
        At most this many queries in the listing.
    run_name : str, optional
        A title for the run.

    Returns
    -------
    str
    """
    report = as_report(report, "report")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    keys = list(report.mean)
    if per_query or fmt == "json":
        sort_by = sort_by or _default_sort_metric(keys)
    if fmt == "json":
        data = evaluation_to_dict(
            report, sort_by=sort_by if per_query else None, details=details, limit=limit, run_name=run_name
        )
        return json.dumps(data, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["query_id"] + keys)
        writer.writerow([MEAN_ROW] + [repr_float(report.mean[k]) for k in keys])
        if per_query:
            errors = report.errors
            for q in worst_queries(report.per_query, sort_by, errors)[: limit or None]:
                values = report.per_query.get(q, {})
                writer.writerow([q] + [repr_float(values[k]) if k in values else "" for k in keys])
        return buffer.getvalue()
    if fmt == "markdown":
        header, rows = _mean_rows(report.mean)
        parts = []
        if run_name:
            parts.append(f"## {run_name}\n")
        parts += ["### Mean over queries\n", _markdown_table(header, rows), "", _counts_line(report.counts), ""]
        if per_query:
            h, r = _per_query_rows(report, sort_by, details, limit)
            parts += [f"### Per query, worst {sort_by} first\n", _markdown_table(h, r), ""]
        return "\n".join(parts)
    title = f"{run_name}: mean over queries" if run_name else "Mean over queries"
    return _render_rich(
        evaluation_tables(report, per_query=per_query, sort_by=sort_by, details=details, limit=limit, title=title)
    )


def _group_rows(grouped: GroupedReport) -> tuple[list[str], list[list[str]]]:
    pct = int(round(grouped.confidence * 100))
    header = [grouped.field, "queries", "errors"]
    for k in grouped.keys:
        header += [k, f"{pct}% CI"]
    rows = []
    for row in grouped.rows:
        cells = [str(row.group), str(row.count), str(row.errors)]
        for k in grouped.keys:
            if row.count:
                cells += [_fmt(row.mean[k]), f"[{row.ci_low[k]:.4f}, {row.ci_high[k]:.4f}]"]
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
        return f"### {title}\n\n" + _markdown_table(header, rows) + "\n"
    return _render_rich([_rich_table(title, header, rows)])


def repr_float(value: float) -> str:
    """Shortest exact text of a float (CSV keeps full precision)."""
    return repr(float(value))


def comparison_to_dict(comparison: Comparison) -> dict[str, Any]:
    """``{"mean": {run: {metric: v}}, "tests": [{metric, run_a, run_b, difference, ci_low, ci_high,
    t_test_p_value, p_value, ...}], "counts": {...}}``."""
    return comparison.to_dict()


def _comparison_rows(comparison: Comparison) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
    runs = list(comparison.runs)
    mean_header = ["metric"] + runs
    mean_rows = [[m] + [_fmt(comparison.mean[r][m]) for r in runs] for m in comparison.metrics]
    conf = int(round(comparison.tests[0].confidence * 100)) if comparison.tests else 95
    test_header = ["metric", "run A", "run B", "B - A", f"{conf}% CI", "t-test p", "p_value", ""]
    test_rows = []
    for t in comparison.tests:
        mark = "*" if t.p_value < 0.05 and t.t_test_p_value < 0.05 else ""
        test_rows.append(
            [
                t.metric, t.run_a, t.run_b, f"{t.difference:+.4f}",
                f"[{t.ci_low:+.4f}, {t.ci_high:+.4f}]", _fmt_p(t.t_test_p_value), _fmt_p(t.p_value), mark,
            ]
        )
    return mean_header, mean_rows, test_header, test_rows


_COMPARE_NOTE = (
    "p_value: paired randomization test; t-test p: paired t-test; CI: bootstrap of the mean difference; "
    "* = both p < 0.05"
)


def comparison_tables(comparison: Comparison) -> list[Any]:
    """Rich renderables for a comparison: the means table and the significance table."""
    from rich.text import Text

    mh, mr, th, tr = _comparison_rows(comparison)
    return [
        _rich_table(f"Mean over {comparison.n_queries} queries", mh, mr),
        _rich_table("Paired tests (difference = run B - run A)", th, tr, numeric_from=3),
        Text(_COMPARE_NOTE),
    ]


def render_comparison(comparison: Comparison, fmt: str = "table") -> str:
    """Render a comparison as text.

    Parameters
    ----------
    comparison : Comparison
        From :func:`~rag_eval_adapters.compare.compare_reports`.
    fmt : {"table", "json", "csv", "markdown"}
        ``csv`` has one row per metric and pair of runs: ``metric,run_a,run_b,mean_a,mean_b,
        difference,ci_low,ci_high,t_statistic,t_test_p_value,p_value,n_queries``.

    Returns
    -------
    str
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(comparison_to_dict(comparison), indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        cols = [
            "metric", "run_a", "run_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
            "t_statistic", "t_test_p_value", "p_value", "n_queries",
        ]
        writer.writerow(cols)
        for t in comparison.tests:
            d = t.to_dict()
            writer.writerow(["" if d[c] is None else d[c] for c in cols])
        return buffer.getvalue()
    if fmt == "markdown":
        mh, mr, th, tr = _comparison_rows(comparison)
        return "\n".join(
            [
                f"### Mean over {comparison.n_queries} queries\n",
                _markdown_table(mh, mr),
                "",
                "### Paired tests (difference = run B - run A)\n",
                _markdown_table(th, tr, numeric_from=3),
                "",
                _COMPARE_NOTE,
                "",
            ]
        )
    return _render_rich(comparison_tables(comparison))


def plot_metrics(
    means: Mapping[str, Mapping[str, float]],
    path: Union[str, Path],
    *,
    title: Optional[str] = None,
) -> Path:
    """Draw each metric against k and write a PNG to ``path``; returns the path.

    ``means`` is ``{run_name: {metric_key: value}}``.  With one run, every metric measured at two or
    more cutoffs is a line on one axes; with several runs, each metric gets its own panel with one
    line per run.  Metrics without a range of cutoffs are drawn as (grouped) bars in a last panel.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    runs = list(means)
    if not runs:
        raise ValueError("nothing to plot: no runs given")
    keys = list(means[runs[0]])
    curves: dict[str, list[tuple[int, str]]] = {}
    for key in keys:
        name, k = split_key(key)
        if k is not None:
            curves.setdefault(name, []).append((k, key))
    curves = {n: sorted(pts) for n, pts in curves.items() if len(pts) >= 2}
    in_curve = {key for pts in curves.values() for _, key in pts}
    singles = [k for k in keys if k not in in_curve]

    if len(runs) == 1:
        panels = (["__all__"] if curves else []) + (["__bars__"] if singles else [])
    else:
        panels = list(curves) + (["__bars__"] if singles else [])
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows), squeeze=False)
    flat = axes.ravel()
    for ax, panel in zip(flat, panels):
        if panel == "__bars__":
            width = 0.8 / len(runs)
            for i, run in enumerate(runs):
                xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(singles))]
                ax.bar(xs, [means[run][k] for k in singles], width=width, label=run)
            ax.set_xticks(range(len(singles)))
            ax.set_xticklabels(singles, rotation=30, ha="right")
            ax.set_title("metrics without a k range" if curves else "metrics")
        elif panel == "__all__":
            run = runs[0]
            for name, pts in curves.items():
                ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=name)
            ax.set_xlabel("k (cutoff)")
            ax.set_xticks(sorted({k for pts in curves.values() for k, _ in pts}))
            ax.set_title(f"{run}: metric at k")
        else:
            pts = curves[panel]
            for run in runs:
                ax.plot([k for k, _ in pts], [means[run][key] for _, key in pts], marker="o", label=run)
            ax.set_xlabel("k (cutoff)")
            ax.set_xticks([k for k, _ in pts])
            ax.set_title(panel)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("mean score")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
