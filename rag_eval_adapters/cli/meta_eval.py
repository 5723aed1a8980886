"""Measure how far answer scorers agree with human labels.

Score both answers of every human-judged pair with each scorer and set the difference (answer 2 - answer 1) against
the people's preferences: Pearson, Spearman, Kendall tau-b, accuracy and kappa on the preference's sign, each with a
bootstrap interval over questions, overall and by domain; beside the baselines (answer length, overlap with the
reference) and the annotator-vs-annotator ceiling.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._budget import add_budget_options, announce_judging
from ._errors import CLIError, one_line
from ._io import (
    add_cache_options,
    cache_file,
    cache_output,
    check_confidence,
    check_count,
    check_inputs,
    check_outputs,
    output_format,
)
from ._models import add_embedder_options, add_judge_options, embedder_from_args, judge_llm
from ._output import emit
from ._vocabulary import add_deprecated

BUILTINS = ("ragchecker", "mtrag")
DEFAULT_METRICS = ("token_f1",)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``rag-eval meta-eval``."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--builtin", choices=BUILTINS,
                        help="a labelled set shipped with the package: ragchecker (RAGChecker's 560 human "
                             "labels on 280 answer pairs, Apache-2.0) or mtrag (MTRAG's 477 multi-turn answers "
                             "with their passages, each rated by 2-3 people; Apache-2.0: the scorers read the "
                             "passages, default grounding_lexical, against the mean rating)")
    source.add_argument("--data", metavar="FILE",
                        help="pairwise judgements in RAGChecker's layout (a JSON list of rows with instance_id, "
                             "dataset, query, gt_answer, model1, model2 and <label>_label on -2..2)")
    source.add_argument("--scores", metavar="FILE",
                        help="any scorer's values already computed, JSONL {query_id, <scorer>: value, ...} "
                             "(a judge, an answer or retrieval metric), against --human-labels")
    p.add_argument("--human-labels", dest="labels", metavar="FILE",
                   help="with --scores: human labels, JSONL {query_id, <label>: value, ...}; text fields (e.g. "
                        "domain) can group the results with --group-by")
    add_deprecated(p, "--labels", "--human-labels", dest="labels", metavar="FILE")
    p.add_argument("--kind", choices=("pointwise", "pairwise"), default="pointwise",
                   help="with --scores: pointwise grades (default) or pairwise preferences on -2..2 (the scores "
                        "are then each scorer's difference, answer 2 - answer 1)")
    p.add_argument("--group-by", metavar="FIELD",
                   help="with --scores: also the statistics per value of FIELD; with --builtin mtrag: passages "
                        "(default), domain, turn, answerability, model, question_type or multi_turn")
    p.add_argument("-m", "--metric", action="append", metavar="METRIC",
                   help="an answer metric to measure: exact_match, token_f1, rouge_l, semantic_similarity "
                        "(offline E5) or any name of `rag-eval answers` (repeatable or comma-separated; "
                        "default token_f1; grounding_lexical for --builtin mtrag); or a judged metric, measuring the LLM "
                        "judge of --judge-model as one more "
                        "scorer: answer_correctness (claim F1 against the reference answer; _precision, _recall its "
                        "parts). A question the judge cannot score (refusal, invalid output, failed call) is dropped "
                        "for it and counted")
    add_deprecated(p, "--judge", "-m/--metric", dest="judge", action="append", default=None, metavar="METRIC")
    add_judge_options(p, model_help="the judge model for a judged -m metric (a model name, or openai:MODEL)")
    add_cache_options(p, what="the judge's replies, in DIR/judge.sqlite (nothing paid for is lost; a re-run calls "
                              "nothing)", no_cache=True,
                      default="DATA.judge-cache.sqlite beside --data, ragchecker.judge-cache.sqlite in the current "
                              "folder for --builtin, mtrag.judge-cache.sqlite for --builtin mtrag")
    p.add_argument("--label", action="append", metavar="LABEL",
                   help="the human labels to test against (repeatable; default all: correctness, completeness, "
                        "overall; for --builtin mtrag: faithfulness (default), completeness, appropriateness, "
                        "naturalness, win_rate)")
    p.add_argument("--statistic", action="append", metavar="NAME",
                   help="statistics the table shows: pearson, spearman, kendall_tau_b, accuracy, kappa, "
                        "kappa_quadratic (repeatable; default pearson and spearman; JSON and CSV hold all)")
    p.add_argument("--limit", type=int, metavar="N",
                   help="with --builtin mtrag: only the answers of the first N tasks (three answers a task; a "
                        "cheaper judge run)")
    p.add_argument("--no-baselines", action="store_true", help="leave out answer length and reference overlap")
    add_embedder_options(p, what="semantic_similarity")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples of questions for each interval (default 1000)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C", help="interval coverage (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--format", choices=("table", "markdown", "csv", "json"),
                   help="output format (default: by the --output extension, else table)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE instead of stdout")
    p.set_defaults(func=cmd_meta_eval)
    add_budget_options(p)  # --max-cost, --max-calls: after func, which it runs under the limits


def _split_metrics(args: argparse.Namespace) -> None:
    """Move the judged names of ``-m`` (and of the deprecated ``--judge``) into ``args.judge``; ``args.metric``
    keeps the answer metrics (default token_f1, grounding_lexical for ``--builtin mtrag``; beside the judged
    ones too)."""
    from ..judges import is_judged_metric

    given = [n.strip() for item in (args.metric or ()) for n in item.split(",") if n.strip()]
    judged = [n.strip() for item in (args.judge or ()) for n in item.split(",") if n.strip()]
    judged += [n for n in given if is_judged_metric(n)]
    args.judge = list(dict.fromkeys(judged)) or None
    default = ("grounding_lexical",) if getattr(args, "builtin", None) == "mtrag" else DEFAULT_METRICS
    args.metric = [n for n in given if not is_judged_metric(n)] or list(default)


def _scorers(args: argparse.Namespace) -> dict[str, Any]:
    from ..agreement import AnswerScorer
    from ..answers import parse_answer_metrics
    names = list(args.metric or ())
    metrics = parse_answer_metrics(names)
    embedder = embedder_from_args(args.embedder, args.base_url) if any(m.needs_embedder for m in metrics) else None
    scorers: dict[str, Any] = {m.key: AnswerScorer(m, embedder) for m in metrics}
    if args.judge:
        scorers.update(_judges(args))
    return scorers


def _judge_cache(args: argparse.Namespace) -> str | None:
    """The SQLite file of the judge's replies (in ``--cache-dir``, else beside ``--data``, else in the current
    folder; the deprecated ``--cache FILE`` that file; none with ``--no-cache``)."""
    return cache_file(args, "judge.sqlite",
                      f"{args.data}.judge-cache.sqlite" if args.data else f"{args.builtin}.judge-cache.sqlite")


def _judges(args: argparse.Namespace) -> dict[str, Any]:
    """``{name: JudgeScorer}`` of every ``--judge METRIC``, on one judge (``--judge-model``) and its cache."""
    from ..agreement import JudgeScorer
    from ..judges import LLMJudge

    names = list(args.judge)
    if not args.judge_model:
        raise CLIError(f"-m {names[0]} is judged by an LLM: give --judge-model (and --judge-base-url for a local "
                       "server)")
    judge = announce_judging(LLMJudge(judge_llm(args.judge_model, args.judge_base_url, args.judge_api_key_env),
                                      cache=_judge_cache(args)))  # says each batch's cost before it is sent
    try:
        scorers = [JudgeScorer(judge, name) for name in names]
    except ValueError as exc:
        raise CLIError(f"-m: {one_line(str(exc))}") from None
    return {s.name: s for s in scorers}


def cmd_meta_eval(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..agreement import STATISTICS, load_ragchecker, meta_evaluate
    from ..agreement.render import render_meta_evaluation
    from ..modelcalls import CacheError, ModelCallError

    check_count(args.bootstrap, "--bootstrap", maximum=1_000_000)
    check_confidence(args.confidence)
    check_count(args.seed, "--seed", minimum=0)
    statistics = [s.strip() for item in (args.statistic or ("pearson", "spearman")) for s in item.split(",")
                  if s.strip()]
    unknown = [s for s in statistics if s not in STATISTICS]
    if unknown or not statistics:
        raise CLIError(f"--statistic {unknown[0] if unknown else ''}: choose from {', '.join(STATISTICS)}")
    if args.scores and not args.labels:
        raise CLIError("--scores needs --human-labels FILE (the human labels to measure the scores against)")
    if not args.scores and (args.labels or (args.group_by and args.builtin != "mtrag")):
        raise CLIError("--human-labels and --group-by go with --scores FILE (--group-by also with --builtin mtrag)")
    if args.limit is not None and args.builtin != "mtrag":
        raise CLIError("--limit goes with --builtin mtrag")
    inputs = [(args.data, "judgements")] if args.data else []
    inputs += [(args.scores, "scores"), (args.labels, "labels")] if args.scores else []
    check_inputs(inputs)
    _split_metrics(args)
    if not args.judge and (args.judge_model or args.judge_base_url or args.cache or args.cache_dir):
        raise CLIError("--judge-model, --judge-base-url and --cache-dir go with a judged metric (-m "
                       "answer_correctness: the judge to measure)")
    if args.judge and args.scores:
        raise CLIError(f"-m {args.judge[0]} judges answers: give --builtin or --data (with --scores the values are "
                       "given)")
    cache = cache_output(args, "judge.sqlite", _judge_cache(args)) if args.judge else {}
    check_outputs([p for p, _ in inputs], output=args.output, **cache)
    fmt = output_format(args.format, args.output)
    if fmt not in ("table", "markdown", "csv", "json"):
        raise CLIError(f"--output: meta-eval writes table, markdown, csv or json, not {fmt}")
    if args.scores:
        result = _scored(args)
        emit(render_meta_evaluation(result, fmt, statistics), args.output, stdout, stderr)
        return 0
    if args.builtin == "mtrag":
        from ._mtrag import run_mtrag

        return run_mtrag(args, fmt, statistics, stdout, stderr)
    scorers = _scorers(args)
    try:
        judgements = load_ragchecker(args.data) if args.data else load_ragchecker()
        labels = [s.strip() for item in args.label for s in item.split(",") if s.strip()] if args.label else None
        result = meta_evaluate(judgements, scorers, labels=labels, baselines=not args.no_baselines,
                               n_bootstrap=args.bootstrap, confidence=args.confidence, seed=args.seed,
                               source=args.builtin or args.data)
    except (ModelCallError, CacheError) as exc:  # a configuration error every call would repeat (401, 404...)
        raise CLIError(f"the judge: {one_line(str(exc))}") from None
    emit(render_meta_evaluation(result, fmt, statistics), args.output, stdout, stderr)
    judge = next((s.judge for s in scorers.values() if hasattr(s, "judge")), None)
    if judge is not None:
        usage = judge.usage
        print(f"rag-eval: judge {judge.name}: {usage.calls} calls, {usage.cache_hits} from the cache"
              + (f" ({_judge_cache(args)})" if _judge_cache(args) else ", no cache")
              + f", {usage.input_tokens} input and {usage.output_tokens} output tokens", file=stderr)
    return 0


def _read_rows(path: str, what: str) -> tuple[dict, dict]:
    """``({query_id: {field: number}}, {query_id: {field: text}})`` of a JSONL file (one line a query)."""
    from ..answers.records import read_jsonl_records

    numbers: dict = {}
    texts: dict = {}
    for qid, obj in read_jsonl_records(path, f"{what}s").items():
        numbers[qid] = {k: float(v) for k, v in obj.items() if k != "query_id" and isinstance(v, (int, float))
                        and not isinstance(v, bool)}
        texts[qid] = {k: v for k, v in obj.items() if isinstance(v, str) and k != "query_id"}
        if not numbers[qid]:
            raise ValueError(f"{path}: query {qid!r} has no numeric {what}")
    return numbers, texts


def _scored(args: argparse.Namespace) -> Any:
    from ..agreement import meta_evaluate_scores

    scores, _ = _read_rows(args.scores, "score")
    labels, texts = _read_rows(args.labels, "label")
    groups = None
    if args.group_by:
        groups = {q: t.get(args.group_by) for q, t in texts.items()}
        if all(g is None for g in groups.values()):
            raise ValueError(f"--group-by {args.group_by}: no line of {args.labels} has that text field")
    return meta_evaluate_scores(scores, labels, kind=args.kind, groups=groups, n_bootstrap=args.bootstrap,
                                confidence=args.confidence, seed=args.seed, source=args.labels)
