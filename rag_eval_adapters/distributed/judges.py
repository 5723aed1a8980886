"""LLM judges over a Ray Dataset: :func:`judge_answers_ray`.

A pool of Ray actors each builds its judge once (``judge_factory()``) and judges batches of records with
:func:`rag_eval_adapters.judges.judge_answers`; every call of every actor passes one shared rate limit (a small
Ray actor handing out start times), so the pool as a whole keeps to the provider's requests per second, while
each actor keeps its judge's own bound on concurrent calls. With an SQLite ``cache`` on a shared file system a
re-run, or a run resumed after a failure, pays for nothing twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..modelcalls import CallLimiter
from ..validation import check_count, check_positive

__all__ = ["judge_answers_ray", "JudgeBatch", "RateGate", "SharedRateLimiter"]


class RateGate:
    """Start times for calls at most ``per_second`` apart on average (a Ray actor shared by the judges)."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self.next_start = 0.0

    def reserve(self) -> float:
        """Seconds the caller waits before starting its call."""
        now = time.time()
        start = max(now, self.next_start)
        self.next_start = start + self.interval
        return start - now


class SharedRateLimiter(CallLimiter):
    """A :class:`~rag_eval_adapters.modelcalls.CallLimiter` whose starts are also paced by a shared
    :class:`RateGate` actor (``gate``), so many processes keep to one rate."""

    def __init__(self, gate: Any, max_concurrency: int) -> None:
        super().__init__(max_concurrency)
        self.gate = gate

    def __enter__(self) -> SharedRateLimiter:
        super().__enter__()
        import ray

        wait = ray.get(self.gate.reserve.remote())
        if wait > 0:
            time.sleep(wait)
        return self


class JudgeBatch:
    """Judges a batch of records (a pandas DataFrame); one per Ray actor, judge built once.

    Calling it returns one row per record: ``query_id``, and for each metric its value (``<metric>``, 0.0 when
    unmeasured) and ``<metric>:unmeasured`` (the reason, or None); ``calls``, ``cache_hits``, ``input_tokens``,
    ``output_tokens`` (this batch's usage, on its first row).
    """

    def __init__(self, metrics: list[str], judge_factory: Callable[[], Any], gate: Any = None) -> None:
        from ..judges import LLMJudge

        self.metrics = metrics
        self.judge = judge_factory()
        if not isinstance(self.judge, LLMJudge):
            raise TypeError(f"judge_factory must build an LLMJudge, got {type(self.judge).__name__}")
        if gate is not None:
            self.judge.share_limiter(SharedRateLimiter(gate, self.judge.max_concurrency))

    def __call__(self, batch):
        import pandas as pd

        from ..judges import judge_answers

        before = self.judge.usage
        records = [{k: (v.tolist() if hasattr(v, "tolist") and not isinstance(v, str) else v) for k, v in r.items()}
                   for r in batch.to_dict("records")]
        report = judge_answers(records, self.metrics, self.judge, keep_judgments=False)
        after = self.judge.usage
        out = pd.DataFrame({"query_id": report.query_ids})
        for key in self.metrics:
            reasons = report.unmeasured.get(key, {})
            out[key] = [report.per_query[q].get(key, 0.0) for q in report.query_ids]
            out[f"{key}:unmeasured"] = [reasons.get(q) for q in report.query_ids]
        for name in ("calls", "cache_hits", "retries", "input_tokens", "output_tokens"):
            out[name] = [getattr(after, name) - getattr(before, name)] + [0] * (len(out) - 1)
        return out


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

    Returns
    -------
    Report
        As :func:`~rag_eval_adapters.judges.judge_answers`'s (unmeasured cells with reasons, ``info["judge"]``
        and the summed ``info["usage"]``), without the per-item judgments.
    """
    import ray
    import ray.data

    from ..judges import JUDGED_ANSWER_METRICS, LLMJudge
    from ..report import Report
    from .answers import _dataset

    names = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    unknown = [m for m in names if m not in JUDGED_ANSWER_METRICS]
    if unknown or not names:
        raise ValueError(f"judged metrics are {', '.join(JUDGED_ANSWER_METRICS)}; got {unknown or names}")
    if not callable(judge_factory):
        raise TypeError("judge_factory must be a function that builds an LLMJudge, e.g. "
                        "functools.partial(make_judge, model, base_url)")
    if max_per_second is not None:
        max_per_second = check_positive(max_per_second, "max_per_second", unit="calls a second")
    concurrency, batch_size = check_count(concurrency, "concurrency"), check_count(batch_size, "batch_size")
    if not ray.is_initialized():
        ray.init()
    gate = ray.remote(RateGate).remote(float(max_per_second)) if max_per_second else None
    dataset = _dataset(records, max(concurrency, 1), batch_size)
    rows = dataset.map_batches(
        JudgeBatch, fn_constructor_args=(names, judge_factory, gate), batch_size=batch_size, batch_format="pandas",
        compute=ray.data.ActorPoolStrategy(size=concurrency), num_cpus=num_cpus,
    ).to_pandas()
    if not len(rows):
        raise ValueError("no records: give at least one {answer, contexts} record")
    ids = rows["query_id"].tolist()
    if len(set(ids)) != len(ids):
        raise ValueError("query ids must be unique across the records")
    unmeasured = {k: {q: r for q, r in zip(ids, rows[f"{k}:unmeasured"], strict=True) if isinstance(r, str)}
                  for k in names}
    usage = {name: int(rows[name].sum()) for name in ("calls", "cache_hits", "retries", "input_tokens",
                                                       "output_tokens")}
    judge = judge_factory()
    info = {"judge": judge.describe() if isinstance(judge, LLMJudge) else {}, "usage": usage}
    return Report(names, ids, rows[names].to_numpy(dtype=float), relevance_level=None,
                  unmeasured={k: v for k, v in unmeasured.items() if v}, info=info)
