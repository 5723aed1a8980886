"""Speed of ``rag-eval gate``: two runs of 10,000 questions x 20 metrics gated, against ``rag-eval evaluate`` of both.

The workload (seeded): ``--queries`` questions, each with 100 retrieved documents (TREC run files, scores rounded
to 3 decimals) and 10 judged documents with grades 0-3; the candidate run is the baseline with a fifth of its
rankings shuffled. 20 metrics: nDCG, recall, precision, MRR and hit rate at 1, 3, 10 and 20. Timed in-process
(``rag_eval_adapters.cli.main``), the median of ``--repeats`` rounds, each round running every command once:

* ``evaluate x2``: ``rag-eval evaluate --qrels Q --run R -m ... --format json -o R.json`` for both runs;
* ``gate (runs)``: ``rag-eval gate --qrels Q --baseline A --candidate B -m M:0.02 ...`` (reads and scores both runs);
* ``gate (reports)``: ``rag-eval gate`` on the two ``report.json`` that ``evaluate`` wrote.

The issue's goal: ``gate (runs)`` at most 2x ``evaluate x2``.

    python benchmarks/bench_gate_speed.py --queries 10000 --repeats 3
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag_eval_adapters.cli import main as cli  # noqa: E402

METRICS = [f"{m}@{k}" for m in ("ndcg", "recall", "precision", "mrr", "hit_rate") for k in (1, 3, 10, 20)]


def write_workload(folder: Path, queries: int, seed: int) -> tuple[Path, Path, Path]:
    """Qrels and two TREC runs (see the module doc)."""
    rng = np.random.default_rng(seed)
    qrels, base, cand = [], [], []
    for q in range(queries):
        docs = rng.choice(5000, size=100, replace=False)
        for d in rng.choice(docs, size=10, replace=False):
            qrels.append(f"q{q} 0 d{d} {rng.integers(0, 4)}\n")
        scores = np.round(np.sort(rng.random(100))[::-1], 3)
        other = rng.permutation(docs) if rng.random() < 0.2 else docs
        base += [f"q{q} Q0 d{d} {r + 1} {s} base\n" for r, (d, s) in enumerate(zip(docs, scores, strict=True))]
        cand += [f"q{q} Q0 d{d} {r + 1} {s} cand\n" for r, (d, s) in enumerate(zip(other, scores, strict=True))]
    paths = folder / "qrels.txt", folder / "base.trec", folder / "cand.trec"
    for path, lines in zip(paths, (qrels, base, cand), strict=True):
        path.write_text("".join(lines))
    return paths


def timed(*args: str) -> tuple[float, int]:
    """Seconds and exit status of one in-process ``rag-eval`` command."""
    start = time.perf_counter()
    code = cli([str(a) for a in args], stdout=io.StringIO(), stderr=io.StringIO())
    return time.perf_counter() - start, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    qrels, base, cand = write_workload(folder, args.queries, args.seed)
    margins = [x for m in METRICS for x in ("-m", f"{m}:0.02")]
    times: dict[str, list[float]] = {"evaluate x2": [], "gate (runs)": [], "gate (reports)": []}
    for _ in range(args.repeats):
        total = 0.0
        for run in (base, cand):
            seconds, code = timed("evaluate", "--qrels", qrels, "--run", run, "-m", ",".join(METRICS),
                                  "--format", "json", "-o", run.with_suffix(".json"))
            assert code == 0
            total += seconds
        times["evaluate x2"].append(total)
        seconds, code = timed("gate", "--qrels", qrels, "--baseline", base, "--candidate", cand, *margins)
        assert code in (0, 1, 3)
        times["gate (runs)"].append(seconds)
        seconds, _ = timed("gate", "--baseline", base.with_suffix(".json"), "--candidate",
                           cand.with_suffix(".json"), *margins)
        times["gate (reports)"].append(seconds)
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"{args.queries} questions x {len(METRICS)} metrics, median of {args.repeats} rounds:")
    for name, value in medians.items():
        print(f"  {name:15} {value:7.2f} s")
    print(f"gate (runs) / evaluate x2 = {medians['gate (runs)'] / medians['evaluate x2']:.2f} (goal: at most 2); "
          f"gate (reports) / evaluate x2 = {medians['gate (reports)'] / medians['evaluate x2']:.2f}")


if __name__ == "__main__":
    main()
