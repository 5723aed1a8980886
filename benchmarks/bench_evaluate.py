"""Benchmark: rag_eval_adapters.evaluate against pytrec_eval and ranx, from Python dicts to means + per-query values.

The workload (seeded, sizes as options): ``--queries`` queries, each with ``--depth`` retrieved documents scored
by a float rounded to 3 decimals (so a few scores tie, as in real runs) and ``--judged`` judged documents with
grades 0-3, about half of which are retrieved. Document ids are strings such as ``"doc1234567"``, every one a
separate str object, as a file reader would make them. Metrics: nDCG@10, AP@100, MRR@10, recall@100, P@10.

Each tool runs from the same Python objects to means *and* per-query values:

* ``ours (dict)``  ``evaluate(qrels, {q: {doc: score}}, metrics)`` -> ``report.mean`` and ``report.values``
  (one row per ``report.query_ids``); ``.per_query`` dict materialisation is timed separately.
* ``ours (list)``  the same with ``{q: [doc, ...]}`` already in rank order (what RAG pipelines produce).
* ``ours (+10 cutoffs)``  the five metrics at ten more cutoffs each (55 metrics), dict input.
* ``pytrec_eval``  ``RelevanceEvaluator(qrels, measures).evaluate(run)`` (per-query dicts) then the means.
  It has no MRR cutoff, so it computes ``recip_rank`` over the whole list (slightly more work, not less).
* ``ranx``  ``evaluate(Qrels(qrels), Run(run), metrics)`` (means; per-query values land in ``run.scores``),
  timed after a warm-up call that compiles its numba kernels.

The tools are timed interleaved, round after round (each round starting one tool later), and the medians
reported, so machine load affects all of them alike. Peak memory is measured in a fresh subprocess per tool: the resident-set high-water mark is reset
after building the inputs (Linux ``/proc/self/clear_refs``) and read after one call.

    python benchmarks/bench_evaluate.py --queries 20000 100000 --repeats 5

It ends with one line per goal of issue 15, each a ratio of medians from the same run: dict input and ranked
lists against pytrec_eval, dict input against ranx, peak memory against pytrec_eval, ``evaluate_columns`` on
numpy columns (integer query codes and doc ids) against one ``np.lexsort`` of the run rows by query and score,
and a run whose scores all tie within each query against the same run with its scores. Two floors are timed in
the same rounds: reading every score of the dicts into one array, and hashing every id of the ranked lists once
(``set`` per list); it prints how many times those floors ``evaluate()`` takes.

Needs ``pytrec_eval-terrier`` and ``ranx`` for the comparison (a tool that is not installed is skipped).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from itertools import chain

import numpy as np

METRICS = ["ndcg@10", "ap@100", "mrr@10", "recall@100", "precision@10"]
TREC_MEASURES = {"ndcg_cut.10", "map_cut.100", "recip_rank", "recall.100", "P.10"}
# ours key -> pytrec_eval key, for the agreement check
SAME_AS_TREC = {"ndcg@10": "ndcg_cut_10", "ap@100": "map_cut_100", "recall@100": "recall_100",
                "precision@10": "P_10"}
MORE_CUTOFFS = (1, 3, 5, 20, 30, 50, 200, 300, 500, 1000)
TOOLS = ("ours_dict", "ours_list", "ours_cutoffs", "ours_ties", "ours_columns", "lexsort", "floor_scores",
         "floor_ids", "pytrec_eval", "pytrec_eval_lists", "ranx")
LABELS = {"ours_dict": "ours (dict)", "ours_list": "ours (list)", "ours_cutoffs": "ours (dict, 55 metrics)",
          "ours_ties": "ours (dict, every score tied)", "ours_columns": "ours (evaluate_columns, numpy)",
          "lexsort": "np.lexsort of the run rows", "floor_scores": "floor: read every score (dict)",
          "floor_ids": "floor: hash every id once (list)", "pytrec_eval": "pytrec_eval (dict)",
          "pytrec_eval_lists": "pytrec_eval (list, made scores)", "ranx": "ranx (dict)"}
MEMORY_TOOLS = ("ours_dict", "ours_list", "ours_cutoffs", "pytrec_eval", "pytrec_eval_lists", "ranx")


def make_workload(n_queries: int, depth: int = 100, judged: int = 10, seed: int = 0):
    """``(qrels, run, ranked)``: ``{q: {doc: grade}}``, ``{q: {doc: score}}`` and ``{q: [doc, ...]}``."""
    rng = np.random.default_rng(seed)
    corpus = 10_000_000
    qrels, run, ranked = {}, {}, {}
    for start in range(0, n_queries, 10_000):
        m = min(10_000, n_queries - start)
        docs = rng.choice(corpus, size=(m, depth + judged), replace=True).tolist()
        scores = np.round(-np.sort(-rng.normal(size=(m, depth)) * 10, axis=1), 3).tolist()
        grades = rng.integers(0, 4, size=(m, judged)).tolist()
        retrieved = (rng.random((m, judged)) < 0.5).tolist()
        where = rng.integers(0, depth, size=(m, judged)).tolist()
        for i in range(m):
            qid = f"q{start + i}"
            ids = [f"doc{x}" for x in docs[i]]
            hits = ids[:depth]
            judged_ids = [hits[w] if r else d for d, r, w in zip(ids[depth:], retrieved[i], where[i], strict=False)]
            qrels[qid] = dict(zip(judged_ids, grades[i], strict=False))
            scored = dict(zip(hits, scores[i], strict=False))
            run[qid] = scored
            # the ranked list as trec_eval orders the scores (score desc, doc id desc); fresh str objects
            ranked[qid] = [str(d) for _, d in sorted(((s, d) for d, s in scored.items()), reverse=True)]
    return qrels, run, ranked


def make_extras(qrels, run) -> dict:
    """The same workload as numpy columns (integer query codes and doc ids, as ``bench_columnar.py``), and the
    run with every score of a query tied (trec_eval then orders by doc id, descending)."""
    sizes = [len(d) for d in run.values()]
    qsizes = [len(d) for d in qrels.values()]
    rcols = {"query_id": np.repeat(np.arange(len(run)), sizes),
             "doc_id": np.array([int(d[3:]) for inner in run.values() for d in inner]),
             "score": np.array([x for inner in run.values() for x in inner.values()], dtype=float)}
    qcols = {"query_id": np.repeat(np.arange(len(qrels)), qsizes),
             "doc_id": np.array([int(d[3:]) for inner in qrels.values() for d in inner]),
             "grade": np.array([x for inner in qrels.values() for x in inner.values()], dtype=float)}
    tied = {q: dict.fromkeys(scored, 1.0) for q, scored in run.items()}
    return {"qcols": qcols, "rcols": rcols, "tied": tied}


# --------------------------------------------------------------------------- one timed call per tool
def run_tool(tool: str, qrels, run, ranked, extras=None):
    """Run one tool end to end; returns ``(means, per-query values)``."""
    if tool in ("ours_ties", "ours_columns", "lexsort"):
        extras = extras or make_extras(qrels, run)
        if tool == "lexsort":  # the floor of any exact ranking: one sort of all rows by query, then score
            rcols = extras["rcols"]
            return {}, np.lexsort((-rcols["score"], rcols["query_id"]))
        from rag_eval_adapters import evaluate
        from rag_eval_adapters.columnar import evaluate_columns

        if tool == "ours_columns":
            report = evaluate_columns(extras["qcols"], extras["rcols"], METRICS)
        else:
            report = evaluate(qrels, extras["tied"], METRICS)
        return report.mean, (report.query_ids, report.values)
    if tool == "floor_scores":  # what any exact ranking of {doc: score} dicts must do: read every score
        total = sum(map(len, run.values()))
        return {}, np.fromiter(chain.from_iterable(map(dict.values, run.values())), np.float64, count=total)
    if tool == "floor_ids":  # what ranked lists need at least: every id hashed once (repeats, judged positions)
        return {}, sum(map(len, map(set, ranked.values())))
    if tool in ("ours_dict", "ours_list", "ours_cutoffs"):
        from rag_eval_adapters import evaluate

        metrics = METRICS
        if tool == "ours_cutoffs":
            metrics = METRICS + [f"{m.split('@')[0]}@{k}" for m in METRICS for k in MORE_CUTOFFS]
        report = evaluate(qrels, ranked if tool == "ours_list" else run, metrics)
        return report.mean, (report.query_ids, report.values)
    if tool in ("pytrec_eval", "pytrec_eval_lists"):
        import pytrec_eval

        if tool == "pytrec_eval_lists":  # pytrec_eval takes scores only: number the ranked lists first
            run = {q: {d: float(-r) for r, d in enumerate(ids)} for q, ids in ranked.items()}
        per_query = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
        keys = sorted(next(iter(per_query.values())))
        table = np.array([[values[k] for k in keys] for values in per_query.values()])
        return dict(zip(keys, table.mean(axis=0).tolist(), strict=False)), per_query
    if tool == "ranx":
        from ranx import Qrels, Run, evaluate

        ranx_run = Run(run)
        means = evaluate(Qrels(qrels), ranx_run, ["ndcg@10", "map@100", "mrr@10", "recall@100", "precision@10"])
        return means, ranx_run.scores
    raise ValueError(tool)


def available(tool: str) -> bool:
    module = {"pytrec_eval": "pytrec_eval", "pytrec_eval_lists": "pytrec_eval", "ranx": "ranx"}.get(
        tool, "rag_eval_adapters")
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def warm_up(tool: str) -> None:
    """A tiny call first: imports, and ranx's numba compilation, are not what is measured."""
    q, r, k = make_workload(50, depth=20, judged=5, seed=1)
    run_tool(tool, q, r, k)


# --------------------------------------------------------------------------- peak memory in a subprocess
def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def memory_child(tool: str, n: int, depth: int, judged: int, seed: int) -> None:
    warm_up(tool)
    qrels, run, ranked = make_workload(n, depth, judged, seed)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:  # reset the RSS high-water mark to the current RSS
        handle.write("5")
    base = _rss_kib("VmRSS")
    result = run_tool(tool, qrels, run, ranked)
    peak = _rss_kib("VmHWM")
    del result
    print(json.dumps({"peak_mib": (peak - base) / 1024}))


def peak_memory(tool: str, n: int, depth: int, judged: int, seed: int) -> float | None:
    if not os.path.exists("/proc/self/clear_refs"):
        return None
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", tool, "--queries", str(n), "--depth", str(depth),
         "--judged", str(judged), "--seed", str(seed)],
        capture_output=True, text=True, check=False,
    )
    if out.returncode != 0:
        print(f"  (memory run of {tool} failed: {out.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])["peak_mib"]


# --------------------------------------------------------------------------- the benchmark
def check_agreement(results) -> str:
    """Our means equal pytrec_eval's (same definitions, same tie-breaking) to 1e-9."""
    if "pytrec_eval" not in results:
        return "not checked (pytrec_eval not installed)"
    ours, theirs = results["ours_dict"][0], results["pytrec_eval"][0]
    listed = results["ours_list"][0]
    worst = max(max(abs(ours[a] - theirs[b]), abs(listed[a] - theirs[b])) for a, b in SAME_AS_TREC.items())
    if worst > 1e-9:
        raise AssertionError(f"means differ from pytrec_eval by {worst}")
    return f"means equal pytrec_eval's (max difference {worst:.1e})"


def bench(n: int, args) -> dict:
    tools = [t for t in args.tools if available(t)]
    for tool in tools:
        warm_up(tool)
    t0 = time.perf_counter()
    qrels, run, ranked = make_workload(n, args.depth, args.judged, args.seed)
    extras = make_extras(qrels, run)
    print(f"\n== {n:,} queries x {args.depth} retrieved, {args.judged} judged per query "
          f"(built in {time.perf_counter() - t0:.1f} s)", flush=True)
    times = {t: [] for t in tools}
    results = {}
    per_query_dict = []
    for r in range(args.repeats):
        # interleaved: every round times every tool, starting one tool later each round, so that no tool always
        # runs right after the same one (ranx leaves gigabytes of freed memory behind it)
        for tool in tools[r % len(tools):] + tools[:r % len(tools)]:
            gc.collect()
            start = time.perf_counter()
            results[tool] = run_tool(tool, qrels, run, ranked, extras)
            times[tool].append(time.perf_counter() - start)
            if tool == "ours_dict":
                from rag_eval_adapters import evaluate

                report = evaluate(qrels, run, METRICS)
                start = time.perf_counter()
                report.per_query  # noqa: B018 - materialise the {qid: {key: value}} dicts
                per_query_dict.append(time.perf_counter() - start)
            results[tool] = results[tool][0], None
    agreement = check_agreement(results)
    if "ours_columns" in results:  # same numbers from columns as from dicts
        from rag_eval_adapters import evaluate

        # integer doc ids break score ties in integer order: the reference is evaluate() on the same int ids
        int_qrels = {q: {int(d[3:]): g for d, g in judged.items()} for q, judged in qrels.items()}
        int_run = {q: {int(d[3:]): v for d, v in scored.items()} for q, scored in run.items()}
        cols, dicts = results["ours_columns"][0], evaluate(int_qrels, int_run, METRICS).mean
        worst = max(abs(cols[k] - dicts[k]) for k in dicts)
        if worst > 1e-9:
            raise AssertionError(f"evaluate_columns means differ from evaluate's by {worst}")
    memory = ({t: peak_memory(t, n, args.depth, args.judged, args.seed) for t in tools if t in MEMORY_TOOLS}
              if args.memory else {})
    rows = {}
    for tool in tools:
        median = statistics.median(times[tool])
        rows[tool] = {"median_s": median, "qps": n / median, "peak_mib": memory.get(tool)}
    return {"n": n, "rows": rows, "agreement": agreement, "per_query_dict_s": statistics.median(per_query_dict)}


def print_table(result: dict, args) -> None:
    rows, n = result["rows"], result["n"]
    base = rows.get("pytrec_eval", {}).get("median_s")
    ranx = rows.get("ranx", {}).get("median_s")
    print(f"\n| {n:,} queries | median s | queries/s | peak MiB | vs pytrec_eval | vs ranx |")
    print("|---|---:|---:|---:|---:|---:|")
    for tool, row in rows.items():
        mem = "n/a" if row["peak_mib"] is None else f"{row['peak_mib']:.0f}"
        vs_p = f"{base / row['median_s']:.2f}x" if base else "n/a"
        vs_r = f"{ranx / row['median_s']:.2f}x" if ranx else "n/a"
        print(f"| {LABELS[tool]} | {row['median_s']:.3f} | {row['qps']:,.0f} | {mem} | {vs_p} | {vs_r} |")
    print(f"\n{result['agreement']}; report.per_query dict materialisation: {result['per_query_dict_s']:.3f} s "
          f"(not included above: means + report.values/query_ids are)")
    if base and all(t in rows for t in ("ours_dict", "ours_list", "ours_cutoffs")):
        d, li, cu = (rows[t]["median_s"] for t in ("ours_dict", "ours_list", "ours_cutoffs"))
        print(f"55 metrics cost {cu / d:.2f}x the 5 metrics (vs 11x for eleven evaluations)"
              + (f"; pytrec_eval fed the same lists (made scores) takes {rows['pytrec_eval_lists']['median_s'] / li:.2f}x"
                 " ours (list)" if "pytrec_eval_lists" in rows else ""))
    print_goals(rows, n)


def print_goals(rows: dict, n: int) -> None:
    """One line per goal of issue 15, each a ratio of medians from this run."""
    t = {tool: row["median_s"] for tool, row in rows.items()}
    mem = {tool: row["peak_mib"] for tool, row in rows.items()}
    lines = []
    if "pytrec_eval" in t:
        if "ours_dict" in t:
            lines.append(("dict input vs pytrec_eval", t["pytrec_eval"] / t["ours_dict"], ">= 3x"))
        if "ours_list" in t:
            lines.append(("ranked lists vs pytrec_eval (dict)", t["pytrec_eval"] / t["ours_list"], ">= 5x"))
    if "ranx" in t and "ours_dict" in t:
        lines.append(("dict input vs ranx", t["ranx"] / t["ours_dict"], ">= 10x"))
    if mem.get("pytrec_eval") and mem.get("ours_dict") is not None:
        lines.append(("peak memory, ours (dict) / pytrec_eval", mem["ours_dict"] / mem["pytrec_eval"], "<= 1x"))
        lines.append(("peak memory, ours (list) / pytrec_eval", mem["ours_list"] / mem["pytrec_eval"], "<= 1x"))
    if "lexsort" in t and "ours_columns" in t:
        lines.append(("evaluate_columns / one np.lexsort of the rows", t["ours_columns"] / t["lexsort"], "<= 3x"))
    if "ours_ties" in t and "ours_dict" in t:
        lines.append(("every score tied / distinct scores", t["ours_ties"] / t["ours_dict"], "<= 1.5x"))
    floors = [("ours (dict) / reading every score", "ours_dict", "floor_scores"),
              ("ours (list) / hashing every id once", "ours_list", "floor_ids")]
    notes = [(label, t[a] / t[b]) for label, a, b in floors if a in t and b in t]
    print(f"\ngoals of issue 15 at {n:,} queries (ratios of medians in this run):")
    for label, value, goal in lines:
        better = value >= float(goal[3:-1]) if goal.startswith(">=") else value <= float(goal[3:-1])
        print(f"  {label}: {value:.2f}x (goal {goal}) {'met' if better else 'NOT met'}")
    for label, value in notes:
        print(f"  how close to the floor of reading the Python input: {label} = {value:.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--depth", type=int, default=100, help="retrieved documents per query")
    parser.add_argument("--judged", type=int, default=10, help="judged documents per query")
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (medians are reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--no-memory", dest="memory", action="store_false", help="skip the peak-memory runs")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child, args.queries[0], args.depth, args.judged, args.seed)
        return 0
    import platform

    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    for n in args.queries:
        result = bench(n, args)
        print_table(result, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
