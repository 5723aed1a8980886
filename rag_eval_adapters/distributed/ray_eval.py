"""Scoring qrels and a run on Ray: :func:`evaluate_ray`.

Two rounds of Ray tasks. Each input block (a few row groups of a Parquet file, a block of a Ray Dataset, or a
slice of an in-memory table) is split by :func:`~rag_eval_adapters.distributed.shard_of` into one piece per
shard; each shard task concatenates its pieces of qrels and run, scores them with
:func:`~rag_eval_adapters.distributed.score_shard`, writes its per-query rows, and returns them with a small
:class:`~rag_eval_adapters.distributed.Combined`. The driver holds object references and those summaries only.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..measures import MetricLike, parse_metrics
from ..validation import check_count, check_level, check_missing
from .hashing import shard_of
from .shards import combine, score_shard
from .sources import ParquetBlock, as_arrow, group_pieces, is_path_source, parquet_pieces, resolve_path, wanted_columns

__all__ = ["evaluate_ray", "RayResult"]

#: Input blocks hold at least this many rows per shard, so that every piece of the split (about 200 KB) goes to
#: the object store rather than inline into the driver's memory (Ray inlines objects under 100 KB).
MIN_PIECE_ROWS = 8192


class RayResult:
    """The result of :func:`evaluate_ray`.

    Attributes
    ----------
    mean : dict
        Metric key -> mean over the scored queries.
    counts : dict
        ``queries`` (in qrels), ``scored``, ``missing_from_run``, ``not_in_qrels``, ``errors``.
    errors : dict
        ``{query_id: message}`` for each query that could not be scored.
    per_query : ray.data.Dataset
        One row per scored query: ``query_id`` and one column per metric key.
    keys : list of str
        The metric keys.
    output : str or None
        The directory of per-query Parquet files, when one was asked for.
    stats : dict
        ``shards``, ``rows`` (of qrels and of the run), ``seconds``; ``worker_peak_private`` (bytes: the largest
        private resident memory of a worker while it ran a task, sampled every 10 ms) and ``worker_peak_rss``
        (the largest ``ru_maxrss`` of a worker process, which also counts the object store's shared pages it
        touched over its life).
    """

    def __init__(self, keys, mean, counts, errors, per_query, output, stats) -> None:
        self.keys, self.mean, self.counts, self.errors = list(keys), dict(mean), dict(counts), dict(errors)
        self.per_query, self.output, self.stats = per_query, output, dict(stats)

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        extra = f", errors={len(self.errors)}" if self.errors else ""
        shards = f", shards={self.stats['shards']}" if "shards" in self.stats else ""
        return f"RayResult(queries={self.counts['scored']}{extra}{shards}, mean={{{means}}})"


def evaluate_ray(
    qrels: Any,
    run: Any,
    metrics: MetricLike | Iterable[MetricLike],
    relevance_level: float = 1,
    missing: str = "zero",
    shards: int | None = None,
    output: str | os.PathLike | None = None,
    *,
    filesystem: Any = None,
    rows_per_shard: int = 2_000_000,
    block_rows: int = 1_000_000,
    max_retries: int = 3,
    retry_exceptions: bool | Sequence[type[BaseException]] = (OSError,),
    progress: bool = True,
) -> RayResult:
    """Score a run against qrels on a Ray cluster; the same numbers as :func:`rag_eval_adapters.evaluate_columns`.

    Parameters
    ----------
    qrels, run : ray.data.Dataset, Parquet path(s), pandas DataFrame, pyarrow Table or mapping of columns
        Columns ``query_id, doc_id, grade`` and ``query_id, doc_id, score`` (or ``rank``). A path may be a
        file, a directory of ``.parquet`` files, a glob (``runs/*.parquet``) or a URI any pyarrow filesystem
        reads (``s3://...``, ``gs://...``); a list of them is read as one table.
    metrics, relevance_level, missing
        As for :func:`rag_eval_adapters.evaluate_columns`.
    shards : int, optional
        How many shards (Ray tasks that each score whole queries). By default enough for ``rows_per_shard``
        rows each, and at least the cluster's CPU count.
    output : str or path, optional
        A new directory (local or URI) to write the per-query rows to, one Parquet file per shard. An existing
        path is refused: nothing is overwritten.
    filesystem : pyarrow.fs.FileSystem, optional
        The filesystem of the paths (and of ``output``) when they are not URIs.
    rows_per_shard, block_rows : int
        Target rows per shard, and rows per input block; a worker holds about one shard at a time, so these
        bound its memory.
    max_retries, retry_exceptions
        Passed to each Ray task: a task whose worker dies is retried up to ``max_retries`` times, and so is
        one that raises one of ``retry_exceptions`` (``OSError`` by default: a flaky read or write). Invalid
        data (``ValueError``) is not retried.
    progress : bool
        A progress bar over the shards on a terminal (never when ``TQDM_DISABLE`` is set).

    Returns
    -------
    RayResult
        ``mean``, ``counts``, ``errors`` and ``per_query`` (a ``ray.data.Dataset``). A query whose input is
        invalid is recorded in ``errors``; the rest are still scored. The per-query values equal
        ``evaluate_columns``'s exactly; the means agree to within rounding.
    """
    import ray

    measures = parse_metrics(metrics)
    level = _check_arguments(relevance_level, missing, shards)
    start = time.perf_counter()
    if not ray.is_initialized():
        ray.init()
    q_src, q_cols, q_rows = _source(qrels, "qrels", filesystem, block_rows)
    r_src, r_cols, r_rows = _source(run, "run", filesystem, block_rows)
    out = _prepare_output(output, filesystem)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    n = shards or max(cpus, math.ceil((q_rows + r_rows) / max(1, rows_per_shard)))
    target = max(block_rows, n * MIN_PIECE_ROWS)
    q_blocks, r_blocks = _blocks(q_src, q_rows, target), _blocks(r_src, r_rows, target)
    options = {"max_retries": max_retries, "retry_exceptions": _retry(retry_exceptions)}
    mode = "zero" if missing == "error" else missing  # a global check below names the missing queries
    tasks, peaks = _submit(q_blocks, q_cols, r_blocks, r_cols, n, options,
                           (measures, level, mode, out))
    del q_blocks, r_blocks  # the pieces are freed as soon as their shard is scored
    try:
        summaries = _gather([t[1] for t in tasks], progress)
    finally:
        _clean(out)
    combined = combine(s for s, _ in summaries)
    combined.check(missing)
    import ray.data

    per_query = ray.data.from_arrow_refs([t[0] for t in tasks])
    stats = {
        "shards": n,
        "rows": {"qrels": q_rows, "run": r_rows},
        "seconds": time.perf_counter() - start,
        "worker_peak_private": max(p[0] for p in [peak for _, peak in summaries] + ray.get(peaks)),
        "worker_peak_rss": max(p[1] for p in [peak for _, peak in summaries] + ray.get(peaks)),
    }
    return RayResult(combined.keys, combined.mean, combined.counts, combined.errors, per_query,
                     None if out is None else out[1], stats)


# --------------------------------------------------------------------------- driver helpers
def _check_arguments(relevance_level, missing, shards) -> float:
    level = check_level(relevance_level)  # the package's one rule and message
    check_missing(missing)
    if shards is not None:
        check_count(shards, "shards")
    return level


def _submit(q_blocks, q_cols, r_blocks, r_cols, n, options, scoring):
    """Both rounds of tasks: a split task per block, a score task per shard (its per-query rows, its summary)."""
    import ray

    split = ray.remote(_split_block).options(num_returns=n + 1, **options)
    q_parts = [split.remote(b, "qrels", q_cols, n) for b in q_blocks]
    r_parts = [split.remote(b, "run", r_cols, n) for b in r_blocks]
    peaks = [p[n] for p in q_parts + r_parts]
    score = ray.remote(_score_shard_task).options(num_returns=2, **options)
    tasks = [score.remote(i, len(q_parts), *scoring, *[p[i] for p in q_parts], *[p[i] for p in r_parts])
             for i in range(n)]
    return tasks, peaks


def _retry(value):
    if isinstance(value, bool):
        return value
    return list(value)


def _prepare_output(output, filesystem):
    if output is None:
        return None
    import pyarrow.fs as pafs

    fs, path = resolve_path(output, filesystem)
    if fs.get_file_info(path).type != pafs.FileType.NotFound:
        raise FileExistsError(f"output {os.fspath(output)!r} already exists; evaluate_ray never overwrites: "
                              "choose a new path")
    fs.create_dir(path)
    return fs, path


def _clean(out) -> None:
    """Remove the temporary files of shard tasks that failed while writing (their retries wrote the parts)."""
    if out is None:
        return
    import pyarrow.fs as pafs

    fs, directory = out
    for info in fs.get_file_info(pafs.FileSelector(directory, allow_not_found=True)):
        if info.base_name.startswith("_tmp-"):
            fs.delete_file(info.path)


def _source(source: Any, field: str, filesystem: Any, block_rows: int):
    """What to split (Parquet pieces, a stored Ray Dataset or an Arrow table), its columns and its row count."""
    if is_path_source(source):
        return parquet_pieces(source, field, filesystem, block_rows)
    if type(source).__module__.startswith("ray.data"):
        columns = wanted_columns(field, list(source.schema().names))
        stored = source.select_columns(columns).materialize()  # run once, then read from the object store
        return stored, columns, stored.count()
    table = as_arrow(source, field)
    return table, list(table.column_names), table.num_rows


def _blocks(source: Any, rows: int, target: int) -> list:
    """Blocks of about ``target`` rows: Parquet blocks (read by the workers) or object refs of Arrow tables."""
    import ray

    if isinstance(source, list):
        return group_pieces(source, target)
    count = max(1, math.ceil(rows / target))
    if type(source).__module__.startswith("ray.data"):
        refs = source.repartition(count).to_arrow_refs() if count != source.num_blocks() else source.to_arrow_refs()
        if not refs:  # an empty dataset: one empty table of its columns
            import pyarrow as pa

            refs = [ray.put(pa.table({c: pa.array([]) for c in source.schema().names}))]
        return refs
    return [ray.put(source.slice(s, target)) for s in range(0, max(rows, 1), target)]


def _gather(refs: list, progress: bool) -> list:
    """``ray.get`` of each reference as it completes, with a progress bar (:mod:`rag_eval_adapters.progress`)."""
    from ..progress import progress_bar

    index = {ref: i for i, ref in enumerate(refs)}
    out: list = [None] * len(refs)
    with progress_bar(total=len(refs), desc="shards", unit="shard", show=progress) as bar:
        _wait_all(list(refs), index, out, bar)
    return out


def _wait_all(pending, index, out, bar) -> None:
    import ray

    while pending:
        done, pending = ray.wait(pending, num_returns=min(len(pending), 16), timeout=1.0)
        try:
            values = ray.get(done)
        except ray.exceptions.RayTaskError as exc:  # bad input: the plain error, not a remote traceback
            if isinstance(exc.cause, (ValueError, TypeError, FileNotFoundError)):
                raise exc.cause from None
            raise
        for ref, value in zip(done, values, strict=False):
            out[index[ref]] = value
        bar.update(len(done))


# --------------------------------------------------------------------------- tasks (run on the workers)
def _peak_rss() -> int:
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # kilobytes on Linux


def _private_rss() -> int:
    """This process's private resident memory (Linux ``RssAnon``: not the object store's shared pages)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0


class _Watch:
    """Samples the private resident memory every 10 ms while a task runs; ``peak`` is (private, ru_maxrss)."""

    def __enter__(self) -> _Watch:
        import threading

        self.private = _private_rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.private = max(self.private, _private_rss())

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak(self) -> tuple[int, int]:
        return max(self.private, _private_rss()), _peak_rss()


def _split_block(block: Any, field: str, columns: list[str], n: int):
    """The block's rows of each shard (``n`` Arrow tables), then the worker's peak memory."""
    with _Watch() as watch:
        return (*_split(block, field, columns, n), watch.peak)


def _split(block: Any, field: str, columns: list[str], n: int) -> list:
    table = block.read(columns) if isinstance(block, ParquetBlock) else block.select(columns)
    try:
        shard = shard_of(table["query_id"], n)
    except ValueError as exc:
        if isinstance(block, ParquetBlock):
            import pyarrow.compute as pc

            null = pc.is_null(table["query_id"], nan_is_null=True).to_numpy(zero_copy_only=False)
            if null.any():
                raise ValueError(f"{field}: {block.where(int(np.argmax(null)))}: the query_id column is empty "
                                 "(None/NaN); every row needs an id") from None
        raise ValueError(f"{field}: {exc}") from None
    order = np.argsort(shard, kind="stable")
    bounds = np.searchsorted(shard[order], np.arange(n + 1))
    import pyarrow as pa

    return [table.take(pa.array(order[bounds[i]:bounds[i + 1]])) for i in range(n)]


def _score_shard_task(index, n_qrels, measures, level, missing, output, *pieces):
    """Score shard ``index``; its per-query rows (and Parquet file), its summary and the worker's peak memory."""
    import pyarrow as pa

    with _Watch() as watch:
        qrels = pa.concat_tables(pieces[:n_qrels], promote_options="permissive")
        run = pa.concat_tables(pieces[n_qrels:], promote_options="permissive")
        del pieces
        rows = score_shard(qrels, run, measures, level, missing)
        del qrels, run
        summary = combine([rows])
        per_query = rows.filter(rows["scored"]).select(["query_id", *summary.keys])
        if output is not None:
            _write(per_query, output, index)
        return per_query, (summary, watch.peak)


def _write(table, output, index: int) -> None:
    """Write one shard's rows; a retried task rewrites the same file, so no row is written twice."""
    import pyarrow.parquet as pq

    fs, directory = output
    final = f"{directory}/part-{index:05d}.parquet"
    temporary = f"{directory}/_tmp-{index:05d}-{os.getpid()}.parquet"
    pq.write_table(table, temporary, filesystem=fs)
    fs.move(temporary, final)
