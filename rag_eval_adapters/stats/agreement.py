"""Agreement statistics between a scorer and human labels, written out in numpy (no scipy).

Every statistic is computed for a block of *weight vectors* at once: row ``b`` of ``w`` says how many times each
item is drawn, so ``w = 1`` is the sample itself and a multinomial ``w`` is one bootstrap resample. For ``n``
items (``n = sum(w)`` for a resample) with scorer values ``x`` and labels ``y``:

* Pearson ``r = cov(x, y) / sqrt(var(x) var(y))``.
* Spearman ``rho``: Pearson's ``r`` of the ranks, ties given their average rank (the rank of ``x_i`` among the
  drawn items is ``#{x_j < x_i} + (#{x_j = x_i} + 1) / 2``).
* Kendall's tau-b: ``(C - D) / sqrt((n0 - n1) (n0 - n2))`` with ``C - D = sum_{i<j} sign(x_i - x_j) sign(y_i -
  y_j)``, ``n0 = n (n - 1) / 2`` and ``n1``, ``n2`` the pairs tied in ``x``, in ``y``; counted by Knight's
  ``O(n log n)`` merge sort (:func:`weighted_kendall`), never over every pair.
* Cohen's kappa on categories ``c_1 < ... < c_K``: ``1 - sum(v_ij O_ij) / sum(v_ij E_ij)`` with ``O`` the
  confusion matrix (scorer category ``i``, label category ``j``), ``E_ij = O_i. O_.j / n`` and disagreement
  weights ``v_ij = [i != j]`` (unweighted) or ``(i - j)^2 / (K - 1)^2`` (quadratic, for ordinal grades).
* accuracy ``sum_i O_ii / n``.

A statistic that is undefined for a sample (a constant scorer has no correlation) is NaN here; the public
results turn it into ``None``. These values equal scipy's ``pearsonr``, ``spearmanr``, ``kendalltau`` (tau-b)
and scikit-learn's ``cohen_kappa_score`` on the sample itself.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .interval import Interval
from .values import check_values

__all__ = ["pearson", "spearman", "kendall_tau_b", "cohen_kappa", "accuracy", "confusion_matrix", "Estimate",
           "LabelAgreement", "label_agreement", "weighted_pearson", "weighted_ranks", "weighted_kendall",
           "KendallPlan", "kendall_plan",
           "weighted_confusion", "weighted_kappa", "categories_of", "codes", "check_pair"]

def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
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


def _tie_groups(sorted_values: np.ndarray) -> np.ndarray:
    """The start of each run of equal values in a sorted array."""
    return np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])


def weighted_ranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average ranks of each item among the drawn items, for every row of ``w`` (``B x n``).

    The rank of ``x_i`` is ``W(x < x_i) + (W(x = x_i) + 1) / 2`` with ``W`` the weight (times drawn) of the
    items it counts: one sort of ``x`` and a running sum of the weight of each run of ties, ``O(n log n + B n)``.
    """
    order = np.argsort(x, kind="stable")
    starts = _tie_groups(x[order])
    group_of = np.empty(x.size, dtype=np.intp)
    group_of[order] = np.cumsum(np.r_[True, x[order][1:] != x[order][:-1]]) - 1
    tied = np.add.reduceat(np.asarray(w, dtype=np.float64)[:, order], starts, axis=1)
    rank = np.cumsum(tied, axis=1) - tied + (tied + 1.0) / 2.0
    return rank[:, group_of]


@dataclass(frozen=True)
class KendallPlan:
    """What Knight's algorithm needs of ``x`` and ``y`` whatever the weights (:func:`kendall_plan`).

    Attributes
    ----------
    order : numpy.ndarray
        The items sorted by ``x``, ties by ``y``.
    levels : list of tuple
        For each level of a bottom-up merge sort of the ``y`` ranks (in that order): the arrangement ``perm``
        (positions, sorted by ``y`` within blocks of the level's size), and for each element of a right block its
        arranged position ``q`` and the arranged positions ``[a, b)`` of the left block's elements above it in ``y``.
    grades : list of tuple
        When one of the two takes few values (:data:`FEW_VALUES`, e.g. human grades), it plays ``y``, ``levels``
        is empty, and for each of its values ``t`` but the highest: which sorted items lie above ``t`` (a mask),
        the sorted positions of the items at ``t`` and where the run of ties in ``x`` of each of them starts.
    x_ties, y_ties, xy_ties : tuple
        ``(order, starts)`` of the runs of equal ``x``, equal ``y`` and equal ``(x, y)``.
    """

    order: np.ndarray
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
    grades: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
    x_ties: tuple[np.ndarray, np.ndarray]
    y_ties: tuple[np.ndarray, np.ndarray]
    xy_ties: tuple[np.ndarray, np.ndarray]


FEW_VALUES = 32
"""A variable with at most this many distinct values is counted by grade (``O(n x values)`` a row)."""


def kendall_plan(x: np.ndarray, y: np.ndarray) -> KendallPlan:
    """The weight-free part of :func:`weighted_kendall` for ``x`` and ``y`` (``O(n log^2 n)`` once)."""
    if np.unique(x).size < np.unique(y).size:
        x, y = y, x  # tau-b is symmetric in x and y: the variable with fewer values plays y
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    new_x = np.r_[True, xs[1:] != xs[:-1]]
    y_order = np.argsort(y, kind="stable")
    ties = {"x_ties": (order, np.flatnonzero(new_x)), "y_ties": (y_order, _tie_groups(y[y_order])),
            "xy_ties": (order, np.flatnonzero(new_x | np.r_[True, ys[1:] != ys[:-1]]))}
    rank = np.unique(ys, return_inverse=True)[1].reshape(-1).astype(np.int64)
    if rank.size and int(rank.max()) < FEW_VALUES:
        run_start = np.maximum.accumulate(np.where(new_x, np.arange(order.size), 0))
        grades = [(rank > t, np.flatnonzero(rank == t), run_start[rank == t]) for t in range(int(rank.max()))]
        return KendallPlan(order, [], grades, **ties)
    return KendallPlan(order, _merge_levels(rank), [], **ties)


def _merge_levels(rank: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The levels of a bottom-up merge sort of ``rank`` (see :class:`KendallPlan`)."""
    n, top = rank.size, int(rank.max()) + 1 if rank.size else 1
    perm = np.arange(n)
    pos = np.arange(n)
    levels = []
    size = 1
    while size < n:
        block = pos // (2 * size)
        start = block * 2 * size
        is_left = pos - start < size
        keys = block * top + rank[perm]
        left_keys = keys[is_left]  # sorted: blocks ascending, each left half sorted by rank
        q = np.flatnonzero(~is_left)
        first_left = np.searchsorted(left_keys, block[q] * top, side="left")
        below = np.searchsorted(left_keys, keys[q], side="right") - first_left  # left elements with rank <= r_q
        levels.append((perm.copy(), q, start[q] + below, start[q] + size))
        perm = perm[np.lexsort((rank[perm], block))]
        size *= 2
    return levels


def _tied_pairs(w: np.ndarray, ties: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Pairs of drawn items in one run of ties, summed over the runs: ``sum W (W - 1) / 2`` (the weight of each
    run a difference of running sums)."""
    order, starts = ties
    if starts.size == order.size:  # no ties: each item its own run
        return (w * (w - 1.0)).sum(axis=1, dtype=np.float64) / 2.0
    running = np.zeros((w.shape[0], order.size + 1), dtype=w.dtype)
    np.cumsum(w[:, order], axis=1, out=running[:, 1:])
    tied = np.diff(running[:, np.r_[starts, order.size]], axis=1)
    return (tied * (tied - 1.0)).sum(axis=1, dtype=np.float64) / 2.0


def weighted_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray, plan: KendallPlan | None = None) -> np.ndarray:
    """Kendall's tau-b under each row of weights (``B x n``; NaN where undefined), by Knight's (1966) algorithm.

    With the items sorted by ``x`` (ties by ``y``), the discordant pairs ``D`` are the inversions of ``y``: a
    bottom-up merge sort counts, for each element of a right block, the weight of the left block's elements
    above it in ``y`` (a difference of running sums of the weights in the level's arrangement), so a row costs
    ``O(n log n)``, never a pair matrix. When ``x`` or ``y`` takes at most :data:`FEW_VALUES` values (human
    grades), it plays ``y`` and each of its values ``t`` adds ``sum_{y_j = t} w_j W(x < x_j, y > t)``: one
    running sum a value, ``O(n)`` a value and row. With ``n0 = N (N - 1) / 2`` (``N`` the drawn items) and ``n1``, ``n2``,
    ``n3`` the pairs tied in ``x``, in ``y`` and in both, ``C + D = n0 - n1 - n2 + n3``, so
    ``tau_b = (n0 - n1 - n2 + n3 - 2 D) / sqrt((n0 - n1) (n0 - n2))``; all counts are sums of whole numbers,
    exact in double precision. ``plan`` (:func:`kendall_plan`) can be given when many blocks of rows share
    ``x`` and ``y``.
    """
    plan = plan if plan is not None else kendall_plan(x, y)
    w = np.asarray(w, dtype=np.float64)
    total = w.sum(axis=1)
    # whole-number weights whose products with any running sum stay below 2 ** 24 are exact in single precision
    # (half the memory traffic); the sums over items are taken in double precision, exact below 2 ** 53
    exact32 = bool(np.all(w == np.floor(w))) and float(w.max(initial=0.0)) * float(total.max(initial=0.0)) < 2.0**24
    w = w.astype(np.float32) if exact32 else w
    ordered = w[:, plan.order]
    running = np.zeros((w.shape[0], ordered.shape[1] + 1), dtype=w.dtype)
    discordant = np.zeros(w.shape[0])
    for above, at, run_start in plan.grades:  # D = sum_t sum_{y_j = t} w_j W(x < x_j, y > t)
        np.cumsum(ordered * above, axis=1, out=running[:, 1:])
        discordant += (ordered[:, at] * running[:, run_start]).sum(axis=1, dtype=np.float64)
    for perm, q, a, b in plan.levels:  # D = the weighted inversions of y, merge level by merge level
        arranged = np.take(ordered, perm, axis=1)
        np.cumsum(arranged, axis=1, out=running[:, 1:])
        discordant += (arranged[:, q] * (running[:, b] - running[:, a])).sum(axis=1, dtype=np.float64)
    n0 = total * (total - 1.0) / 2.0
    n1, n2, n3 = (_tied_pairs(w, ties) for ties in (plan.x_ties, plan.y_ties, plan.xy_ties))
    concordance = n0 - n1 - n2 + n3 - 2.0 * discordant  # C - D
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt((n0 - n1) * (n0 - n2))
    undefined = (n0 - n1 <= 0.5) | (n0 - n2 <= 0.5)
    return np.where(undefined, np.nan, np.clip(tau, -1.0, 1.0))


def weighted_confusion(x_codes: np.ndarray, y_codes: np.ndarray, k: int, w: np.ndarray) -> np.ndarray:
    """``B x k x k`` weighted confusion matrices (scorer category in rows, label category in columns)."""
    cell = x_codes * k + y_codes
    onehot = np.zeros((cell.size, k * k))
    onehot[np.arange(cell.size), cell] = 1.0
    return (w @ onehot).reshape(w.shape[0], k, k)


def weighted_kappa(confusion: np.ndarray, weights: str) -> np.ndarray:
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


def check_pair(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores and labels as two float arrays of one length, at least 2, all finite; ``ValueError`` otherwise."""
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
    return _one(weighted_pearson(xs, ys, np.ones((1, xs.size))))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation, ties at their average rank (``None`` when either is constant)."""
    xs, ys = check_pair(x, y)
    w = np.ones((1, xs.size))
    return _one(weighted_pearson(weighted_ranks(xs, w), weighted_ranks(ys, w), w))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b, corrected for ties on both sides (``None`` when either is constant)."""
    xs, ys = check_pair(x, y)
    return _one(weighted_kendall(xs, ys, np.ones((1, xs.size))))


def confusion_matrix(x: Sequence[float], y: Sequence[float], scale: Sequence[float] | None = None) -> np.ndarray:
    """Counts of (scorer category, label category), categories sorted; both must lie on ``scale`` if given."""
    xs, ys = check_pair(x, y)
    cats = categories_of(xs, ys, scale)
    return weighted_confusion(codes(xs, cats, "scores"), codes(ys, cats, "labels"), cats.size,
                      np.ones((1, xs.size)))[0].astype(np.int64)


def cohen_kappa(x: Sequence[Hashable], y: Sequence[Hashable], *, weights: str | None = None,
                scale: Sequence[float] | None = None) -> float | None:
    """Cohen's kappa of two raters' labels of the same items (a scorer's categories against people's).

    ``1 - sum(v_ij O_ij) / sum(v_ij E_ij)`` (the module docstring). Numbers are categories in their order
    (``weights="quadratic"`` weighs a disagreement by its squared distance on that order; ``scale`` lists the
    categories when some are unused); labels of any other hashable kind (``"yes"``, ``True``) are numbered in
    order of first appearance, and take unweighted kappa only.

    Returns
    -------
    float or None
        ``None`` when kappa is undefined: fewer than two items, or both raters gave every item one and the same
        label (chance agreement 1). Never NaN.

    Raises
    ------
    ValueError
        For lengths that differ, ``weights`` other than ``None`` or ``"quadratic"``, a value off ``scale``, or
        quadratic weights on labels that are not numbers.
    """
    if weights not in (None, "quadratic"):
        raise ValueError(f"weights must be None or 'quadratic', got {weights!r}")
    if len(x) != len(y):
        raise ValueError(f"both raters must label the same items: {len(x)} and {len(y)} labels")
    if len(x) < 2:  # no items, or one: chance agreement is 1
        return None
    if not all(_is_number(v) for v in (*x, *y)):
        if weights is not None or scale is not None:
            raise ValueError("quadratic weights and a scale need numeric labels")
        number: dict[Hashable, int] = {}
        for label in (*x, *y):
            number.setdefault(label, len(number))
        x, y = [number[a] for a in x], [number[b] for b in y]
    xs, ys = check_pair(x, y)  # type: ignore[arg-type]
    cats = categories_of(xs, ys, scale)
    conf = weighted_confusion(codes(xs, cats, "scores"), codes(ys, cats, "labels"), cats.size, np.ones((1, xs.size)))
    return _one(weighted_kappa(conf, weights or "none"))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def accuracy(x: Sequence[float], y: Sequence[float]) -> float:
    """The share of items whose score equals the label."""
    xs, ys = check_pair(x, y)
    return float(np.mean(xs == ys))


@dataclass(frozen=True, repr=False)
class Estimate(Interval):
    """An agreement statistic on the sample and its bootstrap interval: an :class:`~.interval.Interval` whose
    fields are all ``None`` when the statistic is undefined (the bounds alone ``None`` when no resample
    defined it). ``value`` is ``estimate``."""

    estimate: float | None  # type: ignore[assignment]
    low: float | None  # type: ignore[assignment]
    high: float | None  # type: ignore[assignment]
    confidence: float = 0.95
    method: str = "bootstrap"
    n: int = 0

    @property
    def value(self) -> float | None:
        """The statistic on the sample (``estimate``)."""
        return self.estimate

    def format(self, digits: int = 3, scale: float = 1.0) -> str:
        """``"0.619 [0.571, 0.664]"`` (``scale=100`` for points), ``"-"`` when undefined."""
        if self.estimate is None:
            return "-"
        bounds = ("" if self.low is None or self.high is None
                  else f" [{self.low * scale:.{digits}f}, {self.high * scale:.{digits}f}]")
        return f"{self.estimate * scale:.{digits}f}{bounds}"

    def __repr__(self) -> str:
        return f"Estimate({self.format(4)})"


@dataclass(frozen=True)
class LabelAgreement:
    """Given relevance labels against LLM grades on the pairs that have both (``judges.Agreement``).

    Attributes
    ----------
    pairs : int
        (query, document) pairs with a given label and an LLM grade.
    relevant_grade : int
        The lowest LLM grade counted as relevant when both are made binary (given label >= 1: relevant).
    observed : float or None
        Share of pairs on which the binary labels agree.
    kappa : float or None
        Cohen's kappa of the binary labels (None when undefined; see :func:`cohen_kappa`).
    confusion : dict
        ``{given label: {llm grade: pairs}}``.
    """

    pairs: int
    relevant_grade: int
    observed: float | None
    kappa: float | None
    confusion: dict[int, dict[int, int]]

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (labels as strings)."""
        return {"pairs": self.pairs, "relevant_grade": self.relevant_grade, "observed": self.observed,
                "kappa": self.kappa,
                "confusion": {str(g): {str(k): v for k, v in row.items()} for g, row in self.confusion.items()}}


def label_agreement(given: Sequence[int], graded: Sequence[int], relevant_grade: int = 2) -> LabelAgreement:
    """:class:`LabelAgreement` of ``given`` labels and LLM ``graded`` grades of the same pairs: both made binary
    (given >= 1, grade >= ``relevant_grade``), their observed agreement and Cohen's kappa, and the confusion of
    the raw values."""
    confusion: dict[int, dict[int, int]] = {}
    for g, r in zip(given, graded, strict=True):
        row = confusion.setdefault(int(g), {})
        row[int(r)] = row.get(int(r), 0) + 1
    first = [int(g >= 1) for g in given]
    second = [int(r >= relevant_grade) for r in graded]
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / len(first) if first else None
    return LabelAgreement(len(first), relevant_grade, observed, cohen_kappa(first, second),
                          {g: dict(sorted(row.items())) for g, row in sorted(confusion.items())})
