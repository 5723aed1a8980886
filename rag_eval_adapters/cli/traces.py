"""Score the retrieval steps and turns of recorded traces (OpenInference, LangSmith, plain JSONL).

Read traces from a JSON Lines file (OTLP JSON exports of OpenInference spans, LangSmith runs, or plain trace
records; grouped by trace), place them in conversations (thread id, turn), and with --qrels score every
retrieval step with trec_eval-exact metrics, and every turn's agent figures: retrieval steps,
evidence_retrieved_anywhere and the query-rewrite effect. Without --qrels, say what the traces hold and lack.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ._errors import CLIError, one_line
from ._io import check_inputs, check_outputs, output_format
from ._metrics import add_metric_options, read_metric_options
from ._output import emit

__all__ = ["add_arguments", "cmd_traces"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval traces``."""
    p.add_argument("--input", "-i", required=True, metavar="FILE",
                   help="traces, JSON Lines: OTLP JSON exports (OpenInference spans), LangSmith runs or plain "
                        "traces ({trace_id, thread_id, turn, question, answer, steps}); grouped by trace")
    p.add_argument("--qrels", metavar="FILE",
                   help="judgments: TREC qrels whose query id is <thread_id>:<turn> (split at the last colon) "
                        "or a step's query text, or JSONL {thread_id, turn, doc_id, relevance}")
    add_metric_options(p)
    p.add_argument("--references", metavar="FILE",
                   help="reference answers, JSONL {thread_id, turn, reference(s)} or {query_id: <thread_id>:<turn>, "
                        "reference(s)}: each turn's answer is then scored with the answer metrics (-a)")
    p.add_argument("-a", "--answer-metric", action="append", metavar="METRIC",
                   help="an answer metric for --references (repeatable or comma-separated; default exact_match, "
                        "token_f1)")
    p.add_argument("--group-by", dest="by", choices=("turn", "thread_id", "step"), default="turn",
                   help="group the step scores by this field (default turn: the means by turn position)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples of each group's interval")
    p.add_argument("--format", choices=("table", "json", "markdown", "csv"),
                   help="output format (default: by the --output extension, else table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE instead of stdout")
    p.set_defaults(func=cmd_traces)


def _evaluate(args: argparse.Namespace, metrics: list[Any]) -> Any:
    """Every retrieval step scored with ``metrics`` against --qrels, and the turns' figures."""
    from ..traces import evaluate_traces, read_trace_qrels, read_traces
    try:
        qrels = read_trace_qrels(args.qrels)
        return evaluate_traces(read_traces(args.input), qrels, metrics, relevance_level=args.relevance_level)
    except (OSError, ValueError, TypeError) as exc:
        raise CLIError(one_line(exc)) from None


def _answers(args: argparse.Namespace) -> Any:
    """Each turn's answer scored against --references with the -a metrics."""
    from ..traces import evaluate_trace_answers, read_trace_references, read_traces
    names = [n.strip() for item in args.answer_metric or [] for n in item.split(",") if n.strip()]
    try:
        references = read_trace_references(args.references)
        return evaluate_trace_answers(read_traces(args.input), references, names or ("exact_match", "token_f1"))
    except (OSError, ValueError, TypeError) as exc:
        raise CLIError(one_line(exc)) from None


def _inventory(args: argparse.Namespace) -> dict[str, Any]:
    """What the traces hold and lack, without judgments."""
    from ..traces import evaluate_traces, read_traces
    try:
        result = evaluate_traces(read_traces(args.input), {}, ["mrr"])
    except (OSError, ValueError, TypeError) as exc:
        raise CLIError(one_line(exc)) from None
    return {"counts": result.counts, "missing": result.missing}


def render_traces(result: Any, fmt: str, by: str, n_bootstrap: int, answers: Any = None) -> str:
    """The step report, its groups, the turn report, the answers report (when given), the counts and what the
    traces lacked, in ``fmt``."""
    from ..reports import evaluation_to_dict, render_evaluation, render_groups
    sections = [("steps", "retrieval steps", result.steps, True), ("turns", "turns", result.turns, False)]
    if answers is not None:
        sections.append(("answers", "answers", answers, True))
    data: dict[str, Any] = {"counts": result.counts, "missing": result.missing}
    parts = []
    for name, title, report, grouped_too in sections:
        field = "turn" if by == "step" and name == "answers" else by  # an answer is a turn's, of no step
        grouped = report.by(field, n_bootstrap=n_bootstrap) if grouped_too and report.query_ids else None
        if fmt == "json":
            data[name] = evaluation_to_dict(report, per_query=True)
            if grouped is not None:
                data[name]["groups"] = grouped.to_dict()
            continue
        parts.append(render_evaluation(report, fmt, run_name=title))
        if grouped is not None:
            parts.append(render_groups(grouped, fmt))
    if fmt == "json":
        data["groups"] = data["steps"].get("groups")  # the step groups, also at the top (as --group-by reads)
        return json.dumps(data, indent=2, default=str) + "\n"
    if fmt != "csv":
        parts.append(_summary_text(result.counts, result.missing))
    return "\n".join(parts)


def _summary_text(counts: dict[str, int], missing: dict[str, int]) -> str:
    lines = ["read: " + ", ".join(f"{k} {v}" for k, v in counts.items())]
    if missing:
        lines.append("the traces lack: " + ", ".join(f"{k} ({v})" for k, v in missing.items()))
    return "\n".join(lines) + "\n"


def cmd_traces(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``rag-eval traces``."""
    named = [(path, option) for path, option in ((args.input, "--input"), (args.qrels, "--qrels"),
                                                  (args.references, "--references")) if path]
    check_inputs(named)
    check_outputs([path for path, _ in named], output=args.output)
    if args.references and not args.qrels:
        raise CLIError("--references needs --qrels (the answers are reported beside the retrieval steps)")
    if args.bootstrap < 1:
        raise CLIError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    fmt = output_format(args.format, args.output)
    metrics = read_metric_options(args)
    if args.qrels is None:
        summary = _inventory(args)
        text = json.dumps(summary, indent=2) + "\n" if fmt == "json" else \
            _summary_text(summary["counts"], summary["missing"])
    else:
        answers = _answers(args) if args.references else None
        text = render_traces(_evaluate(args, metrics), fmt, args.by, args.bootstrap, answers)
    emit(text, args.output, stdout, stderr)
    return 0
