"""Benchmark: TREC files -> scores, through dicts or through columns, and the TREC readers themselves.

Writes the workload of ``bench_evaluate.py`` (seeded; ``--queries`` x ``--depth`` run lines, ``--judged`` qrels
lines per query) as TREC files in a temporary directory, then times (median of ``--repeats``):

* ``read_trec_run`` / ``read_trec_qrels`` line by line (``engine="python"``) and with pyarrow;
* ``evaluate`` on the dicts they return;
* ``read_trec_*_table`` + ``evaluate_columns`` (no Python object per query or document);
* ``evaluate_columns`` on numpy columns with integer doc ids, and with string ids (object arrays).

    python benchmarks/bench_columnar.py --queries 100000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import METRICS, make_workload  # noqa: E402


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from rag_eval_adapters import evaluate, read_trec_qrels, read_trec_run
    from rag_eval_adapters.columnar import evaluate_columns
    from rag_eval_adapters.trec import read_trec_qrels_table, read_trec_run_table

    qrels, run, _ = make_workload(args.queries, args.depth, args.judged, args.seed)
    rows = sum(map(len, run.values()))
    with tempfile.TemporaryDirectory() as tmp:
        qpath, rpath = Path(tmp) / "qrels.txt", Path(tmp) / "run.txt"
        with qpath.open("w") as out:
            for q, docs in qrels.items():
                out.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
        with rpath.open("w") as out:
            for q, docs in run.items():
                out.writelines(f"{q} Q0 {d} {r} {s} tag\n" for r, (d, s) in enumerate(docs.items(), 1))
        print(f"{args.queries:,} queries, {rows:,} run lines ({rpath.stat().st_size / 2**20:.0f} MiB), "
              f"{sum(map(len, qrels.values())):,} qrels lines; medians of {args.repeats}\n")
        results = {}
        results["read_trec_run, line by line"] = timed(lambda: read_trec_run(rpath, engine="python"), args.repeats)
        results["read_trec_run, pyarrow"] = timed(lambda: read_trec_run(rpath), args.repeats)
        results["read_trec_qrels, line by line"] = timed(lambda: read_trec_qrels(qpath, engine="python"),
                                                         args.repeats)
        results["read_trec_qrels, pyarrow"] = timed(lambda: read_trec_qrels(qpath), args.repeats)
        assert results["read_trec_run, pyarrow"][1] == results["read_trec_run, line by line"][1]
        results["evaluate on the dicts"] = timed(lambda: evaluate(qrels, run, METRICS), args.repeats)
        results["files -> dicts -> evaluate"] = timed(
            lambda: evaluate(read_trec_qrels(qpath), read_trec_run(rpath), METRICS), args.repeats)
        results["read_trec_*_table (pyarrow)"] = timed(
            lambda: (read_trec_qrels_table(qpath), read_trec_run_table(rpath)), args.repeats)
        qtable, rtable = results["read_trec_*_table (pyarrow)"][1]
        results["evaluate_columns on those Arrow tables"] = timed(
            lambda: evaluate_columns(qtable, rtable, METRICS), args.repeats)
        results["files -> tables -> evaluate_columns"] = timed(
            lambda: evaluate_columns(read_trec_qrels_table(qpath), read_trec_run_table(rpath), METRICS),
            args.repeats)

    def columns(nested, value, as_int):
        q = np.repeat(np.arange(len(nested)), [len(d) for d in nested.values()])
        docs = [d for inner in nested.values() for d in inner]
        d = np.array([int(x[3:]) for x in docs]) if as_int else np.array(docs, dtype=object)
        v = np.array([x for inner in nested.values() for x in inner.values()], dtype=float)
        return {"query_id": q, "doc_id": d, value: v}

    for as_int, label in ((True, "integer ids"), (False, "string ids")):
        qcols, rcols = columns(qrels, "grade", as_int), columns(run, "score", as_int)
        results[f"evaluate_columns, numpy, {label}"] = timed(
            lambda qcols=qcols, rcols=rcols: evaluate_columns(qcols, rcols, METRICS), args.repeats)
    reference = results["evaluate on the dicts"][1].values
    for key in ("evaluate_columns on those Arrow tables", "evaluate_columns, numpy, string ids"):
        np.testing.assert_allclose(results[key][1].values, reference, rtol=0, atol=1e-12)

    print("| step | median s | run rows/s |")
    print("|---|---:|---:|")
    for name, (seconds, _) in results.items():
        rate = f"{rows / seconds / 1e6:.1f} M" if "qrels" not in name else ""
        print(f"| {name} | {seconds:.3f} | {rate} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
