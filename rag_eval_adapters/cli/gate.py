"""Gate a candidate against a baseline: pass, fail or inconclusive, with statistics that hold.

Compare a candidate with a baseline on the questions both scored: two report.json files with per-question values
(from evaluate, answers, judge or bench; --config picks a bench configuration) or, with --qrels, two runs. For each
metric (-m METRIC:MARGIN, the drop tolerated) two one-sided paired tests at the margin: pass when the candidate is
shown not worse than the margin, fail when it is worse by more, inconclusive otherwise; Holm's correction over
the gate's metrics. Exit status 0 pass, 1 fail, 3 inconclusive (under --inconclusive fail, the default), 2 error.
--power tells how many questions are needed instead.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from ._errors import CLIError, one_line
from ._io import check_inputs, check_outputs
from ._output import emit, emit_page
from ._progress import Steps, progress_enabled

DEFAULT_DROPS = (0.03, 0.05, 0.10)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval gate``."""
    p.add_argument("--baseline", required=True, metavar="FILE",
                   help="the baseline: a report.json with per-question values, or a run with --qrels")
    p.add_argument("--candidate", required=True, metavar="FILE",
                   help="the candidate: a report.json with per-question values, or a run with --qrels")
    p.add_argument("--qrels", metavar="FILE", help="judgments: --baseline and --candidate are then runs, scored here")
    p.add_argument("-m", "--metric", action="append", required=True, metavar="METRIC[:MARGIN]",
                   help="a metric to gate and the drop it tolerates, e.g. ndcg@10:0.02 or faithfulness:0.03 "
                        "(repeatable or comma-separated; default margin 0.02 for retrieval metrics, 0.03 for "
                        "answer and judged metrics)")
    p.add_argument("--config", metavar="NAME", help="the configuration of a bench report.json (both sides)")
    p.add_argument("--baseline-config", metavar="NAME", help="the baseline's bench configuration (default --config)")
    p.add_argument("--candidate-config", metavar="NAME", help="the candidate's bench configuration (default --config)")
    p.add_argument("--relevance-level", default="1", metavar="N",
                   help="with --qrels: lowest grade that counts as relevant (default 1)")
    p.add_argument("--alpha", type=float, default=0.05, metavar="A",
                   help="level of every test after Holm's correction (default 0.05)")
    p.add_argument("--inconclusive", choices=("fail", "pass"), default="fail",
                   help="what an inconclusive gate counts as: fail (exit 3, the default) or pass (exit 0)")
    p.add_argument("--human-labels", metavar="FILE",
                   help="JSONL of human labels of some questions ({query_id, run: baseline|candidate, <metric>: "
                        "value}): a labelled metric is tested on its PPI++ difference")
    p.add_argument("--power", action="store_true",
                   help="print how many questions are needed instead of deciding: from the spread of the paired "
                        "differences, the questions for 80%% power to fail each --drop, and the smallest drop the "
                        "current questions detect (exit 0)")
    p.add_argument("--drop", type=float, action="append", metavar="D",
                   help="with --power: a drop to detect (repeatable; default 0.03, 0.05, 0.10)")
    p.add_argument("--format", choices=("table", "json", "markdown"), default=None,
                   help="output format (default: by the --output extension .json or .md, else table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the decision to FILE instead of stdout")
    p.add_argument("--markdown", metavar="FILE", help="also write a Markdown summary (a pull-request comment); "
                   "with $GITHUB_STEP_SUMMARY set, the summary is appended there too")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML: a test case a metric, a failure each")
    p.add_argument("--json", metavar="FILE", help="also write the decision as JSON")
    p.add_argument("--html", metavar="FILE", help="also write report.html with the gate as its verdict")
    p.set_defaults(func=cmd_gate)


def _margins(specs: list[str]) -> dict[str, float]:
    from ..gate import parse_margin_spec

    margins: dict[str, float] = {}
    for spec in (s.strip() for item in specs for s in item.split(",") if s.strip()):
        try:
            name, margin = parse_margin_spec(spec)
        except ValueError as exc:
            raise CLIError(f"-m {one_line(str(exc))}") from None
        if name in margins:
            raise CLIError(f"-m {name} is given twice")
        margins[name] = margin
    if not margins:
        raise CLIError("-m: name at least one metric to gate, e.g. -m ndcg@10:0.02")
    return margins


def _check(args: argparse.Namespace) -> None:
    if not 0.0 < args.alpha < 0.5:
        raise CLIError(f"--alpha must be between 0 and 0.5 (e.g. 0.05), got {args.alpha}")
    for drop in args.drop or ():
        if not 0.0 < drop < float("inf"):
            raise CLIError(f"--drop must be a positive number, got {drop}")
    inputs = [(args.baseline, "baseline"), (args.candidate, "candidate")]
    inputs += [(path, what) for path, what in ((args.qrels, "qrels"), (args.human_labels, "human labels")) if path]
    check_inputs(inputs)
    check_outputs([path for path, _ in inputs], output=args.output, markdown=args.markdown, junit=args.junit,
                  json=args.json, html=args.html)
    if args.qrels and (args.config or args.baseline_config or args.candidate_config):
        raise CLIError("--config picks a configuration of a bench report.json; with --qrels the inputs are runs")


def _side_name(path: str, config: str | None) -> str:
    name = Path(path).name if path != "-" else "stdin"
    return f"{name} [{config}]" if config else name


def _from_runs(args: argparse.Namespace, metrics: list[str], stderr: TextIO) -> tuple[Any, Any]:
    """The columns of the two runs, scored against --qrels."""
    from ..gate.inputs import report_columns
    from ..measures import parse_metrics
    from ._metrics import relevance_level
    from ._scoring import load_qrels, load_run, score_run

    try:
        objects = parse_metrics(metrics)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"-m: {one_line(str(exc))}") from None
    level = relevance_level(args.relevance_level)
    with Steps(progress_enabled(stderr), stderr) as steps:
        qrels = load_qrels(args.qrels)
        sides = []
        for path in (args.baseline, args.candidate):
            report = score_run(qrels, load_run(path), objects, level, _side_name(path, None), steps)
            sides.append(report_columns(report))
    return sides[0], sides[1]


def _from_reports(args: argparse.Namespace) -> tuple[Any, Any]:
    from ..gate import read_report_file

    sides = []
    for path, config in ((args.baseline, args.baseline_config or args.config),
                         (args.candidate, args.candidate_config or args.config)):
        if path == "-":
            raise CLIError("a report.json is read from a file, not standard input (- reads a run with --qrels)")
        try:
            sides.append(read_report_file(path, config))
        except ValueError as exc:
            raise CLIError(one_line(str(exc))) from None
        except OSError as exc:
            raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
    return sides[0], sides[1]


def _human(path: str | None) -> dict | None:
    if not path:
        return None
    from ..human_labels import read_human_labels

    try:
        labels = read_human_labels(path)
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None
    other = [run for run in labels if run not in ("baseline", "candidate")]
    if other:
        raise CLIError(f'{path}: every human label of a gate names its run, "baseline" or "candidate"; got '
                       f"{'no run' if other[0] is None else repr(other[0])}")
    return labels


def cmd_gate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``rag-eval gate``; returns the decision's exit status (0 pass, 1 fail, 3 inconclusive)."""
    from ..gate import gate_columns

    _check(args)
    fmt = args.format or {".json": "json", ".md": "markdown"}.get(Path(args.output or "").suffix.lower(), "table")
    margins = _margins(args.metric)
    baseline, candidate = _from_runs(args, list(margins), stderr) if args.qrels else _from_reports(args)
    names = (_side_name(args.baseline, args.baseline_config or args.config),
             _side_name(args.candidate, args.candidate_config or args.config))
    if names[0] == names[1]:
        names = (f"baseline {names[0]}", f"candidate {names[1]}")
    if args.power:
        return _power(baseline, candidate, margins, names, args, fmt, stdout, stderr)
    try:
        decision = gate_columns(baseline, candidate, margins, alpha=args.alpha, inconclusive=args.inconclusive,
                                human=_human(args.human_labels), names=names)
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None
    _write(decision, baseline, candidate, args, fmt, stdout, stderr)
    return decision.exit_code


def _write(decision: Any, baseline: Any, candidate: Any, args: argparse.Namespace, fmt: str, stdout: TextIO,
           stderr: TextIO) -> None:
    """The decision on stdout (or --output) and in every file asked for."""
    from ..gate import columns_report, gate_page, render_json, render_junit, render_markdown, render_text

    render = {"json": render_json, "markdown": render_markdown, "table": render_text}[fmt]
    emit(render(decision), args.output, stdout, stderr)
    for path, text in ((args.markdown, render_markdown), (args.junit, render_junit), (args.json, render_json)):
        if path:
            emit(text(decision), path, stdout, stderr)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(render_markdown(decision))
        except OSError as exc:
            raise CLIError(f"cannot write $GITHUB_STEP_SUMMARY {summary}: {exc.strerror or exc}") from None
    if args.html:
        metrics = [m.metric for m in decision.metrics]
        reports = {decision.baseline: columns_report({m: baseline[_key(baseline, m)] for m in metrics}, metrics),
                   decision.candidate: columns_report({m: candidate[_key(candidate, m)] for m in metrics}, metrics)}
        emit_page(gate_page(decision, reports, f"rag-eval gate: {decision.candidate} vs {decision.baseline}"),
                  args.html, stdout, stderr)


def _key(columns: Any, metric: str) -> str:
    from ..gate.inputs import find_metric

    return find_metric(columns, metric, "report")


def _power(baseline: Any, candidate: Any, margins: dict[str, float], names: tuple[str, str],
           args: argparse.Namespace, fmt: str, stdout: TextIO, stderr: TextIO) -> int:
    """``--power``: the power analysis of every metric, at Holm's first-step level."""
    from ..gate import paired_differences, power_analysis, render_power
    from ..gate.inputs import find_metric

    drops = tuple(args.drop or DEFAULT_DROPS)
    analyses = []
    try:
        for metric, margin in margins.items():
            _, base, cand = paired_differences(baseline[find_metric(baseline, metric, names[0])],
                                               candidate[find_metric(candidate, metric, names[1])])
            analyses.append(power_analysis(metric, cand - base, margin, args.alpha / len(margins), drops))
    except ValueError as exc:
        raise CLIError(one_line(str(exc))) from None
    emit(render_power(analyses, fmt), args.output, stdout, stderr)
    if args.markdown:
        emit(render_power(analyses, "markdown"), args.markdown, stdout, stderr)
    return 0
