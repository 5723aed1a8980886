"""What ``rag-eval bench`` and ``rag-eval demo`` print: one compact table and the verdict."""

from __future__ import annotations

from typing import Any, TextIO

from .scoring import headline_metric

__all__ = ["print_summary", "summary_columns", "LEGEND", "ANSWER_LEGEND"]


def summary_columns(result: Any) -> list[tuple[str, str]]:
    """``(label, metric key)`` of the printed table: each label says which gain and relevance it uses."""
    ks = result.settings.ks
    hit_k = ks[min(2, len(ks) - 1)]
    ndcg = headline_metric(ks)
    at = ndcg.split("@")[1]
    return [
        (f"hit rate@{hit_k}", f"hit_rate@{hit_k}"),
        (f"MRR@{at}", f"mrr@{at}"),
        (f"nDCG@{at}", ndcg),
    ]


LEGEND = ("hit rate and MRR: binary, relevant = the chunk overlaps an evidence span (hit rate is what seed "
          "benchmarks call \"Recall@k\"); nDCG: graded, linear gain = % of the evidence span the chunk covers; "
          "judged@k: share of the top k that has a judgment.")
"""The legend under the table; :data:`ANSWER_LEGEND` follows it when answers were scored."""

ANSWER_LEGEND = " Answers: token F1 and E5 cosine similarity against the reference answer."


def _mean(result: Any, part: str, key: str, value: float) -> str:
    """``"0.512"``, or ``"0.512"`` over ``"[0.431, 0.594]"`` when the configuration has intervals (``--ci``): two
    lines, so the table keeps to the console's width."""
    interval = ((result.intervals or {}).get(part) or {}).get("all", {}).get(key)
    return f"{value:.3f}" + (f"\n[{interval.low:.3f}, {interval.high:.3f}]" if interval is not None else "")


def _counted(cell: str, n: int) -> str:
    """The judged answers counted after the mean, above its interval: ``"0.700 (n=3)"``."""
    head, _, interval = cell.partition("\n")
    return f"{head} (n={n})" + (f"\n{interval}" if interval else "")


def _rows(result: Any) -> tuple[list[str], list[list[str]]]:
    """The printed table's header and rows (a cell of two lines: a mean over its interval)."""
    columns = summary_columns(result)
    answers = any(r.answers is not None for r in result.results)
    judged = [m for m in ("faithfulness", "answer_correctness")
              if any(r.answers is not None and m in r.answers.keys for r in result.results)]
    coverage = f"judged@{result.settings.ks[min(2, len(result.settings.ks) - 1)]}"
    header = ["configuration", *(label for label, _ in columns), coverage]
    if answers:
        header += ["answer token F1", "answer similarity (E5 cosine)"]
        header += [m.replace("_", " ") + " (judged)" for m in judged]
    rows = []
    for r in result.results:
        row = [r.name] + [_mean(r, "retrieval", key, r.report.mean[key]) for _, key in columns]
        row += [f"{r.judged.get(coverage, 0.0):.3f}"]
        if answers:
            row += [_mean(r, "answers", m, r.answers.mean[m]) if r.answers is not None else "-"
                    for m in ("token_f1", "semantic_similarity")]
            row += [_counted(_mean(r, "answers", m, r.answers.mean[m]), r.answers.measured[m])
                    if r.answers is not None and m in r.answers.mean else "-" for m in judged]
        rows.append(row)
    return header, rows


def _table(header: list[str], rows: list[list[str]]) -> Any:
    """The rich table: no configuration name, cell line or header word is ever cut (each column is at least as
    wide as its longest cell line and header word; a header wraps between words)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Retrieval by configuration (all evaluated questions)")
    for i, label in enumerate(header):
        widest = max([len(word) for word in label.split()] + [len(line) for row in rows
                                                                for line in row[i].split("\n")])
        table.add_column(label, justify="left" if i == 0 else "right", min_width=widest, no_wrap=i == 0)
    for row in rows:
        table.add_row(*map(Text, row))  # Text: a configuration's name is never console markup
    return table


def print_summary(result: Any, stdout: TextIO, width: int = 120) -> None:
    """Print the configurations' headline numbers and answer scores as a table, then the verdict."""
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stdout, width=width)
    for entry in getattr(result, "left_out", None) or []:  # above the table: the scores hold fewer questions
        console.print(Text(f"Left out: {entry['message']}", style="bold"), soft_wrap=True)
    header, rows = _rows(result)
    answers = any(r.answers is not None for r in result.results)
    table = _table(header, rows)
    # the table as wide as it needs (a terminal narrower than that wraps the line), the text around it at width
    needed = console.measure(table, options=console.options.update_width(10_000)).minimum
    Console(file=stdout, width=max(width, needed)).print(table)
    settings = result.settings
    ci = (f" [low, high]: the {settings.confidence:.0%} interval of each mean over its queries ({settings.ci})."
          if settings.ci else "")
    console.print(Text(LEGEND + (ANSWER_LEGEND if answers else "") + ci, style="dim"))
    corrected = [v.describe(f"{r.name} {metric}", 3) for r in result.results for metric, v in r.human.items()]
    corrected += [f"not corrected: {name} {metric}: {why}" for name, by in
                  (getattr(result, "human_labels", None) or {}).get("not_corrected", {}).items()
                  for metric, why in by.items()]
    if corrected:
        console.print(Text("Corrected with human labels (PPI++):", style="bold"))
        for line in corrected:
            console.print(Text(f"- {line}"), soft_wrap=True)
    console.print(Text("In plain words:", style="bold"))
    for line in result.verdict:
        console.print(Text(f"- {line}"), soft_wrap=False)
