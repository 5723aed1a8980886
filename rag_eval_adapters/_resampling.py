"""Whole-matrix kernels of the paired tests in :mod:`rag_eval_adapters.compare`.

Both random procedures act on ``d``, the ``n x m`` matrix of per-query differences (queries x metrics), and
both are matrix products of a block of random rows with ``d``:

* :func:`randomization_p_values`: sign vectors ``s = 2 * bits - 1`` give ``s @ d = 2 * (bits @ d) - sum(d)``.
  The bits are random bytes, turned into a block of 0.0/1.0 values by one table lookup (eight values per
  byte). A statistic whose single-precision value lies within the worst-case rounding bound of the observed
  one is recounted in double precision from the stored bytes (only over the queries whose difference is not
  zero), so every count is the double-precision decision.
* :func:`bootstrap_interval`: each resample's multiplicities (``bincount`` of ``n`` uniform draws, a few
  rows per call so the counters stay in cache) weight the centred columns in double precision; the mean is
  added back. It is the one bootstrap of the package: :mod:`~rag_eval_adapters.compare` gives it per-query
  differences, :meth:`~rag_eval_adapters.Report.by` the per-query scores of a group.

This module is part of the core (it imports nothing of the package), so both the core's
:mod:`~rag_eval_adapters.report` and the output ring's :mod:`~rag_eval_adapters.compare` use it.

The products run on blocks of a few million cells: few, large BLAS calls. Many small calls are far
slower with a threaded BLAS on a machine whose other cores are busy (each call waits for every thread).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TOL", "randomization_p_values", "bootstrap_interval", "column_means"]

TOL = 1e-12  # |mean(s * d)| >= |mean(d)| - TOL counts as reaching the observed difference
_BLOCK_CELLS = 1 << 23  # cells of the random block in one matrix product (32 MiB in single, 64 in double)
_COUNT_CELLS = 1 << 16  # uniform draws counted per bincount call
_PACKED_BYTES = 1 << 23  # random sign bytes kept at a time for the double-precision recounts
# row b: the eight bits of byte b as 0.0/1.0, most significant first (the order of np.unpackbits)
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32)


def randomization_p_values(d: np.ndarray, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided sign-flip randomization p-value of the mean of each column of ``d`` (n x m).

    ``(1 + #{s : |mean(s * d)| >= |mean(d)| - TOL}) / (1 + n_permutations)`` over ``n_permutations``
    random sign vectors ``s``, shared by all columns.
    """
    n, m = d.shape
    total = d.sum(axis=0)
    threshold = np.abs(total) - n * TOL  # |s @ d| >= |sum d| - n * tol  <=>  |mean(s * d)| >= |mean d| - tol
    d32 = d.astype(np.float32)
    # bound of |bits @ d32 (single) - bits @ d (exact)|, doubled for 2 * S - total, plus slack
    err = n * 2.0**-24 * np.abs(d32).sum(axis=0, dtype=np.float64) + np.abs(d - d32).sum(axis=0)
    margin = 2.0 * err * 1.01 + 1e-300
    nbytes = (n + 7) // 8
    padded = np.zeros((nbytes * 8, m), dtype=np.float32)  # the bits past n multiply zeros
    padded[:n] = d32
    rows = max(1, min(n_permutations, _BLOCK_CELLS // (nbytes * 8)))
    chunk = max(1, min(n_permutations, _PACKED_BYTES // nbytes // rows)) * rows
    bits = np.empty((rows, nbytes, 8), dtype=np.float32)
    sums = np.empty((min(chunk, n_permutations), m), dtype=np.float32)
    exceed = np.zeros(m, dtype=np.int64)
    for start in range(0, n_permutations, chunk):
        c = min(chunk, n_permutations - start)
        packed = np.frombuffer(rng.bytes(c * nbytes), dtype=np.uint8).reshape(c, nbytes)
        for r0 in range(0, c, rows):
            r = min(rows, c - r0)
            np.take(_BYTE_BITS, packed[r0 : r0 + r], axis=0, out=bits[:r], mode="wrap")
            np.matmul(bits[:r].reshape(r, nbytes * 8), padded, out=sums[r0 : r0 + r])
        exceed += _count_reaching(sums[:c], packed, d, total, threshold, margin)
    return (exceed + 1) / (n_permutations + 1)


def _count_reaching(sums, packed, d, total, threshold, margin) -> np.ndarray:
    """Per column, the sign vectors whose ``|s @ d|`` reaches ``threshold``, decided in double precision."""
    value = np.abs(2.0 * sums.astype(np.float64) - total)
    exceed = np.count_nonzero(value >= threshold + margin, axis=0)
    close = np.abs(value - threshold) < margin
    for j in np.flatnonzero(close.any(axis=0)):
        queries = np.flatnonzero(d[:, j])  # a zero difference adds nothing whatever its sign
        bits = np.take(packed[close[:, j]], queries >> 3, axis=1)  # the byte holding each query's bit
        bits >>= (7 - (queries & 7)).astype(np.uint8)
        bits &= 1
        exact = np.abs(2.0 * np.einsum("ij,j->i", bits, d[queries, j]) - total[j])
        exceed[j] += np.count_nonzero(exact >= threshold[j])
    return exceed


def column_means(values: np.ndarray) -> list[float]:
    """The mean of each column of ``values`` (rows x columns): its correctly rounded sum (``math.fsum``) divided
    by the number of rows.

    Each column's mean depends on that column's values only: not on the other columns (numpy's ``mean(axis=0)``
    sums a one-column and a many-column array in a different order), nor on the order of the rows. Every mean
    of a :class:`~rag_eval_adapters.Report`, its groups and :mod:`~rag_eval_adapters.compare` is taken here, so the same metric on
    the same queries gives the same mean to the last digit however it was asked for.
    """
    n = values.shape[0]
    means = []
    for column in np.asarray(values, dtype=np.float64).T:
        try:
            means.append(math.fsum(column.tolist()) / n)
        except OverflowError:  # a partial sum beyond the float range: sum the values divided by n instead
            means.append(math.fsum((column / n).tolist()))
    return means


def bootstrap_interval(d: np.ndarray, n_bootstrap: int, confidence: float, rng: np.random.Generator):
    """Percentile bootstrap interval ``(low, high)`` of the mean of each column of ``d`` (n x m).

    Each of the ``n_bootstrap`` resamples draws ``n`` rows uniformly with replacement (the same resample for
    all columns); its mean is ``counts @ d / n`` with ``counts`` the times each row was drawn. The means are
    computed in double precision, of the centred columns with the column mean (:func:`column_means`) added back,
    one column at a time (a column's interval does not depend on the others), so a constant column gives a
    zero-width interval; the bounds are the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles of the means, clipped to the observed range of each column (no
    resample mean lies outside it; the clip removes the last rounding).

    Used by :func:`rag_eval_adapters.compare.paired_test` (columns: per-query differences) and by
    :meth:`rag_eval_adapters.Report.by` (columns: per-query scores of one group).
    """
    n, m = d.shape
    d = np.asarray(d, dtype=np.float64)
    center = np.array(column_means(d))
    centred = d - center
    columns = [np.ascontiguousarray(centred[:, j]) for j in range(m)]
    block = max(1, min(n_bootstrap, _BLOCK_CELLS // 2 // n))  # float64: the same bytes as a sign block
    sub = max(1, min(block, _COUNT_CELLS // n))  # rows per bincount: its counters stay in cache
    offsets = (np.arange(sub, dtype=np.int64) * n)[:, None]
    weights = np.empty((block, n), dtype=np.float64)
    sums = np.empty((n_bootstrap, m), dtype=np.float64)
    for done in range(0, n_bootstrap, block):
        c = min(block, n_bootstrap - done)
        for start in range(0, c, sub):
            r = min(sub, c - start)
            picks = rng.integers(0, n, size=(r, n), dtype=np.int64)
            picks += offsets[:r]  # row i counts into bins i * n ... i * n + n - 1
            counts = np.bincount(picks.ravel(), minlength=r * n)
            weights[start : start + r] = counts.reshape(r, n)
        for j, column in enumerate(columns):  # each column alone: its interval never depends on the others
            sums[done : done + c, j] = np.einsum("cn,n->c", weights[:c], column)
    means = sums / np.float64(n) + center
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    lowest, highest = d.min(axis=0), d.max(axis=0)
    return np.clip(low, lowest, highest), np.clip(high, lowest, highest)
