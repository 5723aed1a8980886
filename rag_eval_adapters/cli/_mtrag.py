"""``rag-eval meta-eval --builtin mtrag``: scorers of MTRAG's 477 rated answers against the mean human ratings.

The answer metrics (``-m``, default ``grounding_lexical``) read each answer's passages, reference and
conversation; a judged ``-m METRIC`` adds an LLM judge (``faithfulness`` against the passages...) through the same
records; the benchmark's own scores and the annotators' agreement are rows beside them.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._budget import announce_judging
from ._errors import CLIError, one_line
from ._io import cache_file, check_count
from ._models import embedder_from_args, judge_llm
from ._output import emit

__all__ = ["run_mtrag", "MTRAG_METRICS", "MTRAG_NOTE"]

MTRAG_METRICS = ("grounding_lexical",)
"""The answer metrics measured when ``-m`` is not given."""
MTRAG_NOTE = ("Each scorer's score of an answer against the mean of its 2-3 human ratings (1-4; win_rate 0-100); "
              "the ceiling row is one person's rating against the mean of the others', the Spearman-Brown row the "
              "reliability of the mean of three ratings (what a scorer can reach). 'benchmark:' rows are the "
              "scores shipped with MTRAG; the baseline is the answer's length in words.")


def _names(items: list[str] | None, default: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(n.strip() for item in (items or default) for n in item.split(",") if n.strip()))


def _scorers(args: argparse.Namespace) -> dict[str, Any]:
    """``{row name: scorer}`` of every ``-m`` metric, judged ones included (in ``args.judge``)."""
    from ..agreement.mtrag import mtrag_judge_scorer, mtrag_metric_scorer
    from ..answers import parse_answer_metrics
    from ..judges import LLMJudge, is_judged_metric

    try:
        metrics = parse_answer_metrics(_names(args.metric, MTRAG_METRICS))
    except (TypeError, ValueError) as exc:
        raise CLIError(one_line(str(exc))) from None
    embedder = embedder_from_args(args.embedder, args.base_url) if any(m.needs_embedder for m in metrics) else None
    scorers: dict[str, Any] = {m.key: mtrag_metric_scorer(m, embedder) for m in metrics}
    if args.judge:
        judged = _names(args.judge, ())
        bad = [n for n in judged if not is_judged_metric(n)]
        if bad:
            raise CLIError(f"--judge {bad[0]}: not a judged metric; e.g. faithfulness, answer_correctness")
        if not args.judge_model:
            raise CLIError(f"-m {judged[0]} is judged by an LLM: give --judge-model (and --judge-base-url for a local "
                           "server)")
        cache = cache_file(args, "judge.sqlite", "mtrag.judge-cache.sqlite")
        judge = announce_judging(LLMJudge(judge_llm(args.judge_model, args.judge_base_url, args.judge_api_key_env),
                                          cache=cache))  # says each batch's cost before it is sent
        scorers.update({f"{n} (judge {judge.name})": mtrag_judge_scorer(judge, n) for n in judged})
        args.mtrag_judge = judge
    return scorers


def run_mtrag(args: argparse.Namespace, fmt: str, statistics: list[str], stdout: TextIO, stderr: TextIO) -> int:
    """Run the MTRAG meta-evaluation the options ask for and write it; 0 on success."""
    from ..agreement.mtrag import MTRAG_LABELS, load_mtrag, meta_evaluate_mtrag
    from ..agreement.render import NOTE, render_meta_evaluation
    from ..modelcalls import CacheError, ModelCallError

    labels = _names(args.label, ("faithfulness",))
    labels = [k.replace("-", "_") for k in labels]
    unknown = [k for k in labels if k not in MTRAG_LABELS]
    if unknown:
        raise CLIError(f"--label {unknown[0]}: MTRAG's labels are {', '.join(MTRAG_LABELS)}")
    answers = load_mtrag()
    if args.limit is not None:
        check_count(args.limit, "--limit", minimum=1)
        tasks = list(dict.fromkeys(a.task.task_id for a in answers))[:args.limit]
        answers = [a for a in answers if a.task.task_id in set(tasks)]
    scorers = _scorers(args)
    try:
        result = meta_evaluate_mtrag(answers, scorers, labels=labels, group_by=args.group_by or "passages",
                                     baselines=not args.no_baselines, n_bootstrap=args.bootstrap,
                                     confidence=args.confidence, seed=args.seed, source="mtrag")
    except (TypeError, ValueError) as exc:
        raise CLIError(one_line(str(exc))) from None
    except (ModelCallError, CacheError) as exc:  # a configuration error every call would repeat (401, 404...)
        raise CLIError(f"the judge: {one_line(str(exc))}") from None
    text = render_meta_evaluation(result, fmt, statistics)
    emit(text.replace(NOTE, MTRAG_NOTE).replace(" questions", " answers"), args.output, stdout, stderr)
    judge = getattr(args, "mtrag_judge", None)
    if judge is not None:
        usage = judge.usage
        print(f"rag-eval: judge {judge.name}: {usage.calls} calls, {usage.cache_hits} from the cache, "
              f"{usage.input_tokens} input and {usage.output_tokens} output tokens", file=stderr)
    return 0
