"""Benchmark: the paired tests of ``compare`` against evaluating the two runs they compare.

Workload (seeded): ``--queries`` queries of the ``bench_evaluate.py`` collection (100 retrieved documents,
10 judged), run A as generated and run B with every score perturbed, scored with 35 metrics (seven families x
cutoffs 1, 3, 5, 10, 100). The tests are those of ``rag-eval compare``'s defaults: paired t-test, sequential
randomization test with at most ``--permutations`` sign vectors (Besag and Clifford's rule, h = 200) and a
percentile bootstrap of at most ``--bootstrap`` resamples, stopped once each bound is within 0.001. Most
metrics of this workload barely differ between A and B, so they stop early.

Ratios, each from medians of ``--repeats`` interleaved rounds in this one run (imports and all code paths
warmed up first), with the machine's load average before and after:

* API (issue 25's goal: at most 2x): ``compare_reports`` over ``evaluate(A) + evaluate(B)`` (the same Python
  dicts in); and ``compare_reports`` with every draw made (``exceedances=None, ci_tolerance=None``, the rule
  before issue 25) over the same;
* API (issue 15's goal: at most 2x): ``evaluate(A) + evaluate(B) + compare_reports`` over the two evaluations;
* CLI: ``rag-eval compare --qrels Q --run A --run B`` over ``rag-eval evaluate`` of A plus of B (TREC files,
  in-process, output to a buffer).

And the floor of the tests with every draw made, in plain numpy, timed in the same rounds: the random
numbers (``n`` uniform draws per bootstrap resample, ``n`` random bits per sign vector), the ``bincount`` of
the draws and the two single-precision products (sign vectors and resample counts, each ``rows x n`` times
``n x metrics``). It leaves out turning bits and counts into floats, the exact recounts and the quantiles, so
it is a lower bound of any implementation of the fixed-count tests on numpy (the sequential tests go below it).

    python benchmarks/bench_compare.py --queries 5000
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import make_workload  # noqa: E402

FAMILIES = ("ndcg", "ap", "mrr", "recall", "precision", "hit_rate", "f1")
CUTOFFS = (1, 3, 5, 10, 100)
METRICS = [f"{f}@{k}" for f in FAMILIES for k in CUTOFFS]


def perturbed(run, seed: int):
    rng = np.random.default_rng(seed)
    out = {}
    for q, scored in run.items():
        noise = rng.normal(0, 3, len(scored)).round(3).tolist()
        out[q] = {d: s + e for (d, s), e in zip(scored.items(), noise, strict=False)}
    return out


def write_run(path: Path, run) -> None:
    with open(path, "w") as fh:
        for q, scored in run.items():
            fh.writelines(f"{q} Q0 {d} 0 {s!r} bench\n" for d, s in scored.items())


def write_qrels(path: Path, qrels) -> None:
    with open(path, "w") as fh:
        for q, judged in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in judged.items())


def numpy_floor(n: int, m: int, n_permutations: int, n_bootstrap: int) -> dict[str, float]:
    """Seconds of the irreducible numpy work of the tests: random numbers, their counts, two products."""
    rng = np.random.default_rng(0)
    rows = max(1, min(n_bootstrap, (1 << 16) // n))  # draws counted per bincount call, as in compare
    start = time.perf_counter()
    for done in range(0, n_bootstrap, rows):
        rng.integers(0, n, size=min(rows, n_bootstrap - done) * n, dtype=np.int64)
    rng.bytes(n_permutations * ((n + 7) // 8))
    draws = time.perf_counter() - start
    flat = rng.integers(0, n, size=(rows, n), dtype=np.int64) + (np.arange(rows, dtype=np.int64) * n)[:, None]
    start = time.perf_counter()
    for done in range(0, n_bootstrap, rows):
        r = min(rows, n_bootstrap - done)
        np.bincount(flat[:r].ravel(), minlength=r * n)
    counts = time.perf_counter() - start
    block = max(1, min(max(n_permutations, n_bootstrap), (1 << 23) // n))
    left = np.ones((block, n), dtype=np.float32)
    right = rng.random((n, m), dtype=np.float32)
    start = time.perf_counter()
    for total in (n_permutations, n_bootstrap):
        for done in range(0, total, block):
            left[: min(block, total - done)] @ right
    products = time.perf_counter() - start
    return {"floor: draws": draws, "floor: counts": counts, "floor: 2 products": products,
            "floor": draws + counts + products}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5_000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--bootstrap", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-cli", dest="cli", action="store_false", help="skip the file-based CLI timing")
    args = parser.parse_args(argv)

    from rag_eval_adapters import evaluate
    from rag_eval_adapters.cli import main as rag_eval
    from rag_eval_adapters.compare import compare_reports

    qrels, run_a, _ = make_workload(args.queries)
    run_b = perturbed(run_a, 1)
    print(f"{args.queries:,} queries x {len(METRICS)} metrics, {args.permutations:,} permutations, "
          f"{args.bootstrap:,} bootstrap resamples; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
          "(shared machine: other jobs run alongside, compare the ratios)")
    warm = {"A": evaluate(qrels, run_a, METRICS), "B": evaluate(qrels, run_b, METRICS)}  # warm-up
    compare_reports(warm, n_permutations=100, n_bootstrap=100)
    tmp = Path(tempfile.mkdtemp())
    files = {"q": tmp / "bench.qrels", "a": tmp / "a.run", "b": tmp / "b.run"}
    write_qrels(files["q"], qrels)
    write_run(files["a"], run_a)
    write_run(files["b"], run_b)
    common = ["--qrels", str(files["q"]), "-m", ",".join(METRICS), "--format", "json"]
    times = {"evaluate both": [], "compare_reports": [], "compare_reports, every draw": [],
             "cli evaluate both": [], "cli compare": [],
             "floor: draws": [], "floor: counts": [], "floor: 2 products": [], "floor": []}
    os.environ.setdefault("TQDM_DISABLE", "1")
    for _ in range(args.repeats):
        start = time.perf_counter()
        reports = {"A": evaluate(qrels, run_a, METRICS), "B": evaluate(qrels, run_b, METRICS)}
        times["evaluate both"].append(time.perf_counter() - start)
        start = time.perf_counter()
        compare_reports(reports, n_permutations=args.permutations, n_bootstrap=args.bootstrap)
        times["compare_reports"].append(time.perf_counter() - start)
        start = time.perf_counter()
        compare_reports(reports, n_permutations=args.permutations, n_bootstrap=args.bootstrap,
                        exceedances=None, ci_tolerance=None)
        times["compare_reports, every draw"].append(time.perf_counter() - start)
        for key, seconds in numpy_floor(args.queries, len(METRICS), args.permutations, args.bootstrap).items():
            times[key].append(seconds)
        if args.cli:
            start = time.perf_counter()
            for key in ("a", "b"):
                assert rag_eval(["evaluate", "--run", str(files[key])] + common,
                                stdout=io.StringIO(), stderr=io.StringIO()) == 0
            times["cli evaluate both"].append(time.perf_counter() - start)
            start = time.perf_counter()
            assert rag_eval(["compare", "--run", str(files["a"]), "--run", str(files["b"]),
                             "--permutations", str(args.permutations), "--bootstrap", str(args.bootstrap)]
                            + common, stdout=io.StringIO(), stderr=io.StringIO()) == 0
            times["cli compare"].append(time.perf_counter() - start)
    print(f"load average after the rounds: {os.getloadavg()[0]:.2f}")
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print("\n| step | median s |\n|---|---:|")
    for k, v in med.items():
        print(f"| {k} | {v:.3f} |")
    both = med["evaluate both"]
    print(f"\ngoal of issue 25 (<= 2x): compare_reports = {med['compare_reports'] / both:.2f}x evaluate both "
          f"(every draw made: {med['compare_reports, every draw'] / both:.2f}x)")
    print(f"goal of issue 15 (<= 2x): API evaluate both + compare_reports = "
          f"{(both + med['compare_reports']) / both:.2f}x evaluate both")
    print(f"floor: evaluate both + numpy floor of every draw = {(both + med['floor']) / both:.2f}x evaluate both; "
          f"compare_reports = {med['compare_reports'] / med['floor']:.2f}x the numpy floor")
    if args.cli:
        print(f"goal (<= 2x): rag-eval compare = {med['cli compare'] / med['cli evaluate both']:.2f}x "
              "rag-eval evaluate of both runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
