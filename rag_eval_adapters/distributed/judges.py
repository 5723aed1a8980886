"""LLM judges over a Ray Dataset: :func:`judge_answers_ray`.

A pool of Ray actors each builds its judge once (``judge_factory()``) and judges batches of records with
:func:`rag_eval_adapters.judges.judge_answers`; every call of every actor passes one shared rate limit (a small
Ray actor handing out start times), so the pool as a whole keeps to the provider's requests per second, while
each actor keeps its judge's own bound on concurrent calls. With an SQLite ``cache`` on a shared file system a
re-run, or a run resumed after a failure, pays for nothing twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .rate import RateGate, SharedRateLimiter  # where they live now; kept importable from here

__all__ = ["judge_answers_ray", "JudgeBatch", "RateGate", "SharedRateLimiter"]


class JudgeBatch:
    """Judges a batch of records (a pandas DataFrame): the answers' one Ray scorer,
    :class:`~rag_eval_adapters.distributed.AnswerScorer`, with judged metrics and a judge factory only.

    Calling it returns one row per record: ``query_id``, and for each metric its value (``<metric>``, NaN when
    unmeasured) and ``<metric>:unmeasured`` (the reason, or None); ``calls``, ``cache_hits``, ``input_tokens``,
    ``output_tokens`` (this batch's usage, on its first row).
    """

    def __new__(cls, metrics: list[str], judge_factory: Callable[[], Any], gate: Any = None) -> Any:  # noqa: D102
        from .answers import AnswerScorer

        return AnswerScorer(metrics, None, None, judge_factory, gate)


def judge_answers_ray(
    records: Any,
    metrics: Any = ("faithfulness",),
    judge_factory: Callable[[], Any] | None = None,
    *,
    concurrency: int = 2,
    batch_size: int = 32,
    max_per_second: float | None = None,
    num_cpus: float = 1,
):
    """Judge answers on Ray with a pool of actors under one shared rate limit.

    Parameters
    ----------
    records : ray.data.Dataset, pandas DataFrame or list of mappings
        One row per answer, as for :func:`rag_eval_adapters.judges.judge_answers` (``query_id``, ``question``,
        ``answer``, ``contexts``, ``reference``...). Query ids must be unique.
    metrics : str or sequence of str
        Judged metric names (``faithfulness``, ``answer_correctness``, ``context_relevance``...).
    judge_factory : callable
        A picklable function with no arguments that builds the
        :class:`~rag_eval_adapters.judges.LLMJudge` (its model, cache path, per-actor concurrency); it runs once
        per actor. Give the judge an SQLite cache on a shared path to pay once across runs.
    concurrency : int
        The number of actors.
    batch_size : int
        Records per call of an actor (its judge runs them concurrently, within its ``max_concurrency``).
    max_per_second : float, optional
        One start-rate limit for the calls of all actors together.
    num_cpus : float
        Resources of each actor.

    Raises
    ------
    ValueError
        A repeated query id (or two equal as text), before any call is paid; no record that could be judged.

    Returns
    -------
    Report
        As :func:`~rag_eval_adapters.judges.judge_answers`'s (unmeasured cells with reasons, ``info["judge"]``
        and the summed ``info["usage"]``), without the per-item judgments.
    """
    from ..answers import parse_answer_metrics
    from ..judges import JUDGED_ANSWER_METRICS, LLMJudge, is_judged_metric
    from ..report import Report
    from .answers import run_answers

    names = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    unknown = [m for m in names if not is_judged_metric(m)]
    if unknown or not names:
        raise ValueError(f"judged metrics are {', '.join(JUDGED_ANSWER_METRICS)}; got {unknown or names}")
    if not callable(judge_factory):
        raise TypeError("judge_factory must be a function that builds an LLMJudge, e.g. "
                        "functools.partial(make_judge, model, base_url)")
    measures = parse_answer_metrics(names)
    rows = run_answers(records, measures, None, judge_factory, max_per_second=max_per_second,
                       concurrency=concurrency, batch_size=batch_size, num_cpus=num_cpus, materialize=False)
    if not len(rows):
        raise ValueError("no records: give at least one {answer, contexts} record")
    errors = {q: e for q, e in zip(rows["query_id"], rows["error"], strict=True) if isinstance(e, str)}
    counts = {"queries": len(rows), "scored": int(rows["scored"].sum()), "errors": len(errors)}
    rows = rows[rows["scored"].to_numpy(dtype=bool)]
    if not len(rows):
        raise ValueError(f"no answer could be scored; {len(errors)} errors, the first: {next(iter(errors.values()))}")
    ids = rows["query_id"].tolist()
    keys = [m.key for m in measures]
    unmeasured = {k: {q: r for q, r in zip(ids, rows[f"{k}:unmeasured"], strict=True) if isinstance(r, str)}
                  for k in keys}
    usage = {name: int(rows[name].sum()) for name in ("calls", "cache_hits", "retries", "input_tokens",
                                                       "output_tokens")}
    abstained = [q for q, a in zip(ids, rows["abstained"], strict=True) if a]
    judge = judge_factory()
    info = {"judge": judge.describe() if isinstance(judge, LLMJudge) else {}, "usage": usage,
            "abstained": {"count": len(abstained), "rate": len(abstained) / len(ids), "query_ids": abstained}}
    return Report(measures, ids, rows[keys].fillna(0.0).to_numpy(dtype=float), errors, counts, relevance_level=None,
                  unmeasured={k: v for k, v in unmeasured.items() if v}, info=info)
