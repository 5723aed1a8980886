"""The offline demo behind ``rag-eval demo``: two real retrievers, LlamaIndex evaluation, a comparison.

The package ships a small corpus written for the project (``data/corpus.jsonl``: 240 passages on
eight topics), 72 questions (``data/queries.jsonl``) and graded judgments (``data/qrels.jsonl``:
2 = the passage that answers, 1 = another passage on the same subject, 0 = judged not relevant).

:func:`run_demo`

1. wraps a BM25 retriever (``bm25s``) and a character-n-gram TF-IDF retriever (scikit-learn) as
   LlamaIndex retrievers (:mod:`rag_eval_adapters.demo.retrievers` scores,
   :class:`rag_eval_adapters.llamaindex.ScoringRetriever` ranks);
2. evaluates each with LlamaIndex's ``RetrieverEvaluator`` and this package's adapter metrics
   (:func:`rag_eval_adapters.llamaindex.metrics_from_names`,
   :func:`rag_eval_adapters.llamaindex.evaluate_dataset`), relevant = grade >= 1;
3. re-scores the retrieved lists against the graded judgments with the core
   (:func:`rag_eval_adapters.evaluate`): graded nDCG, and "found the answer passage" at level 2;
4. compares the two retrievers with paired tests (:mod:`rag_eval_adapters.compare`);
5. prints the tables and writes a report folder: ``report.json``, ``report.md``,
   ``comparison.png``, the two runs as JSONL and a copy of the judgments.

The data helpers :func:`load_corpus`, :func:`load_queries` and :func:`load_qrels` are public.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Optional, TextIO

from ..measures import default_metric_names

__all__ = ["load_corpus", "load_queries", "load_qrels", "data_path", "run_demo", "DemoResult", "DEMO_METRICS"]

DEMO_K = (1, 3, 5, 10, 20)
DEMO_METRICS = [f"{m}@{k}" for m in default_metric_names() for k in DEMO_K]
GRADED_METRICS = ["ndcg@5", "ndcg@10", "ndcg_exp@10"]
ANSWER_METRICS = ["hit_rate@1", "hit_rate@5", "mrr@10"]  # at relevance level 2: the answer passage


def data_path(name: str) -> Path:
    """Path of a shipped data file: ``corpus.jsonl``, ``queries.jsonl`` or ``qrels.jsonl``."""
    path = Path(str(resources.files(__name__).joinpath("data", name)))
    if not path.is_file():
        raise FileNotFoundError(f"demo data file {name!r} is missing from the installed package ({path})")
    return path


def _read_jsonl(name: str) -> list[dict]:
    with open(data_path(name), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_corpus() -> list[dict]:
    """The demo passages: ``[{"id", "topic", "subject", "text"}, ...]``."""
    return _read_jsonl("corpus.jsonl")


def load_queries() -> dict[str, str]:
    """The demo questions: ``{query_id: text}``."""
    return {row["query_id"]: row["text"] for row in _read_jsonl("queries.jsonl")}


def load_qrels() -> dict[str, dict[str, int]]:
    """The graded judgments: ``{query_id: {passage_id: grade}}`` with grades 0, 1, 2."""
    from ..jsonl import read_jsonl_qrels

    return read_jsonl_qrels(data_path("qrels.jsonl"))


@dataclass
class DemoResult:
    """What :func:`run_demo` computed and where it wrote it."""

    output_dir: Path
    runs: dict[str, dict[str, list[str]]]
    adapter_mean: dict[str, dict[str, float]]
    reports: dict[str, Any]
    graded: dict[str, Any]
    comparison: Any
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    def __repr__(self) -> str:
        return (
            f"DemoResult(output_dir={str(self.output_dir)!r}, retrievers={list(self.runs)}, "
            f"files={[p.name for p in self.files]}, seconds={self.seconds:.1f})"
        )


def _evaluate_with_llamaindex(retriever: Any, queries: dict[str, str], qrels: dict, show_progress: bool):
    """Run LlamaIndex's RetrieverEvaluator with the adapter metrics over every judged query."""
    from ..llamaindex import evaluate_retriever

    qids = [q for q in queries if q in qrels]
    rows = [
        {"query": queries[q], "expected_ids": [d for d, g in qrels[q].items() if g >= 1]} for q in qids
    ]
    result = evaluate_retriever(retriever, rows, DEMO_METRICS, workers=4, show_progress=show_progress)
    run = {qids[index]: list(res.retrieved_ids) for index, res in zip(result.indices, result.results)}
    return result.to_report(query_ids=qids), run, result.mean


def _write_run(path: Path, run: dict[str, list[str]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for qid, docs in run.items():
            handle.write(json.dumps({"query_id": qid, "retrieved_ids": docs}) + "\n")


def _worst(report: Any, queries: dict[str, str], metric: str, n: int = 5) -> list[list[str]]:
    from ..reports import worst_queries

    rows = []
    for qid in worst_queries(report.per_query, metric, report.errors)[:n]:
        value = report.per_query.get(qid, {}).get(metric)
        rows.append([qid, queries.get(qid, ""), "-" if value is None else f"{value:.4f}"])
    return rows


def run_demo(
    output_dir: str | Path = "rag_eval_report",
    *,
    top_k: int = 20,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
    show_progress: bool = False,
    permutations: int = 10_000,
) -> DemoResult:
    """Run the whole demo (see the module docstring) and return what it computed.

    Prints the tables to ``stdout`` (rich, coloured on a terminal) and the report location to
    ``stderr``; writes ``report.json``, ``report.md``, ``comparison.png``, ``bm25.jsonl``,
    ``tfidf.jsonl`` and ``qrels.jsonl`` into ``output_dir`` (created if needed).
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from .. import evaluate
    from ..progress import is_terminal
    from ..compare import Comparison, compare_reports
    from ..reports import (
        comparison_tables,
        evaluation_tables,
        plot_metrics,
        render_comparison,
        render_evaluation,
    )
    from ..llamaindex import ScoringRetriever, nodes_from_records
    from .retrievers import BM25Scorer, TfidfScorer

    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    if not isinstance(top_k, int) or top_k < max(DEMO_K):
        raise ValueError(f"top_k must be an integer of at least {max(DEMO_K)} (the largest cutoff), got {top_k!r}")
    started = time.perf_counter()
    console = Console(file=stdout, width=None if is_terminal(stdout) else 120)
    out = Path(output_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the report folder {out}: {exc.strerror or exc}") from None

    corpus, queries, qrels = load_corpus(), load_queries(), load_qrels()
    nodes = nodes_from_records(corpus)
    texts = [passage["text"] for passage in corpus]
    retrievers = {
        "bm25": ScoringRetriever(nodes, BM25Scorer(texts), top_k=top_k),
        "tfidf": ScoringRetriever(nodes, TfidfScorer(texts), top_k=top_k),
    }
    console.print(
        Text(
            f"rag-eval demo: {len(corpus)} passages, {len(queries)} questions, graded judgments 0/1/2; "
            f"retrievers: bm25 (bm25s) and tfidf (scikit-learn char n-grams), top {top_k}."
        )
    )

    reports: dict[str, Any] = {}
    adapter_mean: dict[str, dict[str, float]] = {}
    runs: dict[str, dict[str, list[str]]] = {}
    graded: dict[str, Any] = {}
    answer: dict[str, Any] = {}
    for name, retriever in retrievers.items():
        report, run, mean = _evaluate_with_llamaindex(retriever, queries, qrels, show_progress)
        reports[name], runs[name], adapter_mean[name] = report, run, mean
        graded[name] = evaluate(qrels, run, GRADED_METRICS)
        answer[name] = evaluate(qrels, run, ANSWER_METRICS, relevance_level=2)
        for renderable in evaluation_tables(
            report, title=f"{name}: LlamaIndex RetrieverEvaluator + rag_eval_adapters metrics (relevant: grade >= 1)"
        ):
            console.print(renderable)

    console.print(Text("Graded judgments (core evaluate): nDCG with grades 0/1/2; 'answer' = the grade-2 passage",
                       style="bold"))
    extra = Table()
    extra.add_column("retriever")
    keys = GRADED_METRICS + [f"answer {k}" for k in ANSWER_METRICS]
    for key in keys:
        extra.add_column(key, justify="right")
    for name in retrievers:
        values = [graded[name].mean[k] for k in GRADED_METRICS] + [answer[name].mean[k] for k in ANSWER_METRICS]
        extra.add_row(name, *[f"{v:.4f}" for v in values])
    console.print(extra)

    comparison = compare_reports(reports, n_permutations=permutations)
    graded_comparison = compare_reports(graded, n_permutations=permutations)
    at10 = [t for t in comparison.tests if t.metric.endswith("@10")]
    at10 += [dataclasses.replace(t, metric=f"{t.metric} graded") for t in graded_comparison.tests]
    short = Comparison(runs=comparison.runs, metrics=[t.metric for t in at10],
                       mean={r: {t.metric: (t.mean_a if r == t.run_a else t.mean_b) for t in at10}
                             for r in comparison.runs},
                       tests=at10, query_ids=comparison.query_ids)
    tables = comparison_tables(short)
    console.print(tables[1])
    console.print(tables[2])

    best = max(retrievers, key=lambda n: graded[n].mean["ndcg@10"])
    console.print(Text(f"Where {best} falls short: its 5 worst questions by graded ndcg@10", style="bold"))
    worst_table = Table()
    for col in ("query", "question", "ndcg@10"):
        worst_table.add_column(col, justify="right" if col == "ndcg@10" else "left")
    for row in _worst(graded[best], queries, "ndcg@10"):
        worst_table.add_row(*row)
    console.print(worst_table)

    files = []
    for name, run in runs.items():
        path = out / f"{name}.jsonl"
        _write_run(path, run)
        files.append(path)
    qrels_copy = out / "qrels.jsonl"
    shutil.copyfile(data_path("qrels.jsonl"), qrels_copy)
    files.append(qrels_copy)
    plot = plot_metrics(comparison.mean, out / "comparison.png",
                        title=f"bm25 vs tfidf on {comparison.n_queries} demo questions (LlamaIndex adapters)")
    files.append(plot)

    seconds = time.perf_counter() - started
    report_json = {
        "data": {"passages": len(corpus), "queries": len(queries), "judged_queries": len(qrels)},
        "metrics": DEMO_METRICS,
        "retrievers": {name: reports[name].to_dict() for name in retrievers},
        "graded": {name: {"mean": {**graded[name].mean, **{f"{k}_answer": v for k, v in answer[name].mean.items()}},
                          "per_query": {str(q): v for q, v in graded[name].per_query.items()}}
                   for name in retrievers},
        "comparison": comparison.to_dict(),
        "graded_comparison": graded_comparison.to_dict(),
        "seconds": round(seconds, 2),
    }
    path = out / "report.json"
    path.write_text(json.dumps(report_json, indent=2) + "\n", encoding="utf-8")
    files.insert(0, path)
    md = ["# rag-eval demo report\n",
          f"{len(corpus)} passages, {len(queries)} questions; retrievers bm25 and tfidf, top {top_k}.\n"]
    for name in retrievers:
        md.append(render_evaluation(reports[name], "markdown", run_name=name))
    md.append("## Comparison (LlamaIndex adapter metrics)\n")
    md.append(render_comparison(comparison, "markdown"))
    md.append("## Comparison (graded nDCG, core)\n")
    md.append(render_comparison(graded_comparison, "markdown"))
    path = out / "report.md"
    path.write_text("\n".join(md), encoding="utf-8")
    files.insert(1, path)

    console.print(Text(f"Full report ({', '.join(p.name for p in files)}) written to {out.resolve()}"), soft_wrap=True)
    console.print(Text(f"Re-score it yourself: rag-eval compare --qrels {out / 'qrels.jsonl'} "
                       f"--run {out / 'bm25.jsonl'} --run {out / 'tfidf.jsonl'} -m ndcg@10 -m mrr@10"), soft_wrap=True)
    print(f"rag-eval: report written to {out.resolve()}", file=stderr)
    return DemoResult(output_dir=out, runs=runs, adapter_mean=adapter_mean, reports=reports, graded=graded,
                      comparison=comparison, files=files, seconds=seconds)
