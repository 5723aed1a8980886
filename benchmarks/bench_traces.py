"""Benchmark: reading and scoring OpenInference traces in a stream, time and peak memory.

Writes ``--traces`` seeded traces as OTLP JSON lines (one export a trace, 10 spans each: the chat root, a
condense LLM call, two retrievers each with its nested ``_retrieve`` span and 10 documents, a synthesizer chain,
an answer LLM call with its nested call, and a tool call), grouped by trace as an exporter writes them, and
TREC-style qrels keyed ``<thread_id>:<turn>`` (5 turns a thread). Then, in a fresh process, it reads and
scores them with ``evaluate_traces(read_traces(...))`` (ndcg@10, recall@10, mrr) and prints the CPU seconds and
the process's peak resident memory (``ru_maxrss``); first, in a process of its own, the reading alone (every trace
read and placed in its turn, nothing kept). Reading is flat when its peak at ``--traces 100000`` is close to its
peak at ``--traces 10000``; the scoring's peak also holds the result (a row and its attributes a judged step).

The scores are checked against :func:`rag_eval_adapters.evaluate` on the same rankings built directly (exit 1 when
any differs).

    python benchmarks/bench_traces.py                   # 100,000 traces, 1,000,000 spans
    python benchmarks/bench_traces.py --traces 10000    # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRICS = ["ndcg@10", "recall@10", "mrr"]
DOCS = 1000


def _attrs(pairs: dict) -> list[dict]:
    return [{"key": k, "value": {"stringValue": str(v)}} for k, v in pairs.items()]


def _retriever(query: str, ids: list[str]) -> dict:
    out = {"openinference.span.kind": "RETRIEVER", "input.value": query, "session.id": ""}
    for i, doc in enumerate(ids):
        out[f"retrieval.documents.{i}.document.id"] = doc
        out[f"retrieval.documents.{i}.document.content"] = f"text of {doc}"
        out[f"retrieval.documents.{i}.document.score"] = 1.0 - i / 10
    return out


def one_trace(n: int) -> tuple[dict, str, list[list[str]]]:
    """The OTLP export of trace ``n``, its thread key and its two rankings (seeded by ``n``)."""
    rng = random.Random(n)
    thread, turn = f"thread-{n // 5}", n % 5 + 1
    tid = f"{n:032x}"
    rankings = [[f"d{rng.randrange(DOCS)}" for _ in range(10)] for _ in range(2)]
    rankings = [list(dict.fromkeys(r)) for r in rankings]
    kinds = [
        ("1", None, "chat", {"openinference.span.kind": "CHAIN", "input.value": f"question {n}",
                             "output.value": "answer", "session.id": thread, "metadata": json.dumps({"turn": turn})}),
        ("2", "1", "condense", {"openinference.span.kind": "LLM", "llm.model_name": "m", "output.value": f"q {n}"}),
        ("3", "1", "retrieve", _retriever(f"question {n}", rankings[0])),
        ("4", "3", "_retrieve", _retriever(f"question {n}", rankings[0])),
        ("5", "1", "retrieve", _retriever(f"q {n}", rankings[1])),
        ("6", "5", "_retrieve", _retriever(f"q {n}", rankings[1])),
        ("7", "1", "synthesize", {"openinference.span.kind": "CHAIN"}),
        ("8", "7", "chat", {"openinference.span.kind": "LLM", "llm.model_name": "m", "output.value": "answer"}),
        ("9", "8", "_chat", {"openinference.span.kind": "LLM", "llm.model_name": "m"}),
        ("a", "1", "tool", {"openinference.span.kind": "TOOL", "tool.name": "search", "input.value": "{}"}),
    ]
    spans = [{"traceId": tid, "spanId": sid.rjust(16, "0"), "parentSpanId": (parent or "").rjust(16, "0")
              if parent else "", "name": name, "startTimeUnixNano": str(i), "attributes": _attrs(a)}
             for i, (sid, parent, name, a) in enumerate(kinds)]
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, f"{thread}:{turn}", rankings


def write(folder: Path, n_traces: int) -> None:
    rng = random.Random(7)
    with open(folder / "traces.jsonl", "w") as traces, open(folder / "qrels.txt", "w") as qrels:
        for n in range(n_traces):
            export, key, _ = one_trace(n)
            traces.write(json.dumps(export) + "\n")
            for doc in sorted({f"d{rng.randrange(DOCS)}" for _ in range(5)}):
                qrels.write(f"{key} 0 {doc} {rng.choice([1, 2])}\n")


def score(folder: Path) -> None:
    from rag_eval_adapters import evaluate
    from rag_eval_adapters.traces import evaluate_traces, read_trace_qrels, read_traces

    start, wall = time.process_time(), time.perf_counter()
    result = evaluate_traces(read_traces(folder / "traces.jsonl"), read_trace_qrels(folder / "qrels.txt"), METRICS)
    cpu, elapsed = time.process_time() - start, time.perf_counter() - wall
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"traces {result.counts['traces']:,}, spans {10 * result.counts['traces']:,}, retrieval steps "
          f"{result.counts['retrieval_steps']:,}: {cpu:.1f} CPU s ({elapsed:.1f} s wall), peak RSS {peak_mb:.0f} MB")
    print("means: " + ", ".join(f"{k} {v:.4f}" for k, v in result.steps.mean.items()))
    _check(folder, result, evaluate)


def read_only(folder: Path) -> None:
    """Read every trace and place it in its turn, keeping nothing: the reader's own time and memory."""
    from rag_eval_adapters.traces import read_traces, turns

    start = time.process_time()
    n = steps = 0
    for turn in turns(read_traces(folder / "traces.jsonl"), history=False):
        n += 1
        steps += len(turn.trace.steps)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"read only: {n:,} traces, {steps:,} steps: {time.process_time() - start:.1f} CPU s, peak RSS {peak_mb:.0f} MB")


def _check(folder: Path, result, evaluate) -> None:
    n = result.counts["traces"]
    qrels: dict = {}
    for line in open(folder / "qrels.txt"):
        key, _, doc, grade = line.split()
        qrels.setdefault(key, {})[doc] = int(grade)
    runs, judged = {}, {}
    for i in range(n):
        _, key, rankings = one_trace(i)
        for step, ranking in enumerate(rankings, 1):
            runs[f"{key}#{step}"], judged[f"{key}#{step}"] = ranking, qrels[key]
    by_hand = evaluate(judged, runs, METRICS)
    if by_hand.per_query != result.steps.per_query:
        print("MISMATCH against evaluate() on the same rankings")
        sys.exit(1)
    print("scores equal evaluate() on the same rankings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--score", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--read", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.score:
        score(Path(args.score))
        return
    if args.read:
        read_only(Path(args.read))
        return
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        write(Path(tmp), args.traces)
        size = (Path(tmp) / "traces.jsonl").stat().st_size / 2**20
        print(f"wrote {args.traces:,} traces ({size:.0f} MB) in {time.perf_counter() - start:.1f} s")
        subprocess.run([sys.executable, __file__, "--read", tmp], check=True)
        subprocess.run([sys.executable, __file__, "--score", tmp], check=True)


if __name__ == "__main__":
    main()
