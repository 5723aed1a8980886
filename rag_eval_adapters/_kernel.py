"""Columnar sufficient statistics for ranking metrics, and every metric computed from them.

A :class:`Judged` batch holds, for many queries at once, only what the metrics need:

* ``n_ret[q]``  number of distinct retrieved documents of query ``q``;
* ``n_rel[q]``  number of judged documents with grade >= the relevance level;
* one row per *retrieved and judged* document (``hit_q``, ``hit_rank``, ``hit_grade``), sorted by
  query then rank (ranks are 1-based);
* one row per *judged document with a positive grade*, in ideal order (``ideal_q``, ``ideal_pos``,
  ``ideal_grade``), for the ideal DCG.

Every metric is a whole-array computation over these columns, so one query and a million queries go
through the same code. The per-query functions in :mod:`rag_eval_adapters.metrics` and the batch
:func:`rag_eval_adapters.evaluate` are both thin layers over this module.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

__all__ = ["Judged", "GAINS"]

GAINS = ("linear", "exponential")


@dataclass(frozen=True, eq=False)
class Judged:
    """Per-query statistics of a batch of rankings against judgments (see the module docstring)."""

    n_ret: np.ndarray
    n_rel: np.ndarray
    hit_q: np.ndarray
    hit_rank: np.ndarray
    hit_grade: np.ndarray
    ideal_q: np.ndarray
    ideal_pos: np.ndarray
    ideal_grade: np.ndarray
    relevance_level: float = 1.0

    @property
    def n_queries(self) -> int:
        return int(self.n_ret.shape[0])

    def __repr__(self) -> str:
        return (
            f"Judged(queries={self.n_queries}, judged_hits={self.hit_q.shape[0]}, "
            f"relevance_level={self.relevance_level!r})"
        )

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_rankings(
        cls,
        rankings: Sequence[Sequence[Hashable]],
        judgments: Sequence[Mapping[Hashable, float]],
        relevance_level: float = 1.0,
    ) -> Judged:
        """Build the statistics from de-duplicated rankings and their judgments, query by query."""
        n = len(rankings)
        n_ret = np.empty(n, dtype=np.int64)
        n_rel = np.empty(n, dtype=np.int64)
        hit_q: list[int] = []
        hit_rank: list[int] = []
        hit_grade: list[float] = []
        ideal_q: list[int] = []
        ideal_pos: list[int] = []
        ideal_grade: list[float] = []
        for qi, (ranking, judged) in enumerate(zip(rankings, judgments, strict=False)):
            n_ret[qi] = len(ranking)
            n_rel[qi] = sum(1 for g in judged.values() if g >= relevance_level)
            if len(judged) <= len(ranking):
                position = {doc: r for r, doc in enumerate(ranking, 1)}
                found = sorted((position[d], g) for d, g in judged.items() if d in position)
            else:
                found = [(r, judged[d]) for r, d in enumerate(ranking, 1) if d in judged]
            for r, g in found:
                hit_q.append(qi)
                hit_rank.append(r)
                hit_grade.append(g)
            positive = sorted((g for g in judged.values() if g > 0), reverse=True)
            ideal_q.extend([qi] * len(positive))
            ideal_pos.extend(range(1, len(positive) + 1))
            ideal_grade.extend(positive)
        return cls(
            n_ret=n_ret,
            n_rel=n_rel,
            hit_q=np.asarray(hit_q, dtype=np.int64),
            hit_rank=np.asarray(hit_rank, dtype=np.int64),
            hit_grade=np.asarray(hit_grade, dtype=np.float64),
            ideal_q=np.asarray(ideal_q, dtype=np.int64),
            ideal_pos=np.asarray(ideal_pos, dtype=np.int64),
            ideal_grade=np.asarray(ideal_grade, dtype=np.float64),
            relevance_level=float(relevance_level),
        )

    @classmethod
    def from_grades(cls, grades: Sequence[float]) -> Judged:
        """One query whose retrieved documents carry ``grades`` in rank order; its ideal is the same list sorted."""
        g = np.asarray(grades, dtype=np.float64)
        positive = np.sort(g[g > 0])[::-1]
        return cls(
            n_ret=np.array([g.shape[0]], dtype=np.int64),
            n_rel=np.array([int(np.count_nonzero(g >= 1))], dtype=np.int64),
            hit_q=np.zeros(g.shape[0], dtype=np.int64),
            hit_rank=np.arange(1, g.shape[0] + 1, dtype=np.int64),
            hit_grade=g,
            ideal_q=np.zeros(positive.shape[0], dtype=np.int64),
            ideal_pos=np.arange(1, positive.shape[0] + 1, dtype=np.int64),
            ideal_grade=positive,
        )

    def at_level(self, level: float) -> Judged:
        """The same statistics with relevance level ``level`` (> 0, or the level they were built with)."""
        if level == self.relevance_level:
            return self
        if not level > 0:
            raise ValueError(
                f"a metric's own relevance level must be above 0, got {level!r}; pass relevance_level={level!r} "
                "to the evaluation instead"
            )
        n_rel = np.bincount(self.ideal_q[self.ideal_grade >= level], minlength=self.n_queries).astype(np.int64)
        return replace(self, n_rel=n_rel, relevance_level=float(level))

    # ------------------------------------------------------------------ building blocks
    def _relevant(self, k: int | None) -> np.ndarray:
        """Mask of hit rows that are relevant and ranked within ``k``."""
        mask = self.hit_grade >= self.relevance_level
        if k is not None:
            mask &= self.hit_rank <= k
        return mask

    def _count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(self.hit_q[mask], weights=weights, minlength=self.n_queries).astype(np.float64)

    # ------------------------------------------------------------------ metrics (one value per query)
    def relevant_retrieved(self, k: int | None = None) -> np.ndarray:
        """Number of relevant documents ranked within ``k``."""
        return self._count(self._relevant(k))

    def hit_rate(self, k: int | None = None, granular: bool = False) -> np.ndarray:
        """1 if a relevant document is ranked within ``k``, else 0; granular: found / relevant."""
        found = self.relevant_retrieved(k)
        if granular:
            return _divide(found, self.n_rel)
        return (found > 0).astype(np.float64)

    def mrr(self, k: int | None = None, granular: bool = False) -> np.ndarray:
        """1/rank of the first relevant document within ``k``; granular: mean of 1/rank over the relevant found."""
        mask = self._relevant(k)
        q = self.hit_q[mask]
        inverse = 1.0 / self.hit_rank[mask]
        if granular:
            return _divide(
                np.bincount(q, weights=inverse, minlength=self.n_queries),
                np.bincount(q, minlength=self.n_queries),
            )
        out = np.zeros(self.n_queries, dtype=np.float64)
        if q.shape[0]:
            first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
            out[q[first]] = inverse[first]
        return out

    def precision(self, k: int | None = None) -> np.ndarray:
        """Relevant documents within ``k`` divided by ``k`` (by the number retrieved when ``k`` is None)."""
        found = self.relevant_retrieved(k)
        if k is not None:
            return found / float(k)
        return _divide(found, self.n_ret)

    def judged(self, k: int | None = None) -> np.ndarray:
        """Judged documents (any grade) within ``k`` divided by the documents ranked within ``k`` (``min(k, n_ret)``;
        all retrieved when ``k`` is None; 0 when none was): how complete the judgments of the top of the ranking
        are (ir_measures' ``Judged@k``, which divides so too)."""
        found = self._count(self.hit_rank <= k if k is not None else np.ones(self.hit_q.shape[0], dtype=bool))
        return _divide(found, np.minimum(self.n_ret, k) if k is not None else self.n_ret)

    def recall(self, k: int | None = None) -> np.ndarray:
        """Relevant documents within ``k`` divided by the number of relevant documents."""
        return _divide(self.relevant_retrieved(k), self.n_rel)

    def f1(self, k: int | None = None) -> np.ndarray:
        """Harmonic mean of precision and recall at ``k``; 0 when both are 0."""
        p, r = self.precision(k), self.recall(k)
        return _divide(2.0 * p * r, p + r)

    def average_precision(self, k: int | None = None) -> np.ndarray:
        """Sum of precision at each relevant rank within ``k``, divided by the number of relevant documents."""
        mask = self._relevant(k)
        q = self.hit_q[mask]
        ranks = self.hit_rank[mask]
        if not q.shape[0]:
            return np.zeros(self.n_queries, dtype=np.float64)
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        group = np.cumsum(np.r_[True, q[1:] != q[:-1]]) - 1
        seen = np.arange(q.shape[0]) - starts[group] + 1
        total = np.bincount(q, weights=seen / ranks, minlength=self.n_queries)
        return _divide(total, self.n_rel)

    def r_precision(self) -> np.ndarray:
        """Relevant documents within the top R divided by R, R being the number of relevant documents."""
        mask = (self.hit_grade >= self.relevance_level) & (self.hit_rank <= self.n_rel[self.hit_q])
        return _divide(self._count(mask), self.n_rel)

    def dcg(self, k: int | None = None, gain: str = "linear") -> np.ndarray:
        """Sum of gain(grade) / log2(rank + 1) over the retrieved documents within ``k``."""
        return self._dcg(k, gain, None)

    def idcg(self, k: int | None = None, gain: str = "linear") -> np.ndarray:
        """The DCG of the judged grades in ideal (descending) order, cut at ``k``."""
        return self._idcg(k, gain, None)

    def ndcg(self, k: int | None = None, gain: str = "linear") -> np.ndarray:
        """dcg / idcg at ``k``; 0 when the ideal DCG is 0.

        A query whose DCG or ideal DCG overflows float64 (grades near 1.8e308, or >= 1024 with exponential
        gain) is computed again with every gain divided by one constant of the query (its largest grade, or 2 to
        that power), which leaves the ratio unchanged, so nDCG is finite and in [0, 1] for every finite grade.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            num, den = self._dcg(k, gain, None), self._idcg(k, gain, None)
            out = _divide(num, den)
            wide = ~(np.isfinite(num) & np.isfinite(den))
            if wide.any():
                top = np.zeros(self.n_queries, dtype=np.float64)
                np.maximum.at(top, self.ideal_q, self.ideal_grade)
                out[wide] = _divide(self._dcg(k, gain, top), self._idcg(k, gain, top))[wide]
        return out

    def _dcg(self, k: int | None, gain: str, top: np.ndarray | None) -> np.ndarray:
        mask = self.hit_grade > 0
        if k is not None:
            mask &= self.hit_rank <= k
        q = self.hit_q[mask]
        values = _gain(self.hit_grade[mask], gain, None if top is None else top[q])
        return np.bincount(q, weights=values / np.log2(self.hit_rank[mask] + 1.0), minlength=self.n_queries)

    def _idcg(self, k: int | None, gain: str, top: np.ndarray | None) -> np.ndarray:
        mask = np.ones(self.ideal_q.shape[0], dtype=bool) if k is None else self.ideal_pos <= k
        q = self.ideal_q[mask]
        values = _gain(self.ideal_grade[mask], gain, None if top is None else top[q])
        return np.bincount(q, weights=values / np.log2(self.ideal_pos[mask] + 1.0), minlength=self.n_queries)


def _gain(grades: np.ndarray, gain: str, top: np.ndarray | None = None) -> np.ndarray:
    """gain(grade), divided by gain(top) (each row's own ``top > 0``) when ``top`` is given."""
    grades = np.maximum(grades, 0.0)
    if gain == "linear":
        return grades if top is None else grades / top
    if gain == "exponential":
        with np.errstate(over="ignore"):
            if top is None:
                return np.exp2(grades) - 1.0
            return np.exp2(grades - top) - np.exp2(-top)  # (2**g - 1) / 2**top
    raise ValueError(f"gain must be one of {GAINS}, got {gain!r}")


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, with 0 where den is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out
