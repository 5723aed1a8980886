"""Score generated answers against reference answers.

Score generated answers (JSONL: query_id, prediction) against reference answers (JSONL: query_id, reference or
references) with exact match, token F1, ROUGE-L and semantic similarity. Other fields of the lines (e.g. query_type)
can group the results.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ._budget import add_budget_options, announce_judging
from ._errors import CLIError, one_line
from ._intervals import add_interval_options, intervals_from_args
from ._io import (
    add_cache_options,
    cache_file,
    cache_output,
    check_count,
    check_inputs,
    check_outputs,
    fail_on_errors,
    output_format,
)
from ._models import add_embedder_options, add_judge_options, embedder_from_args, judge_llm
from ._output import FORMATS, check_plot_path, emit, emit_page, plot, print_rich, with_groups
from ._progress import is_tty, progress_enabled

DEFAULT_ANSWER_METRICS = ("exact_match", "token_f1", "rouge_l")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval answers``."""
    p.add_argument("--predictions", required=True, metavar="FILE",
                   help="JSONL, one line per query: {query_id, prediction}; with both prediction and "
                        "reference(s) on each line --references may be left out")
    p.add_argument("--references", metavar="FILE",
                   help="JSONL, one line per query: {query_id, reference | references, ...other fields}")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="exact_match (em), token_f1, token_precision, token_recall, rouge_l (_precision, _recall), "
                        "rouge_l_stem, semantic_similarity, and judged: faithfulness, answer_correctness "
                        "(_precision, _recall), context_relevance, with --judge-model (repeatable or "
                        "comma-separated; default exact_match, token_f1, rouge_l); f1, precision and recall are "
                        "retrieval metrics, not answer metrics")
    add_embedder_options(p, what="semantic_similarity")
    add_judge_options(p, model_help="the judge of the judged metrics (faithfulness...), e.g. gpt-4o-mini; its "
                                    "replies are cached in PREDICTIONS.judge-cache.sqlite")
    add_cache_options(p, what="the embeddings of semantic_similarity, in DIR/embeddings.sqlite",
                      default="the shared cache folder: $RAG_EVAL_CACHE_DIR, else $XDG_CACHE_HOME/rag-eval-adapters, "
                              "else ~/.cache/rag-eval-adapters")
    p.add_argument("--group-by", metavar="FIELD", help="also show means, counts and 95%% CIs per value of FIELD")
    p.add_argument("--per-query", action="store_true", help="also list every answer, worst first")
    p.add_argument("--sort-by", metavar="METRIC", help="metric that orders --per-query (default the first)")
    p.add_argument("--limit", type=int, metavar="N", help="list only the N worst answers")
    p.add_argument("--format", choices=FORMATS, help="output format (default: by the --output extension .json, .csv, .md or .html, else "
                                                          "table); html: one self-contained page (report.html)")
    p.add_argument("--allow-errors", action="store_true",
                   help="exit 0 even when some answers could not be scored (their errors are in the report)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the means (per group with --group-by) into a PNG")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    add_interval_options(p)
    p.set_defaults(func=cmd_answers)
    add_budget_options(p)  # --max-cost, --max-calls: after func, which it runs under the limits


def _metrics(names: list[str] | None) -> list[Any]:
    from ..answers import parse_answer_metrics

    items = [n.strip() for item in (names or DEFAULT_ANSWER_METRICS) for n in item.split(",") if n.strip()]
    try:
        return parse_answer_metrics(items)
    except (TypeError, ValueError) as exc:
        raise CLIError(one_line(str(exc))) from None


def _judge(metrics: list[Any], args: argparse.Namespace, stderr: TextIO) -> Any:
    """The LLM judge of the judged metrics (None when none is asked for); its replies cached beside the input."""
    judged = [m.key for m in metrics if m.needs_judge]
    if not judged:
        return None
    if not args.judge_model:
        raise CLIError(f"{', '.join(judged)} need a judge: give --judge-model (and --judge-base-url for a local "
                       "server)")
    from ..judges import LLMJudge

    llm = judge_llm(args.judge_model, args.judge_base_url, getattr(args, "judge_api_key_env", None))
    judge = LLMJudge(llm, cache=f"{args.predictions}.judge-cache.sqlite", progress=progress_enabled(stderr))
    return announce_judging(judge)  # each judged batch says its calls, tokens and cost before it is sent


def _load(args: argparse.Namespace) -> tuple[list[dict], int]:
    from ..answers.records import join_answer_records

    try:
        return join_answer_records(args.predictions, args.references)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CLIError(one_line(str(exc))) from None
    except OSError as exc:
        raise CLIError(f"cannot read {exc.filename}: {exc.strerror or exc}") from None


def cmd_answers(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..answers import evaluate_answers
    from ..cachedir import default_cache_dir

    check_plot_path(args.plot)
    check_count(args.limit, "--limit")
    inputs = [(args.predictions, "predictions")] + ([(args.references, "references")] if args.references else [])
    inputs += [(args.human_labels, "human labels")] if args.human_labels else []
    check_inputs(inputs)
    cache_default = default_cache_dir() / "embeddings.sqlite"
    check_outputs([path for path, _ in inputs], output=args.output, plot=args.plot,
                  **cache_output(args, "embeddings.sqlite", cache_default))
    args.format = output_format(args.format, args.output)
    metrics = _metrics(args.metric)
    records, unmatched = _load(args)
    embedder = embedder_from_args(args.embedder, args.base_url) if any(m.needs_embedder for m in metrics) else None
    judge = _judge(metrics, args, stderr)
    try:
        report = evaluate_answers(records, metrics, embedder, cache=cache_file(args, "embeddings.sqlite", cache_default),
                                  progress=progress_enabled(stderr), judge=judge)
    except (TypeError, ValueError) as exc:
        raise CLIError(one_line(str(exc))) from None
    if unmatched:
        report.counts["predictions_without_reference"] = unmatched
    if args.sort_by is not None and args.sort_by not in report.keys:
        raise CLIError(f"--sort-by {args.sort_by}: not among the computed metrics ({', '.join(report.keys)})")
    grouped = None
    if args.group_by:
        if not any(args.group_by in a for a in report.attributes.values()):
            raise CLIError(f"--group-by {args.group_by}: no record has that field")
        try:
            grouped = report.by(args.group_by)
        except (TypeError, ValueError) as exc:  # a group named "all", or one that is not hashable
            raise CLIError(f"--group-by {args.group_by}: {one_line(str(exc))}") from None
    if args.format == "html":
        from ..reports import report_page

        emit_page(report_page({"answers": report}, title=f"rag-eval answers: {Path(args.predictions).name}",
                              records=records, group_by=args.group_by or "query_type",
                              summary=[f"{report.counts}"]), args.output, stdout, stderr)
    else:
        _render(report, grouped, args, stdout, stderr)
    if args.plot:
        means = {str(g.group): dict(g.mean) for g in grouped.rows if g.mean} if grouped else {
            Path(args.predictions).name: dict(report.mean)}
        plot(means, args.plot, stderr, title="Answer metrics")
    fail_on_errors({"answers": report}, args.allow_errors)
    return 0


def _render(report: Any, grouped: Any, args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    from ..reports import evaluation_tables, render_evaluation, render_groups

    options = dict(per_query=args.per_query, sort_by=args.sort_by or report.keys[0], limit=args.limit,
                   intervals=intervals_from_args(report, args))
    if args.format == "table" and not args.output and is_tty(stdout):
        tables = evaluation_tables(report, title="Answers: mean over queries", **options)
        print_rich(tables, stdout)
        if grouped is not None:
            stdout.write(render_groups(grouped, "table"))
        return
    emit(with_groups(render_evaluation(report, args.format, **options), grouped, args.format), args.output, stdout,
         stderr)
