"""Score one run against qrels.

Score one run (TREC or JSONL) against qrels (TREC or JSONL).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from ._intervals import add_interval_options, intervals_from_args
from ._io import check_count, fail_on_errors
from ._metrics import check_sort_by
from ._output import check_plot_path, emit, emit_page, plot, print_rich
from ._progress import Steps, is_tty, progress_enabled
from ._scoring import add_scoring_options, check_scoring_args, load_qrels, load_run, query_details, score_run


def add_arguments(ev: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval evaluate``."""
    ev.add_argument("--run", required=True, metavar="FILE",
                    help="ranked results: TREC run (qid Q0 doc rank score tag), JSONL or a CSV/Parquet table "
                         "(query_id, doc_id, score or rank); .gz allowed; - reads standard input")
    add_scoring_options(ev)
    ev.add_argument("--per-query", action="store_true",
                    help="also list every query, worst first, with its relevant/retrieved counts")
    ev.add_argument("--sort-by", metavar="METRIC", help="metric that orders --per-query (default ndcg@10 "
                    "or the first nDCG, else the first metric)")
    ev.add_argument("--limit", type=int, metavar="N", help="list only the N worst queries")
    add_interval_options(ev)
    ev.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..reports import evaluation_tables, render_evaluation, report_page

    check_plot_path(args.plot)
    check_count(args.limit, "--limit")
    fmt, metrics = check_scoring_args(args)
    name = Path(args.run).name if args.run != "-" else "stdin"
    with Steps(progress_enabled(stderr), stderr) as steps:
        t = steps.task("reading files", total=2)
        qrels = load_qrels(args.qrels)
        steps.advance(t)
        run = load_run(args.run)
        steps.advance(t)
        report = score_run(qrels, run, metrics, args.relevance_level, name, steps)
    sort_by = check_sort_by(args.sort_by, report.metrics)
    intervals = intervals_from_args(report, args, name)
    details = query_details(qrels, run, args.relevance_level) if args.per_query else None
    if fmt == "html":
        emit_page(report_page({name: report}, title=f"rag-eval evaluate: {name}", runs={name: run}, qrels=qrels,
                              summary=[f"{name} scored against {args.qrels}"], intervals={name: intervals or {}}),
                  args.output, stdout, stderr)
    elif fmt == "table" and not args.output and is_tty(stdout):
        print_rich(
            evaluation_tables(report, per_query=args.per_query, sort_by=sort_by, details=details,
                              limit=args.limit, title=f"{name}: mean over queries", intervals=intervals),
            stdout,
        )
    else:
        text = render_evaluation(
            report, fmt, per_query=args.per_query, sort_by=sort_by, details=details,
            limit=args.limit, run_name=name if fmt != "json" else None, intervals=intervals,
        )
        emit(text, args.output, stdout, stderr)
    if args.plot:
        plot({name: dict(report.mean)}, args.plot, stderr)
    fail_on_errors({name: report}, args.allow_errors)
    return 0
