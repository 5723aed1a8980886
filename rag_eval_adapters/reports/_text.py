"""Text building blocks shared by the renderers: number formats, metric keys, rich and Markdown tables."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

FORMATS = ("table", "json", "csv", "markdown")
MEAN_ROW = "all"  # label of the mean row in CSV output, as trec_eval labels its summary lines


def split_key(key: str) -> tuple[str, int | None]:
    """Split ``"ndcg@10"`` into ``("ndcg", 10)``; a key without a cutoff gives ``(key, None)``."""
    name, sep, cut = key.rpartition("@")
    if sep and cut.isdigit():
        return name, int(cut)
    return key, None


def metric_parts(metric: Any, key: str) -> tuple[str, int | None]:
    """The metric's name with its options (``ndcg``, ``ndcg_exp``) and its cutoff: read from a metric object (its ``name`` and ``k``), so ``nDCG@10`` and
    ``ndcg@10`` are the same metric; from the column ``key`` (:func:`split_key`) for a plain name."""
    name, k = getattr(metric, "name", None), getattr(metric, "k", None)
    if isinstance(name, str) and (k is None or isinstance(k, int)) and hasattr(metric, "k"):
        return name + str(getattr(metric, "options", "")), k
    return split_key(key)


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def _fmt_p(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def _grid(keys: Sequence[str]) -> tuple[list[str], list[int], dict[tuple[str, int], str]] | None:
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


def _counts_line(counts: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items())


def _rich_table(title: str | None, header: Sequence[str], rows: Iterable[Sequence[str]], numeric_from: int = 1):
    """A rich table with its title on a line of its own above it (so a narrow table never wraps it).

    Every header, cell and the title are plain text (``rich.text.Text``), never console markup: a query id,
    group or run name such as ``[/]`` or ``[bold red]x`` is printed as written.
    """
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table()
    for i, h in enumerate(header):
        table.add_column(Text(str(h)), justify="right" if i >= numeric_from else "left")
    for row in rows:
        table.add_row(*(Text(str(cell)) for cell in row))
    if not title:
        return table
    return Group(Text(title, style="bold"), table)


def _markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric_from: int = 1) -> str:
    from .markup import escape_markdown as esc

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


def repr_float(value: float) -> str:
    """Shortest exact text of a float (CSV keeps full precision)."""
    return repr(float(value))
