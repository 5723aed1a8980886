"""LLM-judged faithfulness, correctness and context relevance of answers.

Judge RAG answers with an LLM on any OpenAI-compatible server. Input: JSONL, one line per answer: {question, answer,
contexts (strings or {chunk_id, text}), reference (optional), query_id (optional), ...other fields for --group-by}.
Every answer gets a score or an unmeasured result with its reason; replies are cached, so a re-run (or a run resumed
after Ctrl-C) pays nothing twice.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Any, TextIO

from ._budget import add_budget_options, print_estimate
from ._errors import CLIError, one_line
from ._io import add_cache_options, cache_file, cache_output, check_count, check_inputs, check_outputs, output_format
from ._models import add_judge_options, judge_llm
from ._output import FORMATS, emit, emit_page, with_groups
from ._progress import progress_enabled

DEFAULT_JUDGE_METRICS = ("faithfulness",)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval judge``."""
    p.add_argument("--input", "-i", required=True, metavar="FILE", help="the answers (JSONL)")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="faithfulness, answer_correctness (_precision, _recall), context_relevance (repeatable or "
                        "comma-separated; default faithfulness)")
    add_judge_options(p, required=True, model_help="the judge model, e.g. gpt-4o-mini")
    p.add_argument("--answer-model", metavar="M", help="the model that wrote the answers (warns when it is the judge)")
    add_cache_options(p, what="the judge's replies, in DIR/judge.sqlite", no_cache=True,
                      default="INPUT.judge-cache.sqlite beside the input")
    p.add_argument("--max-concurrency", type=int, default=8, metavar="N", help="calls in flight (default 8)")
    p.add_argument("--max-per-second", type=float, metavar="R", help="start at most R calls per second")
    p.add_argument("--max-retries", type=int, default=4, metavar="N", help="retries of 429/5xx/timeouts (default 4)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per call (default 120)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="sent where the server takes a seed (default 0)")
    p.add_argument("--structured", choices=("auto", "json_schema", "prompt"), default="auto",
                   help="structured output: the API's JSON schema when possible (auto), always, or the prompt only")
    p.add_argument("--price-input", type=float, metavar="P", help="price per million input tokens (for the cost)")
    p.add_argument("--price-output", type=float, default=0.0, metavar="P", help="price per million output tokens")
    p.add_argument("--dry-run", action="store_true", help="estimate calls, tokens (and cost) without calling")
    p.add_argument("--group-by", metavar="FIELD", help="also show means, counts and 95%% CIs per value of FIELD")
    p.add_argument("--per-query", action="store_true", help="also list every answer, worst first")
    p.add_argument("--details", metavar="FILE.jsonl",
                   help="write every answer's judgments (claims, verdicts, quotes, reasons) to a JSONL file")
    p.add_argument("--format", choices=FORMATS, help="output format (default: by the --output extension, else table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    p.set_defaults(func=cmd_judge)
    add_budget_options(p)  # --max-cost, --max-calls: after func, which it runs under the limits


def _records(path: str) -> list[dict[str, Any]]:
    """The answers of a JSONL file (``query_id`` defaults to the line number); errors name ``file:line``, and two
    lines whose ids are equal as text (``1`` and ``"1"``, or an id and another line's number) are refused."""
    from ..answers import read_records
    from ..jsonl import read_jsonl_objects

    try:
        lines = list(read_jsonl_objects(path))
        records = [{"query_id": str(number), **obj} for number, obj in lines]
        read_records(records, labels=[f"{path}:{number}" for number, _ in lines])  # ids colliding as text refused
    except (ValueError, UnicodeDecodeError) as exc:
        raise CLIError(one_line(str(exc))) from None
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not records:
        raise CLIError(f"{path}: no answers in the file")
    return records


def _judge(args: argparse.Namespace, stderr: TextIO) -> Any:
    from ..judges import LLMJudge
    from ..modelcalls import Prices

    llm = judge_llm(args.judge_model, args.judge_base_url, args.judge_api_key_env, require_key=not args.dry_run,
                    timeout=args.timeout)
    prices = Prices(args.price_input, args.price_output) if args.price_input is not None else None
    cache = cache_file(args, "judge.sqlite", _default_cache(args))
    return LLMJudge(llm, cache=cache, max_concurrency=args.max_concurrency, max_per_second=args.max_per_second,
                    max_retries=args.max_retries, timeout=args.timeout, prices=prices, seed=args.seed,
                    structured=args.structured, progress=progress_enabled(stderr))


def _default_cache(args: argparse.Namespace) -> str:
    """The judge's cache without ``--cache-dir``: beside the input (``INPUT.judge-cache.sqlite``)."""
    return f"{args.input}.judge-cache.sqlite"


def cmd_judge(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..judges import judge_answers

    check_count(args.max_concurrency, "--max-concurrency")
    check_count(args.max_retries, "--max-retries", minimum=0)
    check_inputs([(args.input, "input")])
    check_outputs([args.input], output=args.output, details=args.details,
                  **cache_output(args, "judge.sqlite", _default_cache(args)))
    args.format = output_format(args.format, args.output)
    metrics = [n.strip() for item in (args.metric or DEFAULT_JUDGE_METRICS) for n in item.split(",") if n.strip()]
    records = _records(args.input)
    judge = _judge(args, stderr)
    if args.dry_run:
        return _dry_run(judge, metrics, records, args, stdout, stderr)
    with contextlib.suppress(TypeError, ValueError):  # a bad metric or record: judge_answers says which
        print_estimate(f"judge {judge.name}", _estimates(judge, metrics, records)[1], stderr)
    report = judge_answers(records, metrics, judge, answer_model=args.answer_model)
    grouped = None
    if args.group_by:
        if not any(args.group_by in a for a in report.attributes.values()):
            raise CLIError(f"--group-by {args.group_by}: no record has that field")
        grouped = report.by(args.group_by)
    if args.details:
        _write_details(report, args.details, stderr)
    if args.format == "html":
        from ..reports import report_page

        emit_page(report_page({"judge": report}, title=f"rag-eval judge: {Path(args.input).name}", records=records,
                              group_by=args.group_by or "query_type"), args.output, stdout, stderr)
    else:
        _render(report, grouped, args, stdout, stderr)
    usage = judge.usage
    print(f"rag-eval: judge {judge.name}: {usage.calls} calls, {usage.cache_hits} from the cache, {usage.retries} "
          f"retries, {usage.input_tokens} input and {usage.output_tokens} output tokens"
          + (f", cost {usage.cost:.4f}" if usage.cost is not None else ""), file=stderr)
    return 0


def _estimates(judge: Any, metrics: list[str], records: list[dict]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The dry-run estimate of judging ``records`` for ``metrics``: ``(by judge metric, total)``."""
    from ..answers import read_records
    from ..judges import JUDGED_ANSWER_METRICS

    kinds = list(dict.fromkeys(JUDGED_ANSWER_METRICS[m][0] if m in JUDGED_ANSWER_METRICS else m for m in metrics))
    read = [r for _, _, r in read_records(records) if not isinstance(r, str)]  # the one reader of answer records
    estimates = {}
    for kind in kinds:
        items: list[dict[str, Any]]
        if kind == "relevance":
            items = [{"query": r.question or "", "passage": text} for r in read for _, text in r.contexts]
        else:
            items = [{"question": r.question, "answer": r.prediction or "", "contexts": dict(r.contexts),
                      "reference": r.references[0] if r.references else ""} for r in read]
        estimates[kind] = judge.dry_run(kind, items)
    total = {k: sum(e[k] for e in estimates.values()) for k in ("calls", "cached_calls", "estimated_input_tokens",
                                                                  "estimated_output_tokens")}
    costs = [e["estimated_cost"] for e in estimates.values()]
    total["estimated_cost"] = sum(costs) if all(c is not None for c in costs) else None
    return estimates, total


def _dry_run(judge: Any, metrics: list[str], records: list[dict], args: argparse.Namespace, stdout: TextIO,
             stderr: TextIO) -> int:
    estimates, total = _estimates(judge, metrics, records)
    emit(json.dumps({"dry_run": True, "judge": judge.describe(args.answer_model), "by_metric": estimates,
                      "total": total}, indent=2) + "\n", args.output, stdout, stderr)
    return 0


def _write_details(report: Any, path: str, stderr: TextIO) -> None:
    judgments = report.info.get("judgments", {})
    try:
        with open(path, "w", encoding="utf-8") as handle:
            for qid in report.query_ids:
                line = {"query_id": qid, **{kind: results.get(str(qid)) for kind, results in judgments.items()}}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"rag-eval: wrote {path}", file=stderr)


def _render(report: Any, grouped: Any, args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> None:
    from ..reports import render_evaluation

    light = report.with_attributes({})
    light.info = {k: v for k, v in report.info.items() if k != "judgments"}  # the details go to --details
    text = render_evaluation(light, args.format, per_query=args.per_query, sort_by=report.keys[0],
                             run_name=Path(args.input).name if args.format == "markdown" else None)
    emit(with_groups(text, grouped, args.format), args.output, stdout, stderr)
