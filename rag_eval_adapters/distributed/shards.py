"""The engine-agnostic core of distributed scoring: :func:`score_shard` and :func:`combine`.

A *shard* is any set of rows of qrels and run that holds whole queries of both (rows grouped by
:func:`~rag_eval_adapters.distributed.shard_of`, by Spark's ``hash``, or by the query id itself).
:func:`score_shard` scores it with :func:`rag_eval_adapters.evaluate_columns` and returns one row per query
(scored, failed, skipped, or absent from qrels); :func:`combine` merges such rows, or earlier combinations, into
the means, counts and errors of the whole evaluation. Any engine that can group rows and call a Python function
on a group (Ray, Spark ``applyInPandas``, Dask) can run them; see ``docs/distributed.md``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from .. import evaluate_columns, parse_metrics
from ..measures import MetricLike
from ..validation import Missing, check_missing
from .sources import column_names

__all__ = ["score_shard", "combine", "Combined", "STATUS_COLUMNS"]

#: The columns of :func:`score_shard`'s table before the metric columns.
STATUS_COLUMNS = ("query_id", "scored", "in_qrels", "in_run", "error")
_SHOWN = 5  # missing query ids kept to name in an error message


def score_shard(
    qrels_table: Any,
    run_table: Any,
    metrics: MetricLike | Iterable[MetricLike],
    relevance_level: float = 1,
    missing: str = "zero",
):
    """Score one shard: the rows of qrels and run of some whole queries.

    Parameters
    ----------
    qrels_table, run_table : pandas DataFrame, pyarrow Table or mapping of columns
        As for :func:`rag_eval_adapters.evaluate_columns` (``query_id, doc_id, grade`` and
        ``query_id, doc_id, score`` or ``rank``). Every row of a query must be in the same shard; either table
        may be empty.
    metrics, relevance_level, missing
        As for :func:`rag_eval_adapters.evaluate_columns`. With ``missing="error"`` a query of this shard's
        qrels absent from its run raises ``ValueError``; with ``"skip"`` a shard whose queries are all absent is
        not an error (another shard may hold the common queries): :func:`combine` decides.

    Returns
    -------
    pyarrow.Table
        One row per query of either table: ``query_id``; ``scored`` (its metric values count in the means);
        ``in_qrels``; ``in_run``; ``error`` (the message when its input is invalid, else null); then one float64
        column per metric key, null unless ``scored``. Queries of qrels come first, in order of first appearance.
        Every metric value equals :func:`~rag_eval_adapters.evaluate_columns` on the whole data.
    """
    import pyarrow as pa

    measures = parse_metrics(metrics)
    policy = check_missing(missing)
    qq, rq = _query_ids(qrels_table, "qrels"), _query_ids(run_table, "run")
    q_unique, r_unique = _unique(qq), _unique(rq)
    in_run = _isin(q_unique, r_unique)
    not_in_qrels = r_unique[~_isin(r_unique, q_unique)]
    if missing == "error" and not in_run.all():
        absent = q_unique[~in_run]
        shown = ", ".join(repr(q) for q in absent[:_SHOWN].tolist()) + (" ..." if absent.shape[0] > _SHOWN else "")
        raise ValueError(
            f"{absent.shape[0]} queries of qrels are missing from the run ({shown}); "
            "pass missing='zero' to score them 0 or missing='skip' to leave them out"
        )
    n, keys = q_unique.shape[0], [m.key for m in measures]
    values = np.full((n, len(keys)), np.nan)
    scored = np.zeros(n, dtype=bool)
    errors = np.full(n, None, dtype=object)
    if n and (missing != "skip" or in_run.any()):
        ids, got, failed = _evaluate(qrels_table, run_table, measures, relevance_level, policy, qq, rq, q_unique,
                                     in_run)
        at = _positions(q_unique, ids)
        values[at], scored[at] = got, True
        if failed:
            errors[_positions(q_unique, list(failed))] = list(failed.values())
    m = not_in_qrels.shape[0]
    columns = {
        "query_id": _id_array(np.concatenate([q_unique, not_in_qrels]), qrels_table, run_table),
        "scored": pa.array(np.r_[scored, np.zeros(m, dtype=bool)]),
        "in_qrels": pa.array(np.r_[np.ones(n, dtype=bool), np.zeros(m, dtype=bool)]),
        "in_run": pa.array(np.r_[in_run, np.ones(m, dtype=bool)]),
        "error": pa.array(np.r_[errors, np.full(m, None, dtype=object)].tolist(), type=pa.string()),
    }
    full = np.vstack([values, np.full((m, len(keys)), np.nan)])
    valid = np.r_[scored, np.zeros(m, dtype=bool)]
    for j, key in enumerate(keys):
        columns[key] = pa.array(full[:, j], mask=~valid, type=pa.float64())
    return pa.table(columns)


class Combined:
    """Means, counts and errors of a set of shards; :func:`combine` makes and merges them.

    Attributes
    ----------
    keys : list of str
        The metric keys.
    sums : dict
        Metric key -> the sum of its values over the scored queries.
    counts : dict
        ``queries`` (in qrels), ``scored``, ``missing_from_run``, ``not_in_qrels``, ``errors``, as in
        :class:`rag_eval_adapters.Report`.
    errors : dict
        ``{query_id: message}`` for each query that could not be scored.
    missing_ids : list
        Up to five ids of qrels queries absent from the run (to name in an error message).
    """

    def __init__(self, keys, sums, counts, errors, missing_ids) -> None:
        self.keys = list(keys)
        self.sums = dict(sums)
        self.counts = dict(counts)
        self.errors = dict(errors)
        self.missing_ids = list(missing_ids)

    @property
    def mean(self) -> dict[str, float]:
        """Metric key -> mean over the scored queries (``{}`` when none was scored)."""
        n = self.counts["scored"]
        return {k: self.sums[k] / n for k in self.keys} if n else {}

    def check(self, missing: str = "zero") -> None:
        """Raise ``ValueError`` as :func:`~rag_eval_adapters.evaluate_columns` would on the whole data.

        That is when qrels is empty, when ``missing="error"`` and a query of qrels is absent from the run, when
        ``missing="skip"`` and no query is in both, or when no query could be scored.
        """
        c = self.counts
        if not c["queries"]:
            raise ValueError("qrels is empty: there is nothing to evaluate against")
        if missing == "error" and c["missing_from_run"]:
            shown = ", ".join(map(repr, self.missing_ids)) + (" ..." if c["missing_from_run"] > _SHOWN else "")
            raise ValueError(
                f"{c['missing_from_run']} queries of qrels are missing from the run ({shown}); "
                "pass missing='zero' to score them 0 or missing='skip' to leave them out"
            )
        if missing == "skip" and c["missing_from_run"] == c["queries"]:
            raise ValueError("the run has no query in common with the qrels: check the query ids of both")
        if not c["scored"]:
            first = next(iter(self.errors.values()), "none")
            raise ValueError(f"no query could be scored; {len(self.errors)} errors, the first: {first}")

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        return f"Combined(scored={self.counts['scored']}, errors={len(self.errors)}, mean={{{means}}})"


def combine(partials: Iterable[Any]) -> Combined:
    """Merge shard results into the means, counts and errors of the whole evaluation.

    Parameters
    ----------
    partials : iterable
        Tables returned by :func:`score_shard` (pyarrow Tables or their pandas DataFrames) and/or
        :class:`Combined` objects from earlier calls; merging is associative, so partial results can be combined
        where they are made and only the small :class:`Combined` objects sent on.

    Returns
    -------
    Combined
        Sums are taken with ``math.fsum``, so the means equal a one-process evaluation's to within rounding
        (a few units in the last place), whatever the shard order.
    """
    keys: list[str] | None = None
    sums: dict[str, list[float]] = {}
    counts = dict.fromkeys(("queries", "scored", "missing_from_run", "not_in_qrels", "errors"), 0)
    errors: dict[Hashable, str] = {}
    missing_ids: list = []
    for part in partials:
        if not isinstance(part, Combined):
            part = _summarize(part)
        if keys is None:
            keys, sums = part.keys, {k: [] for k in part.keys}
        elif part.keys != keys:
            raise ValueError(f"cannot combine shards scored with different metrics: {keys} and {part.keys}")
        for k in keys:
            sums[k].append(part.sums[k])
        for name in counts:
            counts[name] += part.counts[name]
        errors.update(part.errors)
        missing_ids.extend(part.missing_ids[: _SHOWN - len(missing_ids)])
    return Combined(keys or [], {k: math.fsum(v) for k, v in sums.items()}, counts, errors, missing_ids)


# --------------------------------------------------------------------------- helpers
def _summarize(table: Any) -> Combined:
    if hasattr(table, "to_pandas") and not hasattr(table, "iloc"):
        table = table.to_pandas()
    names = [str(c) for c in table.columns]
    if tuple(names[: len(STATUS_COLUMNS)]) != STATUS_COLUMNS:
        raise ValueError(f"a partial result must be a table of score_shard with columns {list(STATUS_COLUMNS)} "
                         f"first; got {names}")
    keys = names[len(STATUS_COLUMNS):]
    scored = table["scored"].to_numpy(dtype=bool)
    in_qrels = table["in_qrels"].to_numpy(dtype=bool)
    in_run = table["in_run"].to_numpy(dtype=bool)
    failed = table["error"].notna().to_numpy()
    absent = in_qrels & ~in_run
    counts = {
        "queries": int(in_qrels.sum()),
        "scored": int(scored.sum()),
        "missing_from_run": int(absent.sum()),
        "not_in_qrels": int((~in_qrels).sum()),
        "errors": int(failed.sum()),
    }
    ids = table["query_id"].to_numpy()
    errors = dict(zip(ids[failed].tolist(), table["error"].to_numpy()[failed].tolist(), strict=False))
    sums = {k: math.fsum(table[k].to_numpy(dtype=np.float64)[scored].tolist()) for k in keys}
    return Combined(keys, sums, counts, errors, ids[absent][:_SHOWN].tolist())


def _evaluate(qrels: Any, run: Any, measures: Sequence[Any], level: float, missing: Missing, qq: np.ndarray,
              rq: np.ndarray, q_unique: np.ndarray, in_run: np.ndarray) -> tuple[list, np.ndarray, dict]:
    """Scored query ids, their values and the errors of ``evaluate_columns`` on the shard.

    When every query fails, ``evaluate_columns`` raises; each query is then scored alone to learn its error.
    """
    try:
        report = evaluate_columns(qrels, run, measures, relevance_level=level, missing=missing)
        return report.query_ids, report.values, report.errors
    except ValueError as exc:
        if not str(exc).startswith("no query could be scored"):
            raise
    ids: list = []
    values: list = []
    errors: dict = {}
    for q, present in zip(q_unique.tolist(), in_run.tolist(), strict=False):
        if missing == "skip" and not present:
            continue
        try:
            report = evaluate_columns(_rows(qrels, qq == q), _rows(run, rq == q), measures,
                                      relevance_level=level, missing="zero")
        except ValueError as exc:
            errors[q] = str(exc).split("the first: ", 1)[-1]
            continue
        ids += report.query_ids
        values.append(report.values)
        errors.update(report.errors)
    return ids, (np.vstack(values) if values else np.empty((0, len(measures)))), errors


def _query_ids(table: Any, field: str) -> np.ndarray:
    names = column_names(table)
    if names is None:
        raise TypeError(f"{field}: expected a DataFrame, a pyarrow Table or a mapping of columns, "
                        f"got {type(table).__name__}")
    if "query_id" not in names:
        raise ValueError(f"{field} needs a query_id column (it has {names})")
    column = table["query_id"]
    if type(column).__module__.startswith("pyarrow"):
        column = column.to_numpy(zero_copy_only=False)
    elif hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
        column = column.to_numpy()
    column = np.asarray(column)
    if column.dtype.kind in "OfUS":
        import pandas as pd

        null = pd.isna(column)
        if null.any():
            raise ValueError(f"{field}: the query_id column is empty (None/NaN) at row {int(np.argmax(null))}; "
                             "every row needs an id")
    return column


def _unique(ids: np.ndarray) -> np.ndarray:
    import pandas as pd

    return np.asarray(pd.unique(ids.astype(object) if ids.dtype.kind in "US" else ids), dtype=ids.dtype
                      if ids.dtype.kind not in "US" else object)


def _isin(values: np.ndarray, among: np.ndarray) -> np.ndarray:
    import pandas as pd

    if not values.shape[0] or not among.shape[0]:
        return np.zeros(values.shape[0], dtype=bool)
    return np.asarray(pd.Index(values.astype(object) if values.dtype != among.dtype else values)
                      .isin(among.astype(object) if values.dtype != among.dtype else among))


def _positions(unique: np.ndarray, ids: list) -> np.ndarray:
    import pandas as pd

    at = pd.Index(unique.astype(object) if unique.dtype.kind == "O" else unique).get_indexer(ids)
    if (at < 0).any():  # pragma: no cover - evaluate_columns reports only ids of its qrels
        raise RuntimeError("evaluate_columns reported a query id that is not in the shard's qrels")
    return at


def _rows(table: Any, mask: np.ndarray) -> Any:
    if hasattr(table, "column_names"):
        import pyarrow as pa

        return table.filter(pa.array(mask))
    if hasattr(table, "iloc"):
        return table[mask]
    return {k: np.asarray(v)[mask] for k, v in table.items()}


def _id_array(ids: np.ndarray, *tables: Any):
    import pyarrow as pa

    hint = None
    for table in tables:
        column = table["query_id"] if hasattr(table, "column_names") else None
        if column is not None and hint is None:
            hint = column.type
    try:
        return pa.array(ids.tolist() if ids.dtype == object else ids, type=hint)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        pass
    try:
        return pa.array(ids.tolist() if ids.dtype == object else ids)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise TypeError(f"query ids mix types that one Arrow column cannot hold ({exc}); use string ids") from None
