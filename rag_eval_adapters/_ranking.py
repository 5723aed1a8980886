"""Sorting and ranking inside segments: the one home of trec_eval's ranking rule for the batch paths.

Both front doors (:func:`rag_eval_adapters.evaluate` over Python dicts and lists,
:func:`rag_eval_adapters.evaluate_columns` over columns) lay many queries one after another ("rows" or "groups"
of a flat array) and need the same few operations on them: sort within each group, number the rows of a group,
and rank a document among its query's scores. trec_eval's order is **score descending, ties broken by doc id
descending**: :func:`trec_order` sorts one query by it; :func:`rank_by_counting` plus :func:`ties_after` give the
same ranks to selected documents without sorting the ids (one sort of the scores, plus one sort of the ids that
share a selected document's score).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable, Iterable, Sequence
from itertools import compress, repeat
from operator import gt
from typing import Any

import numpy as np

__all__ = [
    "trec_order",
    "ties_after",
    "rank_by_counting",
    "row_offsets",
    "sort_within_rows",
    "argsort_within_rows",
    "count_below",
    "group_sort",
    "sort_desc_in_groups",
    "position_in_group",
]


#: below this many (hit, document) pairs, ties are counted by a scan (cheaper than sorting for small queries)
_SCAN = 4096


def trec_order(scored: Iterable[tuple[float, Hashable]]) -> list[Hashable]:
    """Doc ids of ``(score, doc_id)`` pairs in trec_eval's order: score descending, ties by doc id descending.

    Raises ``TypeError`` when tied ids cannot be compared (e.g. ``1`` and ``"1"``).
    """
    items = list(scored)
    items.sort(reverse=True)
    return [doc for _, doc in items]


def ties_after(
    ids: Sequence[Any], scores: np.ndarray, hit_ids: Sequence[Any], hit_scores: np.ndarray
) -> list[int]:
    """For each document ``(hit_ids[h], hit_scores[h])`` of one query: how many of the query's documents
    (``ids``, scored ``scores``, in the same order) share its score and have a greater id, i.e. come before it
    in trec_eval's order.

    Cost: one pass over the scores and one sort of the ids that share a hit's score, never a scan of the query
    per hit (except for small queries, where picking the ids that share each hit's score is cheaper than the
    sort's set-up). Raises ``TypeError`` when tied ids cannot be compared.
    """
    n = scores.shape[0]
    hit_values = np.asarray(hit_scores, dtype=np.float64).tolist()
    out: list[int] = []
    if len(hit_ids) * n <= _SCAN:
        for doc, s in zip(hit_ids, hit_values, strict=False):
            same = compress(ids, (scores == s).tolist())
            out.append(sum(map(gt, same, repeat(doc))))
        return out
    ids = list(ids)
    picked = np.flatnonzero(np.isin(scores, hit_scores))
    picked = picked[np.argsort(scores[picked], kind="stable")]
    values = scores[picked]
    groups: dict[float, list[Any]] = {}
    for part in np.split(picked, np.flatnonzero(values[1:] != values[:-1]) + 1):
        if part.shape[0]:
            groups[float(scores[part[0]])] = sorted([ids[i] for i in part.tolist()])
    for doc, s in zip(hit_ids, hit_values, strict=False):
        tied = groups[s]
        out.append(len(tied) - bisect_right(tied, doc))
    return out


def rank_by_counting(
    values: np.ndarray, lens: np.ndarray, hit_row: np.ndarray, hit_score: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ranks of some documents among the scores of their rows, before breaking ties.

    ``values`` holds every row's scores one row after another (``lens`` per row, no NaN); hit ``h`` is a
    document of row ``hit_row[h]`` scored ``hit_score[h]``. Returns ``(rank, tied, tied_rows, constant)``:
    ``rank[h] = 1 + #(scores of its row > hit_score[h])``; ``tied[h]`` whether another score of its row
    equals it (the caller adds the tied documents whose id sorts after it); ``tied_rows`` the rows holding
    any tie at all; ``constant[r]`` whether row ``r`` has at least two scores, all equal. Cost: one sort of
    every row, then a vectorised binary search per hit.
    """
    ordered, starts, row_width = sort_within_rows(values, lens)
    start, length = starts[hit_row], lens[hit_row]
    upto = count_below(ordered, start, length, hit_score, strict=False)  # scores <= s
    # the hit's own score sits at upto - 1: it is tied when the score before it is equal too
    tied = (upto >= 2) & (ordered[np.maximum(start + upto - 2, 0)] == hit_score)
    if row_width:  # one padded row per query (NaN pads never equal anything)
        matrix = ordered.reshape(-1, row_width)
        tied_rows = np.flatnonzero((matrix[:, 1:] == matrix[:, :-1]).any(axis=1))
    elif (same := ordered[1:] == ordered[:-1]).any():
        row_of = np.repeat(np.arange(lens.shape[0], dtype=np.int64), lens)
        pairs = np.flatnonzero(same)
        rows = row_of[pairs][row_of[pairs] == row_of[pairs + 1]]  # ascending: keep the first of each run
        tied_rows = rows[np.r_[True, rows[1:] != rows[:-1]]] if rows.shape[0] else rows
    else:
        tied_rows = np.zeros(0, dtype=np.int64)
    constant = np.zeros(lens.shape[0], dtype=bool)
    long = np.flatnonzero(lens > 1)
    constant[long] = ordered[starts[long]] == ordered[starts[long] + lens[long] - 1]
    return length - upto + 1, tied, tied_rows, constant


def row_offsets(lens: np.ndarray) -> np.ndarray:
    """Where each of the rows laid one after another starts, then where the last ends (``len(lens) + 1``)."""
    offsets = np.zeros(lens.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    return offsets


def sort_within_rows(values: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``values`` sorted ascending within each row (rows laid one after another), each row's start in the
    result, and the width of the rows when the result is a padded matrix (rows of that width, NaN after each
    row's values), else 0 (rows one after another)."""
    m, total = lens.shape[0], values.shape[0]
    width = int(lens.max()) if m else 0
    if not total or width < 2:
        return values.copy(), row_offsets(lens)[:-1], 0
    if width * m <= 4 * total + 4096:  # similar lengths: sort the rows of a padded matrix (NaN last)
        if width * m == total:  # every row as long: no padding
            matrix = values.reshape(m, width).copy()
        else:
            matrix = np.full((m, width), np.nan)
            matrix[np.arange(width) < lens[:, None]] = values
        matrix.sort(axis=1)
        return matrix.ravel(), np.arange(0, m * width, width, dtype=np.int64), width
    row = np.repeat(np.arange(m, dtype=np.int64), lens)  # very uneven lengths: one sort of (row, value)
    return values[np.lexsort((values, row))], row_offsets(lens)[:-1], 0


def argsort_within_rows(keys: np.ndarray, lens: np.ndarray, stable: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Indices ordering ``keys`` within each row (rows one after another), and each row's start."""
    m, total = lens.shape[0], keys.shape[0]
    starts = row_offsets(lens)[:-1]
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

def count_below(flat: np.ndarray, base: np.ndarray, lens: np.ndarray, s: np.ndarray, strict: bool) -> np.ndarray:
    """Per hit: how many of its row's first ``lens`` (sorted) scores are < s (strict) or <= s."""
    lo = np.zeros(s.shape[0], dtype=np.int64)
    hi = lens.astype(np.int64, copy=True)
    active = lo < hi
    while active.any():
        mid = (lo + hi) >> 1
        v = flat[np.minimum(base + mid, flat.shape[0] - 1)]
        go_right = (v < s) if strict else (v <= s)
        lo = np.where(active & go_right, mid + 1, lo)
        hi = np.where(active & ~go_right, mid, hi)
        active = lo < hi
    return lo

def group_sort(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    """The permutation ordering rows by ``group`` then ``key`` (like ``np.lexsort((key, group))``).

    Groups are small (a query's judged documents), so when ``group`` is already sorted (the usual case) the
    rows are sorted within their groups as the rows of a padded matrix, which is much faster than lexsort.
    """
    n = group.shape[0]
    if n < 2:
        return np.arange(n)
    if not (group[1:] >= group[:-1]).all():
        return np.lexsort((key, group))
    new = np.r_[True, group[1:] != group[:-1]]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.r_[starts, n])
    width = int(sizes.max())
    if width * starts.shape[0] > 4 * n + 1024:  # a few very large groups: padding would waste memory
        return np.lexsort((key, group))
    column = np.arange(n) - np.repeat(starts, sizes)
    if key.dtype.kind in "iu" and int(key.min()) >= 0 and int(key.max()) < (1 << 31):
        # small non-negative integers (ranks): sort (key, column) packed in one int64, which is a plain sort
        # of the padded rows (no argsort) and gives the stable order
        filled = np.arange(width) < sizes[:, None]
        packed = np.full((starts.shape[0], width), np.iinfo(np.int64).max)
        packed[filled] = (key.astype(np.int64) << 32) | column
        packed.sort(axis=1)
        return (packed[filled] & 0xFFFFFFFF) + np.repeat(starts, sizes)
    row = np.repeat(np.arange(starts.shape[0]), sizes)
    padded = np.full((starts.shape[0], width), np.inf)
    padded[row, column] = key
    within = np.argsort(padded, axis=1, kind="stable")
    order = (within + starts[:, None]).ravel()
    return order[(np.arange(width) < sizes[:, None]).ravel()]

def sort_desc_in_groups(group: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """``values`` sorted descending within each run of equal ``group`` values, or None when ``group`` is not
    sorted or its groups are too uneven for a padded matrix (then use :func:`group_sort`).

    Only the values are sorted (no permutation), which is what the ideal grades need: rows of a query are
    interchangeable once its grades are in order.
    """
    n = group.shape[0]
    if n < 2:
        return values.copy()
    if not (group[1:] >= group[:-1]).all():
        return None
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[starts, n])
    width = int(sizes.max())
    if width * starts.shape[0] > 4 * n + 1024:
        return None
    filled = np.arange(width) < sizes[:, None]
    padded = np.full((starts.shape[0], width), np.inf)
    padded[filled] = -values
    padded.sort(axis=1)
    return -padded[filled]

def position_in_group(q: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal (sorted) ``q`` values."""
    if not q.shape[0]:
        return np.zeros(0, dtype=np.int64)
    new = np.r_[True, q[1:] != q[:-1]]
    starts = np.flatnonzero(new)
    group = np.cumsum(new) - 1
    return np.arange(q.shape[0], dtype=np.int64) - starts[group] + 1
