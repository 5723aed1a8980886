"""Whole data sets through a LlamaIndex ``RetrieverEvaluator``: ``evaluate_dataset`` and friends."""

from __future__ import annotations

import asyncio
import contextvars
import math
import os
import signal
import threading
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from llama_index.core.evaluation.retrieval.base import (
    BaseRetrievalEvaluator,
    RetrievalEvalResult,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    BaseRetrievalMetric,
)

from .. import Report, measures
from ..progress import progress_bar
from ..validation import check_count, check_positive
from .dataset_rows import DatasetRow, load_rows
from .metrics import metrics_from_names

__all__ = ["evaluate_dataset", "aevaluate_dataset", "DatasetEvaluation", "QueryError", "evaluate_retriever"]


@dataclass(frozen=True)
class QueryError:
    """A query of a data set that could not be scored.

    Attributes
    ----------
    index : int
        Its input position.
    query : str or None
        Its text (None when the row has none).
    message : str
        Why, as ``"ExceptionType: message"``.
    """

    index: int
    query: str | None
    message: str

    def __str__(self) -> str:
        return f"#{self.index} {self.query!r}: {self.message}"


@dataclass
class DatasetEvaluation:
    """The result of :func:`evaluate_dataset`, as LlamaIndex gives it (``RetrievalEvalResult`` objects).

    :meth:`to_report` turns it into the package's one result type, :class:`~rag_eval_adapters.Report`, which
    the report renderers, comparisons and ``Report.by`` take.

    Attributes
    ----------
    results : list of RetrievalEvalResult
        The result of every scored query, in input order.
    indices : list of int
        The input position of each result.
    errors : list of QueryError
        The queries whose retrieval or metric raised, timed out, or whose row is malformed, in input order.
    mean : dict
        Metric key -> mean over the scored queries (``{}`` when none was scored).
    total : int
        Number of queries (rows) in the data set.
    interrupted : bool
        True when the run was stopped (Ctrl-C); ``results`` then hold the finished queries.
    query_ids : list
        The ``query_id`` of each input row (None where a row has none), by input position.
    attributes : dict
        Input position -> the row's other fields (e.g. ``query_type``), for mapping rows.
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

    def to_report(self, query_ids: Sequence[Hashable] | None = None) -> Report:
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
        per_query = {ids[i]: result.metric_vals_dict for i, result in zip(self.indices, self.results, strict=False)}
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

    def _ids(self, query_ids: Sequence[Hashable] | None) -> list[Hashable]:
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
        """One dict per scored query: ``index``, ``query``, one entry per metric key, ``expected_ids`` and
        ``retrieved_ids``."""
        return [
            {"index": index, "query": result.query, **result.metric_vals_dict,
             "expected_ids": list(result.expected_ids), "retrieved_ids": list(result.retrieved_ids)}
            for index, result in zip(self.indices, self.results, strict=False)
        ]

    def to_dataframe(self, include_errors: bool = False) -> Any:
        """A pandas DataFrame, one row per scored query (see :meth:`rows`).

        Parameters
        ----------
        include_errors : bool
            Add a row for each failed query, with its message in an ``error`` column and no metric values.
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


class _Run:
    """Mutable state of one data-set run, filled as queries finish (so an interrupted run keeps them)."""

    def __init__(self, items: list[DatasetRow], timeout: float | None = None) -> None:
        self.items = items
        self.timeout = timeout
        self.results: dict[int, RetrievalEvalResult] = {}
        self.errors: dict[int, QueryError] = {
            item.index: QueryError(item.index, item.query, item.problem) for item in items if item.problem
        }
        self.interrupted = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task | None = None

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


async def _evaluate_all(
    evaluator: BaseRetrievalEvaluator, run: _Run, workers: int, show_progress: bool, swallow_cancel: bool
) -> None:
    run.loop, run.task = asyncio.get_running_loop(), asyncio.current_task()
    todo = iter([item for item in run.items if not item.problem])
    bar = progress_bar(total=len(run.items), desc="Evaluating queries", unit="query", show=show_progress)
    bar.update(len(run.errors))

    async def one(item: DatasetRow) -> None:
        try:
            pending = evaluator.aevaluate(
                # a row without a query has a problem and never reaches here (DatasetRow)
                query=cast(str, item.query), expected_ids=item.expected_ids, expected_texts=item.expected_texts
            )
            result = await (pending if run.timeout is None else asyncio.wait_for(pending, run.timeout))
        except Exception as exc:  # one failing query is recorded, the rest still scored
            message = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, asyncio.TimeoutError) and not str(exc) and run.timeout is not None:
                message = f"TimeoutError: no result within timeout={run.timeout:g} s; the query was cancelled"
            run.errors[item.index] = QueryError(item.index, item.query, message)
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


def _check_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return None
    return check_positive(timeout, "timeout", unit="seconds per query")


def _check(evaluator: Any, workers: Any) -> None:
    if not isinstance(evaluator, BaseRetrievalEvaluator):
        raise TypeError(
            "evaluator must be a LlamaIndex BaseRetrievalEvaluator such as "
            f"RetrieverEvaluator(metrics=[...], retriever=...), got {type(evaluator).__name__}"
        )
    check_count(workers, "workers")


def evaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: str | os.PathLike | Iterable[Any],
    *,
    workers: int = 8,
    show_progress: bool = True,
    timeout: float | None = None,
) -> DatasetEvaluation:
    """Evaluate every query of a data set with ``evaluator.aevaluate``, at most ``workers`` at once.

    Parameters
    ----------
    evaluator : BaseRetrievalEvaluator
        Any LlamaIndex retrieval evaluator, e.g. ``RetrieverEvaluator(metrics=..., retriever=...)``.
    dataset : iterable or path
        Rows (mappings or objects) with ``query``, ``expected_ids`` and optionally ``expected_texts`` and
        ``query_id``; a mapping row's other fields (e.g. ``query_type``) are kept for
        :meth:`DatasetEvaluation.to_report`. Or the path of a UTF-8 JSONL file of such objects: a line that is
        not valid UTF-8 or not valid JSON is that row's error, naming the line, and the rest is scored.
    workers : int
        How many queries are evaluated concurrently (on one event loop: a retriever gains from it when its
        ``aretrieve`` really awaits, as network retrievers do).
    show_progress : bool
        Show a progress bar (on a terminal, when tqdm is installed and ``TQDM_DISABLE`` allows it; see
        :mod:`rag_eval_adapters.progress`).
    timeout : float, optional
        Seconds each query may take (retrieval and scoring); a query that takes longer is cancelled and
        recorded as a ``TimeoutError`` in ``errors``, and the others are still scored. It interrupts awaiting
        only: a retriever that blocks the event loop in synchronous code cannot be stopped by it.

    Returns
    -------
    DatasetEvaluation
        The scored results in input order, the failed queries (a query whose retrieval or metric raises, times
        out, or whose row is malformed is recorded and the others are still scored), and the mean of each
        metric over the scored queries.

    Notes
    -----
    Ctrl-C stops the run and returns what finished, with ``interrupted=True``: from a plain script, from
    inside a running event loop (Jupyter, or code under ``asyncio.run``), where the run happens on a separate
    thread while the caller waits. From async code, ``await aevaluate_dataset(...)`` instead.
    """
    _check(evaluator, workers)
    run = _Run(load_rows(dataset), _check_timeout(timeout))
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
    """Run on a thread of its own while this thread waits; Ctrl-C here cancels the run and keeps what finished.

    Under ``asyncio.run`` the running loop's SIGINT handler only cancels its main task, which cannot happen
    while this call blocks it, so the default handler is put back while waiting (main thread only).
    """
    failure: list[BaseException] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            context.run(asyncio.run, _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=True))
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="rag-eval-dataset", daemon=True)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        thread.start()
        try:
            while thread.is_alive():
                thread.join(0.1)
        except KeyboardInterrupt:
            run.interrupted = True
            if run.loop is not None and run.task is not None:
                run.loop.call_soon_threadsafe(run.task.cancel)
            thread.join()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if failure:
        raise failure[0]


async def aevaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: str | os.PathLike | Iterable[Any],
    *,
    workers: int = 8,
    show_progress: bool = True,
    timeout: float | None = None,
) -> DatasetEvaluation:
    """The async form of :func:`evaluate_dataset`.

    Parameters
    ----------
    evaluator, dataset, workers, show_progress, timeout
        As in :func:`evaluate_dataset`.

    Returns
    -------
    DatasetEvaluation

    Notes
    -----
    Cancelling the awaiting task cancels the queries in flight and propagates ``CancelledError``, as asyncio
    code expects; use :func:`evaluate_dataset` for a run that returns its partial results on Ctrl-C.
    """
    _check(evaluator, workers)
    run = _Run(load_rows(dataset), _check_timeout(timeout))
    await _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=False)
    return run.finish()


def evaluate_retriever(
    retriever: Any,
    dataset: str | os.PathLike | Iterable[Any],
    metrics: Iterable[str | measures.Metric | BaseRetrievalMetric] = ("hit_rate", "mrr"),
    *,
    workers: int = 8,
    show_progress: bool = True,
    timeout: float | None = None,
) -> DatasetEvaluation:
    """Evaluate a LlamaIndex retriever on a data set: ``RetrieverEvaluator`` with these metrics, then
    :func:`evaluate_dataset`.

    Parameters
    ----------
    retriever : BaseRetriever
        The LlamaIndex retriever to evaluate.
    dataset : iterable or path
        As in :func:`evaluate_dataset`.
    metrics : iterable
        Names (``"ndcg@10"``), core metric objects or metric instances (ours or LlamaIndex's).
    workers, show_progress, timeout
        As in :func:`evaluate_dataset`.

    Returns
    -------
    DatasetEvaluation

    Examples
    --------
    >>> evaluation = evaluate_retriever(retriever, "qa.jsonl", ["hit_rate@3", "mrr", "ndcg@10"])  # doctest: +SKIP
    >>> evaluation.to_report().by("query_type")  # doctest: +SKIP
    """
    from llama_index.core.evaluation import RetrieverEvaluator

    built = [
        metric if isinstance(metric, BaseRetrievalMetric) else metrics_from_names([metric])[0]
        for metric in metrics
    ]
    evaluator = RetrieverEvaluator(metrics=built, retriever=retriever)
    return evaluate_dataset(evaluator, dataset, workers=workers, show_progress=show_progress, timeout=timeout)
