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

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Literal

import numpy as np

from operator import eq

from ._fastpath import _count_below, _group_sort, _position_in_group, rank_by_counting
from ._kernel import Judged
from ._validation import check_level
from .evaluation import Report
from .measures import MetricLike, parse_metrics

__all__ = ["evaluate_columns"]

Missing = Literal["zero", "skip", "error"]


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
    measures = parse_metrics(metrics)
    level = check_level(relevance_level)
    if missing not in ("zero", "skip", "error"):
        raise ValueError(f"missing must be 'zero', 'skip' or 'error', got {missing!r}")
    jq, jd, grade = _columns(qrels, "qrels", ("query_id", "doc_id", "grade"))
    by_score = "score" in _names(run)
    rq, rd, order_col = _columns(run, "run", ("query_id", "doc_id", "score" if by_score else "rank"))
    if not jq.shape[0]:
        raise ValueError("qrels is empty: there is nothing to evaluate against")
    grade = _floats(grade, "qrels", "grade")
    order_col = _floats(order_col, "run", "score" if by_score else "rank")

    # ---- integer codes: queries in qrels order of first appearance, documents shared by qrels and run
    (jqc, rqc), query_ids = _factorize_together(jq, rq)
    _no_nulls(jqc, "qrels", "query_id")
    _no_nulls(rqc, "run", "query_id")
    nq_qrels = int(jqc.max()) + 1  # codes of qrels queries come first (first appearance)
    jdv, rdv = _id_values(jd, "qrels"), _id_values(rd, "run")
    if jdv.dtype != rdv.dtype:
        jdv, rdv = jdv.astype(object), rdv.astype(object)
    exact = jdv.dtype != object  # integer ids are their own keys; others are hashed, and matches verified
    jk, rk = _keys(jdv), _keys(rdv)
    errors: dict[int, str] = {}

    # ---- qrels: one row per (query, doc), finite grades
    _reject(errors, jqc[~np.isfinite(grade)], query_ids,
            lambda q: f"query {q!r}: qrels holds a grade that is not a finite number")
    jorder = np.lexsort((jk, jqc))
    same = np.flatnonzero((jqc[jorder][1:] == jqc[jorder][:-1]) & (jk[jorder][1:] == jk[jorder][:-1]))
    a, b = jorder[same], jorder[same + 1]
    dup = a[_equal(jdv, a, jdv, b, exact)]
    _reject(errors, jqc[dup], query_ids,
            lambda q: f"query {q!r}: qrels judges a document twice; keep one grade per document")

    # ---- run: keep queries of the qrels, grouped by query (stable), validated
    in_qrels = rqc < nq_qrels
    not_in_qrels = int(np.unique(rqc[~in_qrels]).shape[0])
    if not in_qrels.all():
        rqc, rk, rdv, order_col = rqc[in_qrels], rk[in_qrels], rdv[in_qrels], order_col[in_qrels]
    if not by_score:
        bad = ~np.isfinite(order_col)
        _reject(errors, rqc[bad], query_ids, lambda q: f"query {q!r}: run holds a rank that is not a number")
        order_col = np.where(bad, 0.0, order_col)
        grouping = _group_sort(rqc, order_col)  # by query, then by rank
    else:
        grouping = None if (rqc[1:] >= rqc[:-1]).all() else np.argsort(rqc, kind="stable")
    if grouping is not None:
        rqc, rk, rdv, order_col = rqc[grouping], rk[grouping], rdv[grouping], order_col[grouping]
    lens = np.bincount(rqc, minlength=nq_qrels)
    by_key, starts = _argsort_within_rows(rk, lens, stable=not by_score)
    keys_sorted = rk[by_key]
    adjacent = np.flatnonzero(keys_sorted[1:] == keys_sorted[:-1])
    adjacent = adjacent[rqc[by_key[adjacent]] == rqc[by_key[adjacent + 1]]]
    a, b = by_key[adjacent], by_key[adjacent + 1]
    repeated = _equal(rdv, a, rdv, b, exact)
    if by_score:
        _reject(errors, rqc[np.isnan(order_col)], query_ids,
                lambda q: f"query {q!r}: run holds a NaN score; scores must be numbers to rank by")
        _reject(errors, rqc[b[repeated]], query_ids,
                lambda q: f"query {q!r}: run scores a document twice; keep one score per document")
    else:
        if repeated.any():  # a repeated document counts once, at its best rank (the first of its run of keys)
            keep = np.ones(rqc.shape[0], dtype=bool)
            keep[b[repeated]] = False
            rqc, rk, rdv = rqc[keep], rk[keep], rdv[keep]
            lens = np.bincount(rqc, minlength=nq_qrels)
            by_key, starts = _argsort_within_rows(rk, lens)
            keys_sorted = rk[by_key]
        order_col = -_position_in_group(rqc).astype(np.float64)  # as scores: position 1 scores highest

    present = lens > 0
    absent = np.flatnonzero(~present)
    if missing == "error" and absent.shape[0]:
        shown = ", ".join(repr(query_ids[q]) for q in absent[:5]) + (" ..." if absent.shape[0] > 5 else "")
        raise ValueError(
            f"{absent.shape[0]} queries of qrels are missing from the run ({shown}); "
            "pass missing='zero' to score them 0 or missing='skip' to leave them out"
        )
    if missing == "skip" and not present.any():
        raise ValueError("the run has no query in common with the qrels: check the query ids of both")

    # ---- join each judged document to its query's run rows: binary search in the query's sorted keys
    if keys_sorted.shape[0]:
        at = starts[jqc] + _count_below(keys_sorted, starts[jqc], lens[jqc], jk, strict=True)
        at_c = np.minimum(at, keys_sorted.shape[0] - 1)
        hit = (at < starts[jqc] + lens[jqc]) & (keys_sorted[at_c] == jk)
    else:
        hit, at_c = np.zeros(jqc.shape[0], dtype=bool), np.zeros(jqc.shape[0], dtype=np.int64)
    hit_judged = np.flatnonzero(hit)
    hit_row = by_key[at_c[hit_judged]]
    if not exact:
        ok_pair = _equal(jdv, hit_judged, rdv, hit_row, exact)
        if not ok_pair.all():  # equal hashes, different ids: look the id up among the query's rows
            hit_judged, hit_row = _resolve_collisions(hit_judged, hit_row, ok_pair, jqc, jdv, rdv, starts, lens)

    # ---- ranks: scores sorted within each query, a binary search per judged document
    hq = rqc[hit_row]
    hs = order_col[hit_row]
    finite = ~np.isnan(hs)
    ranks = np.zeros(hq.shape[0], dtype=np.int64)
    clean = np.nan_to_num(order_col, nan=-np.inf)  # NaN rows are errors already; keep the sort well defined
    ranks[finite], tied, _ = rank_by_counting(clean, lens, hq[finite], hs[finite])
    if tied.any():  # ties: the tied documents whose id sorts after this one come first (trec_eval)
        where = np.flatnonzero(finite)[tied]
        ranks[where] += _tie_offsets(where, hq, hs, hit_row, starts, lens, rdv, order_col, query_ids, errors)

    # ---- statistics of the scored queries
    scored = np.ones(nq_qrels, dtype=bool)
    if missing == "skip":
        scored &= present
    scored[list(errors)] = False
    ok = np.flatnonzero(scored)
    new = np.full(nq_qrels, -1, dtype=np.int64)
    new[ok] = np.arange(ok.shape[0])
    keep_hit = scored[hq]
    hit_q, hit_rank = new[hq[keep_hit]], ranks[keep_hit]
    hit_grade = grade[hit_judged][keep_hit]
    order = _group_sort(hit_q, hit_rank)
    keep_j = scored[jqc]
    jq_new, g = new[jqc[keep_j]], grade[keep_j]
    positive = g > 0
    iq, ig = jq_new[positive], g[positive]
    iorder = _group_sort(iq, -ig)
    iq, ig = iq[iorder], ig[iorder]
    judged = Judged(
        n_ret=lens[ok].astype(np.int64),
        n_rel=np.bincount(jq_new[g >= level], minlength=ok.shape[0]).astype(np.int64),
        hit_q=hit_q[order],
        hit_rank=hit_rank[order],
        hit_grade=hit_grade[order],
        ideal_q=iq,
        ideal_pos=_position_in_group(iq),
        ideal_grade=ig,
        relevance_level=level,
    )
    if not ok.shape[0]:
        first = next(iter(errors.values()))
        raise ValueError(f"no query could be scored; {len(errors)} errors, the first: {first}")
    values_out = np.empty((ok.shape[0], len(measures)), dtype=np.float64)
    for j, measure in enumerate(measures):
        values_out[:, j] = measure.compute(judged)
    counts = {
        "queries": nq_qrels,
        "scored": int(ok.shape[0]),
        "missing_from_run": int(absent.shape[0]),
        "not_in_qrels": not_in_qrels,
        "errors": len(errors),
    }
    error_text = {query_ids[q]: errors[q] for q in sorted(errors)}
    return Report(measures, [query_ids[q] for q in ok.tolist()], values_out, error_text, counts, level)


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
        out.append(np.asarray(column))
    if len({c.shape[0] for c in out}) != 1:
        raise ValueError(f"{field}: the columns {list(wanted)} have different lengths")
    return tuple(out)


def _is_arrow(column: Any) -> bool:
    return type(column).__module__.startswith("pyarrow")


def _floats(column: np.ndarray, field: str, name: str) -> np.ndarray:
    if column.dtype.kind == "b":
        raise TypeError(f"{field}: the {name} column holds booleans; it must hold numbers")
    try:
        return np.asarray(column, dtype=np.float64)
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
    for head, size in zip(heads, sizes):
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


def _reject(errors: dict[int, str], queries: np.ndarray, query_ids: list, message) -> None:
    for q in np.unique(queries).tolist():
        errors.setdefault(q, message(query_ids[q]))


def _tie_offsets(hits, hq, hs, hit_row, starts, lens, ids, scores, query_ids, errors):
    """For each tied hit, the number of documents of its query with the same score and a greater doc id."""
    out = np.zeros(hits.shape[0], dtype=np.int64)
    for n, h in enumerate(hits.tolist()):
        q, s = int(hq[h]), hs[h]
        rows = np.arange(starts[q], starts[q] + lens[q])
        same = ids[rows[scores[rows] == s]].tolist()
        doc = ids[hit_row[h]]
        try:
            out[n] = sum(1 for d in same if d > doc)
        except TypeError:
            errors.setdefault(q, f"query {query_ids[q]!r}: run mixes document id types that cannot be ordered "
                                 "to break score ties; use string ids")
    return out


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


def _argsort_within_rows(keys: np.ndarray, lens: np.ndarray, stable: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Indices ordering ``keys`` within each row (rows one after another), and each row's start."""
    m, total = lens.shape[0], keys.shape[0]
    starts = np.zeros(m, dtype=np.int64)
    if m > 1:
        np.cumsum(lens[:-1], out=starts[1:])
    width = int(lens.max()) if m else 0
    if not total or width < 2:
        return np.arange(total), starts
    if width * m <= 4 * total + 4096:
        matrix = np.full((m, width), np.iinfo(np.int64).max, dtype=np.int64)
        filled = np.arange(width) < lens[:, None]
        matrix[filled] = keys
        within = np.argsort(matrix, axis=1, kind="stable" if stable else None)
        real = within < lens[:, None]  # pads hold the largest key: they sort last (or among equal maxima)
        return (within + starts[:, None])[real], starts
    row = np.repeat(np.arange(m, dtype=np.int64), lens)
    return np.lexsort((keys, row)), starts
