"""Batch construction of :class:`~rag_eval_adapters._kernel.Judged` from Python dicts and lists, in bulk.

:func:`judge_batch` is what :func:`rag_eval_adapters.evaluate` runs. It gives exactly the statistics of
``Judged.from_rankings([as_ranking(run[q]) ...], [as_judgments(qrels[q]) ...])`` but does the per-query work
with C-level iteration over whole chunks of queries and numpy, instead of a Python loop over every document:

* only *judged* documents need a rank. For a ``{doc: score}`` run, a judged document's rank is one plus the
  number of scores above its own (a vectorised binary search in the query's sorted scores), plus, only when
  its score is tied, the number of tied documents whose id sorts after it (trec_eval breaks ties by doc id
  descending): one sort of the ids of a query whose scores are all equal, else the ids sharing the hit's score.
  No ranked list is built.
* for a ranked list, a ``{doc: position}`` dict per query (built in C by ``dict(zip(ids, numbers))``, the
  numbers taken from a ready tuple) answers the judged documents' positions; a list holding a repeated id is
  de-duplicated first (first rank counts).
* the runs of a chunk are read block by block (:data:`_BLOCK` queries), every pass over a block made while its
  dicts are in cache: its scores listed once, type-checked by a ``sum()`` (strings, ``Decimal``, ``None`` and
  complex numbers raise) and packed as C doubles by ``struct``; bools looked for among the 0.0 and 1.0 scores;
  the ``None`` id; the judged documents' scores. A query that fails any check, or whose input is of an
  unusual type, is handed to the precise per-query validators, so its error message is exactly theirs and the
  other queries of the batch are still scored.
"""

from __future__ import annotations

import math
import struct
from bisect import bisect_right
from collections.abc import Hashable, Sequence
from itertools import chain, repeat
from operator import attrgetter, contains, is_, itemgetter, sub
from typing import Any

import numpy as np

from ._kernel import Judged
from ._ranking import rank_by_counting, row_offsets, ties_after
from ._scoring import assemble
from ._validation import as_judgments, as_ranking

__all__ = ["judge_batch", "CHUNK"]

#: Queries handled together: large enough to amortise Python overhead, small enough that the padded
#: score matrix and the per-query position dicts of a chunk stay in cache-sized memory.
CHUNK = 2048
#: Runs read together in the C-level passes of a chunk, small enough for their dicts to stay in cache
_BLOCK = 128

_NAN = math.nan
_MAX_FLOAT = 1.7976931348623157e308
# exact types whose values are numbers.Real and not bool: accepted as grades without a per-value check
_REAL_TYPES = frozenset(
    {int, float, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
     np.uint64, np.uint32, np.uint16, np.uint8}
)
_get = attrgetter("get")
_BOOLS = frozenset({bool, np.bool_})  # 0.0 and 1.0 once converted: refused as scores
_first = itemgetter(0)
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
    jlen, grades = _grades(judgments, precise)
    judged_q = np.repeat(np.arange(n, dtype=np.int64), jlen)
    nonfinite = ~np.isfinite(grades)
    if nonfinite.any():
        precise[np.unique(judged_q[nonfinite])] = True
    n_ret, hj, hr = _rank_runs(judgments, runs, jlen, precise)
    slow_pos, slow_rank, slow_judged, errors = _precise(judgments, runs, query_ids, precise)

    if precise.any():  # assemble, in query order, the scored queries only: leave out the others, renumber
        scored = ~precise
        scored[slow_pos] = True
        ok = np.flatnonzero(scored)
        new_index = np.full(n, -1, dtype=np.int64)
        new_index[ok] = np.arange(ok.shape[0], dtype=np.int64)
        fast_rows = ~precise[judged_q]
        fq, fg = new_index[judged_q[fast_rows]], grades[fast_rows]
        keep = ~precise[judged_q[hj]]
        hj, hr = hj[keep], hr[keep]
        hq, out_ret = new_index[judged_q[hj]], n_ret[ok]
    else:  # every query scored by the bulk path: nothing to leave out or renumber
        ok, fq, fg, hq, out_ret = np.arange(n, dtype=np.int64), judged_q, grades, judged_q[hj], n_ret
    hg = grades[hj]
    n_rel = np.bincount(fq[fg >= relevance_level], minlength=ok.shape[0]).astype(np.int64)
    iq, ig = fq[fg > 0], fg[fg > 0]
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

    return ok, assemble(out_ret, n_rel, hq, hr, hg, iq, ig, relevance_level), errors


def _grades(judgments: Sequence[Any], precise: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised checks over every plain-dict qrels entry: (entries per query, their grades, flat).

    Queries that need the per-query validators are marked in ``precise`` and count no entries here.
    """
    n = len(judgments)
    jfast = np.fromiter(map(is_, map(type, judgments), repeat(dict)), dtype=bool, count=n)
    jlen = np.zeros(n, dtype=np.int64)
    fast_idx = np.flatnonzero(jfast)
    jdicts = _pick(judgments, fast_idx, n)
    jlen[fast_idx] = np.fromiter(map(len, jdicts), dtype=np.int64, count=len(jdicts))
    bad = jfast & (jlen == 0)
    has_none, values = False, []
    types: set[type] = set()
    for a in range(0, len(jdicts), _BLOCK):  # the passes over a block of entries while they are in cache
        part = jdicts[a:a + _BLOCK]
        has_none = has_none or any(map(contains, part, repeat(None)))
        block = list(chain.from_iterable(map(_values, part)))  # read twice: a list is cheaper than 2 chains
        types.update(map(type, block))
        values += block
    if has_none:
        bad[fast_idx[[None in j for j in jdicts]]] = True
    if not types <= _REAL_TYPES:
        odd = [not set(map(type, j.values())) <= _REAL_TYPES for j in jdicts]
        bad[fast_idx[odd]] = True
    precise |= ~jfast | bad
    jlen[precise] = 0
    if bad.any():  # leave out the grades of the rejected entries
        jdicts = _pick(judgments, np.flatnonzero(~precise), n)
        values = list(chain.from_iterable(map(_values, jdicts)))
    try:
        return jlen, np.fromiter(values, dtype=np.float64, count=int(jlen.sum()))
    except OverflowError:  # an int too large for a float64: to the per-query validators, which name it
        huge = [any(type(g) is int and abs(g) > _MAX_FLOAT for g in j.values()) for j in jdicts]
        precise[np.flatnonzero(~precise)[huge]] = True
        jlen[precise] = 0
        values = list(chain.from_iterable(map(_values, _pick(judgments, np.flatnonzero(~precise), n))))
        return jlen, np.fromiter(values, dtype=np.float64, count=int(jlen.sum()))


def _rank_runs(judgments: Sequence[Any], runs: Sequence[Any], jlen: np.ndarray, precise: np.ndarray):
    """Classify the run entries and rank the judged documents of the dicts and lists, chunk by chunk.

    Returns ``(n_ret, hit_j, hit_r)``: distinct retrieved per query, and for each hit its flat judged-entry index
    (which gives its query and grade) and its 1-based rank. Queries that fail a check are marked ``precise``.
    """
    n = len(runs)
    kinds = np.fromiter(map(_KINDS.get, map(type, runs), repeat(_OTHER)), dtype=np.int8, count=n)
    precise |= kinds == _OTHER
    listed = np.flatnonzero((kinds == _LISTED) & ~precise)
    if listed.shape[0]:  # lists of (doc_id, score) pairs: the per-query validators read them as scores
        lists = _pick(runs, listed, n)
        try:
            first_types = set(map(type, map(_first, lists)))
        except IndexError:  # an empty list among them
            first_types = {type(r[0]) for r in lists if r}
        if tuple in first_types:
            precise[listed[[bool(r) and type(r[0]) is tuple for r in lists]]] = True
    n_ret = np.zeros(n, dtype=np.int64)
    hit_j, hit_r = [], []
    offsets = row_offsets(jlen)
    for kind, handler in ((_SCORED, _scored_chunk), (_LISTED, _listed_chunk)):
        members = np.flatnonzero((kinds == kind) & ~precise)
        for start in range(0, members.shape[0], CHUNK):
            idx = members[start:start + CHUNK]
            counts, hits_local, ranks, failed = handler(_pick(runs, idx, n), _pick(judgments, idx, n), jlen[idx])
            n_ret[idx] = counts
            if failed.any():
                precise[idx[failed]] = True
            if hits_local.shape[0]:
                # hits_local indexes the chunk's flat judged entries: make it a global flat index
                local_off = row_offsets(jlen[idx])
                qloc = np.searchsorted(local_off, hits_local, side="right") - 1
                hit_j.append(offsets[idx[qloc]] + hits_local - local_off[qloc])
                hit_r.append(ranks)
    empty = np.zeros(0, dtype=np.int64)
    return n_ret, np.concatenate(hit_j) if hit_j else empty, np.concatenate(hit_r) if hit_r else empty


def _precise(judgments: Sequence[Any], runs: Sequence[Any], query_ids: Sequence[Hashable], precise: np.ndarray):
    """The per-query validators on the marked queries: (positions, rankings, judgments) of the valid ones, and
    position -> message of the others."""
    errors: dict[int, str] = {}
    positions: list[int] = []
    rankings: list[list[Hashable]] = []
    judged_list: list[dict[Hashable, float]] = []
    for i in np.flatnonzero(precise).tolist():
        qid = query_ids[i]
        try:
            judged = as_judgments(judgments[i], qid, "qrels")
            ranking = [] if runs[i] is ABSENT else as_ranking(runs[i], qid, "run")
        except (TypeError, ValueError) as exc:
            errors[i] = str(exc)
            continue
        positions.append(i)
        rankings.append(ranking)
        judged_list.append(judged)
    return positions, rankings, judged_list, errors


def _pick(items: Sequence[Any], idx: np.ndarray, n: int) -> list[Any]:
    """``[items[i] for i in idx]``, a plain slice when ``idx`` is a run of consecutive positions."""
    if idx.shape[0] and int(idx[-1]) - int(idx[0]) == idx.shape[0] - 1:
        return list(items[int(idx[0]):int(idx[-1]) + 1])
    return [items[i] for i in idx.tolist()]


# --------------------------------------------------------------------------- {doc: score} runs
def _scored_chunk(runs: list[dict], judged: list[dict], jlens: np.ndarray):
    """Distinct-retrieved counts, hits (flat judged index, rank) and failed-validation mask of a chunk."""
    m = len(runs)
    lens = np.fromiter(map(len, runs), dtype=np.int64, count=m)
    failed = np.zeros(m, dtype=bool)
    try:
        values, jscore, has_none, bool_blocks = _read_scores(runs, judged, lens, jlens)
    except (TypeError, ValueError, OverflowError, ArithmeticError, struct.error):
        for i, r in enumerate(runs):  # the same checks, query by query
            try:
                _check_sum(sum(r.values(), 0.0))
                struct.pack(f"{len(r)}d", *r.values())
            except (TypeError, ValueError, OverflowError, ArithmeticError, struct.error):
                failed[i] = True
        runs = [{} if f else r for r, f in zip(runs, failed, strict=False)]
        lens[failed] = 0
        values, jscore, has_none, bool_blocks = _read_scores(runs, judged, lens, jlens)
    nan = np.isnan(values)
    if nan.any():
        failed[np.repeat(np.arange(m, dtype=np.int64), lens)[nan]] = True
    for a, b in bool_blocks:  # a bool score somewhere in these runs: find its query
        for i in range(a, b):
            if not _BOOLS.isdisjoint(frozenset(map(type, runs[i].values()))):
                failed[i] = True
    if has_none:
        failed |= np.fromiter((None in r for r in runs), dtype=bool, count=m)
    jrow = np.repeat(np.arange(m, dtype=np.int64), jlens)
    found = np.flatnonzero(~np.isnan(jscore))
    hq, hs = jrow[found], jscore[found]

    ranks, tied_hits, tied_rows, whole = rank_by_counting(values, lens, hq, hs)
    tied = np.flatnonzero(tied_hits)
    if not tied_rows.shape[0]:
        return lens, found, ranks, failed
    roff = row_offsets(lens)
    # rows where every document has the same score (binary or constant scores) are ordered by doc id alone:
    # one sort of the ids ranks every tied hit, and raises if the ids cannot be ordered
    sorted_rows: set[int] = set()
    if tied.shape[0]:  # tied with another document: the tied ids greater than its own come first (trec_eval)
        _break_ties(runs, judged, jlens, values, roff, whole.tolist(), failed, found, hq, hs, tied, ranks,
                    sorted_rows)
    # a tie anywhere in a query whose doc ids are of mixed types may make trec_eval's ordering impossible:
    # leave those queries to the precise path (it raises or ranks exactly as before). A row sorted above
    # has already shown that its ids can be ordered.
    for i in tied_rows.tolist():
        if not failed[i] and i not in sorted_rows and len(set(map(type, runs[i]))) > 1:
            failed[i] = True
    return lens, found, ranks, failed


def _check_sum(total: Any) -> None:
    """Raise ``TypeError`` unless a ``sum()`` of scores is real: a complex score (numpy's too) makes it complex."""
    if type(total) is not float and not isinstance(total, np.floating):
        raise TypeError(f"a score is not a real number (their sum is {type(total).__name__})")


def _read_scores(runs: list[dict], judged: list[dict], lens: np.ndarray, jlens: np.ndarray):
    """Every score of the chunk's runs (flat), the score of each judged document (NaN when not retrieved, flat
    judged order), whether any run has a ``None`` id, and the ``(start, stop)`` ranges of runs holding a
    ``bool`` score. Raises ``TypeError`` (or another arithmetic error) when a score is not a number.

    The passes over a run (its scores, their types, the ``None`` id, the judged documents) are made block by
    block, so that a block's dicts are still in cache for the later passes.
    """
    m = len(runs)
    ro, jo = row_offsets(lens).tolist(), row_offsets(jlens).tolist()
    values, jscore = np.empty(ro[-1]), np.empty(jo[-1])
    has_none, bool_blocks = False, []
    for a in range(0, m, _BLOCK):
        b = min(a + _BLOCK, m)
        part = runs[a:b]
        scores = list(chain.from_iterable(map(_values, part)))
        _check_sum(sum(scores, 0.0))  # TypeError for str, Decimal, None, complex ...
        # struct packs the floats as C doubles, faster than np.fromiter reads them (struct.error: not a number)
        block = values[ro[a]:ro[b]]
        block[:] = np.frombuffer(struct.pack(f"{ro[b] - ro[a]}d", *scores), np.float64)
        # a bool is read as 0.0 or 1.0: look at the types of those scores (of all, when most are 0 or 1)
        odd = np.flatnonzero((block == 0.0) | (block == 1.0))
        if odd.shape[0]:
            objects = scores if 4 * odd.shape[0] > block.shape[0] else map(scores.__getitem__, odd.tolist())
            if not _BOOLS.isdisjoint(frozenset(map(type, objects))):
                bool_blocks.append((a, b))
        has_none = has_none or any(map(contains, part, repeat(None)))
        jscore[jo[a]:jo[b]] = np.fromiter(
            chain.from_iterable(map(map, map(_get, part), judged[a:b], repeat(repeat(_NAN)))),
            np.float64, jo[b] - jo[a],
        )
    return values, jscore, has_none, bool_blocks


def _break_ties(runs, judged, jlens, values, roff, whole, failed, found, hq, hs, tied, ranks, sorted_rows) -> None:
    """Add to ``ranks[tied]`` the tied documents whose id sorts after each tied hit's (trec_eval's tie order).

    A row whose scores are all equal is sorted by id once (its index joins ``sorted_rows``); other rows count
    the ids sharing each hit's score. Rows whose ids cannot be compared are marked in ``failed``.
    """
    rows = hq[tied]
    ends = np.flatnonzero(rows[1:] != rows[:-1]) + 1
    starts, stops = [0, *ends.tolist()], [*ends.tolist(), tied.shape[0]]
    # the judged ids of the rows concerned, one after another, and where each tied hit's id is among them
    uniq = rows[np.r_[0, ends]]
    sizes = np.diff(np.r_[0, ends, tied.shape[0]])
    at = np.repeat(row_offsets(jlens[uniq])[:-1] - row_offsets(jlens)[uniq], sizes) + found[tied]
    judged_ids = list(chain.from_iterable(_pick(judged, uniq, len(judged))))
    docs = list(map(judged_ids.__getitem__, at.tolist()))
    rows_l, failed_l = rows.tolist(), failed.tolist()
    add: list[int] = []
    for a, b in zip(starts, stops, strict=False):
        i = rows_l[a]
        try:
            if failed_l[i]:
                raise TypeError
            if whole[i]:
                ids = sorted(runs[i])
                sorted_rows.add(i)
                add.extend(map(sub, repeat(len(ids)), map(bisect_right, repeat(ids), docs[a:b])))
            else:
                add.extend(ties_after(runs[i], values[roff[i]:roff[i + 1]], docs[a:b], hs[tied[a:b]]))
        except TypeError:
            failed[i] = True
            add.extend(repeat(0, b - a))
    ranks[tied] += np.array(add, dtype=np.int64)


# --------------------------------------------------------------------------- ranked lists
def _listed_chunk(runs: list[list], judged: list[dict], jlens: np.ndarray):
    """Like :func:`_scored_chunk` for runs that are lists (or tuples) of ids already in rank order."""
    m = len(runs)
    lens = np.fromiter(map(len, runs), dtype=np.int64, count=m)
    failed = np.zeros(m, dtype=bool)
    counts: list[int] = []
    ranks: list[int] = []
    nones: list[bool] = []
    numbers = _RANK_TUPLE if not m or int(lens.max()) <= len(_RANK_TUPLE) else _RANKS
    try:
        for ids, expected in zip(runs, judged, strict=False):  # one small dict per query, used while it is in cache
            position = dict(zip(ids, numbers, strict=False))
            counts.append(len(position))
            nones.append(None in position)
            ranks.extend(map(position.get, expected, _ZERO))
    except TypeError:  # an unhashable id somewhere: redo the chunk query by query
        counts, ranks, nones = [], [], []
        for i, (ids, expected) in enumerate(zip(runs, judged, strict=False)):
            try:
                position = dict(zip(ids, numbers, strict=False))
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
        joff = row_offsets(jlens)
        for i in repeated.tolist():
            position = dict(zip(dict.fromkeys(runs[i]), numbers, strict=False))
            rank[joff[i]:joff[i + 1]] = list(map(position.get, judged[i], _ZERO))
    found = np.flatnonzero(rank)
    return n_distinct, found, rank[found], failed
