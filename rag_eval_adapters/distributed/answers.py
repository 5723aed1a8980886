"""Answer metrics over a Ray Dataset: :func:`evaluate_answers_ray`.

A pool of Ray actors each builds the embedder once (a model loaded on its CPU or GPU), wraps it in a
content-hash cache, and scores batches of records with :func:`rag_eval_adapters.answers.evaluate_answers`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..validation import check_count, check_positive

__all__ = ["evaluate_answers_ray", "AnswerScorer", "check_records", "run_answers"]


class AnswerScorer:
    """Scores a batch of answer records (a pandas DataFrame) with any answer metrics, lexical, semantic or judged;
    one per Ray actor, embedder and judge built once.

    Parameters
    ----------
    metrics
        Answer metric names or objects, as for :func:`rag_eval_adapters.answers.evaluate_answers`.
    embedder_factory : callable or None
        Called once, in the actor, to build the :class:`~rag_eval_adapters.answers.Embedder`.
    cache : path or None
        An SQLite file for the embedding cache (content-hash keys), shared by the actors of one machine; by
        default each actor keeps an in-memory cache.
    judge_factory : callable or None
        Called once, in the actor, to build the :class:`~rag_eval_adapters.judges.LLMJudge` of the judged metrics.
    gate : Ray actor handle, optional
        A :class:`~rag_eval_adapters.distributed.RateGate` pacing the judge's calls with those of every actor.

    Calling it on a batch returns one row per record: ``query_id``, ``scored``, ``error``, one float64 column
    per metric key (NaN unless scored and measured), ``<key>:unmeasured`` (the reason, or None) per judged
    metric, ``abstained``, and the batch's judge usage (``calls``, ``cache_hits``, ``retries``,
    ``input_tokens``, ``output_tokens``, on its first row).
    """

    def __init__(self, metrics: Any, embedder_factory: Callable[[], Any] | None = None, cache: Any = None,
                 judge_factory: Callable[[], Any] | None = None, gate: Any = None) -> None:
        from ..answers import CachedEmbedder, parse_answer_metrics

        self.metrics = parse_answer_metrics(metrics)
        self.keys = [m.key for m in self.metrics]
        self.embedder = None
        if embedder_factory is not None and any(m.needs_embedder for m in self.metrics):
            self.embedder = CachedEmbedder(embedder_factory(), cache)
        self.judge = None
        if judge_factory is not None and any(m.needs_judge for m in self.metrics):
            self.judge = _built_judge(judge_factory, gate)

    def __call__(self, batch):
        import pandas as pd

        records = [_record(r) for r in batch.to_dict("records")]
        ids = [r.get("query_id") for r in records]
        before = self.judge.usage if self.judge is not None else None
        report = self._score(records)
        scored = dict(zip(report.query_ids, report.values, strict=False)) if report is not None else {}
        errors = report.errors if report is not None else self._errors(records)
        values = np.full((len(records), len(self.keys)), np.nan)
        for i, q in enumerate(ids):
            if q in scored:
                values[i] = scored[q]
        out = pd.DataFrame({"query_id": ids, "scored": [q in scored for q in ids],
                            "error": [errors.get(q) for q in ids]})
        for j, key in enumerate(self.keys):
            out[key] = values[:, j]
        abstained = set((report.info.get("abstained") or {}).get("query_ids", ())) if report is not None else set()
        for m in self.metrics:
            if m.needs_judge:
                reasons = report.unmeasured.get(m.key, {}) if report is not None else {}
                out[f"{m.key}:unmeasured"] = [reasons.get(q) for q in ids]
        out["abstained"] = [q in abstained for q in ids]
        for name in _USAGE:
            spent = getattr(self.judge.usage, name) - getattr(before, name) if self.judge is not None else 0
            out[name] = [spent] + [0] * (len(out) - 1)
        return out

    def _score(self, records: list[dict]) -> Any:
        """The batch's report, or None when no record of it could be scored."""
        from ..answers import evaluate_answers

        try:
            return evaluate_answers(records, self.metrics, self.embedder, judge=self.judge, progress=False,
                                    keep_judgments=False)
        except ValueError as exc:
            if not str(exc).startswith("no answer could be scored"):
                raise
            return None

    def _errors(self, records: list[dict]) -> dict:
        """Each record's error, when every record of the batch failed."""
        from ..answers import evaluate_answers

        errors = {}
        for record in records:
            try:
                evaluate_answers([record], self.metrics, self.embedder, judge=self.judge, progress=False)
            except ValueError as one:
                errors[record.get("query_id")] = str(one).split("the first: ", 1)[-1]
        return errors


_USAGE = ("calls", "cache_hits", "retries", "input_tokens", "output_tokens")


def _built_judge(judge_factory: Callable[[], Any], gate: Any) -> Any:
    """The actor's judge, its calls paced by ``gate`` (when given) with every actor's."""
    from ..judges import LLMJudge
    from .rate import SharedRateLimiter

    judge = judge_factory()
    if not isinstance(judge, LLMJudge):
        raise TypeError(f"judge_factory must build an LLMJudge, got {type(judge).__name__}")
    if gate is not None:
        judge.share_limiter(SharedRateLimiter(gate, judge.max_concurrency))
    return judge


def check_records(records: Any) -> None:
    """Refuse, before any record is scored (or any judge call paid), records the one reader refuses as a set:
    a missing id, a repeated id, or ids equal as text (``1`` and ``"1"``), naming both."""
    from ..answers import read_records

    if type(records).__module__.startswith("ray.data"):
        ids = [q for batch in records.select_columns(["query_id"]).iter_batches(batch_format="pandas", batch_size=None)
               for q in batch["query_id"].tolist()]
    elif hasattr(records, "iloc"):
        ids = records["query_id"].tolist() if "query_id" in records else [None] * len(records)
    elif isinstance(records, Iterable) and not isinstance(records, (str, bytes, dict)):
        ids = [r.get("query_id") if isinstance(r, Mapping) else None for r in records]
    else:
        return  # _dataset names the wrong type
    read_records([{"query_id": q} for q in ids])


def evaluate_answers_ray(
    records: Any,
    metrics: Any = ("exact_match", "token_f1", "rouge_l"),
    embedder_factory: Callable[[], Any] | None = None,
    *,
    judge_factory: Callable[[], Any] | None = None,
    max_per_second: float | None = None,
    concurrency: int = 2,
    batch_size: int = 256,
    num_gpus: float = 0,
    num_cpus: float = 1,
    cache: str | os.PathLike | None = None,
):
    """Score answers on Ray, with a pool of actors that each build the embedder (and the judge) once.

    Parameters
    ----------
    records : ray.data.Dataset, pandas DataFrame or list of mappings
        One row per answer, as for :func:`rag_eval_adapters.answers.evaluate_answers` (``query_id``,
        ``prediction``, ``reference(s)``; ``question``, ``contexts``, ``answerable`` for judged metrics). Query
        ids must be unique, also as text: checked before any record is scored or any judge call is paid.
    metrics
        Answer metric names or objects (``exact_match``, ``token_f1``, ``rouge_l``, ``semantic_similarity``,
        ``faithfulness``, ``answer_correctness``...).
    embedder_factory : callable, optional
        A picklable function with no arguments that returns an
        :class:`~rag_eval_adapters.answers.Embedder` (e.g. ``rag_eval_adapters.answers.E5Embedder``); needed
        by ``semantic_similarity``. It runs once per actor, so a model is loaded once per CPU or GPU slot.
    judge_factory : callable, optional
        A picklable function with no arguments that builds the :class:`~rag_eval_adapters.judges.LLMJudge` of
        the judged metrics (give it an SQLite cache on a shared path to pay once across runs).
    max_per_second : float, optional
        One start-rate limit for the judge calls of all actors together.
    concurrency : int
        The number of actors.
    batch_size : int
        Records per call (one embedding call per metric and batch; repeated texts are embedded once).
    num_gpus, num_cpus : float
        Resources of each actor (``num_gpus=1`` puts each on its own GPU).
    cache : path, optional
        An SQLite file caching embeddings by content hash across actors and runs on one machine.

    Returns
    -------
    RayResult
        ``mean`` (over the measured answers), ``counts`` (``queries``, ``scored``, ``errors``), ``errors`` and
        ``per_query`` (a ``ray.data.Dataset`` with ``query_id`` and one column per metric; an unmeasured judged
        cell is NaN). With judged metrics ``stats`` holds ``measured``, ``unmeasured``, ``abstained`` and
        ``usage``. Every value equals :func:`~rag_eval_adapters.answers.evaluate_answers`'s on the same record.
    """
    import ray

    from ..answers import parse_answer_metrics
    from .ray_eval import RayResult

    measures = parse_answer_metrics(metrics)
    keys = [m.key for m in measures]
    rows = run_answers(records, measures, embedder_factory, judge_factory, max_per_second=max_per_second,
                       concurrency=concurrency, batch_size=batch_size, num_gpus=num_gpus, num_cpus=num_cpus,
                       cache=cache, materialize=True)
    counts, sums, measured, errors, parts, judged = _totals(rows, measures)
    if not counts["queries"]:
        raise ValueError("no records: give at least one {query_id, prediction, reference} record")
    if not counts["scored"]:
        raise ValueError(f"no answer could be scored; {len(errors)} errors, the first: {next(iter(errors.values()))}")
    mean = {k: math.fsum(sums[k]) / measured[k] for k in keys if measured[k]}
    per_query = ray.data.from_pandas_refs(parts)
    return RayResult(keys, mean, counts, errors, per_query, None, {"measured": measured, **judged} if judged else {})


def run_answers(records: Any, measures: list[Any], embedder_factory: Callable[[], Any] | None,
                judge_factory: Callable[[], Any] | None, *, max_per_second: float | None, concurrency: int,
                batch_size: int, num_gpus: float = 0, num_cpus: float = 1, cache: Any = None,
                materialize: bool = True) -> Any:
    """The one Ray path of the answer metrics: the rows of :class:`AnswerScorer` over ``records`` (a
    materialized Dataset, or a pandas DataFrame when not ``materialize``), after every check that can fail
    without a call: the factories, the rate, and the records' ids."""
    import ray
    import ray.data

    from .rate import RateGate

    if any(m.needs_embedder for m in measures) and embedder_factory is None:
        raise ValueError("semantic_similarity needs an embedder: pass embedder_factory=E5Embedder (a function "
                         "that builds one)")
    if embedder_factory is not None and not callable(embedder_factory):
        raise TypeError(f"embedder_factory must be a function that builds an embedder, "
                        f"got {type(embedder_factory).__name__}")
    judged = [m.key for m in measures if m.needs_judge]
    if judged and not callable(judge_factory):
        raise TypeError(f"{', '.join(judged)} need a judge: pass judge_factory, a function that builds an "
                        "LLMJudge, e.g. functools.partial(make_judge, model, base_url)")
    if max_per_second is not None:
        max_per_second = check_positive(max_per_second, "max_per_second", unit="calls a second")
    concurrency, batch_size = check_count(concurrency, "concurrency"), check_count(batch_size, "batch_size")
    check_records(records)
    if not ray.is_initialized():
        ray.init()
    gate = ray.remote(RateGate).remote(float(max_per_second)) if judged and max_per_second else None
    dataset = _dataset(records, max(concurrency, 1), batch_size)
    rows = dataset.map_batches(
        AnswerScorer, fn_constructor_args=(measures, embedder_factory, None if cache is None else os.fspath(cache),
                                           judge_factory if judged else None, gate),
        batch_size=batch_size, batch_format="pandas", compute=ray.data.ActorPoolStrategy(size=concurrency),
        num_gpus=num_gpus, num_cpus=num_cpus,
    )
    return rows.materialize() if materialize else rows.to_pandas()  # scored once: the summaries read stored rows


def _totals(rows, measures: list[Any]):
    """Counts, per-metric partial sums and measured counts, errors, the scored rows put back block by block (no
    new tasks), and the judged metrics' unmeasured cells, abstentions and usage."""
    import ray

    keys = [m.key for m in measures]
    judged = [m.key for m in measures if m.needs_judge]
    parts = []
    counts = {"queries": 0, "scored": 0, "errors": 0}
    sums: dict[str, list[float]] = {k: [] for k in keys}
    measured = dict.fromkeys(keys, 0)
    errors: dict[Any, str] = {}
    unmeasured: dict[str, dict[Any, str]] = {k: {} for k in judged}
    abstained: list[Any] = []
    usage = dict.fromkeys(_USAGE, 0)
    for batch in rows.iter_batches(batch_format="pandas", batch_size=None):
        scored = batch["scored"].to_numpy(dtype=bool)
        failed = batch["error"].notna().to_numpy()
        counts["queries"] += len(batch)
        counts["scored"] += int(scored.sum())
        counts["errors"] += int(failed.sum())
        for key in keys:
            column = batch[key].to_numpy(dtype=np.float64)[scored]
            sums[key].append(math.fsum(column[~np.isnan(column)].tolist()))
            measured[key] += int((~np.isnan(column)).sum())
        for key in judged:
            reasons = batch[f"{key}:unmeasured"]
            unmeasured[key].update((q, r) for q, r in zip(batch["query_id"], reasons, strict=True) if isinstance(r, str))
        abstained += batch["query_id"][batch["abstained"].to_numpy(dtype=bool)].tolist()
        for name in _USAGE:
            usage[name] += int(batch[name].sum())
        errors.update(zip(batch["query_id"][failed].tolist(), batch["error"][failed].tolist(), strict=False))
        parts.append(ray.put(batch.loc[scored, ["query_id", *keys]].reset_index(drop=True)))
    info = {"unmeasured": {k: v for k, v in unmeasured.items() if v}, "abstained": abstained,
            "usage": usage} if judged else {}
    return counts, sums, measured, errors, parts, info


def _dataset(records: Any, actors: int, batch_size: int):
    """A Ray Dataset of the records; in-memory records in enough blocks to keep every actor busy."""
    import ray.data

    if type(records).__module__.startswith("ray.data"):
        return records
    if hasattr(records, "iloc"):
        blocks = max(actors, math.ceil(len(records) / max(1, batch_size)))
        bounds = np.linspace(0, len(records), blocks + 1).astype(int)
        return ray.data.from_pandas([records.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False) if b > a])
    if isinstance(records, Iterable) and not isinstance(records, (str, bytes, dict)):
        items = [dict(r) for r in records]
        blocks = max(actors, math.ceil(len(items) / max(1, batch_size)))
        return ray.data.from_items(items, override_num_blocks=max(1, min(blocks, len(items))))
    raise TypeError(f"records must be a Ray Dataset, a pandas DataFrame or a list of mappings, "
                    f"got {type(records).__name__}")


def _record(row: dict) -> dict:
    """A batch row as evaluate_answers expects it: absent fields dropped, arrays as lists."""
    from ..answers.record import RECORD_FIELDS

    out = {}
    for key, value in row.items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if (key in RECORD_FIELDS or key == "answerable") and _missing(value):
            continue  # a column some rows lack: the field is absent from this record
        out[key] = value
    return out


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)
