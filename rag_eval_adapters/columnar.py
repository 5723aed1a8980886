"""Evaluation straight from columns: numpy arrays, a pandas DataFrame or a pyarrow Table.

:func:`evaluate_columns` never builds a Python object per query or per document: ids are factorised to
integer codes (pandas' hash tables when pandas is installed, ``np.unique`` otherwise), judged documents are
joined to the run on those codes, and ranks come from a sort of each query's scores and a vectorised binary
search, exactly as :func:`rag_eval_adapters.evaluate` ranks (score descending, ties by doc id descending).

>>> import numpy as np
>>> from rag_eval_adapters.columnar import evaluate_columns
>>> qrels = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "grade": [1, 2]}
>>> run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["c", "b", "a"], "score": [0.9, 0.8, 0.1]}
>>> evaluate_columns(qrels, run, ["mrr", "precision@2"]).mean
{'mrr': 0.5, 'precision@2': 0.5}
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from operator import eq
from typing import Any

import numpy as np

from ._ranking import (
    argsort_within_rows,
    count_below,
    group_sort,
    position_in_group,
    rank_by_counting,
    ties_after,
)
from ._scoring import Missing, apply_missing, assemble, check_metrics, check_missing, finish
from ._validation import check_grade, check_level, rank_by_score, twice_message
from .evaluation import Report
from .measures import MetricLike

__all__ = ["evaluate_columns"]

_MAX_FLOAT = 1.7976931348623157e308


def evaluate_columns(
    qrels: Any,
    run: Any,
    metrics: MetricLike | Iterable[MetricLike],
    relevance_level: float = 1,
    missing: Missing = "zero",
) -> Report:
    """Score a run given as columns against qrels given as columns; the same numbers as :func:`evaluate`.

    Parameters
    ----------
    qrels : DataFrame, pyarrow Table, or mapping of column name -> array
        Columns ``query_id``, ``doc_id``, ``grade``: one row per judged document.
    run : DataFrame, pyarrow Table, or mapping of column name -> array
        Columns ``query_id``, ``doc_id`` and either ``score`` (ranked score descending, ties by doc id
        descending, as trec_eval) or ``rank`` (1 = best; a document repeated within a query counts once, at
        its best rank). Rows need not be grouped or sorted.
    metrics, relevance_level, missing
        As for :func:`rag_eval_adapters.evaluate`.

    A query with a NaN score, a document scored twice, or a non-finite or repeated grade is recorded in
    ``report.errors`` and the others are still scored. Query ids are reported in the order they first appear
    in ``qrels``.
    """
    measures = check_metrics(metrics)
    level = check_level(relevance_level)
    missing = check_missing(missing)
    jq, jd, grade = _columns(qrels, "qrels", ("query_id", "doc_id", "grade"))
    by_score = "score" in _names(run)
    rq, rd, order_col = _columns(run, "run", ("query_id", "doc_id", "score" if by_score else "rank"))
    if not jq.shape[0]:
        raise ValueError("qrels is empty: there is nothing to evaluate against")
    raw_grade, raw_order = grade, order_col
    grade, huge_grade = _floats(grade, "qrels", "grade")
    order_col, huge_order = _floats(order_col, "run", "score" if by_score else "rank")

    # ---- integer codes: queries in qrels order of first appearance, documents shared by qrels and run
    (jqc, rqc), query_ids = _factorize_together(jq, rq)
    _no_nulls(jqc, "qrels", "query_id")
    _no_nulls(rqc, "run", "query_id")
    nq = int(jqc.max()) + 1  # codes of qrels queries come first (first appearance)
    jdv, rdv = _id_values(jd, "qrels"), _id_values(rd, "run")
    if jdv.dtype != rdv.dtype:
        jdv, rdv = jdv.astype(object), rdv.astype(object)
    exact = jdv.dtype != object  # integer ids are their own keys; others are hashed, and matches verified
    jk = _keys(jdv)
    errors: dict[int, str] = {}
    _check_qrels(errors, jqc, jk, jdv, grade, exact, query_ids, np.where(huge_grade, raw_grade, grade))
    huge = np.flatnonzero(huge_order)
    _reject(errors, rqc[huge], query_ids,
            lambda q, i: _message(rank_by_score, {rdv[i]: raw_order[i]}, q, "run") if by_score
            else f"query {q!r}: run holds a rank too large for a float64", huge)

    in_qrels = rqc < nq
    not_in_qrels = int(np.unique(rqc[~in_qrels]).shape[0])
    rows = _Rows(rqc[in_qrels], rdv[in_qrels], order_col[in_qrels], nq, by_score, exact)
    rows.validate(errors, query_ids)
    absent = np.flatnonzero(rows.lens == 0)
    apply_missing([query_ids[q] for q in absent.tolist()], nq, missing)

    hit_judged, hit_row = rows.join(jqc, jk, jdv)
    hq, ranks = rows.rank(hit_row, errors, query_ids)

    # ---- statistics of the scored queries
    scored = np.ones(nq, dtype=bool)
    if missing == "skip":
        scored[absent] = False
    scored[list(errors)] = False
    ok = np.flatnonzero(scored)
    new = np.full(nq, -1, dtype=np.int64)
    new[ok] = np.arange(ok.shape[0])
    keep_hit, keep_j = scored[hq], scored[jqc]
    jq_new, g = new[jqc[keep_j]], grade[keep_j]
    judged = assemble(
        rows.lens[ok],
        np.bincount(jq_new[g >= level], minlength=ok.shape[0]),
        new[hq[keep_hit]], ranks[keep_hit], grade[hit_judged][keep_hit],
        jq_new[g > 0], g[g > 0], level,
    )
    counts = {"queries": nq, "scored": 0, "missing_from_run": int(absent.shape[0]),
              "not_in_qrels": not_in_qrels, "errors": 0}
    error_text = {query_ids[q]: errors[q] for q in sorted(errors)}
    return finish(measures, judged, [query_ids[q] for q in ok.tolist()], error_text, counts, level)


def _check_qrels(errors, jqc, jk, jdv, grade, exact, query_ids, given) -> None:
    """Record the queries whose qrels hold a grade that is not finite (``given`` as written) or judge a
    document twice."""
    bad = np.flatnonzero(~np.isfinite(grade))
    _reject(errors, jqc[bad], query_ids, lambda q, i: _message(check_grade, _plain(given[i]), jdv[i], "qrels", q), bad)
    jorder = np.lexsort((jk, jqc))
    same = np.flatnonzero((jqc[jorder][1:] == jqc[jorder][:-1]) & (jk[jorder][1:] == jk[jorder][:-1]))
    a, b = jorder[same], jorder[same + 1]
    dup = b[_equal(jdv, a, jdv, b, exact)]
    _reject(errors, jqc[dup], query_ids, lambda q, i: twice_message(q, "qrels", jdv[i], "grade"), dup)


class _Rows:
    """The run's rows of the qrels queries, grouped by query, with what ranking them needs."""

    def __init__(self, rqc, rdv, order_col, nq, by_score, exact):
        self.by_score, self.exact = by_score, exact
        if not by_score:  # by query, then by rank
            self.bad_rank = ~np.isfinite(order_col)
            grouping = group_sort(rqc, np.where(self.bad_rank, 0.0, order_col))
        else:
            grouping = None if (rqc[1:] >= rqc[:-1]).all() else np.argsort(rqc, kind="stable")
        if grouping is not None:
            rqc, rdv, order_col = rqc[grouping], rdv[grouping], order_col[grouping]
            if not by_score:
                self.bad_rank = self.bad_rank[grouping]
        self.q, self.ids, self.order, self.nq = rqc, rdv, order_col, nq
        self._index()

    def _index(self) -> None:
        self.keys = _keys(self.ids)
        self.lens = np.bincount(self.q, minlength=self.nq)
        self.by_key, self.starts = argsort_within_rows(self.keys, self.lens, stable=not self.by_score)
        self.keys_sorted = self.keys[self.by_key]

    def validate(self, errors: dict[int, str], query_ids: list) -> None:
        """Record NaN scores, documents scored twice, bad ranks; keep a repeated ranked document once."""
        by_key = self.by_key
        adjacent = np.flatnonzero(self.keys_sorted[1:] == self.keys_sorted[:-1])
        adjacent = adjacent[self.q[by_key[adjacent]] == self.q[by_key[adjacent + 1]]]
        a, b = by_key[adjacent], by_key[adjacent + 1]
        repeated = _equal(self.ids, a, self.ids, b, self.exact)
        if self.by_score:
            nan = np.flatnonzero(np.isnan(self.order))
            _reject(errors, self.q[nan], query_ids,
                    lambda q, i: _message(rank_by_score, {self.ids[i]: math.nan}, q, "run"), nan)
            twice = b[repeated]
            _reject(errors, self.q[twice], query_ids, lambda q, i: twice_message(q, "run", self.ids[i], "score"),
                    twice)
            return
        bad = np.flatnonzero(self.bad_rank)
        _reject(errors, self.q[bad], query_ids,
                lambda q, i: f"query {q!r}: run holds a rank that is not a number ({self.order[i]!r})", bad)
        if repeated.any():  # a repeated document counts once, at its best rank (the first of its run of keys)
            keep = np.ones(self.q.shape[0], dtype=bool)
            keep[b[repeated]] = False
            self.q, self.ids = self.q[keep], self.ids[keep]
            self._index()
        self.order = -position_in_group(self.q).astype(np.float64)  # as scores: position 1 scores highest

    def join(self, jqc, jk, jdv):
        """(judged row, run row) of every judged document the run retrieved: a binary search in its query's keys."""
        starts, lens, keys_sorted = self.starts[jqc], self.lens[jqc], self.keys_sorted
        if keys_sorted.shape[0]:
            at = starts + count_below(keys_sorted, starts, lens, jk, strict=True)
            at_c = np.minimum(at, keys_sorted.shape[0] - 1)
            hit = (at < starts + lens) & (keys_sorted[at_c] == jk)
        else:
            hit, at_c = np.zeros(jqc.shape[0], dtype=bool), np.zeros(jqc.shape[0], dtype=np.int64)
        hit_judged = np.flatnonzero(hit)
        hit_row = self.by_key[at_c[hit_judged]]
        if not self.exact:
            ok_pair = _equal(jdv, hit_judged, self.ids, hit_row, self.exact)
            if not ok_pair.all():  # equal hashes, different ids: look the id up among the query's rows
                hit_judged, hit_row = _resolve_collisions(hit_judged, hit_row, ok_pair, jqc, jdv, self.ids,
                                                          self.starts, self.lens)
        return hit_judged, hit_row

    def rank(self, hit_row, errors: dict[int, str], query_ids: list):
        """(query, rank) of each hit: score descending, ties by doc id descending (trec_eval)."""
        hq, hs = self.q[hit_row], self.order[hit_row]
        finite = ~np.isnan(hs)
        ranks = np.zeros(hq.shape[0], dtype=np.int64)
        clean = np.where(np.isnan(self.order), -np.inf, self.order)  # NaN rows are errors already
        ranks[finite], tied, _, _ = rank_by_counting(clean, self.lens, hq[finite], hs[finite])
        where = np.flatnonzero(finite)[tied]
        if where.shape[0]:
            rows = hq[where]
            for part in np.split(where, np.flatnonzero(rows[1:] != rows[:-1]) + 1):
                q = int(hq[part[0]])
                span = slice(int(self.starts[q]), int(self.starts[q] + self.lens[q]))
                try:
                    ranks[part] += ties_after(self.ids[span].tolist(), clean[span],
                                              self.ids[hit_row[part]].tolist(), hs[part])
                except TypeError:
                    errors.setdefault(q, _message(rank_by_score, {1: 0.0, "1": 0.0}, query_ids[q], "run"))
        return hq, ranks


# --------------------------------------------------------------------------- helpers
def _names(table: Any) -> list[str]:
    if hasattr(table, "column_names"):  # pyarrow
        return list(table.column_names)
    if hasattr(table, "columns"):  # pandas
        return [str(c) for c in table.columns]
    if isinstance(table, Mapping):
        return [str(c) for c in table]
    raise TypeError(f"expected a DataFrame, a pyarrow Table or a mapping of columns, got {type(table).__name__}")


def _columns(table: Any, field: str, wanted: tuple[str, str, str]) -> tuple[np.ndarray, ...]:
    names = _names(table)
    missing = [c for c in wanted if c not in names]
    if missing:
        raise ValueError(f"{field} needs the columns {list(wanted)}; missing {missing} (it has {names})")
    out = []
    for name in wanted:
        column = table[name]
        if hasattr(column, "to_numpy") and not isinstance(column, np.ndarray):
            column = column.to_numpy(zero_copy_only=False) if _is_arrow(column) else column.to_numpy()
        array = np.asarray(column)
        if array.ndim != 1:
            got = f"a scalar ({_short(column)})" if array.ndim == 0 else f"a {array.ndim}-D array of shape {array.shape}"
            raise ValueError(f"{field}: the {name} column must be 1-D, one value per row; got {got}")
        out.append(array)
    if len({c.shape[0] for c in out}) != 1:
        raise ValueError(f"{field}: the columns {list(wanted)} have different lengths")
    return tuple(out)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_arrow(column: Any) -> bool:
    return type(column).__module__.startswith("pyarrow")


def _floats(column: np.ndarray, field: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The column as float64, and the mask of values too large for a float64 (NaN in the result)."""
    if column.dtype.kind == "b":
        raise TypeError(f"{field}: the {name} column holds booleans; it must hold numbers")
    try:
        return np.asarray(column, dtype=np.float64), np.zeros(column.shape[0], dtype=bool)
    except OverflowError:  # Python ints beyond float64: each becomes its query's error
        huge = np.fromiter((isinstance(v, int) and abs(v) > _MAX_FLOAT for v in column), dtype=bool,
                           count=column.shape[0])
        return np.asarray(np.where(huge, math.nan, column).astype(np.float64)), huge
    except (TypeError, ValueError):
        raise TypeError(f"{field}: the {name} column must hold numbers, got dtype {column.dtype}") from None


def _factorize_together(*columns: np.ndarray) -> tuple[list[np.ndarray], list[Hashable]]:
    """Codes shared by several columns (first appearance across them in order), and the distinct values.

    Rows usually come grouped by query, so only the first row of each run of equal values is factorised.
    """
    heads, sizes = [], []
    for column in columns:
        if column.shape[0] > 1:
            head = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
        else:
            head = np.arange(column.shape[0])
        heads.append(column[head])
        sizes.append(np.diff(np.r_[head, column.shape[0]]))
    codes, uniques = _factorize(np.concatenate(heads))
    out, at = [], 0
    for head, size in zip(heads, sizes, strict=False):
        out.append(np.repeat(codes[at:at + head.shape[0]], size))
        at += head.shape[0]
    return out, uniques


def _factorize(values: np.ndarray) -> tuple[np.ndarray, list[Hashable]]:
    """Integer codes in order of first appearance, and the distinct values."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        uniques, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        rank = np.empty(uniques.shape[0], dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(uniques.shape[0])
        return rank[inverse.ravel()], [uniques[i] for i in np.argsort(first, kind="stable")]
    codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64, copy=False), list(uniques.tolist() if hasattr(uniques, "tolist") else uniques)


def _no_nulls(codes: np.ndarray, field: str, name: str) -> None:
    if codes.shape[0] and codes.min() < 0:
        row = int(np.argmax(codes < 0))
        raise ValueError(f"{field}: the {name} column is empty (None/NaN) at row {row}; every row needs an id")


def _reject(errors: dict[int, str], queries: np.ndarray, query_ids: list, message, rows: np.ndarray) -> None:
    """Record ``message(query_id, row)`` for the query of each offending row (its first offending row)."""
    first: dict[int, int] = {}
    for q, i in zip(queries.tolist(), rows.tolist(), strict=False):
        first.setdefault(q, i)
    for q, i in first.items():
        errors.setdefault(q, message(query_ids[q], i))


def _message(check, *args) -> str:
    """The message the per-query validator ``check(*args)`` raises: one wording for both front doors."""
    try:
        check(*args)
    except (TypeError, ValueError) as exc:
        return str(exc)
    raise AssertionError(f"{check.__name__}{args!r} accepted a value the columns refuse")  # pragma: no cover




def _id_values(column: np.ndarray, field: str) -> np.ndarray:
    """Doc ids as int64 (integer columns) or an object array; a missing id is an error."""
    if column.dtype.kind in "iu":
        return column.astype(np.int64, copy=False)
    values = column.astype(object, copy=False)
    try:
        import pandas as pd

        if pd.api.types.infer_dtype(values, skipna=False) == "string":  # all str: nothing missing
            return values
        null = pd.isna(values)
    except ImportError:  # pragma: no cover - depends on the environment
        null = np.fromiter((v is None or v != v for v in values), dtype=bool, count=values.shape[0])
    if null.any():
        raise ValueError(f"{field}: the doc_id column is empty (None/NaN) at row {int(np.argmax(null))}; "
                         "every row needs an id")
    return values


def _keys(ids: np.ndarray) -> np.ndarray:
    """int64 keys: the ids themselves, or their Python hashes (equal ids, equal keys)."""
    if ids.dtype != object:
        return ids
    return np.fromiter(map(hash, ids), dtype=np.int64, count=ids.shape[0])


def _equal(left: np.ndarray, i: np.ndarray, right: np.ndarray, j: np.ndarray, exact: bool) -> np.ndarray:
    """Whether ``left[i] == right[j]`` pairwise (already known when the keys are the ids)."""
    if exact or not i.shape[0]:
        return np.ones(i.shape[0], dtype=bool)
    return np.fromiter(map(eq, left[i], right[j]), dtype=bool, count=i.shape[0])


def _resolve_collisions(hit_judged, hit_row, ok_pair, jqc, jdv, rdv, starts, lens):
    """Redo, by comparing ids, the matches whose hashes agreed but ids did not (vanishingly rare)."""
    good_j, good_r = list(hit_judged[ok_pair]), list(hit_row[ok_pair])
    for j in hit_judged[~ok_pair].tolist():
        q = int(jqc[j])
        for r in range(int(starts[q]), int(starts[q] + lens[q])):
            if rdv[r] == jdv[j]:
                good_j.append(j)
                good_r.append(r)
                break
    order = np.argsort(np.asarray(good_j, dtype=np.int64), kind="stable")
    return np.asarray(good_j, dtype=np.int64)[order], np.asarray(good_r, dtype=np.int64)[order]

