"""Whole-matrix kernels of the paired tests in :mod:`rag_eval_adapters.stats.paired`.

Both random procedures act on ``d``, the ``n x m`` matrix of per-query differences (queries x metrics), and
both are matrix products of a block of random rows with ``d``:

* :func:`randomization_p_values`: sign vectors ``s = 2 * bits - 1`` give ``s @ d = 2 * (bits @ d) - sum(d)``.
  The bits are random bytes, turned into a block of 0.0/1.0 values by one table lookup (eight values per
  byte). A statistic whose single-precision value lies within the worst-case rounding bound of the observed
  one is recounted in double precision from the stored bytes (only over the queries whose difference is not
  zero), so every count is the double-precision decision.
* :func:`bootstrap_interval`: each resample's multiplicities (``bincount`` of ``n`` uniform draws, a few
  rows per call so the counters stay in cache) weight the centred columns in double precision; the mean is
  added back. It is the one bootstrap of the package: :mod:`~rag_eval_adapters.stats.paired` gives it per-query
  differences, :meth:`~rag_eval_adapters.Report.by` the per-query scores of a group.

This module imports nothing of the package, so both the core's
:mod:`~rag_eval_adapters.report` and :mod:`~rag_eval_adapters.stats.paired` use it.

The products run on blocks of a few million cells: few, large BLAS calls. Many small calls are far
slower with a threaded BLAS on a machine whose other cores are busy (each call waits for every thread), so
:mod:`~rag_eval_adapters.stats.paired` runs these kernels inside :func:`one_blas_thread`. Before any draw,
:func:`tail_bounds` (Hoeffding) settles the columns whose p-value is clearly tiny.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["TOL", "BOUND_RISK", "one_blas_thread", "tail_bounds", "randomization_p_values", "bootstrap_interval",
           "sequential_bootstrap", "column_means"]

TOL = 1e-12  # |mean(s * d)| >= |mean(d)| - TOL counts as reaching the observed difference
BOUND_RISK = 0.01  # a metric draws no sign vector when Hoeffding's bound of its p-value is <= 0.01 / n_permutations
FIRST_CHECKPOINT = 250  # the sequential bootstrap's first look; then 500, 1,000, 2,000, ...
_BLOCK_CELLS = 1 << 23  # cells of the random block in one matrix product (32 MiB in single, 64 in double)
_COUNT_CELLS = 1 << 16  # uniform draws counted per bincount call
_CACHED_CELLS = 1 << 18  # resample weights (2 MiB in double) multiplied by every column before the next rows
_PACKED_BYTES = 1 << 23  # random sign bytes kept at a time for the double-precision recounts
# row b: the eight bits of byte b as 0.0/1.0, most significant first (the order of np.unpackbits)
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32)


_CONTROLLER: list[Any] = []  # threadpoolctl's controller of the loaded BLAS, made on first use (None: not installed)


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which numpy's BLAS runs on one thread, through ``threadpoolctl`` when it is installed (it
    comes with scikit-learn); without it, nothing changes.

    The kernels here make many mid-sized products (a few hundred rows of sign vectors or resample weights
    times the differences). On more than one thread each product waits for all of them, and the waiting
    threads spin: on a machine whose other cores are busy that doubled the CPU time of ``compare_reports`` and
    tripled its wall time. The p-values do not depend on it (every decision near the threshold is recounted
    in double precision); a bootstrap mean may differ in its last bit from one computed on more threads.
    """
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER.append(ThreadpoolController())
        except Exception:  # not installed, or it cannot inspect this process: leave the threads as they are
            _CONTROLLER.append(None)
    controller = _CONTROLLER[0]
    return controller.limit(limits=1, user_api="blas") if controller is not None else contextlib.nullcontext()


def randomization_p_values(
    d: np.ndarray, n_permutations: int, rng: np.random.Generator, exceedances: int | None = None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Two-sided sign-flip randomization p-value of the mean of each column of ``d`` (n x m), the sign vectors
    each column drew, and how each p-value was reached (``"exceedances"``, ``"cap"`` or ``"bound"``).

    A sign vector ``s`` *reaches* column ``j`` when ``|mean(s * d_j)| >= |mean(d_j)| - TOL``. The sign vectors
    are one random sequence shared by all columns (the ``k``-th vector depends on ``n``, ``n_permutations`` and
    the generator only), and each column is counted along it on its own:

    * ``exceedances=None``: ``(1 + G) / (1 + n_permutations)`` with ``G`` the vectors among ``n_permutations``
      that reach the column (``"cap"``: every column draws them all);
    * ``exceedances=h``: first Hoeffding's bound (:func:`tail_bounds`): a column whose p-value over all
      ``2 ** n`` sign vectors is at most ``BOUND_RISK / n_permutations`` by the bound draws nothing and gets
      the bound as its p-value (``"bound"``). The others get Besag and Clifford's (1991) sequential p-value:
      the column's count stops at the first ``L`` whose ``h``-th vector reaches it, and its p-value is
      ``h / L`` (``"exceedances"``); a column that ``n_permutations`` vectors leave with ``G < h`` reaches
      gets ``(1 + G) / (1 + n_permutations)`` (``"cap"``). ``h / L`` is a valid p-value (``P(p <= u) <= u``
      under the null) with relative standard error about ``sqrt((1 - p) / h)``.

    Drawing stops once every column has stopped, so a column's p-value is the same whatever other columns
    are given. Blocks grow from 256 vectors, so columns that stop early cost a few hundred vectors.
    """
    n, m = d.shape
    total = np.ascontiguousarray(d.T).sum(axis=1)  # each column summed alone, the same with or without others
    threshold = np.abs(total) - n * TOL  # |s @ d| >= |sum d| - n * tol  <=>  |mean(s * d)| >= |mean d| - tol
    p = np.empty(m, dtype=np.float64)
    drawn = np.zeros(m, dtype=np.int64)
    rule = ["cap"] * m
    active = np.arange(m)
    if exceedances is not None:
        bound = tail_bounds(d, threshold)  # 1 (exact) where the threshold is <= 0: every sign vector reaches
        settled = (bound <= BOUND_RISK / n_permutations) | (threshold <= 0.0)
        p[settled] = bound[settled]
        for j in np.flatnonzero(settled):
            rule[j] = "bound"
        active = active[~settled]
    d32 = d.astype(np.float32)
    # bound of |bits @ d32 (single) - bits @ d (exact)|, doubled for 2 * S - total, plus slack
    err = n * 2.0**-24 * np.abs(d32).sum(axis=0, dtype=np.float64) + np.abs(d - d32).sum(axis=0)
    margin = 2.0 * err * 1.01 + 1e-300
    nbytes = (n + 7) // 8
    padded = np.zeros((nbytes * 8, m), dtype=np.float32)  # the bits past n multiply zeros
    padded[:n] = d32
    # blocks of whole 4-byte words of the generator (a multiple of `unit` rows): the bytes of consecutive blocks
    # are one stream however it is cut, so the k-th vector never depends on where the blocks end
    unit = 4 // math.gcd(nbytes, 4)
    rows = min(n_permutations, max(unit, min(_BLOCK_CELLS // (nbytes * 8), _PACKED_BYTES // nbytes) // unit * unit))
    bits = np.empty((rows, nbytes, 8), dtype=np.float32)
    exceed = np.zeros(m, dtype=np.int64)
    found: dict[int, np.ndarray] = {}

    def nonzero(j: int) -> np.ndarray:  # the queries of column j with a non-zero difference, found once
        if j not in found:
            found[j] = np.flatnonzero(d[:, j])
        return found[j]

    done, size = 0, 256
    while done < n_permutations and active.size:
        c = min(size, rows, n_permutations - done)
        packed = np.frombuffer(rng.bytes(c * nbytes), dtype=np.uint8).reshape(c, nbytes)
        np.take(_BYTE_BITS, packed, axis=0, out=bits[:c], mode="wrap")
        sums = bits[:c].reshape(c, nbytes * 8) @ padded[:, active]
        reach = _reaching(sums, packed, d[:, active], total[active], threshold[active], margin[active],
                          [nonzero(int(j)) for j in active])
        if exceedances is not None:
            seen = np.cumsum(reach, axis=0) + exceed[active]
            stops = (seen >= exceedances).any(axis=0)
            at = done + 1 + np.argmax(seen[:, stops] >= exceedances, axis=0)  # L: the h-th reaching vector
            p[active[stops]] = exceedances / at
            drawn[active[stops]] = at
            for j in active[stops]:
                rule[j] = "exceedances"
            reach, active = reach[:, ~stops], active[~stops]
        exceed[active] += np.count_nonzero(reach, axis=0)
        done += c
        size = _next_block(size, done, exceed[active], exceedances, unit)
    p[active] = (exceed[active] + 1) / (n_permutations + 1)
    drawn[active] = n_permutations
    return p, drawn, rule


def _next_block(size: int, done: int, exceed: np.ndarray, exceedances: int | None, unit: int) -> int:
    """Rows of the next block of sign vectors: twice the last, or fewer when every column still drawing should
    reach its ``h``-th vector sooner (at its rate so far, plus a quarter; at least 256), a multiple of ``unit``
    (whole 4-byte words of random bytes). A
    block's rows are expanded to one float per query whatever the columns left, so a last column must not draw
    thousands of vectors it does not need. Only the cost depends on it, never a p-value: the vectors are one
    stream of bytes however the blocks cut it."""
    if exceedances is None or not exceed.size or exceed.min() == 0:
        return 2 * size
    needed = (exceedances - exceed) * done / exceed  # vectors until the h-th reach at each column's rate so far
    return int(min(2 * size, max(256, 1.25 * needed.max()))) // unit * unit


def tail_bounds(d: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """Hoeffding's (1963) upper bound of the share of all ``2 ** n`` sign vectors ``s`` with
    ``|s @ d_j| >= threshold_j``, for each column ``j`` of ``d`` (n x m).

    For independent uniform signs, ``s @ d_j`` is a sum of terms bounded by ``-+|d_ij|``, so
    ``P(|s @ d_j| >= x) <= 2 exp(-x ** 2 / (2 sum_i d_ij ** 2))``. The threshold is lowered by the rounding of
    the double-precision sums that decide whether a vector reaches it, and the sum of squares raised by its
    own rounding, so the bound holds for the decisions :func:`randomization_p_values` makes. It is deterministic
    (no random draws) and at least the smallest positive normal float; 1 where it says nothing.
    """
    n = d.shape[0]
    rows = np.ascontiguousarray(d.T)  # each column summed alone: its bound does not depend on the others
    slack = 4.0 * n * 2.0**-52 * (np.abs(rows).sum(axis=1) + np.abs(threshold))
    x = threshold - slack
    squares = np.square(rows).sum(axis=1) * (1.0 + 4.0 * n * 2.0**-52) + 1e-300
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        exponent = np.where(x > 0.0, -(x / squares) * x * 0.5 * (1.0 - 1e-12) + math.log(2.0), 0.0)
        return np.clip(np.exp(exponent), np.finfo(np.float64).tiny, 1.0)


def _reaching(sums, packed, d, total, threshold, margin, nonzero) -> np.ndarray:
    """Which sign vectors (rows) reach ``threshold`` in each column: ``|s @ d| >= threshold``, in double precision.

    A single-precision sum within ``margin`` of the threshold is recounted exactly from the sign bytes, over the
    column's queries with a non-zero difference (``nonzero``: one index array per column).
    """
    value = np.abs(2.0 * sums.astype(np.float64) - total)
    reach = value >= threshold + margin
    close = np.abs(value - threshold) < margin
    for j in np.flatnonzero(close.any(axis=0)):
        queries = nonzero[j]  # a zero difference adds nothing whatever its sign
        rows = np.flatnonzero(close[:, j])
        bits = np.take(packed[rows], queries >> 3, axis=1)  # the byte holding each query's bit
        bits >>= (7 - (queries & 7)).astype(np.uint8)
        bits &= 1
        exact = np.abs(2.0 * np.einsum("ij,j->i", bits, d[queries, j]) - total[j])
        reach[rows, j] = exact >= threshold[j]
    return reach


def column_means(values: np.ndarray) -> list[float]:
    """The mean of each column of ``values`` (rows x columns): its correctly rounded sum (``math.fsum``) divided
    by the number of rows.

    Each column's mean depends on that column's values only: not on the other columns (numpy's ``mean(axis=0)``
    sums a one-column and a many-column array in a different order), nor on the order of the rows. Every mean
    of a :class:`~rag_eval_adapters.Report`, its groups and :mod:`~rag_eval_adapters.stats.paired` is taken here, so the same metric on
    the same queries gives the same mean to the last digit however it was asked for.

    The exact sums are whole-matrix work (:func:`_exact_column_sums`): a few passes of Rump, Ogita and Oishi's
    error-free extraction leave each column's sum as a handful of doubles whose sum is exact, and ``math.fsum``
    rounds those. Columns too large for it (or not finite) are summed by ``math.fsum`` value by value.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if n == 0 or values.ndim != 2:
        return [math.fsum(column.tolist()) / n for column in values.T]
    parts = _exact_column_sums(values)
    means = []
    for j, column in enumerate(values.T):
        try:
            part = parts[j]
            total = math.fsum(part) if part is not None else math.fsum(column.tolist())
            means.append(total / n)
        except OverflowError:  # a partial sum beyond the float range: sum the values divided by n instead
            means.append(math.fsum((column / n).tolist()))
    return means


def _exact_column_sums(values: np.ndarray) -> list[list[float] | None]:
    """For each column, doubles whose exact sum is the exact sum of the column (None for a column with a value
    that is not finite or beyond ``2 ** 900``).

    Error-free extraction (Rump, Ogita and Oishi, "Accurate floating-point summation", SIAM J. Sci. Comput. 31,
    2008): with ``sigma = 2 ** (e + k)``, ``2 ** e`` above every ``|x|`` of the column and ``2 ** k >= 2 (n + 1)``,
    ``q = (sigma + x) - sigma`` and ``x - q`` are exact, every ``q`` is a multiple of ``2 ** (e + k - 53)`` and
    every partial sum of the ``q`` is below ``sigma``, so numpy sums them exactly in any order. The rests
    ``x - q`` are at most ``2 ** (e + k - 53)``: each pass takes ``53 - k`` bits (39 at 5,000 rows), and the
    passes stop when every rest is zero (two or three for scores between 0 and 1).
    """
    n, m = values.shape
    big = np.abs(values).max(axis=0) if n else np.zeros(m)
    ok = np.isfinite(big) & (big <= 2.0**900)
    out: list[list[float] | None] = [None] * m
    if not ok.any():
        return out
    cols = np.flatnonzero(ok)
    rest = np.ascontiguousarray(values[:, cols].T)  # one row per column: the passes read it in order
    k = math.ceil(math.log2(2 * (n + 1)))
    parts: list[np.ndarray] = []
    largest = big[cols]
    q = np.empty_like(rest)
    while largest.max() > 0.0:
        sigma = np.ldexp(1.0, np.frexp(largest)[1] + k)[:, None]  # frexp: largest < 2 ** e
        np.add(rest, sigma, out=q)
        q -= sigma
        rest -= q
        parts.append(q.sum(axis=1))
        largest = np.abs(rest).max(axis=1)
    stacked = np.array(parts).reshape(len(parts), cols.size)
    for i, j in enumerate(cols):
        out[j] = stacked[:, i].tolist()
    return out


def bootstrap_interval(
    d: np.ndarray, n_bootstrap: int, confidence: float, rng: np.random.Generator, tolerance: float | None = None
):
    """Percentile bootstrap interval ``(low, high)`` of the mean of each column of ``d`` (n x m): the bounds of
    :func:`sequential_bootstrap`, without its counts of resamples."""
    low, high, _ = sequential_bootstrap(d, n_bootstrap, confidence, rng, tolerance)
    return low, high


def sequential_bootstrap(
    d: np.ndarray,
    n_bootstrap: int,
    confidence: float,
    rng: np.random.Generator,
    tolerance: float | None = None,
    center: np.ndarray | Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap interval ``(low, high)`` of the mean of each column of ``d`` (n x m), and the
    resamples each column took.

    Each resample draws ``n`` rows uniformly with replacement (the same resamples for all columns); its mean
    is ``counts @ d / n`` with ``counts`` the times each row was drawn. The means are computed in double
    precision, of the centred columns with the column mean (:func:`column_means`, or ``center`` when the caller
    has it) added back, one column at a time (one matrix-vector product per column: a column's interval does
    not depend on the others), so a constant column gives a zero-width
    interval; the bounds are the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the
    means, clipped to the observed range of each column (no resample mean lies outside it; the clip removes
    the last rounding).

    With ``tolerance=None`` every column takes ``n_bootstrap`` resamples. With a tolerance, resamples are
    drawn up to checkpoints 500, 1,000, 2,000, ... (and ``n_bootstrap``, the cap), and a column stops at
    the first checkpoint ``B`` where, for both bounds, the distribution-free 95% confidence interval of the
    quantile (the order statistics ``B q -+ 1.96 sqrt(B q (1 - q))`` of its ``B`` resample means) is at most
    ``2 * tolerance`` wide: each bound is then within ``tolerance`` (on the column's scale) of the one
    infinitely many resamples would give, with about 95% confidence. The resamples are one sequence, so a
    column's stopping point and interval do not depend on the other columns.

    Used by :func:`rag_eval_adapters.stats.paired.paired_test` (columns: per-query differences) and, through
    :func:`bootstrap_interval`, by :meth:`rag_eval_adapters.Report.by` (columns: per-query scores of one group).
    """
    n, m = d.shape
    d = np.asarray(d, dtype=np.float64)
    center = np.array(column_means(d) if center is None else center, dtype=np.float64)
    columns = [np.ascontiguousarray(column) for column in (d - center).T]
    block = max(1, min(n_bootstrap, _BLOCK_CELLS // 2 // n))  # float64: the same bytes as a sign block
    sub = max(1, min(block, _COUNT_CELLS // n))  # rows per bincount: its counters stay in cache
    cached = max(1, _CACHED_CELLS // n)  # rows of weights every column multiplies while they are in cache
    offsets = (np.arange(sub, dtype=np.int64) * n)[:, None]
    weights = np.empty((block, n), dtype=np.float64)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.empty(m), np.empty(m)
    drawn = np.zeros(m, dtype=np.int64)
    active = list(range(m))
    done = 0
    checkpoint = n_bootstrap if tolerance is None else min(n_bootstrap, FIRST_CHECKPOINT)
    sums = np.empty((0, m), dtype=np.float64)
    while active:
        if sums.shape[0] < checkpoint:  # grown per checkpoint: a metric that stops early never needs the cap's rows
            sums = np.concatenate([sums, np.empty((checkpoint - sums.shape[0], m), dtype=np.float64)])
        c = min(block, checkpoint - done)
        for start in range(0, c, sub):
            r = min(sub, c - start)
            picks = rng.integers(0, n, size=(r, n), dtype=np.int64)
            picks += offsets[:r]  # row i counts into bins i * n ... i * n + n - 1
            counts = np.bincount(picks.ravel(), minlength=r * n)
            weights[start : start + r] = counts.reshape(r, n)
        for r0 in range(0, c, cached):  # a few rows at a time, so all columns read them from cache
            rows = weights[r0 : min(c, r0 + cached)]
            for j in active:  # each column alone: its interval never depends on the others
                sums[done + r0 : done + r0 + rows.shape[0], j] = rows @ columns[j]
        done += c
        if done < checkpoint:
            continue
        left = []
        for j in active:
            means = np.sort(sums[:done, j]) / np.float64(n) + center[j]
            if tolerance is not None and done < n_bootstrap and _quantile_spread(means, alpha) > 2.0 * tolerance:
                left.append(j)
            else:
                low[j], high[j] = np.quantile(means, [alpha, 1.0 - alpha])
                drawn[j] = done
        active = left
        checkpoint = min(n_bootstrap, 2 * checkpoint)
    lowest, highest = d.min(axis=0), d.max(axis=0)
    return np.clip(low, lowest, highest), np.clip(high, lowest, highest), drawn


def _quantile_spread(ordered: np.ndarray, alpha: float) -> float:
    """The wider of the distribution-free 95% intervals of the ``alpha`` and ``1 - alpha`` quantiles of
    ``ordered`` (sorted): the order statistics ``B q -+ 1.96 sqrt(B q (1 - q))`` around each quantile."""
    b = ordered.size
    half = 1.96 * math.sqrt(b * alpha * (1.0 - alpha))
    spread = 0.0
    for k in (alpha * (b - 1), (1.0 - alpha) * (b - 1)):
        lo, hi = max(0, math.floor(k - half)), min(b - 1, math.ceil(k + half))
        spread = max(spread, float(ordered[hi] - ordered[lo]))
    return spread
