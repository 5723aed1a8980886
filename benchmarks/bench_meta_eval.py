"""meta-eval at scale: 100,000 judgments, 1,000 bootstrap resamples, every agreement statistic.

Before Knight's algorithm, Kendall's tau-b compared every pair of items for every resample (and Spearman's ranks
did too): 20,000 judgments had not finished after 420 s. Now each resample costs ``O(n log n)`` (``O(n)`` a
label value when the labels are grades), and the resamples are taken a block at a time in ``O(n)`` memory each.

    python benchmarks/bench_meta_eval.py                      # 100,000 judgments, 1,000 resamples
    python benchmarks/bench_meta_eval.py --n 20000 --kind pairwise

Prints the wall and CPU time of :func:`rag_eval_adapters.agreement.meta_evaluate_scores` on seeded synthetic
judgments: a continuous scorer against human grades 1..5 (pointwise) or preferences on -2..2 (pairwise), and,
with ``--continuous``, against continuous labels (the merge-sort path of tau-b).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag_eval_adapters.agreement import meta_evaluate_scores  # noqa: E402


def judgments(n: int, kind: str, continuous: bool, seed: int = 0) -> tuple[dict, dict]:
    """``({item: {"scorer": value}}, {item: {"label": value}})``: labels that follow the scorer with noise."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    score = truth + rng.normal(scale=0.8, size=n)
    if continuous:
        label = truth + rng.normal(scale=0.5, size=n)
    elif kind == "pairwise":
        label = np.clip(np.round(truth * 1.2), -2, 2)
    else:
        label = np.clip(np.round(truth + 3), 1, 5)
    return ({f"q{i}": {"scorer": float(s)} for i, s in enumerate(score)},
            {f"q{i}": {"label": float(v)} for i, v in enumerate(label)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="judgments (default 100,000)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples (default 1,000)")
    parser.add_argument("--kind", choices=("pointwise", "pairwise"), default="pointwise")
    parser.add_argument("--continuous", action="store_true", help="continuous labels (tau-b by merge sort)")
    args = parser.parse_args()
    scores, labels = judgments(args.n, args.kind, args.continuous)
    wall, cpu = time.perf_counter(), time.process_time()
    result = meta_evaluate_scores(scores, labels, kind=args.kind, n_bootstrap=args.bootstrap, seed=0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    agreement = result.results["scorer"]["label"]
    shown = ", ".join(f"{k} {e.format(4)}" for k, e in agreement.overall.estimates.items())
    print(f"{args.n:,} judgments ({args.kind}{', continuous labels' if args.continuous else ''}), "
          f"{args.bootstrap:,} resamples: {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(shown)


if __name__ == "__main__":
    main()
