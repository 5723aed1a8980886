"""Benchmark: breaking score ties costs no more than sorting.

Runs with binary or constant scores are common; trec_eval breaks their ties by doc id descending. Each workload
is timed twice, with the same documents and judgments: once with tied scores and once with distinct scores, and
the ratio tied / distinct is printed (the goal: close to 1, never the cost of a scan per judged document).

* ``200 x 1,000 tied``: 200 queries, 1,000 retrieved documents each, every score equal, 100 judged per query;
* ``1 x 1M, 1,000 scores``: one query of 1,000,000 documents with 1,000 distinct scores, 1,000 judged.

Both front doors are timed: ``evaluate`` (dicts) and ``evaluate_columns`` (columns). pytrec_eval, when installed,
is timed on the same dicts as the peer.

    python benchmarks/bench_ties.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

METRICS = ["ndcg@10", "ap", "mrr@10", "recall@100", "precision@10"]


def workloads(scale: float):
    rng = np.random.default_rng(0)
    n_q, depth = max(1, int(200 * scale)), 1000
    many = {}
    for q in range(n_q):
        docs = [f"doc{int(d)}" for d in rng.choice(10_000_000, size=depth, replace=False)]
        judged = {d: int(g) for d, g in zip(rng.choice(docs, 100, replace=False), rng.integers(0, 4, 100), strict=False)}
        many[f"q{q}"] = (docs, judged, np.full(depth, 0.5), rng.random(depth))
    n = max(1000, int(1_000_000 * scale))
    docs = [f"doc{i}" for i in range(n)]
    judged = {d: int(g) for d, g in zip(rng.choice(docs, 1000, replace=False), rng.integers(0, 4, 1000), strict=False)}
    one = {"q": (docs, judged, rng.integers(0, 1000, n) / 1000.0, rng.random(n))}
    return {"200 x 1,000 tied": many, "1 x 1M, 1,000 scores": one}


def as_dicts(load, which):
    qrels = {q: judged for q, (docs, judged, *_s) in load.items()}
    run = {q: dict(zip(docs, (tied if which == "tied" else distinct).tolist(), strict=False))
           for q, (docs, judged, tied, distinct) in load.items()}
    return qrels, run


def as_columns(qrels, run):
    qr = [(q, d, g) for q, j in qrels.items() for d, g in j.items()]
    rr = [(q, d, s) for q, r in run.items() for d, s in r.items()]
    return ({"query_id": [r[0] for r in qr], "doc_id": [r[1] for r in qr], "grade": [r[2] for r in qr]},
            {"query_id": np.array([r[0] for r in rr], dtype=object), "doc_id": np.array([r[1] for r in rr], dtype=object),
             "score": np.array([r[2] for r in rr])})


def timed(fn, repeats):
    fn()  # warm-up: lazy imports (pandas) and caches are not what is measured
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the workloads (e.g. 0.1) for a quick look")
    args = parser.parse_args(argv)
    from rag_eval_adapters import evaluate, evaluate_columns

    try:
        import pytrec_eval
    except ImportError:  # pragma: no cover - optional peer
        pytrec_eval = None
    print("| workload | tool | tied s | distinct s | tied / distinct |")
    print("|---|---|---:|---:|---:|")
    for name, load in workloads(args.scale).items():
        inputs = {which: as_dicts(load, which) for which in ("tied", "distinct")}
        cols = {which: as_columns(*inputs[which]) for which in inputs}
        rows = []
        for tool in ("evaluate", "evaluate_columns", "pytrec_eval"):
            times = {}
            for which, (qrels, run) in inputs.items():
                if tool == "evaluate":
                    times[which] = timed(lambda qrels=qrels, run=run: evaluate(qrels, run, METRICS), args.repeats)
                elif tool == "evaluate_columns":
                    times[which] = timed(lambda cols=cols, which=which: evaluate_columns(*cols[which], METRICS), args.repeats)
                elif pytrec_eval is not None:
                    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"})
                    times[which] = timed(lambda ev=ev, run=run: ev.evaluate(run), args.repeats)
            if times:
                rows.append((tool, times))
        for tool, times in rows:
            print(f"| {name} | {tool} | {times['tied']:.3f} | {times['distinct']:.3f} | "
                  f"{times['tied'] / times['distinct']:.2f}x |")


if __name__ == "__main__":
    main()
