"""Benchmark: the paired tests of ``compare`` against evaluating the two runs they compare.

Workload (seeded): ``--queries`` queries of the ``bench_evaluate.py`` collection (100 retrieved documents,
10 judged), run A as generated and run B with every score perturbed, scored with 35 metrics (seven families x
cutoffs 1, 3, 5, 10, 100). The tests are those of ``rag-eval compare``'s defaults: paired t-test, randomization
test with at most ``--permutations`` sign vectors (a metric that Hoeffding's bound puts below 0.01 / N draws
none; the others stop by Besag and Clifford's rule, h = 200) and a percentile bootstrap of at most
``--bootstrap`` resamples, stopped once each bound is within 0.001. Most metrics of this workload barely differ
between A and B, so they stop early. A second comparison, A against run C (A with judged relevant documents
moved up), has clear differences on most metrics: they are settled by the bound.

Ratios, each from medians of ``--repeats`` interleaved rounds in this one run (imports and all code paths
warmed up first), with the machine's load average before and after, in wall and CPU seconds:

* API (issue 25's goal: at most 2x, from Python objects): ``evaluate(A) + evaluate(B) + compare_reports`` over
  ``evaluate(A) + evaluate(B)`` (the same Python dicts in); the same with every draw made
  (``exceedances=None, ci_tolerance=None``, the rule before issue 25) and for A against C;
* CLI: ``rag-eval compare --qrels Q --run A --run B`` over ``rag-eval evaluate`` of A plus of B (TREC files,
  in-process, output to a buffer).

Where the time goes: a cProfile of one ``compare_reports`` call per round, split into the permutations, the
bootstrap, the means, the t-tests, the correction and the rest (assembly). The draws each comparison made:
how many metrics were settled by the bound, by ``h`` exceedances or at the cap, and the sign vectors and
resamples per metric.

And the floor of the tests with every draw made, in plain numpy, timed in the same rounds: the random
numbers (``n`` uniform draws per bootstrap resample, ``n`` random bits per sign vector), the ``bincount`` of
the draws and the two single-precision products (sign vectors and resample counts, each ``rows x n`` times
``n x metrics``). It leaves out turning bits and counts into floats, the exact recounts and the quantiles, so
it is a lower bound of any implementation of the fixed-count tests on numpy (the sequential tests go below it).

    python benchmarks/bench_compare.py --queries 5000 --repeats 5
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


def boosted(run, qrels, seed: int):
    """Run A with each judged relevant document it retrieved moved up by 15 (scores have sd 10) with
    probability one half: a clear improvement of most metrics."""
    rng = np.random.default_rng(seed)
    out = {}
    for q, scored in run.items():
        relevant = [d for d, g in qrels[q].items() if g > 0 and d in scored]
        lift = dict(zip(relevant, (rng.random(len(relevant)) < 0.5) * 15.0, strict=True))
        out[q] = {d: s + lift.get(d, 0.0) for d, s in scored.items()}
    return out


PARTS = {"permutations": "randomization_p_values", "bootstrap": "sequential_bootstrap", "means": "column_means",
         "t-tests": "_t_tests", "correction": "adjust_p_values"}


def where_the_time_goes(compare_reports, reports, args) -> dict[str, float]:
    """Seconds of each part of one ``compare_reports`` call: cProfile's cumulative time of the function doing
    it; "assembly" is the rest (aligning the queries, the differences, building the results)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.runcall(compare_reports, reports, n_permutations=args.permutations, n_bootstrap=args.bootstrap)
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats  # (file, line, name) -> (calls, primitive, tottime, cumtime, callers)
    out = {}
    for part, name in PARTS.items():  # the calls of `name` that no other timed part made
        out[part] = sum(cum for (_, _, fn), (_, _, _, cum, callers) in stats.items() if fn == name
                        for (_, _, caller), (_, _, _, c) in callers.items() if caller not in PARTS.values()
                        for cum in [c])
    out["assembly and the rest"] = max(0.0, total - sum(out.values()))
    out["compare_reports (profiled)"] = total
    return out


def draws_line(comparison) -> str:
    """How the randomization p-values were reached and the draws the metrics made."""
    tests = comparison.tests
    rules = {r: sum(t.p_value_rule == r for t in tests) for r in ("bound", "exceedances", "cap")}
    return (f"{len(tests)} tests: {rules['bound']} by Hoeffding's bound, {rules['exceedances']} by h exceedances, "
            f"{rules['cap']} at the cap; sign vectors per test median "
            f"{statistics.median(t.n_permutations for t in tests):.0f}, max {max(t.n_permutations for t in tests)}; "
            f"bootstrap resamples median {statistics.median(t.n_bootstrap for t in tests):.0f}, "
            f"max {max(t.n_bootstrap for t in tests)}; significant after {comparison.correction.method}: "
            f"{len(comparison.significant())}")


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
    with_c = {"A": warm["A"], "C": evaluate(qrels, boosted(run_a, qrels, 2), METRICS)}
    tmp = Path(tempfile.mkdtemp())
    files = {"q": tmp / "bench.qrels", "a": tmp / "a.run", "b": tmp / "b.run"}
    write_qrels(files["q"], qrels)
    write_run(files["a"], run_a)
    write_run(files["b"], run_b)
    common = ["--qrels", str(files["q"]), "-m", ",".join(METRICS), "--format", "json"]
    keys = ("evaluate both", "compare_reports", "compare_reports, every draw", "compare_reports, clear differences",
            "cli evaluate both", "cli compare", "floor: draws", "floor: counts", "floor: 2 products", "floor")
    times: dict[str, list[float]] = {k: [] for k in keys}
    cpu: dict[str, list[float]] = {k: [] for k in keys[:4]}
    split: dict[str, list[float]] = {}
    os.environ.setdefault("TQDM_DISABLE", "1")

    def timed(key, call):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = call()
        times[key].append(time.perf_counter() - start)
        if key in cpu:
            cpu[key].append(time.process_time() - start_cpu)
        return out

    options = {"n_permutations": args.permutations, "n_bootstrap": args.bootstrap}
    for _ in range(args.repeats):
        reports = timed("evaluate both", lambda: {"A": evaluate(qrels, run_a, METRICS),
                                                  "B": evaluate(qrels, run_b, METRICS)})
        comparison = timed("compare_reports", lambda: compare_reports(reports, **options))  # noqa: B023
        timed("compare_reports, every draw",
              lambda: compare_reports(reports, exceedances=None, ci_tolerance=None, **options))  # noqa: B023
        clear = timed("compare_reports, clear differences", lambda: compare_reports(with_c, **options))
        for key, seconds in where_the_time_goes(compare_reports, reports, args).items():
            split.setdefault(key, []).append(seconds)
        for key, seconds in numpy_floor(args.queries, len(METRICS), args.permutations, args.bootstrap).items():
            times[key].append(seconds)
        if args.cli:
            timed("cli evaluate both", lambda: [rag_eval(["evaluate", "--run", str(files[key])] + common,
                                                         stdout=io.StringIO(), stderr=io.StringIO())
                                                for key in ("a", "b")])
            code = timed("cli compare", lambda: rag_eval(
                ["compare", "--run", str(files["a"]), "--run", str(files["b"]), "--permutations",
                 str(args.permutations), "--bootstrap", str(args.bootstrap)] + common,
                stdout=io.StringIO(), stderr=io.StringIO()))
            assert code == 0
    print(f"load average after the rounds: {os.getloadavg()[0]:.2f}")
    med = {k: statistics.median(v) for k, v in times.items() if v}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items() if v}
    print("\n| step | median s | median CPU s |\n|---|---:|---:|")
    for k, v in med.items():
        print(f"| {k} | {v:.3f} | {f'{med_cpu[k]:.3f}' if k in med_cpu else ''} |")
    print("\nwhere the time goes (cProfile of one compare_reports call per round, median s):\n| part | s |\n|---|---:|")
    print(f"| evaluation (evaluate both; before compare_reports) | {med['evaluate both']:.3f} |")
    for k, v in split.items():
        print(f"| {k} | {statistics.median(v):.3f} |")
    print(f"\ndraws made, A vs B: {draws_line(comparison)}")
    print(f"draws made, A vs C (clear differences): {draws_line(clear)}")
    both, both_cpu = med["evaluate both"], med_cpu["evaluate both"]
    print(f"\ngoal of issue 25 (<= 2x, from Python objects): evaluate both + compare_reports = "
          f"{(both + med['compare_reports']) / both:.2f}x evaluate both (CPU: "
          f"{(both_cpu + med_cpu['compare_reports']) / both_cpu:.2f}x); with every draw made: "
          f"{(both + med['compare_reports, every draw']) / both:.2f}x; A vs C (clear differences): "
          f"{(both + med['compare_reports, clear differences']) / both:.2f}x")
    print(f"compare_reports alone = {med['compare_reports'] / both:.2f}x evaluate both "
          f"(CPU: {med_cpu['compare_reports'] / both_cpu:.2f}x)")
    print(f"floor: evaluate both + numpy floor of every draw = {(both + med['floor']) / both:.2f}x evaluate both; "
          f"compare_reports = {med['compare_reports'] / med['floor']:.2f}x the numpy floor")
    if args.cli:
        print(f"rag-eval compare = {med['cli compare'] / med['cli evaluate both']:.2f}x "
              "rag-eval evaluate of both runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
