"""Benchmark: the paired tests of ``compare`` against evaluating the two runs they compare.

Workload (seeded): ``--queries`` queries of the ``bench_evaluate.py`` collection (100 retrieved documents,
10 judged), run A as generated and run B with every score perturbed, scored with 35 metrics (seven families x
cutoffs 1, 3, 5, 10, 100). The tests are those of ``rag-eval compare``'s defaults: paired t-test, randomization
test with ``--permutations`` sign vectors and a percentile bootstrap with ``--bootstrap`` resamples.

Two ratios, each from medians of ``--repeats`` interleaved rounds in this one run:

* API: ``evaluate(A) + evaluate(B) + compare_reports`` over ``evaluate(A) + evaluate(B)`` (Python dicts in);
  the goal of issue 15 is at most 2x;
* CLI: ``rag-eval compare --qrels Q --run A --run B`` over ``rag-eval evaluate`` of A plus of B (TREC files,
  in-process, output to a buffer).

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
        out[q] = {d: s + e for (d, s), e in zip(scored.items(), noise)}
    return out


def write_run(path: Path, run) -> None:
    with open(path, "w") as fh:
        for q, scored in run.items():
            fh.writelines(f"{q} Q0 {d} 0 {s!r} bench\n" for d, s in scored.items())


def write_qrels(path: Path, qrels) -> None:
    with open(path, "w") as fh:
        for q, judged in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in judged.items())


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
    evaluate(qrels, run_a, METRICS)  # warm-up
    tmp = Path(tempfile.mkdtemp())
    files = {"q": tmp / "bench.qrels", "a": tmp / "a.run", "b": tmp / "b.run"}
    write_qrels(files["q"], qrels)
    write_run(files["a"], run_a)
    write_run(files["b"], run_b)
    common = ["--qrels", str(files["q"]), "-m", ",".join(METRICS), "--format", "json"]
    times = {"evaluate both": [], "compare_reports": [], "cli evaluate both": [], "cli compare": []}
    os.environ.setdefault("TQDM_DISABLE", "1")
    for _ in range(args.repeats):
        start = time.perf_counter()
        reports = {"A": evaluate(qrels, run_a, METRICS), "B": evaluate(qrels, run_b, METRICS)}
        times["evaluate both"].append(time.perf_counter() - start)
        start = time.perf_counter()
        compare_reports(reports, n_permutations=args.permutations, n_bootstrap=args.bootstrap)
        times["compare_reports"].append(time.perf_counter() - start)
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
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print("\n| step | median s |\n|---|---:|")
    for k, v in med.items():
        print(f"| {k} | {v:.3f} |")
    ratio = (med["evaluate both"] + med["compare_reports"]) / med["evaluate both"]
    print(f"\ngoal (<= 2x): API evaluate both + compare_reports = {ratio:.2f}x evaluate both")
    if args.cli:
        print(f"goal (<= 2x): rag-eval compare = {med['cli compare'] / med['cli evaluate both']:.2f}x "
              "rag-eval evaluate of both runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
