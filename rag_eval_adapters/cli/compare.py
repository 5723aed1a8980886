"""Compare runs with paired significance tests.

Score several runs on the same qrels and test every pair: paired t-test, paired randomization test and a bootstrap
CI of the difference.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..compare import CI_TOLERANCE, EXCEEDANCES
from ..intervals import INTERVAL_METHODS
from ..multitest import CORRECTIONS
from ._errors import CLIError
from ._io import MAX_RESAMPLES, check_count, check_resampling, fail_on_errors
from ._output import check_plot_path, emit, emit_page, plot, print_rich
from ._progress import Steps, is_tty, progress_enabled
from ._scoring import add_scoring_options, check_scoring_args, load_qrels, load_run, run_name, score_run


def add_arguments(cp: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval compare``."""
    cp.add_argument("--run", required=True, action="append", metavar="FILE",
                    help="a run to compare (give --run at least twice): TREC, JSONL, CSV or Parquet; .gz allowed; "
                         "- reads standard input")
    cp.add_argument("--name", action="append", metavar="NAME",
                    help="display name for each --run, in order (default: file names)")
    add_scoring_options(cp)
    cp.add_argument("--permutations", type=int, default=10_000, metavar="N",
                    help="most random sign flips of the randomization test (default 10000); a metric stops at "
                         "its --exceedances-th flip reaching the observed difference, and one that Hoeffding's "
                         "bound already puts below 0.01 / N draws none")
    cp.add_argument("--bootstrap", type=int, default=10_000, metavar="N",
                    help="most bootstrap resamples for the confidence interval; a metric stops once both "
                         "bounds are within --ci-tolerance (default 10000)")
    cp.add_argument("--exceedances", type=int, default=EXCEEDANCES, metavar="H",
                    help="h of the sequential randomization test: a metric stops at its h-th sign flip that "
                         f"reaches the observed difference, L flips in, with p = h / L (default {EXCEEDANCES}; "
                         "relative error about sqrt((1 - p) / h))")
    cp.add_argument("--ci-tolerance", type=float, default=CI_TOLERANCE, metavar="T",
                    help="precision of each bootstrap bound on the metric's scale: resampling stops once both "
                         f"bounds are within T of their many-resample values (default {CI_TOLERANCE:g})")
    cp.add_argument("--every-draw", action="store_true",
                    help="no sequential stop and no bound: every metric draws all --permutations sign flips and "
                         "--bootstrap resamples (the fixed-count tests)")
    cp.add_argument("--confidence", type=float, default=0.95, metavar="C",
                    help="confidence level of the interval (default 0.95)")
    cp.add_argument("--seed", type=int, default=0, help="random seed of the tests (default 0)")
    cp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                    help="how the p-values of all the tests are adjusted together: holm (default), bh "
                         "(Benjamini-Hochberg), bonferroni or none")
    cp.add_argument("--human-labels", metavar="FILE",
                    help="JSONL of human labels for some queries ({query_id, run, <metric>: value}): each run's "
                         "mean and each pair's difference is also given corrected with them (PPI++)")
    cp.add_argument("--ci", choices=INTERVAL_METHODS, metavar="METHOD",
                    help="give every run's mean its interval: t, normal or bootstrap (named in the output)")
    cp.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..compare import compare_reports
    from ..reports import comparison_tables, render_comparison, report_page

    if len(args.run) < 2:
        raise CLIError("compare needs at least two runs: --run A --run B")
    if args.name and len(args.name) != len(args.run):
        raise CLIError(f"give one --name per --run ({len(args.run)} runs, {len(args.name)} names)")
    check_plot_path(args.plot)
    check_resampling(args)
    check_count(args.exceedances, "--exceedances", maximum=MAX_RESAMPLES)
    _check_tolerance(args.ci_tolerance)
    fmt, metrics = check_scoring_args(args)
    taken: set[str] = set()
    names = list(args.name) if args.name else [run_name(p, taken) for p in args.run]
    if len(set(names)) != len(names):
        raise CLIError(f"run names must differ, got {', '.join(names)}")
    reports = {}
    with Steps(progress_enabled(stderr), stderr) as steps:
        t = steps.task("reading files", total=1 + len(args.run))
        qrels = load_qrels(args.qrels)
        steps.advance(t)
        runs: dict[str, Any] = {}
        for name, path in zip(names, args.run, strict=False):
            runs[name] = load_run(path)
            steps.advance(t)
        for name, run in runs.items():
            reports[name] = score_run(qrels, run, metrics, args.relevance_level, name, steps)
        t = steps.task("significance tests", total=1)
        comparison = compare_reports(
            reports, n_permutations=args.permutations, n_bootstrap=args.bootstrap,
            confidence=args.confidence, seed=args.seed, correction=args.correction,
            exceedances=None if args.every_draw else args.exceedances,
            ci_tolerance=None if args.every_draw else args.ci_tolerance,
        )
        if args.human_labels:
            comparison = _with_human_labels(comparison, reports, args)
        if args.ci:
            comparison = _with_intervals(comparison, reports, args)
        steps.finish(t)
    if fmt == "html":
        page = report_page(reports, title=f"rag-eval compare: {' vs '.join(comparison.runs)}", comparison=comparison,
                           runs=runs, qrels=qrels,
                           summary=[f"{len(reports)} runs scored against {args.qrels}; paired tests over "
                                    f"{comparison.n_queries} queries"])
        emit_page(page, args.output, stdout, stderr)
    elif fmt == "table" and not args.output and is_tty(stdout):
        print_rich(comparison_tables(comparison), stdout)
    else:
        emit(render_comparison(comparison, fmt), args.output, stdout, stderr)
    if args.plot:
        plot(comparison.mean, args.plot, stderr, title=f"{' vs '.join(comparison.runs)} ({comparison.n_queries} queries)")
    fail_on_errors(reports, args.allow_errors)
    return 0


def _check_tolerance(value: float) -> None:
    """``--ci-tolerance``: a positive finite number (:func:`~rag_eval_adapters.validation.check_positive`'s rule
    and message); CLIError naming the option."""
    from ..validation import check_positive

    try:
        check_positive(value, "--ci-tolerance")
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from None


def _with_human_labels(comparison: Any, reports: dict, args: argparse.Namespace) -> Any:
    """The comparison with its PPI++ corrected means and differences (``ValueError`` for labels that do not fit)."""
    from dataclasses import replace

    from ..human_labels import read_human_labels
    from ..ppi import corrected_comparison

    return replace(comparison, human=corrected_comparison(reports, read_human_labels(args.human_labels),
                                                           confidence=args.confidence))


def _with_intervals(comparison: Any, reports: dict, args: argparse.Namespace) -> Any:
    """The comparison with every run's means given their ``--ci`` intervals, over the queries compared."""
    from dataclasses import replace

    from .. import Report
    from ..intervals import report_intervals

    intervals = {}
    for run, report in reports.items():
        rows = report.per_query
        common = Report.from_per_query({q: rows[q] for q in comparison.query_ids}, report.metrics)
        intervals[run] = report_intervals(common, method=args.ci, confidence=args.confidence, seed=args.seed)
    return replace(comparison, intervals=intervals)
