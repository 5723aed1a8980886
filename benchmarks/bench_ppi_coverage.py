"""Simulated coverage of the PPI++ intervals: five judges, binary and graded human labels, 50 to 200 labels.

Each cell draws ``--reps`` seeded replications of ``n`` human-labelled items and ``--unlabelled`` items scored by
the judge alone (``tests/ppi_simulation.py`` describes the judges and labels), builds the 95% interval of
:func:`rag_eval_adapters.ppi.ppi_mean` and counts how often it covers the true mean ``E[Y]``. Beside it: the
human-only interval's coverage on the same draws, the mean width of the PPI interval relative to the human-only
one, its largest ratio, the mean tuned lambda, and (``--pooled``) the coverage with lambda's ``Var(f)`` taken
over all items as the PPI++ reference implementation does.

One Monte Carlo standard error of a 95% coverage is ``sqrt(0.95 * 0.05 / reps)``: 0.49 points at 2000.

    python benchmarks/bench_ppi_coverage.py --reps 2000 --pooled
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from ppi_simulation import JUDGES, coverage, draw, true_mean  # noqa: E402

from rag_eval_adapters.ppi import ppi_mean  # noqa: E402


def pooled_coverage(judge: str, n: int, big_n: int, reps: int, labels: str, seed: int, truth: float) -> float:
    """Coverage with lambda = Cov(Y, f) / ((1 + n/N) Var(f over all n + N items)), clipped to [0, 1]."""
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(reps):
        y, f = draw(judge, n + big_n, rng, labels)
        cov = float(np.mean((y[:n] - y[:n].mean()) * (f[:n] - f[:n].mean())))
        var = float(np.var(f, ddof=1))
        lam = 0.0 if var <= 0 else min(1.0, max(0.0, cov / ((1 + n / big_n) * var)))
        r = ppi_mean(y[:n], f[:n], f[n:], lam=lam)
        covered += r.low <= truth <= r.high
    return covered / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--unlabelled", type=int, default=1000)
    parser.add_argument("--labelled", default="50,100,200")
    parser.add_argument("--pooled", action="store_true", help="also the coverage with the pooled Var(f)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.labelled.split(",")]
    start = time.perf_counter()
    header = "| labels | judge | n | PPI++ coverage | human-only coverage | width / human-only (mean, max) | mean lambda |"
    if args.pooled:
        header += " pooled-Var(f) coverage |"
    print(f"{args.reps} replications a cell, N = {args.unlabelled} judge-only items, nominal 95%; "
          f"one Monte Carlo s.e. = {100 * np.sqrt(0.95 * 0.05 / args.reps):.2f} points\n")
    print(header)
    print("|" + "|".join("---" for _ in header.split("|")[1:-1]) + "|")
    for labels in ("binary", "graded"):
        truth = true_mean(labels)
        for i, judge in enumerate(JUDGES):
            for n in sizes:
                seed = 1000 * i + n
                c = coverage(judge, n, args.unlabelled, args.reps, labels=labels, seed=seed, truth=truth)
                row = (f"| {labels} | {judge} | {n} | {100 * c.coverage:.1f} | {100 * c.classical_coverage:.1f} | "
                       f"{c.mean_width_ratio:.3f}, {c.max_width_ratio:.3f} | {c.mean_lambda:.2f} |")
                if args.pooled:
                    row += f" {100 * pooled_coverage(judge, n, args.unlabelled, args.reps, labels, seed, truth):.1f} |"
                print(row, flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
