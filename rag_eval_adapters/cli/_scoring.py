"""Reading qrels and runs and scoring a run, for ``rag-eval evaluate`` and ``compare``, and their shared options."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._errors import CLIError, one_line
from ._io import check_inputs, check_outputs, output_format, read_input
from ._metrics import add_metric_options, read_metric_options
from ._output import FORMATS
from ._progress import Steps

__all__ = ["load_qrels", "load_run", "query_details", "score_run", "add_scoring_options", "check_scoring_args",
           "run_name", "as_list"]


def as_list(value: Any) -> list:
    """``value`` as a list (a list or tuple as it is, anything else as its only item)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def load_qrels(path: str) -> dict[Any, dict[Any, int]]:
    """Read qrels from TREC, JSONL, CSV/TSV (BEIR) or Parquet, maybe gzipped, ``-`` for stdin; raises CLIError."""
    qrels = read_input(path, "qrels")
    if not qrels:
        raise CLIError(f"qrels file {path} holds no judgments")
    return qrels


def load_run(path: str) -> dict[Any, Any]:
    """Read a run from TREC, JSONL, CSV or Parquet (``query_id, doc_id, score|rank``), ``-`` for stdin; raises CLIError."""
    return read_input(path, "run")


def query_details(qrels: dict, run: dict, relevance_level: float = 1) -> dict:
    """Per query: judged-relevant count, distinct retrieved count and rank of the first relevant doc.

    The core ranks the run (:func:`rag_eval_adapters.query_details`), exactly as it ranks for the metrics.
    """
    from .. import query_details as core_details
    from ..reports import QueryDetail

    return {qid: QueryDetail(**detail) for qid, detail in core_details(qrels, run, relevance_level).items()}


def score_run(qrels: dict, run: dict, metrics: Sequence[Any], relevance_level: float, name: str, steps: Steps):
    """Evaluate one run with the core (``metrics``: metric objects), after checking it shares queries with the
    qrels."""
    from .. import evaluate

    common = set(run) & set(qrels)
    if not common:
        raise CLIError(f"run {name} has no query in common with the qrels")
    task = steps.task(f"scoring {name}", total=1)
    try:
        report = evaluate(qrels, run, list(metrics), relevance_level=relevance_level)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{name}: {one_line(str(exc))}") from None
    steps.finish(task)
    return report


def check_scoring_args(args: argparse.Namespace) -> tuple[str, list[Any]]:
    """Check the options of :func:`add_scoring_options` (``args.run``: one path or several) before any reading.

    The qrels, runs and human labels (``--human-labels``, when the command has it) must be readable and no output
    may overwrite them; ``args.relevance_level`` is replaced by its checked number. Returns the output format and
    the metric objects (``-m`` at every ``--k``).
    """
    inputs = [(args.qrels, "qrels")] + [(r, "run") for r in as_list(args.run)]
    if getattr(args, "human_labels", None):
        inputs.append((args.human_labels, "human labels"))
    check_inputs(inputs)
    check_outputs([path for path, _ in inputs], output=args.output, plot=args.plot)
    fmt = output_format(args.format, args.output)
    return fmt, read_metric_options(args)


def run_name(path: str, taken: set[str]) -> str:
    """A display name for the run at ``path``: its file name, numbered when already ``taken``."""
    stem = Path(path).name if path != "-" else "stdin"
    name, i = stem, 2
    while name in taken:
        name, i = f"{stem}#{i}", i + 1
    taken.add(name)
    return name


def add_scoring_options(p: argparse.ArgumentParser) -> None:
    """The options ``evaluate`` and ``compare`` share: qrels, metrics, cutoffs, level, format, outputs."""
    p.add_argument("--qrels", required=True, metavar="FILE",
                   help="judgments: TREC qrels (qid iter doc grade), JSONL, BEIR TSV or a CSV/Parquet table; "
                        ".gz allowed; - reads standard input")
    add_metric_options(p)
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: by the --output extension .json, .csv, .md or .html, else table); "
                        "html: one self-contained page (report.html)")
    p.add_argument("--plot", metavar="FILE.png", help="draw each metric against k into a PNG")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write the report to FILE instead of stdout (never an input file; its folder must exist)")
    p.add_argument("--allow-errors", action="store_true",
                   help="exit 0 even when some queries could not be scored (they are listed in the report)")
