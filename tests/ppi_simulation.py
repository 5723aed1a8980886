"""Seeded simulations of judges against human labels, for the coverage of the PPI++ intervals.

Each item has a latent quality ``q`` and an answer length ``L`` (both standard normal). The human label is
``Y ~ Bernoulli(sigmoid(q + 1))`` (a rate near 0.7) (``labels="binary"``) or a 0..1 grade in quarters (``labels="graded"``), so the
target, ``E[Y]``, is known from a large reference draw. The judges:

* ``biased``: tracks quality but reads 0.15 too high (``sigmoid(q) + 0.15 + noise``, clipped to [0, 1]);
* ``length``: confounded with answer length (``sigmoid(0.4 q + 1.5 L)``: long answers score high);
* ``anti``: anti-correlated (``1 - sigmoid(q)``);
* ``perfect``: the human label itself;
* ``useless``: uniform noise, independent of everything.

Used by ``tests/test_ppi.py`` (a few hundred replications) and ``benchmarks/bench_ppi_coverage.py`` (more).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag_eval_adapters.ppi import ppi_mean

JUDGES = ("biased", "length", "anti", "perfect", "useless")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _labels(q: np.ndarray, rng: np.random.Generator, labels: str) -> np.ndarray:
    if labels == "binary":  # a base rate near 0.7, like a faithfulness rate
        return (rng.uniform(size=q.size) < _sigmoid(q + 1.0)).astype(np.float64)
    return np.clip(np.round((_sigmoid(q) + rng.normal(0.0, 0.2, q.size)) * 4.0) / 4.0, 0.0, 1.0)


def true_mean(labels: str, size: int = 2_000_000, seed: int = 12345) -> float:
    """``E[Y]`` from one large draw (its Monte Carlo error is below 0.0004)."""
    rng = np.random.default_rng(seed)
    return float(_labels(rng.normal(size=size), rng, labels).mean())


def draw(judge: str, size: int, rng: np.random.Generator, labels: str = "binary") -> tuple[np.ndarray, np.ndarray]:
    """``(Y, f)`` for ``size`` items: human labels and the judge's scores."""
    q, length = rng.normal(size=size), rng.normal(size=size)
    y = _labels(q, rng, labels)
    if judge == "biased":
        f = np.clip(_sigmoid(q) + 0.15 + rng.normal(0.0, 0.1, size), 0.0, 1.0)
    elif judge == "length":
        f = _sigmoid(0.4 * q + 1.5 * length)
    elif judge == "anti":
        f = 1.0 - _sigmoid(q)
    elif judge == "perfect":
        f = y.copy()
    elif judge == "useless":
        f = rng.uniform(size=size)
    else:
        raise ValueError(f"unknown judge {judge!r}")
    return y, f


@dataclass
class Coverage:
    judge: str
    labels: str
    n: int
    big_n: int
    reps: int
    covered: int
    classical_covered: int
    mean_width_ratio: float
    max_width_ratio: float
    mean_lambda: float

    @property
    def coverage(self) -> float:
        return self.covered / self.reps

    @property
    def classical_coverage(self) -> float:
        return self.classical_covered / self.reps

    @property
    def mc_error(self) -> float:
        """One Monte Carlo standard error of a 95% coverage over ``reps`` replications."""
        return float(np.sqrt(0.95 * 0.05 / self.reps))


def coverage(judge: str, n: int, big_n: int, reps: int, *, labels: str = "binary", seed: int = 0,
             truth: float | None = None) -> Coverage:
    """How often the 95% PPI++ interval from ``n`` labels and ``big_n`` judge-only items covers ``E[Y]``."""
    rng = np.random.default_rng(seed)
    target = true_mean(labels) if truth is None else truth
    covered = classical = 0
    ratios, lams = [], []
    for _ in range(reps):
        y, f = draw(judge, n + big_n, rng, labels)
        r = ppi_mean(y[:n], f[:n], f[n:])
        covered += r.low <= target <= r.high
        classical += r.classical_low <= target <= r.classical_high
        ratios.append(r.width / r.classical_width if r.classical_width > 0 else 1.0)
        lams.append(r.lam)
    return Coverage(judge, labels, n, big_n, reps, covered, classical, float(np.mean(ratios)),
                    float(np.max(ratios)), float(np.mean(lams)))
