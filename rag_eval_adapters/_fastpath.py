"""Batch construction of :class:`~rag_eval_adapters._kernel.Judged` from Python dicts and lists, in bulk.

:func:`judge_batch` is what :func:`rag_eval_adapters.evaluate` runs. It gives exactly the statistics of
``Judged.from_rankings([as_ranking(run[q]) ...], [as_judgments(qrels[q]) ...])`` but does the per-query work
with C-level iteration over whole chunks of queries and numpy, instead of a Python loop over every document:

* only *judged* documents need a rank. For a ``{doc: score}`` run, a judged document's rank is one plus the
  number of scores above its own (a vectorised binary search in the query's sorted scores), plus, only when
  its score is tied, the number of tied documents whose id sorts after it (trec_eval breaks ties by doc id
  descending). Nothing is sorted by doc id and no ranked list is built.
* for a ranked list, a ``{doc: position}`` dict per query (built in C by ``dict(zip(ids, numbers))``, the
  numbers taken from a ready tuple) answers the judged documents' positions; a list holding a repeated id is
  de-duplicated first (first rank counts).
* validation is vectorised (``np.fromiter`` of all scores, a ``sum()`` that rejects strings and other
  non-numbers, NaN and bool checks). A query that fails any check, or whose input is of an unusual type, is
  handed to the precise per-query validators, so its error message is exactly theirs and the other queries
  of the batch are still scored.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter, contains, is_
from typing import Any

import numpy as np

from ._kernel import Judged
from ._validation import as_judgments, as_ranking

__all__ = ["judge_batch", "CHUNK"]

#: Queries handled together: large enough to amortise Python overhead, small enough that the padded
#: score matrix and the per-query position dicts of a chunk stay in cache-sized memory.
CHUNK = 2048

_NAN = math.nan
# exact types whose values are numbers.Real and not bool: accepted as grades without a per-value check
_REAL_TYPES = frozenset(
    {int, float, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
     np.uint64, np.uint32, np.uint16, np.uint8}
)
_get = attrgetter("get")
_values = dict.values


class _Absent:
    """Stands for a query of the qrels that the run does not have (scored as an empty ranking)."""


ABSENT = _Absent()

_SCORED, _LISTED, _EMPTY, _OTHER = 0, 1, 2, 3
_KINDS = {dict: _SCORED, list: _LISTED, tuple: _LISTED, _Absent: _EMPTY}
_RANKS = range(1, 1 << 62)  # zip(ids, _RANKS) numbers a ranking 1, 2, ...
# the same numbers as a tuple, for rankings up to its length: zip() iterates a tuple faster than a range
# (about 0.6 us less per list of 100 ids, 8% of the list path)
_RANK_TUPLE = tuple(range(1, 1025))
_ZERO = repeat(0)


def judge_batch(
    judgments: Sequence[Any],
    runs: Sequence[Any],
    query_ids: Sequence[Hashable],
    relevance_level: float,
) -> tuple[np.ndarray, Judged, dict[int, str]]:
    """Statistics of every query that can be scored, and the errors of those that cannot.

    ``judgments[i]`` is query ``query_ids[i]``'s qrels entry, ``runs[i]`` its run entry (or :data:`ABSENT`).
    Returns ``(ok, judged, errors)``: ``ok`` the positions of the scored queries (ascending), ``judged``
    their statistics in that order, ``errors`` position -> message for the others.
    """
    n = len(judgments)
    precise = np.zeros(n, dtype=bool)  # queries for the per-query validators

    # ---- qrels: vectorised checks over every dict entry
    jfast = np.fromiter(map(is_, map(type, judgments), repeat(dict)), dtype=bool, count=n)
    jlen = np.zeros(n, dtype=np.int64)
    fast_idx = np.flatnonzero(jfast)
    jdicts = _pick(judgments, fast_idx, n)
    jlen[fast_idx] = np.fromiter(map(len, jdicts), dtype=np.int64, count=len(jdicts))
    bad = jfast & (jlen == 0)
    if any(map(contains, jdicts, repeat(None))):
        bad[fast_idx[[None in j for j in jdicts]]] = True
    values = list(chain.from_iterable(map(_values, jdicts)))  # iterated twice: a list is cheaper than 2 chains
    types = set(map(type, values))
    if not types <= _REAL_TYPES:
        odd = [not set(map(type, j.values())) <= _REAL_TYPES for j in jdicts]
        bad[fast_idx[odd]] = True
    precise |= ~jfast | bad
    jlen[precise] = 0
    if bad.any():  # leave out the grades of the rejected entries
        jdicts = _pick(judgments, np.flatnonzero(~precise), n)
        values = list(chain.from_iterable(map(_values, jdicts)))
    grades = np.fromiter(values, dtype=np.float64, count=int(jlen.sum()))
    del values
    judged_q = np.repeat(np.arange(n, dtype=np.int64), jlen)
    nonfinite = ~np.isfinite(grades)
    if nonfinite.any():
        precise[np.unique(judged_q[nonfinite])] = True

    # ---- runs: classify, then chunk by chunk
    kinds = np.fromiter(map(_KINDS.get, map(type, runs), repeat(_OTHER)), dtype=np.int8, count=n)
    precise |= kinds == _OTHER
    n_ret = np.zeros(n, dtype=np.int64)
    hit_j = []  # flat judged-entry index of each hit (gives query and grade)
    hit_r = []  # its 1-based rank
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(jlen, out=offsets[1:])
    for kind, handler in ((_SCORED, _scored_chunk), (_LISTED, _listed_chunk)):
        members = np.flatnonzero((kinds == kind) & ~precise)
        for start in range(0, members.shape[0], CHUNK):
            idx = members[start:start + CHUNK]
            jd = _pick(judgments, idx, n)
            rd = _pick(runs, idx, n)
            counts, hits_local, ranks, failed = handler(rd, jd)
            n_ret[idx] = counts
            if failed.any():
                precise[idx[failed]] = True
            if hits_local.shape[0]:
                # hits_local indexes the chunk's flat judged entries: make it a global flat index
                local_off = np.zeros(idx.shape[0] + 1, dtype=np.int64)
                np.cumsum(jlen[idx], out=local_off[1:])
                qloc = np.searchsorted(local_off, hits_local, side="right") - 1
                hit_j.append(offsets[idx[qloc]] + hits_local - local_off[qloc])
                hit_r.append(ranks)

    # ---- queries for the precise per-query path
    errors: dict[int, str] = {}
    slow_pos: list[int] = []
    slow_rank: list[list[Hashable]] = []
    slow_judged: list[dict[Hashable, float]] = []
    for i in np.flatnonzero(precise).tolist():
        qid = query_ids[i]
        try:
            judged = as_judgments(judgments[i], qid, "qrels")
            ranking = [] if runs[i] is ABSENT else as_ranking(runs[i], qid, "run")
        except (TypeError, ValueError) as exc:
            errors[i] = str(exc)
            continue
        slow_pos.append(i)
        slow_rank.append(ranking)
        slow_judged.append(judged)

    # ---- assemble, in query order, the scored queries only
    scored = ~precise
    for i in slow_pos:
        scored[i] = True
    ok = np.flatnonzero(scored)
    new_index = np.full(n, -1, dtype=np.int64)
    new_index[ok] = np.arange(ok.shape[0], dtype=np.int64)

    fast_rows = ~precise[judged_q]
    fq, fg = judged_q[fast_rows], grades[fast_rows]
    hj = np.concatenate(hit_j) if hit_j else np.zeros(0, dtype=np.int64)
    hr = np.concatenate(hit_r) if hit_r else np.zeros(0, dtype=np.int64)
    keep = ~precise[judged_q[hj]]
    hj, hr = hj[keep], hr[keep]
    hq, hg = new_index[judged_q[hj]], grades[hj]

    out_ret = n_ret[ok]
    fqn = new_index[fq]
    n_rel = np.bincount(fqn[fg >= relevance_level], minlength=ok.shape[0]).astype(np.int64)
    iq, ig = fqn[fg > 0], fg[fg > 0]
    if slow_pos:
        slow = Judged.from_rankings(slow_rank, slow_judged, relevance_level)
        remap = new_index[np.asarray(slow_pos, dtype=np.int64)]
        out_ret[remap] = slow.n_ret
        n_rel[remap] = slow.n_rel
        hq = np.concatenate([hq, remap[slow.hit_q]])
        hr = np.concatenate([hr, slow.hit_rank])
        hg = np.concatenate([hg, slow.hit_grade])
        iq = np.concatenate([iq, remap[slow.ideal_q]])
        ig = np.concatenate([ig, slow.ideal_grade])

    order = _group_sort(hq, hr)
    hq, hr, hg = hq[order], hr[order], hg[order]
    sorted_ig = _sort_desc_in_groups(iq, ig)
    if sorted_ig is None:
        order = _group_sort(iq, -ig)
        iq, ig = iq[order], ig[order]
    else:
        ig = sorted_ig
    return ok, Judged(
        n_ret=out_ret,
        n_rel=n_rel,
        hit_q=hq,
        hit_rank=hr,
        hit_grade=hg,
        ideal_q=iq,
        ideal_pos=_position_in_group(iq),
        ideal_grade=ig,
        relevance_level=float(relevance_level),
    ), errors


def _pick(items: Sequence[Any], idx: np.ndarray, n: int) -> list[Any]:
    """``[items[i] for i in idx]``, a plain slice when ``idx`` is a run of consecutive positions."""
    if idx.shape[0] and int(idx[-1]) - int(idx[0]) == idx.shape[0] - 1:
        return list(items[int(idx[0]):int(idx[-1]) + 1])
    return [items[i] for i in idx.tolist()]


def _group_sort(group: np.ndarray, key: np.ndarray) -> np.ndarray:
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


def _sort_desc_in_groups(group: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """``values`` sorted descending within each run of equal ``group`` values, or None when ``group`` is not
    sorted or its groups are too uneven for a padded matrix (then use :func:`_group_sort`).

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


def _position_in_group(q: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal (sorted) ``q`` values."""
    if not q.shape[0]:
        return np.zeros(0, dtype=np.int64)
    new = np.r_[True, q[1:] != q[:-1]]
    starts = np.flatnonzero(new)
    group = np.cumsum(new) - 1
    return np.arange(q.shape[0], dtype=np.int64) - starts[group] + 1


# --------------------------------------------------------------------------- {doc: score} runs
def _scored_chunk(runs: list[dict], judged: list[dict]):
    """Distinct-retrieved counts, hits (flat judged index, rank) and failed-validation mask of a chunk."""
    m = len(runs)
    lens = np.fromiter(map(len, runs), dtype=np.int64, count=m)
    failed = np.zeros(m, dtype=bool)
    total = int(lens.sum())
    try:
        values = np.fromiter(chain.from_iterable(map(_values, runs)), dtype=np.float64, count=total)
        sum(chain.from_iterable(map(_values, runs)), 0.0)  # TypeError for str, Decimal, None, ...
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        for i, r in enumerate(runs):
            try:
                np.fromiter(r.values(), dtype=np.float64, count=len(r))
                sum(r.values(), 0.0)
            except (TypeError, ValueError, OverflowError, ArithmeticError):
                failed[i] = True
        runs = [{} if f else r for r, f in zip(runs, failed)]
        lens[failed] = 0
        total = int(lens.sum())
        values = np.fromiter(chain.from_iterable(map(_values, runs)), dtype=np.float64, count=total)
    row = np.repeat(np.arange(m, dtype=np.int64), lens)
    nan = np.isnan(values)
    if nan.any():
        failed[row[nan]] = True
    # bool scores are 0.0 or 1.0 once converted: look at the types of only those queries
    suspect = np.unique(row[(values == 0.0) | (values == 1.0)])
    for i in suspect.tolist():
        if bool in set(map(type, runs[i].values())):
            failed[i] = True
    if any(map(contains, runs, repeat(None))):
        failed |= np.fromiter((None in r for r in runs), dtype=bool, count=m)

    # scores of judged documents (NaN when not retrieved), in flat judged order
    jlens = np.fromiter(map(len, judged), dtype=np.int64, count=m)
    jscore = np.fromiter(
        chain.from_iterable(map(map, map(_get, runs), judged, repeat(repeat(_NAN)))),
        dtype=np.float64, count=int(jlens.sum()),
    )
    jrow = np.repeat(np.arange(m, dtype=np.int64), jlens)
    found = np.flatnonzero(~np.isnan(jscore))
    hq, hs = jrow[found], jscore[found]

    ranks, tied_hits, tied_rows = rank_by_counting(values, lens, hq, hs)
    # a tie anywhere in a query whose doc ids are of mixed types may make trec_eval's ordering impossible:
    # leave those queries to the precise path (it raises or ranks exactly as before)
    for i in tied_rows.tolist():
        if not failed[i] and len(set(map(type, runs[i]))) > 1:
            failed[i] = True
    joff = np.concatenate([[0], np.cumsum(jlens)])
    for h in np.flatnonzero(tied_hits).tolist():  # tied with another document: doc id descending
        i = int(hq[h])
        if failed[i]:
            continue
        s = hs[h]
        doc = _nth_key(judged[i], int(found[h] - joff[i]))
        try:
            ranks[h] += sum(1 for d, v in runs[i].items() if v == s and d > doc)
        except TypeError:
            failed[i] = True
    return lens, found, ranks, failed


def rank_by_counting(
    values: np.ndarray, lens: np.ndarray, hit_row: np.ndarray, hit_score: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ranks of some documents among the scores of their rows, before breaking ties.

    ``values`` holds every row's scores one row after another (``lens`` per row, no NaN); hit ``h`` is a
    document of row ``hit_row[h]`` scored ``hit_score[h]``. Returns ``(rank, tied, tied_rows)``:
    ``rank[h] = 1 + #(scores of its row > hit_score[h])``; ``tied[h]`` whether another score of its row
    equals it (the caller adds the tied documents whose id sorts after it); ``tied_rows`` the rows holding
    any tie at all. Cost: one sort of every row, then a vectorised binary search per hit.
    """
    ordered, starts = sort_within_rows(values, lens)
    start, length = starts[hit_row], lens[hit_row]
    below = _count_below(ordered, start, length, hit_score, strict=True)  # scores < s
    upto = _count_below(ordered, start, length, hit_score, strict=False)  # scores <= s
    same = ordered[1:] == ordered[:-1]
    if same.any():
        row_of = np.repeat(np.arange(lens.shape[0], dtype=np.int64), lens)
        pairs = np.flatnonzero(same)
        tied_rows = np.unique(row_of[pairs][row_of[pairs] == row_of[pairs + 1]])
    else:
        tied_rows = np.zeros(0, dtype=np.int64)
    return length - upto + 1, upto - below > 1, tied_rows


def sort_within_rows(values: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` sorted ascending within each row (rows laid one after another), and each row's start."""
    m, total = lens.shape[0], values.shape[0]
    starts = np.zeros(m, dtype=np.int64)
    if m > 1:
        np.cumsum(lens[:-1], out=starts[1:])
    width = int(lens.max()) if m else 0
    if not total or width < 2:
        return values.copy(), starts
    if width * m <= 4 * total + 4096:  # similar lengths: sort the rows of a padded matrix (NaN last)
        matrix = np.full((m, width), np.nan)
        filled = np.arange(width) < lens[:, None]
        matrix[filled] = values
        matrix.sort(axis=1)
        return matrix[filled], starts
    row = np.repeat(np.arange(m, dtype=np.int64), lens)  # very uneven lengths: one sort of (row, value)
    return values[np.lexsort((values, row))], starts


def _nth_key(mapping: dict, k: int) -> Hashable:
    for j, key in enumerate(mapping):
        if j == k:
            return key
    raise IndexError(k)  # pragma: no cover - k always indexes an existing key


def _count_below(flat: np.ndarray, base: np.ndarray, lens: np.ndarray, s: np.ndarray, strict: bool) -> np.ndarray:
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


# --------------------------------------------------------------------------- ranked lists
def _listed_chunk(runs: list[list], judged: list[dict]):
    """Like :func:`_scored_chunk` for runs that are lists (or tuples) of ids already in rank order."""
    m = len(runs)
    lens = np.fromiter(map(len, runs), dtype=np.int64, count=m)
    failed = np.zeros(m, dtype=bool)
    counts: list[int] = []
    ranks: list[int] = []
    nones: list[bool] = []
    numbers = _RANK_TUPLE if not m or int(lens.max()) <= len(_RANK_TUPLE) else _RANKS
    try:
        for ids, expected in zip(runs, judged):  # one small dict per query, used while it is in cache
            position = dict(zip(ids, numbers))
            counts.append(len(position))
            nones.append(None in position)
            ranks.extend(map(position.get, expected, _ZERO))
    except TypeError:  # an unhashable id somewhere: redo the chunk query by query
        counts, ranks, nones = [], [], []
        for i, (ids, expected) in enumerate(zip(runs, judged)):
            try:
                position = dict(zip(ids, numbers))
            except TypeError:
                failed[i] = True
                position = {}
            counts.append(len(position))
            nones.append(None in position)
            ranks.extend(map(position.get, expected, _ZERO))
    n_distinct = np.array(counts, dtype=np.int64)
    rank = np.array(ranks, dtype=np.int64)
    failed |= np.array(nones, dtype=bool)
    repeated = np.flatnonzero((n_distinct < lens) & ~failed)
    if repeated.shape[0]:  # a repeated id counts once, at its first rank: number the de-duplicated list
        jlens = np.fromiter(map(len, judged), dtype=np.int64, count=m)
        joff = np.concatenate([[0], np.cumsum(jlens)])
        for i in repeated.tolist():
            position = dict(zip(dict.fromkeys(runs[i]), numbers))
            rank[joff[i]:joff[i + 1]] = list(map(position.get, judged[i], _ZERO))
    found = np.flatnonzero(rank)
    return n_distinct, found, rank[found], failed
