"""Whole data sets through a LlamaIndex ``RetrieverEvaluator``: ``evaluate_dataset`` and friends."""

from __future__ import annotations

import asyncio
import contextvars
import json
import math
import os
import threading
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from llama_index.core.evaluation.retrieval.base import (
    BaseRetrievalEvaluator,
    RetrievalEvalResult,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    BaseRetrievalMetric,
)

from .. import Report, measures
from .metrics import metrics_from_names


@dataclass(frozen=True)
class QueryError:
    """A query of a data set that could not be scored: its position, its text and why."""

    index: int
    query: Optional[str]
    message: str

    def __str__(self) -> str:
        return f"#{self.index} {self.query!r}: {self.message}"


@dataclass
class DatasetEvaluation:
    """The result of :func:`evaluate_dataset`.

    Attributes:
        results: the ``RetrievalEvalResult`` of every scored query, in input order.
        indices: the input position of each result.
        errors: the queries whose retrieval or metric raised (or whose row is malformed), in input order.
        mean: metric key -> mean over the scored queries (``{}`` when none was scored).
        total: number of queries in the data set.
        interrupted: True when the run was stopped (Ctrl-C); ``results`` then hold the finished queries.
        query_ids: the ``query_id`` of each input row (None where a row has none), by input position.
        attributes: input position -> the row's other fields (e.g. ``query_type``), for mapping rows.

    :meth:`to_report` turns it into the package's one result type,
    :class:`~rag_eval_adapters.Report`, which the report renderers, comparisons and ``by`` take.
    """

    results: list[RetrievalEvalResult]
    indices: list[int]
    errors: list[QueryError]
    mean: dict[str, float]
    total: int
    interrupted: bool = False
    query_ids: list[Any] = field(default_factory=list, repr=False)
    attributes: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def unfinished(self) -> int:
        """Queries neither scored nor failed (only when interrupted)."""
        return self.total - len(self.results) - len(self.errors)

    def to_report(self, query_ids: Optional[Sequence[Hashable]] = None) -> Report:
        """This evaluation as a :class:`~rag_eval_adapters.Report`.

        Parameters
        ----------
        query_ids : sequence, optional
            The id of each input row, by input position (``len(query_ids) == total``). Default: the rows'
            ``query_id`` fields when every row has one and they are distinct, else the input positions.

        Returns
        -------
        Report
            One row per scored query (metric keys as LlamaIndex names them), the failed queries in
            ``errors``, counts ``queries``, ``scored``, ``errors`` (and ``unfinished`` when interrupted), and
            each mapping row's other fields as per-query attributes, so ``report.by("query_type")`` works.
        """
        ids = self._ids(query_ids)
        per_query = {ids[i]: result.metric_vals_dict for i, result in zip(self.indices, self.results)}
        counts = {"queries": self.total, "scored": len(self.results), "errors": len(self.errors)}
        if self.interrupted:
            counts["unfinished"] = self.unfinished
        return Report.from_per_query(
            per_query,
            list(self.mean),
            errors={ids[e.index]: e.message for e in self.errors},
            counts=counts,
            attributes={ids[i]: a for i, a in self.attributes.items() if a},
        )

    def _ids(self, query_ids: Optional[Sequence[Hashable]]) -> list[Hashable]:
        if query_ids is not None:
            ids = list(query_ids)
            if len(ids) != self.total:
                raise ValueError(f"query_ids must give one id per input row ({self.total}), got {len(ids)}")
        else:
            ids = list(self.query_ids)
            if len(ids) != self.total or any(q is None for q in ids):
                return list(range(self.total))
        if not all(isinstance(q, Hashable) for q in ids) or len(set(ids)) != len(ids):
            if query_ids is None:
                return list(range(self.total))
            raise ValueError("query_ids must be distinct and hashable (one id per input row)")
        return ids

    def rows(self) -> list[dict[str, Any]]:
        """One dict a scored query: ``index``, ``query``, one entry per metric key, the ids."""
        return [
            {"index": index, "query": result.query, **result.metric_vals_dict,
             "expected_ids": list(result.expected_ids), "retrieved_ids": list(result.retrieved_ids)}
            for index, result in zip(self.indices, self.results)
        ]

    def to_dataframe(self, include_errors: bool = False) -> Any:
        """A pandas DataFrame, one row a scored query (see :meth:`rows`).

        ``include_errors=True`` adds a row for each failed query, with its message in an ``error`` column and
        no metric values.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
        rows = self.rows()
        columns = ["index", "query", *self.mean, "expected_ids", "retrieved_ids"]
        if include_errors:
            for row in rows:
                row["error"] = None
            rows += [{"index": e.index, "query": e.query, "error": e.message} for e in self.errors]
            rows.sort(key=lambda row: row["index"])
            columns.append("error")
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        mean = ", ".join(f"{key!r}: {value:.4f}" for key, value in self.mean.items())
        extra = f", unfinished={self.unfinished}" if self.interrupted else ""
        return (
            f"DatasetEvaluation(scored={len(self.results)}, errors={len(self.errors)}, total={self.total}, "
            f"interrupted={self.interrupted}{extra}, mean={{{mean}}})"
        )


@dataclass
class _Item:
    index: int
    query: Optional[str] = None
    expected_ids: list[str] = field(default_factory=list)
    expected_texts: Optional[list[str]] = None
    problem: Optional[str] = None
    query_id: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)


_ROW_FIELDS = ("query", "expected_ids", "expected_texts", "query_id")


def _field(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name)
    return getattr(raw, name, None)


def _list_of_str(value: Any, name: str) -> Optional[list[str]]:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise TypeError(f"{name} must be a list of strings, got {type(value).__name__} {value!r:.60}")
    values = list(value)
    for i, item in enumerate(values):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a string, got {type(item).__name__} {item!r:.60}")
    return values


def _item(index: int, raw: Any) -> _Item:
    item = _Item(index)
    query = _field(raw, "query")
    item.query_id = _field(raw, "query_id")
    if isinstance(raw, Mapping):
        item.attributes = {k: v for k, v in raw.items() if k not in _ROW_FIELDS}
    if isinstance(query, str):
        item.query = query
    try:
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"row has no query (a non-empty 'query' string is required), got {query!r:.60}")
        item.expected_ids = _list_of_str(_field(raw, "expected_ids"), "expected_ids") or []
        item.expected_texts = _list_of_str(_field(raw, "expected_texts"), "expected_texts")
        if not item.expected_ids and not item.expected_texts:
            raise ValueError("no expectation: give 'expected_ids' (or 'expected_texts') with at least one entry")
    except (TypeError, ValueError) as exc:
        item.problem = f"{type(exc).__name__}: {exc}"
    return item


def _load(dataset: Any) -> list[_Item]:
    if isinstance(dataset, (str, os.PathLike)):
        path = Path(dataset)
        if not path.is_file():
            raise FileNotFoundError(f"data set file {str(path)!r} not found (expected JSONL: one object a line)")
        items = []
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                index = len(items)
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as exc:
                    items.append(_Item(index, problem=f"ValueError: {path.name} line {number}: invalid JSON ({exc})"))
                    continue
                if not isinstance(raw, dict):
                    items.append(_Item(index, problem=f"ValueError: {path.name} line {number}: expected an object "
                                                      '{"query": ..., "expected_ids": [...]}'))
                    continue
                item = _item(index, raw)
                if item.problem:
                    item.problem = f"{item.problem} ({path.name} line {number})"
                items.append(item)
        return items
    if isinstance(dataset, (bytes, Mapping)) or not isinstance(dataset, Iterable):
        raise TypeError(
            "dataset must be an iterable of rows (mappings or objects with query, expected_ids and optionally "
            f"expected_texts) or the path of a JSONL file, got {type(dataset).__name__}"
        )
    return [_item(index, raw) for index, raw in enumerate(dataset)]


class _Run:
    """Mutable state of one data-set run, filled as queries finish (so an interrupted run keeps them)."""

    def __init__(self, items: list[_Item]) -> None:
        self.items = items
        self.results: dict[int, RetrievalEvalResult] = {}
        self.errors: dict[int, QueryError] = {
            item.index: QueryError(item.index, item.query, item.problem) for item in items if item.problem
        }
        self.interrupted = False
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.task: Optional[asyncio.Task] = None

    def finish(self) -> DatasetEvaluation:
        indices = sorted(self.results)
        results = [self.results[i] for i in indices]
        sums: dict[str, list[float]] = {}
        for result in results:
            for key, value in result.metric_vals_dict.items():
                sums.setdefault(key, []).append(value)
        mean = {key: math.fsum(values) / len(values) for key, values in sums.items()}
        return DatasetEvaluation(
            results=results,
            indices=indices,
            errors=[self.errors[i] for i in sorted(self.errors)],
            mean=mean,
            total=len(self.items),
            interrupted=self.interrupted,
            query_ids=[item.query_id for item in self.items],
            attributes={item.index: item.attributes for item in self.items if item.attributes},
        )


def _progress(total: int, enabled: bool) -> Any:
    disable = (not enabled) or os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")
    if not disable:
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            # disable=None: tqdm turns itself off when the output is not a terminal
            return tqdm(total=total, desc="Evaluating queries", unit="query", disable=None)

    class _Silent:
        def update(self, n: int = 1) -> None:
            pass

        def close(self) -> None:
            pass

    return _Silent()


async def _evaluate_all(
    evaluator: BaseRetrievalEvaluator, run: _Run, workers: int, show_progress: bool, swallow_cancel: bool
) -> None:
    run.loop, run.task = asyncio.get_running_loop(), asyncio.current_task()
    todo = iter([item for item in run.items if not item.problem])
    bar = _progress(len(run.items), show_progress)
    bar.update(len(run.errors))

    async def one(item: _Item) -> None:
        try:
            result = await evaluator.aevaluate(
                query=item.query, expected_ids=item.expected_ids, expected_texts=item.expected_texts
            )
        except Exception as exc:  # one failing query is recorded, the rest still scored
            run.errors[item.index] = QueryError(item.index, item.query, f"{type(exc).__name__}: {exc}")
        else:
            run.results[item.index] = result
        bar.update(1)

    async def worker() -> None:
        for item in todo:  # one shared iterator: each item is taken by exactly one worker
            await one(item)

    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        run.interrupted = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not swallow_cancel:
            raise
    finally:
        bar.close()


def _check(evaluator: Any, workers: Any) -> None:
    if not isinstance(evaluator, BaseRetrievalEvaluator):
        raise TypeError(
            "evaluator must be a LlamaIndex BaseRetrievalEvaluator such as "
            f"RetrieverEvaluator(metrics=[...], retriever=...), got {type(evaluator).__name__}"
        )
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int (queries evaluated at once), got {workers!r}")


def evaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """Evaluate every query of a data set with ``evaluator.aevaluate``, at most ``workers`` at once.

    Args:
        evaluator: any LlamaIndex ``BaseRetrievalEvaluator``, e.g. ``RetrieverEvaluator(metrics=..., retriever=...)``.
        dataset: an iterable of mappings or objects with ``query``, ``expected_ids`` and optionally
            ``expected_texts``, or the path of a JSONL file with those keys.
        workers: how many queries are evaluated concurrently (on one event loop: a retriever gains from it
            when its ``aretrieve`` really awaits, as network retrievers do).
        show_progress: show a tqdm progress bar (when tqdm is installed and the output is a terminal; the
            ``TQDM_DISABLE`` environment variable turns it off).

    Returns:
        :class:`DatasetEvaluation` with the scored results in input order, the failed queries (a query whose
        retrieval or metric raises, or whose row is malformed, is recorded and the others are still scored),
        and the mean of each metric over the scored queries. Ctrl-C stops the run and returns what finished,
        with ``interrupted=True``.

    Works from plain scripts and from inside a running event loop (e.g. Jupyter), where the run happens on a
    separate thread. From async code, ``await aevaluate_dataset(...)`` instead.
    """
    _check(evaluator, workers)
    run = _Run(_load(dataset))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            asyncio.run(_evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=True))
        except KeyboardInterrupt:
            run.interrupted = True
    else:
        _run_on_thread(evaluator, run, workers, show_progress)
    return run.finish()


def _run_on_thread(evaluator: BaseRetrievalEvaluator, run: _Run, workers: int, show_progress: bool) -> None:
    failure: list[BaseException] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            context.run(asyncio.run, _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=True))
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="rag-eval-dataset", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        run.interrupted = True
        if run.loop is not None and run.task is not None:
            run.loop.call_soon_threadsafe(run.task.cancel)
        thread.join()
    if failure:
        raise failure[0]


async def aevaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """The async form of :func:`evaluate_dataset` (same arguments and result).

    Cancelling the awaiting task cancels the queries in flight and propagates ``CancelledError``, as asyncio
    code expects; use :func:`evaluate_dataset` for a run that returns its partial results on Ctrl-C.
    """
    _check(evaluator, workers)
    run = _Run(_load(dataset))
    await _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=False)
    return run.finish()


def evaluate_retriever(
    retriever: Any,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    metrics: Iterable[Union[str, measures.Metric, BaseRetrievalMetric]] = ("hit_rate", "mrr"),
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """Evaluate a LlamaIndex retriever on a data set: ``RetrieverEvaluator`` with these metrics, then
    :func:`evaluate_dataset`.

    ``metrics`` are names (``"ndcg@10"``), core metric objects or metric instances (ours or LlamaIndex's).

    >>> evaluation = evaluate_retriever(retriever, "qa.jsonl", ["hit_rate@3", "mrr", "ndcg@10"])  # doctest: +SKIP
    """
    from llama_index.core.evaluation import RetrieverEvaluator

    built = [
        metric if isinstance(metric, BaseRetrievalMetric) else metrics_from_names([metric])[0]
        for metric in metrics
    ]
    evaluator = RetrieverEvaluator(metrics=built, retriever=retriever)
    return evaluate_dataset(evaluator, dataset, workers=workers, show_progress=show_progress)


# ---------------------------------------------------------------------------------------------- retrievers


