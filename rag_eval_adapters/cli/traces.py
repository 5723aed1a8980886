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
from ._metrics import relevance_level, resolve_metrics
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
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="a retrieval metric (repeatable or comma-separated; default: evaluate's)")
    p.add_argument("--k", metavar="K[,K...]", help="cutoffs for the metrics named without one")
    p.add_argument("--relevance-level", default="1", metavar="N", help="the lowest relevant grade (default 1)")
    p.add_argument("--by", choices=("turn", "thread_id", "step"), default="turn",
                   help="group the step scores by this field (default turn: the means by turn position)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples of each group's interval")
    p.add_argument("--format", choices=("table", "json", "markdown", "csv"),
                   help="output format (default: by the --output extension, else table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE instead of stdout")
    p.set_defaults(func=cmd_traces)


def _evaluate(args: argparse.Namespace) -> Any:
    from ..traces import evaluate_traces, read_trace_qrels, read_traces
    from ._metrics import parse_ks
    names = [n.strip() for item in args.metric or [] for n in item.split(",") if n.strip()] or None
    metrics = resolve_metrics(names, parse_ks(args.k))
    try:
        qrels = read_trace_qrels(args.qrels)
        return evaluate_traces(read_traces(args.input), qrels, metrics,
                               relevance_level=relevance_level(args.relevance_level))
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


def render_traces(result: Any, fmt: str, by: str, n_bootstrap: int) -> str:
    """The step report, its groups, the turn report, the counts and what the traces lacked, in ``fmt``."""
    from ..reports import evaluation_to_dict, render_evaluation, render_groups
    grouped = result.steps.by(by, n_bootstrap=n_bootstrap) if result.steps.query_ids else None
    if fmt == "json":
        data = {"steps": evaluation_to_dict(result.steps, per_query=True),
                "turns": evaluation_to_dict(result.turns, per_query=True),
                "counts": result.counts, "missing": result.missing}
        if grouped is not None:
            data["groups"] = grouped.to_dict()
        return json.dumps(data, indent=2, default=str) + "\n"
    parts = [render_evaluation(result.steps, fmt, run_name="retrieval steps")]
    if grouped is not None:
        parts.append(render_groups(grouped, fmt))
    parts.append(render_evaluation(result.turns, fmt, run_name="turns"))
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
    check_inputs([(args.input, "--input")] + ([(args.qrels, "--qrels")] if args.qrels else []))
    check_outputs([args.input] + ([args.qrels] if args.qrels else []), output=args.output)
    if args.bootstrap < 1:
        raise CLIError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    fmt = output_format(args.format, args.output)
    if args.qrels is None:
        summary = _inventory(args)
        text = json.dumps(summary, indent=2) + "\n" if fmt == "json" else \
            _summary_text(summary["counts"], summary["missing"])
    else:
        text = render_traces(_evaluate(args), fmt, args.by, args.bootstrap)
    emit(text, args.output, stdout, stderr)
    return 0
