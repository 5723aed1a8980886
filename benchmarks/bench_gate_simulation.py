"""Proof by simulation of ``rag-eval gate``'s error rates, on the per-question spread of the shipped demo.

The population: the demo's paired nDCG@10 differences between two configurations on the same questions
(default ``s256o32/bm25`` -> ``s256o32/hybrid``, 72 questions), centred on 0 (``--demo-report`` reads a demo's
``report.json``; without it the demo is run into a temporary folder, about a minute). Each simulated gate draws
``n`` questions' differences with replacement from the population, adds the true difference, and is decided by
:func:`rag_eval_adapters.gate.gate_columns` (the command's own decision):

1. **False fails**: the true difference exactly at ``-margin`` (margin 0.02), the hardest case that must not
   fail. The fail rate over ``--gates`` gates must stay at or below 5% within its binomial error, for one metric
   and for 10 metrics at once (independent draws; Holm's correction keeps the family's rate). Without Holm, ten
   metrics would fail about 40% of such gates.
2. **Power**: the simulated rate of failing drops of 0.03, 0.05 and 0.10 at 50, 200 and 1,000 questions, beside
   the analytical power that ``rag-eval gate --power`` reports (noncentral t at the population's standard
   deviation); the issue asks for agreement within 3 points.

    python benchmarks/bench_gate_simulation.py --demo-report rag_eval_report/report.json --gates 10000
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag_eval_adapters.gate import gate_columns, power_to_fail, read_report_file  # noqa: E402

MARGIN = 0.02
DROPS = (0.03, 0.05, 0.10)
SIZES = (50, 200, 1000)


def demo_differences(report: Path, baseline: str, candidate: str) -> np.ndarray:
    """The demo's paired nDCG@10 differences (candidate - baseline), centred on 0."""
    base = read_report_file(report, baseline)["ndcg@10"]
    cand = read_report_file(report, candidate)["ndcg@10"]
    d = np.array([cand[q] - base[q] for q in base if q in cand])
    return d - d.mean()


def run_demo() -> Path:
    """Run ``rag-eval demo`` into a temporary folder; its ``report.json``."""
    folder = Path(tempfile.mkdtemp(prefix="gate-demo-"))
    subprocess.run([sys.executable, "-m", "rag_eval_adapters.cli", "demo", "--output", str(folder)],
                   check=True, capture_output=True, cwd=ROOT)
    return folder / "report.json"


def fail_rate(draw, n: int, true_difference: float, metrics: int, gates: int) -> float:
    """The share of ``gates`` simulated gates that fail (``metrics`` independent metrics, one margin); ``draw(shape)``
    gives centred differences."""
    margins = {f"m{j}": MARGIN for j in range(metrics)}
    base = {f"m{j}": dict.fromkeys(range(n), 0.0) for j in range(metrics)}
    fails = 0
    for _ in range(gates):
        draws = draw((metrics, n)) + true_difference
        cand = {f"m{j}": dict(enumerate(draws[j].tolist())) for j in range(metrics)}
        fails += gate_columns(base, cand, margins).outcome == "fail"
    return fails / gates


def _false_fails(draws: dict, gates: int) -> None:
    se = math.sqrt(0.05 * 0.95 / gates)
    print(f"\nfalse fails (true difference = -margin = -{MARGIN}; {gates} gates a cell; 5% + 2 binomial SE = "
          f"{100 * (0.05 + 2 * se):.2f}%):\n| differences | metrics | questions | fail rate |\n| --- | ---: | ---: | ---: |")
    for label, draw in draws.items():
        for metrics, n in ((1, 72), (1, 200), (1, 1000), (10, 72), (10, 200)):
            rate = fail_rate(draw, n, -MARGIN, metrics, gates)
            print(f"| {label} | {metrics} | {n} | {100 * rate:.2f}% |", flush=True)


def _power(draws: dict, sd: float, gates: int) -> float:
    print(f"\npower to fail a drop (margin {MARGIN}, one metric; analytical: rag-eval gate --power at sd {sd:.4f}):\n"
          "| differences | drop | questions | simulated | analytical | gap (points) |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for label, draw in draws.items():
        for drop in DROPS:
            for n in SIZES:
                simulated = fail_rate(draw, n, -drop, 1, gates)
                analytical = power_to_fail(sd, n, drop, MARGIN, 0.05)
                worst = max(worst, abs(simulated - analytical))
                print(f"| {label} | {drop:.2f} | {n} | {100 * simulated:.1f}% | {100 * analytical:.1f}% | "
                      f"{100 * (simulated - analytical):+.1f} |", flush=True)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo-report", type=Path, help="report.json of rag-eval demo (default: run the demo)")
    parser.add_argument("--pair", action="append", metavar="BASELINE,CANDIDATE",
                        help="demo configurations whose differences are resampled (repeatable; default "
                             "s256o32/hybrid,s96o16/hybrid and s256o32/bm25,s256o32/hybrid)")
    parser.add_argument("--gates", type=int, default=10_000, help="simulated gates per cell (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = args.demo_report or run_demo()
    pairs = [p.split(",") for p in args.pair or ["s256o32/hybrid,s96o16/hybrid", "s256o32/bm25,s256o32/hybrid"]]
    rng = np.random.default_rng(args.seed)
    populations = {f"{a} -> {b}": demo_differences(report, a, b) for a, b in pairs}
    first = next(iter(populations.values()))
    sd = float(first.std())  # the spread of a draw with replacement (ddof 0)
    for label, pop in populations.items():
        skew = float(np.mean(pop ** 3) / pop.std() ** 3)
        tied = float(np.mean(np.isclose(pop, np.median(pop))))
        print(f"{label}: {pop.size} questions, sd {pop.std():.4f}, skewness {skew:+.2f}, {tied:.0%} unchanged")
    draws = {f"normal, sd {sd:.3f}": lambda shape: rng.normal(0.0, sd, size=shape)}
    draws.update({f"demo {label}": (lambda shape, p=pop: rng.choice(p, size=shape))
                  for label, pop in populations.items()})
    start = time.perf_counter()
    _false_fails(draws, args.gates)
    power_draws = {k: v for k, v in list(draws.items())[:2]}
    worst = _power(power_draws, sd, args.gates)
    print(f"\nlargest gap between simulated and analytical power: {100 * worst:.1f} points "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
