"""A :class:`~rag_eval_adapters.agreement.MetaEvaluation` as text: fixed-width table, Markdown, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from .measure import STATISTICS
from .meta_eval import MetaEvaluation

__all__ = ["render_meta_evaluation", "META_FORMATS", "dropped_lines"]

META_FORMATS = ("table", "markdown", "csv", "json")
_TITLES = {"pearson": "Pearson", "spearman": "Spearman", "kendall_tau_b": "Kendall tau-b", "accuracy": "accuracy",
           "kappa": "kappa", "kappa_quadratic": "quadratic kappa"}
CEILING = "annotator vs annotator (ceiling)"


def dropped_lines(m: MetaEvaluation) -> list[str]:
    """One sentence per scorer that could not score every answer: how many questions (and human labels) it
    dropped, and why."""
    over = "questions" if m.ceiling else "items"
    return [f"{name}: {d['questions']} of {m.n_items} {over} dropped ({d['judgements']} of {m.n_judgements} "
            f"labels), an answer unmeasured: {', '.join(f'{k} {v}' for k, v in d['reasons'].items())}; its "
            f"statistics are over the rest" for name, d in m.dropped.items()]


def _rows(m: MetaEvaluation) -> list[tuple[str, dict]]:
    """``(row name, {label: Agreement})``: the ceiling first, then the scorers, then the baselines."""
    scorers = [(s, by) for s, by in m.results.items() if s not in m.baselines]
    baselines = [(f"{s} (baseline)", m.results[s]) for s in m.baselines]
    return ([(CEILING, m.ceiling)] if m.ceiling else []) + scorers + baselines


def _tables(m: MetaEvaluation, statistics: Sequence[str]) -> list[tuple[str, list[str], list[list[str]]]]:
    any_result = next((a for _, by in _rows(m) for a in by.values()), None)
    conf = f"{any_result.confidence:.0%}" if any_result is not None else "95%"
    header = ["scorer"] + [f"{label} {_TITLES[s]}" for label in m.labels for s in statistics]
    def cell(by: dict, label: str, statistic: str) -> str:
        stats = by[label].overall.estimates if label in by else {}
        return stats[statistic].format(1, 100) if statistic in stats else "-"  # not defined for this scorer

    def shown(name: str) -> str:  # a scorer that dropped questions says so in its row
        lost = m.dropped.get(name)
        return f"{name} [{lost['questions']} dropped]" if lost else name

    main = [[shown(name)] + [cell(by, label, s) for label in m.labels for s in statistics] for name, by in _rows(m)]
    over = "questions" if m.ceiling else "items"
    out = [(f"Agreement with {m.n_judgements} human labels on {m.n_items} {over}{f' ({m.source})' if m.source else ''}"
            f": x100, {conf} bootstrap interval over {over}", header, main)]
    first = statistics[0]
    for label in m.labels:
        source = m.ceiling.get(label) or next((by[label] for _, by in _rows(m) if label in by), None)
        groups = list(source.groups) if source is not None else []
        if not groups:
            continue
        rows = []
        for name, by in _rows(m):
            cells = []
            for g in groups:
                stats = by[label].groups.get(g) if label in by else None
                cells.append(stats.estimates[first].format(1, 100).split(" [")[0]
                             if stats is not None and first in stats.estimates else "-")
            rows.append([name] + cells)
        out.append((f"{_TITLES[first]} x100 by group, label {label}", ["scorer"] + [str(g) for g in groups], rows))
    return out


def _fixed(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    return [line.format(*header), line.format(*("-" * w for w in widths))] + [line.format(*r) for r in rows]


def _markdown(header: list[str], rows: list[list[str]]) -> list[str]:
    def esc(cell: str) -> str:
        return str(cell).replace("|", "\\|")

    return (["| " + " | ".join(map(esc, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
            + ["| " + " | ".join(map(esc, r)) + " |" for r in rows])


NOTE = ("Each scorer's difference (answer 2 - answer 1) against each person's preference on -2..2; the ceiling is "
        "one annotator against the other on the same question. Baselines: answer length in words and the answer's "
        "token recall of the reference; a scorer no better than them follows length or overlap, not quality.")


SCORES_NOTE = "Each scorer's value (or difference, for pairwise labels) against each human label."


def render_meta_evaluation(m: MetaEvaluation, fmt: str = "table",
                           statistics: Sequence[str] = ("pearson", "spearman")) -> str:
    """Render a meta-evaluation.

    Parameters
    ----------
    m : MetaEvaluation
    fmt : {"table", "markdown", "csv", "json"}
        ``json`` holds every statistic (with accuracy, kappa and the confusion matrix on preference signs) and
        every group; ``csv`` one row per scorer, label, group and statistic (with the questions the scorer dropped).
    statistics : sequence of str
        The statistics the table and Markdown show (the first one in the by-domain tables).

    Returns
    -------
    str
    """
    if fmt not in META_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(META_FORMATS)}")
    unknown = [s for s in statistics if s not in STATISTICS]
    if unknown or not statistics:
        raise ValueError(f"unknown statistic {unknown[0] if unknown else ''!r}; choose from {', '.join(STATISTICS)}")
    if fmt == "json":
        return json.dumps(m.to_dict(), indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["scorer", "label", "group", "n", "statistic", "value", "low", "high", "dropped_questions"])
        for name, by in _rows(m):
            dropped = m.dropped.get(name, {}).get("questions", 0)  # questions the scorer could not score, overall
            for label in m.labels:
                agreement = by[label]
                for stats in [agreement.overall, *agreement.groups.values()]:
                    for key, e in stats.estimates.items():
                        writer.writerow([name, label, stats.group, stats.n, key,
                                         *("" if v is None else v for v in (e.value, e.low, e.high)), dropped])
        return buffer.getvalue()
    lines: list[str] = []
    for title, header, rows in _tables(m, statistics):
        if fmt == "markdown":
            lines += [f"### {title}", "", *_markdown(header, rows), ""]
        else:
            lines += [title, "", *_fixed(header, rows), ""]
    lines.append(NOTE if m.ceiling or m.baselines else SCORES_NOTE)
    lines += [f"{'- ' if fmt == 'markdown' else ''}{line}" for line in dropped_lines(m)]
    return "\n".join(lines) + "\n"
