"""Benchmark: scoring Parquet runs on Ray (``evaluate_ray``) against ``evaluate_columns`` in one process.

For each size in ``--queries`` it writes, in a temporary directory, a seeded run of ``--depth`` documents per
query (Parquet files of ``--file-rows`` rows; scores rounded to 3 decimals, so some tie) and qrels of
``--judged`` documents per query (grades 0-3, about half of them retrieved). Then, each in a fresh process:

* ``one process``  ``pyarrow.parquet.read_table`` of both directories + ``evaluate_columns``;
* ``ray``  ``evaluate_ray(qrels_dir, run_dir, ...)`` on a local Ray of ``--num-cpus`` CPUs (started and warmed
  up on a tiny input before the clock starts, as a running cluster would be), the per-query rows kept in
  Ray's object store as a ``ray.data.Dataset``. Its workers run at the same priority as the one process
  (``RAY_worker_niceness=0``; Ray's default of 15 would hand their CPU to any other work on the machine).

It prints queries per second, the Ray / one-process throughput ratio, and peak resident memory: of the one
process; of the Ray driver; of the largest Ray worker while it ran a task (``worker MB``: private memory,
sampled every 10 ms) and over its life (``w. rss MB``: ``ru_maxrss``, which also counts every object-store page
the long-lived worker process has touched, shared memory that is not the worker's own). Ids are integers by default (``--string-ids`` for strings).

    python benchmarks/bench_distributed.py --queries 10000 100000              # quick
    python benchmarks/bench_distributed.py --queries 100000 1000000 --depth 100 # the issue's sizes
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

METRICS = ["ndcg@10", "ap@100", "mrr@10"]


def write_workload(directory: Path, n_queries: int, depth: int, judged: int, file_rows: int, string_ids: bool,
                   seed: int = 0) -> None:
    """Parquet files ``run/part-*.parquet`` and ``qrels/part-*.parquet``, written a chunk of queries at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    (directory / "run").mkdir(parents=True)
    (directory / "qrels").mkdir()
    per_file = max(1, file_rows // depth)
    for n, start in enumerate(range(0, n_queries, per_file)):
        m = min(per_file, n_queries - start)
        qids = np.arange(start, start + m, dtype=np.int64)
        docs = rng.integers(0, 50_000_000, size=(m, depth), dtype=np.int64)
        scores = np.round(rng.random((m, depth)), 3)
        relevant = np.concatenate([docs[:, : judged // 2], rng.integers(0, 50_000_000, (m, judged - judged // 2))],
                                  axis=1)
        grades = rng.integers(0, 4, size=(m, judged)).astype(np.float64)
        run = {"query_id": np.repeat(qids, depth), "doc_id": docs.ravel(), "score": scores.ravel()}
        qrels = {"query_id": np.repeat(qids, judged), "doc_id": relevant.ravel(), "grade": grades.ravel()}
        if string_ids:
            for table in (run, qrels):
                table["query_id"] = np.char.add("q", table["query_id"].astype(str)).astype(object)
                table["doc_id"] = np.char.add("doc", table["doc_id"].astype(str)).astype(object)
        # a document judged twice in one query would be an error: drop repeats in the qrels
        qt = pa.table(qrels)
        pq.write_table(pa.table(run), directory / "run" / f"part-{n:05d}.parquet")
        pq.write_table(_unique_pairs(qt), directory / "qrels" / f"part-{n:05d}.parquet")


def _unique_pairs(table):
    frame = table.to_pandas().drop_duplicates(["query_id", "doc_id"])
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_single(directory: Path) -> dict:
    import pyarrow.parquet as pq

    from rag_eval_adapters import evaluate_columns

    start = time.perf_counter()
    qrels = pq.read_table(directory / "qrels")
    run = pq.read_table(directory / "run")
    report = evaluate_columns(qrels, run, METRICS)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "scored": report.counts["scored"], "mean": report.mean, "peak": peak_rss()}


def measure_ray(directory: Path, num_cpus: int, rows_per_shard: int) -> dict:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray starts its workers at nice 15 by default; on a machine shared with other work that would measure the
    # neighbours, not Ray: run them at the one-process measurement's priority.
    os.environ.setdefault("RAY_worker_niceness", "0")
    import pyarrow as pa
    import ray

    from rag_eval_adapters.distributed import evaluate_ray

    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False,
             _node_ip_address="127.0.0.1")
    tiny = pa.table({"query_id": [1, 1], "doc_id": [1, 2], "grade": [1.0, 0.0]})
    evaluate_ray(tiny, tiny.rename_columns(["query_id", "doc_id", "score"]), METRICS)  # start the workers
    start = time.perf_counter()
    result = evaluate_ray(directory / "qrels", directory / "run", METRICS, rows_per_shard=rows_per_shard)
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "scored": result.counts["scored"], "mean": result.mean, "peak": peak_rss(),
           "worker_peak": result.stats["worker_peak_private"], "worker_rss": result.stats["worker_peak_rss"],
           "shards": result.stats["shards"]}
    ray.shutdown()
    return out


def in_subprocess(kind: str, directory: Path, args) -> dict:
    command = [sys.executable, __file__, f"--_{kind}", str(directory), "--num-cpus", str(args.num_cpus),
               "--rows-per-shard", str(args.rows_per_shard)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        return {"failed": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=10)
    parser.add_argument("--file-rows", type=int, default=1_000_000)
    parser.add_argument("--rows-per-shard", type=int, default=2_000_000)
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--string-ids", action="store_true")
    parser.add_argument("--no-single", action="store_true", help="skip the one-process measurement")
    parser.add_argument("--workdir", default=None, help="where to write the Parquet files (default: a temp dir)")
    parser.add_argument("--_single", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_ray", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._single:
        print(json.dumps(measure_single(Path(args._single))))
        return 0
    if args._ray:
        print(json.dumps(measure_ray(Path(args._ray), args.num_cpus, args.rows_per_shard)))
        return 0

    print(f"cpus={os.cpu_count()}  depth={args.depth}  judged={args.judged}  ids={'str' if args.string_ids else 'int'}"
          f"  metrics={METRICS}  rows/shard={args.rows_per_shard:,}  ray cpus={args.num_cpus}")
    header = (f"{'queries':>10} {'run rows':>12} | {'1-proc s':>8} {'q/s':>9} {'peak MB':>8} | {'ray s':>7} "
              f"{'q/s':>9} {'ratio':>5} {'shards':>6} {'driver MB':>9} {'worker MB':>9} {'w. rss MB':>9}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for n in args.queries:
            directory = Path(tmp) / f"q{n}"
            t0 = time.perf_counter()
            write_workload(directory, n, args.depth, args.judged, args.file_rows, args.string_ids)
            made = time.perf_counter() - t0
            single = {} if args.no_single else in_subprocess("single", directory, args)
            distributed = in_subprocess("ray", directory, args)
            print(row(n, n * args.depth, single, distributed), f"  (data written in {made:.0f} s)", flush=True)
            if "mean" in single and "mean" in distributed:
                for key, value in single["mean"].items():
                    assert abs(distributed["mean"][key] - value) <= 1e-9, (key, value, distributed["mean"][key])
    return 0


def row(n, rows, single, distributed) -> str:
    mb = 1 << 20

    def part(result, fields):
        if "failed" in result:
            return f"failed: {result['failed']}"
        return " ".join(fields)

    one = "  (skipped)" if not single else part(single, [
        f"{single.get('seconds', 0):8.2f}", f"{n / single.get('seconds', 1):9,.0f}", f"{single.get('peak', 0) / mb:8.0f}"])
    ratio = (single["seconds"] / distributed["seconds"]) if "seconds" in single and "seconds" in distributed else float("nan")
    two = part(distributed, [
        f"{distributed.get('seconds', 0):7.2f}", f"{n / distributed.get('seconds', 1):9,.0f}", f"{ratio:5.2f}",
        f"{distributed.get('shards', 0):6d}", f"{distributed.get('peak', 0) / mb:9.0f}",
        f"{distributed.get('worker_peak', 0) / mb:9.0f}", f"{distributed.get('worker_rss', 0) / mb:9.0f}"])
    return f"{n:>10,} {rows:>12,} | {one} | {two}"


if __name__ == "__main__":
    raise SystemExit(main())
