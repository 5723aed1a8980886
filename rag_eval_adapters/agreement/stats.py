"""Agreement statistics between a scorer and human labels, written out in numpy (no scipy).

Every statistic is computed for a block of *weight vectors* at once: row ``b`` of ``w`` says how many times each
item is drawn, so ``w = 1`` is the sample itself and a multinomial ``w`` is one bootstrap resample. For ``n``
items (``n = sum(w)`` for a resample) with scorer values ``x`` and labels ``y``:

* Pearson ``r = cov(x, y) / sqrt(var(x) var(y))``.
* Spearman ``rho``: Pearson's ``r`` of the ranks, ties given their average rank (the rank of ``x_i`` among the
  drawn items is ``#{x_j < x_i} + (#{x_j = x_i} + 1) / 2``).
* Kendall's tau-b: ``(C - D) / sqrt((n0 - n1) (n0 - n2))`` with ``C - D = sum_{i<j} sign(x_i - x_j) sign(y_i -
  y_j)``, ``n0 = n (n - 1) / 2`` and ``n1``, ``n2`` the pairs tied in ``x``, in ``y``.
* Cohen's kappa on categories ``c_1 < ... < c_K``: ``1 - sum(v_ij O_ij) / sum(v_ij E_ij)`` with ``O`` the
  confusion matrix (scorer category ``i``, label category ``j``), ``E_ij = O_i. O_.j / n`` and disagreement
  weights ``v_ij = [i != j]`` (unweighted) or ``(i - j)^2 / (K - 1)^2`` (quadratic, for ordinal grades).
* accuracy ``sum_i O_ii / n``.

A statistic that is undefined for a sample (a constant scorer has no correlation) is NaN here; the public
results turn it into ``None``. These values equal scipy's ``pearsonr``, ``spearmanr``, ``kendalltau`` (tau-b)
and scikit-learn's ``cohen_kappa_score`` on the sample itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["pearson", "spearman", "kendall_tau_b", "cohen_kappa", "accuracy", "confusion_matrix"]

_BLOCK_CELLS = 1 << 21  # pair-matrix cells built at a time


def _blocks(n: int):
    step = max(1, _BLOCK_CELLS // max(n, 1))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def _weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson's r under each row of weights; ``x`` and ``y`` are ``(n,)`` or ``(B, n)``."""
    total = w.sum(axis=1)
    mx = (w * x).sum(axis=1) / total
    my = (w * y).sum(axis=1) / total
    dx = x - mx[:, None]
    dy = y - my[:, None]
    cov = (w * dx * dy).sum(axis=1)
    vx = (w * dx * dx).sum(axis=1)
    vy = (w * dy * dy).sum(axis=1)
    scale_x = np.maximum(np.abs(x).max(axis=-1), 1.0) if x.ndim == 2 else max(float(np.abs(x).max()), 1.0)
    scale_y = np.maximum(np.abs(y).max(axis=-1), 1.0) if y.ndim == 2 else max(float(np.abs(y).max()), 1.0)
    tiny_x = vx <= (1e-12 * scale_x) ** 2 * total
    tiny_y = vy <= (1e-12 * scale_y) ** 2 * total
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(vx * vy)
    r = np.where(tiny_x | tiny_y, np.nan, np.clip(r, -1.0, 1.0))
    return r


def _ranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average ranks of each item among the drawn items, for every row of ``w`` (``B x n``)."""
    out = np.empty(w.shape, dtype=np.float64)
    for blk in _blocks(x.size):
        below = (x[None, :] < x[blk, None]).astype(np.float64)  # rows: items i of the block; cols: j
        tied = (x[None, :] == x[blk, None]).astype(np.float64)
        out[:, blk] = w @ below.T + (w @ tied.T + 1.0) / 2.0
    return out


def _weighted_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    total = w.sum(axis=1)
    cd = np.zeros(w.shape[0])
    tx = np.zeros(w.shape[0])
    ty = np.zeros(w.shape[0])
    for blk in _blocks(x.size):
        sx = np.sign(x[blk, None] - x[None, :])
        sy = np.sign(y[blk, None] - y[None, :])
        wb = w[:, blk]
        cd += (wb * (w @ (sx * sy).T)).sum(axis=1)
        tx += (wb * (w @ (sx == 0).T.astype(np.float64) - 1.0)).sum(axis=1)
        ty += (wb * (w @ (sy == 0).T.astype(np.float64) - 1.0)).sum(axis=1)
    n0 = total * (total - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (cd / 2.0) / np.sqrt((n0 - tx / 2.0) * (n0 - ty / 2.0))
    undefined = (n0 - tx / 2.0 <= 0.5) | (n0 - ty / 2.0 <= 0.5)
    return np.where(undefined, np.nan, np.clip(tau, -1.0, 1.0))


def _confusion(x_codes: np.ndarray, y_codes: np.ndarray, k: int, w: np.ndarray) -> np.ndarray:
    """``B x k x k`` weighted confusion matrices (scorer category in rows, label category in columns)."""
    cell = x_codes * k + y_codes
    onehot = np.zeros((cell.size, k * k))
    onehot[np.arange(cell.size), cell] = 1.0
    return (w @ onehot).reshape(w.shape[0], k, k)


def _kappa(confusion: np.ndarray, weights: str) -> np.ndarray:
    k = confusion.shape[-1]
    i, j = np.indices((k, k))
    if weights == "quadratic":
        v = ((i - j) ** 2 / max(k - 1, 1) ** 2).astype(np.float64)
    else:
        v = (i != j).astype(np.float64)
    total = confusion.sum(axis=(1, 2))
    expected = confusion.sum(axis=2)[:, :, None] * confusion.sum(axis=1)[:, None, :] / total[:, None, None]
    observed_d = (v * confusion).sum(axis=(1, 2))
    expected_d = (v * expected).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = 1.0 - observed_d / expected_d
    return np.where(expected_d <= 1e-12 * total, np.nan, kappa)


def categories_of(x: np.ndarray, y: np.ndarray, scale: Sequence[float] | None = None) -> np.ndarray:
    """The sorted categories: ``scale`` if given, else every value seen in ``x`` or ``y``."""
    return np.asarray(sorted(set(scale)), dtype=np.float64) if scale is not None else np.unique(np.concatenate([x, y]))


def codes(values: np.ndarray, categories: np.ndarray, what: str) -> np.ndarray:
    """Index of each value in ``categories``; ``ValueError`` naming the first value off the scale."""
    index = np.searchsorted(categories, values)
    index = np.clip(index, 0, categories.size - 1)
    off = np.flatnonzero(categories[index] != values)
    if off.size:
        raise ValueError(f"{what}[{off[0]}] is {float(values[off[0]])!r}, not on the scale "
                         f"{[float(c) for c in categories]}")
    return index


def check_pair(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Scores and labels as two float arrays of one length, at least 2, all finite; ``ValueError`` otherwise."""
    from ..intervals import check_values

    xs = check_values(x, "scores", minimum=0)
    ys = check_values(y, "labels", minimum=0)
    if xs.size != ys.size:
        raise ValueError(f"{xs.size} scores but {ys.size} labels; give one score per labelled item")
    if xs.size < 2:
        raise ValueError(f"agreement needs at least 2 labelled items, got {xs.size}")
    return xs, ys


def _one(value: np.ndarray) -> float | None:
    v = float(value[0])
    return None if np.isnan(v) else v


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation of scores and labels (``None`` when either is constant)."""
    xs, ys = check_pair(x, y)
    return _one(_weighted_pearson(xs, ys, np.ones((1, xs.size))))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation, ties at their average rank (``None`` when either is constant)."""
    xs, ys = check_pair(x, y)
    w = np.ones((1, xs.size))
    return _one(_weighted_pearson(_ranks(xs, w), _ranks(ys, w), w))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b, corrected for ties on both sides (``None`` when either is constant)."""
    xs, ys = check_pair(x, y)
    return _one(_weighted_kendall(xs, ys, np.ones((1, xs.size))))


def confusion_matrix(x: Sequence[float], y: Sequence[float], scale: Sequence[float] | None = None) -> np.ndarray:
    """Counts of (scorer category, label category), categories sorted; both must lie on ``scale`` if given."""
    xs, ys = check_pair(x, y)
    cats = categories_of(xs, ys, scale)
    return _confusion(codes(xs, cats, "scores"), codes(ys, cats, "labels"), cats.size,
                      np.ones((1, xs.size)))[0].astype(np.int64)


def cohen_kappa(x: Sequence[float], y: Sequence[float], *, weights: str | None = None,
                scale: Sequence[float] | None = None) -> float | None:
    """Cohen's kappa of a scorer's categories against the labels' (``weights``: ``None`` or ``"quadratic"``)."""
    if weights not in (None, "quadratic"):
        raise ValueError(f"weights must be None or 'quadratic', got {weights!r}")
    xs, ys = check_pair(x, y)
    cats = categories_of(xs, ys, scale)
    conf = _confusion(codes(xs, cats, "scores"), codes(ys, cats, "labels"), cats.size, np.ones((1, xs.size)))
    return _one(_kappa(conf, weights or "none"))


def accuracy(x: Sequence[float], y: Sequence[float]) -> float:
    """The share of items whose score equals the label."""
    xs, ys = check_pair(x, y)
    return float(np.mean(xs == ys))
