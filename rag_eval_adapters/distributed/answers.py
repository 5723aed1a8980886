"""Answer metrics over a Ray Dataset: :func:`evaluate_answers_ray`.

A pool of Ray actors each builds the embedder once (a model loaded on its CPU or GPU), wraps it in a
content-hash cache, and scores batches of records with :func:`rag_eval_adapters.answers.evaluate_answers`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["evaluate_answers_ray", "AnswerScorer"]

_RESERVED = ("query_id", "prediction", "reference", "references")


class AnswerScorer:
    """Scores a batch of answer records (a pandas DataFrame); one per Ray actor, embedder built once.

    Parameters
    ----------
    metrics
        Answer metric names or objects, as for :func:`rag_eval_adapters.answers.evaluate_answers`.
    embedder_factory : callable or None
        Called once, in the actor, to build the :class:`~rag_eval_adapters.answers.Embedder`.
    cache : path or None
        An SQLite file for the embedding cache (content-hash keys), shared by the actors of one machine; by
        default each actor keeps an in-memory cache.

    Calling it on a batch returns one row per record: ``query_id``, ``scored``, ``error`` and one float64 column
    per metric key (NaN unless scored).
    """

    def __init__(self, metrics: Any, embedder_factory: Callable[[], Any] | None = None, cache: Any = None) -> None:
        from ..answers import CachedEmbedder, parse_answer_metrics

        self.metrics = parse_answer_metrics(metrics)
        self.keys = [m.key for m in self.metrics]
        self.embedder = None
        if embedder_factory is not None and any(m.needs_embedder for m in self.metrics):
            self.embedder = CachedEmbedder(embedder_factory(), cache)

    def __call__(self, batch):
        import pandas as pd

        records = [_record(r) for r in batch.to_dict("records")]
        ids = [r.get("query_id") for r in records]
        values = np.full((len(records), len(self.keys)), np.nan)
        errors: dict[Any, str] = {}
        scored: dict[Any, np.ndarray] = {}
        self._score(records, scored, errors)
        for i, q in enumerate(ids):
            if q in scored:
                values[i] = scored[q]
        out = pd.DataFrame({"query_id": ids, "scored": [q in scored for q in ids],
                            "error": [errors.get(q) for q in ids]})
        for j, key in enumerate(self.keys):
            out[key] = values[:, j]
        return out

    def _score(self, records: list[dict], scored: dict, errors: dict) -> None:
        from ..answers import evaluate_answers

        try:
            report = evaluate_answers(records, self.metrics, self.embedder)
        except ValueError as exc:
            if not str(exc).startswith("no answer could be scored"):
                raise
            for record in records:  # every record of this batch failed: learn each one's error
                try:
                    evaluate_answers([record], self.metrics, self.embedder)
                except ValueError as one:
                    errors[record.get("query_id")] = str(one).split("the first: ", 1)[-1]
            return
        scored.update(zip(report.query_ids, report.values, strict=False))
        errors.update(report.errors)


def evaluate_answers_ray(
    records: Any,
    metrics: Any = ("exact_match", "token_f1", "rouge_l"),
    embedder_factory: Callable[[], Any] | None = None,
    *,
    concurrency: int = 2,
    batch_size: int = 256,
    num_gpus: float = 0,
    num_cpus: float = 1,
    cache: str | os.PathLike | None = None,
):
    """Score answers against references on Ray, with a pool of actors that each build the embedder once.

    Parameters
    ----------
    records : ray.data.Dataset, pandas DataFrame or list of mappings
        One row per answer: ``query_id``, ``prediction``, and ``reference`` or ``references`` (a string or a
        list of strings), as for :func:`rag_eval_adapters.answers.evaluate_answers`. Query ids must be unique.
    metrics
        Answer metric names or objects (``exact_match``, ``token_f1``, ``rouge_l``, ``semantic_similarity``, ...).
    embedder_factory : callable, optional
        A picklable function with no arguments that returns an
        :class:`~rag_eval_adapters.answers.Embedder` (e.g. ``rag_eval_adapters.answers.E5Embedder``); needed
        by ``semantic_similarity``. It runs once per actor, so a model is loaded once per CPU or GPU slot.
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
        ``mean``, ``counts`` (``queries``, ``scored``, ``errors``), ``errors`` and ``per_query`` (a
        ``ray.data.Dataset`` with ``query_id`` and one column per metric). A record with a bad field, or whose
        embedding failed, is in ``errors``; the rest are still scored. Every value equals
        :func:`~rag_eval_adapters.answers.evaluate_answers`'s on the same record.
    """
    import ray
    import ray.data

    from ..answers import parse_answer_metrics
    from .ray_eval import RayResult

    measures = parse_answer_metrics(metrics)
    keys = [m.key for m in measures]
    if any(m.needs_embedder for m in measures) and embedder_factory is None:
        raise ValueError("semantic_similarity needs an embedder: pass embedder_factory=E5Embedder (a function "
                         "that builds one)")
    if embedder_factory is not None and not callable(embedder_factory):
        raise TypeError(f"embedder_factory must be a function that builds an embedder, "
                        f"got {type(embedder_factory).__name__}")
    if not ray.is_initialized():
        ray.init()
    dataset = _dataset(records, max(concurrency, 1), batch_size)
    rows = dataset.map_batches(
        AnswerScorer, fn_constructor_args=(measures, embedder_factory, None if cache is None else os.fspath(cache)),
        batch_size=batch_size, batch_format="pandas", compute=ray.data.ActorPoolStrategy(size=concurrency),
        num_gpus=num_gpus,
        num_cpus=num_cpus,
    ).materialize()  # scored once: the summaries and per_query read the stored rows
    counts, sums, errors, parts = _totals(rows, keys)
    if not counts["queries"]:
        raise ValueError("no records: give at least one {query_id, prediction, reference} record")
    if not counts["scored"]:
        raise ValueError(f"no answer could be scored; {len(errors)} errors, the first: {next(iter(errors.values()))}")
    mean = {k: math.fsum(sums[k]) / counts["scored"] for k in keys}
    per_query = ray.data.from_pandas_refs(parts)
    return RayResult(keys, mean, counts, errors, per_query, None, {})


def _totals(rows, keys: list[str]):
    """Counts, per-metric partial sums, errors, and the scored rows put back block by block (no new tasks)."""
    import ray

    parts = []
    counts = {"queries": 0, "scored": 0, "errors": 0}
    sums: dict[str, list[float]] = {k: [] for k in keys}
    errors: dict[Any, str] = {}
    for batch in rows.iter_batches(batch_format="pandas", batch_size=None):
        scored = batch["scored"].to_numpy(dtype=bool)
        failed = batch["error"].notna().to_numpy()
        counts["queries"] += len(batch)
        counts["scored"] += int(scored.sum())
        counts["errors"] += int(failed.sum())
        for key in keys:
            sums[key].append(math.fsum(batch[key].to_numpy(dtype=np.float64)[scored].tolist()))
        errors.update(zip(batch["query_id"][failed].tolist(), batch["error"][failed].tolist(), strict=False))
        parts.append(ray.put(batch.loc[scored, ["query_id", *keys]].reset_index(drop=True)))
    return counts, sums, errors, parts


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
    out = {}
    for key, value in row.items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if key in ("reference", "references") and _missing(value):
            continue
        out[key] = value
    return out


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)
