"""How far a scorer agrees with people: every agreement statistic with its bootstrap interval, overall and by group.

:func:`measure_agreement` takes one score and one human label per item. Labels are *pointwise* (a grade of one
answer) or *pairwise* (a preference between two answers on -2..2; the score is then the scorer's difference,
answer 2 minus answer 1). It reports Pearson, Spearman and Kendall's tau-b always; on categories it adds accuracy,
Cohen's kappa (unweighted and quadratic-weighted) and the confusion matrix:

* pointwise, when every score lies on the labels' scale (a judge that grades 1..5 like the people did);
* pairwise, on the preference's sign: ``-1`` (answer 1 better), ``0`` (tie: ``|score| <= tie_margin``), ``1``.

Each statistic carries a percentile bootstrap interval: items (or, with ``clusters``, whole clusters such as the
two annotators' rows of one question) drawn with replacement ``n_bootstrap`` times, seeded. Resamples whose
statistic is undefined (a constant scorer) are left out of the percentiles; a statistic undefined on the
sample itself is ``None``, never NaN.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..stats.agreement import (
    Estimate,
    KendallPlan,
    categories_of,
    check_pair,
    codes,
    kendall_plan,
    weighted_confusion,
    weighted_kappa,
    weighted_kendall,
    weighted_pearson,
    weighted_ranks,
)
from ..stats.distributions import check_confidence
from ..validation import check_count, check_seed

__all__ = ["Estimate", "AgreementStats", "Agreement", "measure_agreement", "STATISTICS", "KINDS"]

KINDS = ("pointwise", "pairwise")
STATISTICS = ("pearson", "spearman", "kendall_tau_b", "accuracy", "kappa", "kappa_quadratic")
"""The statistics' keys; the last three only on categories (see the module docstring)."""
OVERALL = "all"


@dataclass(frozen=True)
class AgreementStats:
    """The statistics of one group (``"all"`` for every item)."""

    group: Hashable
    n: int
    estimates: dict[str, Estimate]
    confusion: list[list[int]] | None = None

    def __getitem__(self, statistic: str) -> Estimate:
        try:
            return self.estimates[statistic]
        except KeyError:
            raise KeyError(f"no statistic {statistic!r} here; have {', '.join(self.estimates)}") from None

    def to_dict(self) -> dict[str, Any]:
        """``{"group", "n", "statistics": {name: {"value", "low", "high"}}, "confusion"}``."""
        return {"group": self.group, "n": self.n,
                "statistics": {k: {"value": e.value, "low": e.low, "high": e.high} for k, e in self.estimates.items()},
                "confusion": self.confusion}


@dataclass(frozen=True)
class Agreement:
    """A scorer's agreement with human labels, overall and by group.

    ``a["spearman"]`` is the overall estimate; ``a.groups["kiwi"]["pearson"]`` a group's.
    """

    scorer: str
    kind: str
    overall: AgreementStats
    groups: dict[Hashable, AgreementStats] = field(default_factory=dict)
    categories: list[float] | None = None
    confidence: float = 0.95
    n_bootstrap: int = 1000

    def __getitem__(self, statistic: str) -> Estimate:
        return self.overall[statistic]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the scorer, kind, categories (rows and columns of each confusion matrix), the interval
        (``"bootstrap 95%"``) and the overall and group statistics."""
        return {"scorer": self.scorer, "kind": self.kind, "categories": self.categories,
                "interval": f"bootstrap {self.confidence:.0%}", "n_bootstrap": self.n_bootstrap,
                "overall": self.overall.to_dict(), "groups": [g.to_dict() for g in self.groups.values()]}

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={e.format(3)}" for k, e in self.overall.estimates.items() if k in
                          ("pearson", "spearman", "kappa"))
        return (f"Agreement({self.scorer!r}, {self.kind}, n={self.overall.n}, {shown}"
                f"{f', {len(self.groups)} groups' if self.groups else ''})")


_BLOCK_CELLS = 1 << 22  # weights of a block of resamples (rows x items) held at once


def _weight_blocks(clusters: np.ndarray, n_bootstrap: int, rng: np.random.Generator):
    """Blocks of rows of the ``(1 + n_bootstrap) x n`` weights: the sample itself, then resamples of whole
    clusters (each resample draws as many clusters as there are, with replacement). The draws are one stream
    however the blocks cut it, so the resamples do not depend on the block size."""
    k = int(clusters.max()) + 1
    rows = max(1, _BLOCK_CELLS // max(clusters.size, k))
    done, first = 0, True
    while first or done < n_bootstrap:
        r = min(rows - int(first), n_bootstrap - done)
        picks = rng.integers(0, k, size=(r, k))
        picks += (np.arange(r, dtype=np.int64) * k)[:, None]  # row i counts into bins i * k ... i * k + k - 1
        counts = np.bincount(picks.ravel(), minlength=r * k).reshape(r, k).astype(np.float64)[:, clusters]
        yield np.vstack([np.ones((1, clusters.size)), counts]) if first else counts
        done, first = done + r, False


def _interval(values: np.ndarray, confidence: float, n: int) -> Estimate:
    point = float(values[0])
    if np.isnan(point):
        return Estimate(None, None, None, confidence, "bootstrap", n)
    rest = values[1:][~np.isnan(values[1:])]
    if rest.size == 0:
        return Estimate(point, None, None, confidence, "bootstrap", n)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(rest, [alpha, 1.0 - alpha])
    return Estimate(point, float(low), float(high), confidence, "bootstrap", n)


def _block_statistics(x: np.ndarray, y: np.ndarray, w: np.ndarray, categorical: tuple | None,
                      plan: KendallPlan) -> dict[str, np.ndarray]:
    """Every statistic under each row of the weights ``w``."""
    out = {
        "pearson": weighted_pearson(x, y, w),
        "spearman": weighted_pearson(weighted_ranks(x, w), weighted_ranks(y, w), w),
        "kendall_tau_b": weighted_kendall(x, y, w, plan),
    }
    if categorical is not None:
        xc, yc, k = categorical
        conf = weighted_confusion(xc, yc, k, w)
        out["accuracy"] = np.trace(conf, axis1=1, axis2=2) / conf.sum(axis=(1, 2))
        out["kappa"] = weighted_kappa(conf, "none")
        out["kappa_quadratic"] = weighted_kappa(conf, "quadratic")
        out["confusion"] = conf[:1]
    return out


def _statistics(x: np.ndarray, y: np.ndarray, clusters: np.ndarray, categorical: tuple | None,
                n_bootstrap: int, confidence: float, rng: np.random.Generator, group: Hashable) -> AgreementStats:
    """The statistics of one group with their intervals; the resamples are taken a block of rows at a time, so
    memory stays ``O(n)`` per row of a block whatever ``n_bootstrap``."""
    _, local = np.unique(clusters, return_inverse=True)
    plan = kendall_plan(x, y)
    parts: dict[str, list[np.ndarray]] = {}
    for w in _weight_blocks(local.reshape(-1), n_bootstrap, rng):
        for name, values in _block_statistics(x, y, w, categorical, plan).items():
            parts.setdefault(name, []).append(values)
    confusion = parts.pop("confusion")[0][0].astype(np.int64).tolist() if "confusion" in parts else None
    estimates = {k: _interval(np.concatenate(v), confidence, int(x.size)) for k, v in parts.items()}
    return AgreementStats(group, int(x.size), estimates, confusion)


def measure_agreement(
    scores: Sequence[float] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    *,
    kind: str = "pointwise",
    groups: Sequence[Hashable] | None = None,
    clusters: Sequence[Hashable] | None = None,
    scale: Sequence[float] | None = None,
    tie_margin: float = 0.0,
    scorer: str = "scorer",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> Agreement:
    """Agreement of ``scores`` with human ``labels`` (see the module docstring).

    Parameters
    ----------
    scores : sequence of float
        One score per labelled item: the scorer's value (pointwise) or its difference answer 2 - answer 1
        (pairwise).
    labels : sequence of float
        The human labels: a grade (pointwise) or a preference on -2..2 (pairwise; negative: answer 1 better).
    kind : {"pointwise", "pairwise"}
        The kind of the labels.
    groups : sequence, optional
        A group per item (a domain, a query type): each group gets its own statistics too.
    clusters : sequence, optional
        A cluster per item; the bootstrap resamples whole clusters (e.g. an item labelled by two people).
    scale : sequence of float, optional
        The pointwise labels' scale (default: the values the labels take); labels off it are an error.
    tie_margin : float
        Pairwise: a score difference within ``+- tie_margin`` is a tie.
    scorer : str
        The scorer's name, carried into the result.
    n_bootstrap, confidence, seed
        The percentile bootstrap's resamples, coverage and seed.

    Returns
    -------
    Agreement

    Raises
    ------
    ValueError
        Lengths that differ, fewer than 2 items, a NaN or infinite value, a pairwise label outside -2..2, a
        pointwise label off ``scale``, or an unknown kind.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be 'pointwise' or 'pairwise', got {kind!r}")
    confidence = check_confidence(confidence)
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap", minimum=0)
    seed = check_seed(seed)
    x, y = check_pair(scores, labels)
    for name, given in (("groups", groups), ("clusters", clusters)):
        if given is not None and len(given) != x.size:
            raise ValueError(f"{len(given)} {name} for {x.size} items; give one per item")
    if not (isinstance(tie_margin, (int, float)) and not isinstance(tie_margin, bool) and tie_margin >= 0):
        raise ValueError(f"tie_margin must be a number >= 0, got {tie_margin!r}")
    categories: np.ndarray | None
    xc: np.ndarray | None
    if kind == "pairwise":
        bad = np.flatnonzero((y < -2) | (y > 2))
        if bad.size:
            raise ValueError(f"labels[{bad[0]}] is {float(y[bad[0]])!r}; a pairwise preference lies in -2..2")
        categories = np.array([-1.0, 0.0, 1.0])
        xs = np.where(np.abs(x) <= tie_margin, 0.0, np.sign(x))
        xc, yc = codes(xs, categories, "scores"), codes(np.sign(y), categories, "labels")
    else:
        categories = categories_of(y, y, scale)
        yc = codes(y, categories, "labels")
        on_scale = np.isin(x, categories).all()
        xc = codes(x, categories, "scores") if on_scale else None
        if not on_scale:
            categories = None
    categorical = (xc, yc, categories.size) if categories is not None and xc is not None else None
    cluster_ids = np.unique(np.asarray(list(clusters) if clusters is not None else range(x.size), dtype=object),
                            return_inverse=True)[1].reshape(-1)
    rng = np.random.default_rng(seed)
    overall = _statistics(x, y, cluster_ids, categorical, n_bootstrap, confidence, rng, OVERALL)
    by_group: dict[Hashable, AgreementStats] = {}
    if groups is not None:
        group_list = list(groups)
        for g in dict.fromkeys(group_list):
            rows = np.array([i for i, v in enumerate(group_list) if v == g])
            if rows.size < 2:
                by_group[g] = AgreementStats(g, int(rows.size), {})
                continue
            sub = None if categorical is None else (categorical[0][rows], categorical[1][rows], categorical[2])
            by_group[g] = _statistics(x[rows], y[rows], cluster_ids[rows], sub, n_bootstrap, confidence, rng, g)
    cats = None if categories is None else [float(c) for c in categories]
    return Agreement(scorer, kind, overall, by_group, cats, confidence, n_bootstrap)
