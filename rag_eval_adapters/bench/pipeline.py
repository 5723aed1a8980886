"""The benchmark run: every chunking x retriever (x reranker), scored, answered, compared and written.

:func:`run_bench` is the Python entry point behind ``rag-eval bench``; see ``docs/bench.md``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..testsets import TestCase
from . import stages
from .chunking import Chunk
from .components import DEFAULT_RERANKERS, DEFAULT_RETRIEVERS
from .handoffs import (
    AnswererSpec,
    BenchPlan,
    ChunkingSpec,
    DocumentSource,
    EmbedderSpec,
    Judgments,
    LabelSource,
    RerankerSpec,
    RetrieverSpec,
    TestsetSource,
)
from .inputs import Document, check_output_location
from .interrupt import StopAfterBatch
from .left_out import left_out, left_out_lines
from .planning import default_cache_dir, plan_run
from .scoring import ConfigResult
from .settings import EVAL_MODES, BenchSettings
from .workload import EmbeddingProbe, batch_size, embed_shared, plan_and_probe

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..judges import LLMJudge

__all__ = ["BenchSettings", "BenchResult", "run_bench", "EVAL_MODES"]


@dataclass
class BenchResult:
    """What :func:`run_bench` computed: per configuration results, the comparison, the verdict, the files.

    Made whole by the run's last stages (the write stage returns a copy with ``files`` and ``output_dir``)."""

    results: list[ConfigResult]
    cases: list[TestCase]
    documents: list[Document]
    chunks: dict[str, list[Chunk]]
    qrels: dict[str, dict[str, dict[str, int]]]
    unjudged: dict[str, dict[str, str]]
    settings: BenchSettings
    comparison: Comparison | None = None
    verdict: list[str] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    output_dir: Path | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    judgments: dict[str, Any] = field(default_factory=dict)
    human_labels: dict[str, Any] = field(default_factory=dict)
    left_out: list[dict[str, Any]] = field(default_factory=list)
    """The questions left out of the scores, by chunking and reason (:func:`~.left_out.left_out`)."""

    def result(self, name: str) -> ConfigResult:
        """The configuration called ``name`` (``"s256o32/bm25"``, ``"s256o32/bm25+lexical"``)."""
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(f"no configuration {name!r}; there are {[r.name for r in self.results]}")

    def __repr__(self) -> str:
        return (f"BenchResult(configurations={[r.name for r in self.results]}, queries={len(self.cases)}, "
                f"output_dir={str(self.output_dir) if self.output_dir else None!r})")


def run_bench(
    documents: DocumentSource,
    testset: TestsetSource,
    *,
    chunkings: Sequence[ChunkingSpec] = ("256:32", "512:64"),
    retrievers: Sequence[RetrieverSpec] = DEFAULT_RETRIEVERS,
    rerankers: Sequence[RerankerSpec] = DEFAULT_RERANKERS,
    settings: BenchSettings | None = None,
    answerer: AnswererSpec = "extractive",
    embedder: EmbedderSpec | None = None,
    output_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    show_progress: bool = False,
    judge: LLMJudge | None = None,
    judge_unlabelled: bool = False,
    human_labels: LabelSource | None = None,
    log: Callable[[str], None] | None = None,
) -> BenchResult:
    """Benchmark every chunking x retriever (x reranker) on a test set; write the report folder.

    Parameters
    ----------
    documents : path or records
        A JSONL file, a folder of ``.txt``/``.md`` files, or records with ``doc_id`` and ``text``.
    testset : path, TestSet or records
        Anything :func:`rag_eval_adapters.testsets.read_testset` reads: a test-set JSONL (``query_id``,
        ``query``, ``query_type``, ``answer`` and evidence spans, evidence texts or chunk ids), the
        ``TestSet`` that ``generate_testset`` returns, or ``TestCase`` objects / records of the line's shape.
    chunkings : sequence
        ``"SIZE:OVERLAP"`` strings (LlamaIndex ``SentenceSplitter``) or chunking objects.
    retrievers : sequence
        ``"bm25"``, ``"e5"``, ``"hybrid"`` or retriever objects (LlamaIndex / LangChain adapters).
    rerankers : sequence
        ``"lexical"``, ``"e5"``, ``"cohere"`` or any ``RelevanceScorer``; each adds a reranked configuration.
    settings : BenchSettings
        Cutoffs, candidates, eval mode, answer limit, permutations.
    answerer : "extractive", None or an answerer
        How answers are produced for the first ``settings.e2e_limit`` questions (None: no answers).
    embedder, cache_dir
        The embedder (default: offline E5; a name of ``modelcalls.EMBEDDERS`` such as ``"openai:MODEL"``, an
        Embedder, or a LlamaIndex / LangChain embedding model) and the folder of its vector cache (default, with
        an ``output_dir``: the shared cache folder of :func:`rag_eval_adapters.cachedir.default_cache_dir`, keyed
        by model, so a new report folder embeds nothing already embedded; without: in memory).
    judge : LLMJudge, optional
        Also score the answers for faithfulness and answer correctness (see :mod:`.judging`).
    judge_unlabelled : bool
        With ``judge``: grade the retrieved chunks that no evidence labels, and score on the completed
        judgments (each judgment keeps its source; ``judged@k`` shows the coverage).
    output_dir : path, optional
        Where ``report.json``, ``report.md``, ``report.txt``, charts, runs and qrels are written; not inside a
        documents folder (``ValueError``: a second run would read the reports as documents).
    human_labels : path or mapping, optional
        Human labels of some queries (JSONL, :func:`~rag_eval_adapters.human_labels.read_human_labels`, or
        ``{run or None: {query_id: {metric: value}}}``), a line's ``run`` a configuration name (none: every
        configuration): each configuration's labelled metrics (retrieval or answer metrics) get their mean
        corrected with PPI++ (``ConfigResult.human``, at ``settings.confidence``). A label of an unknown
        configuration, query or metric is a ``ValueError`` naming the line.
    show_progress : bool
        Progress bars (on a terminal).
    log : callable, optional
        Called with plain progress lines: the plan up front (texts to embed, how many are cached, scorer and
        answer calls) and, when no bar is shown, one line a step.

    Timings: work shared by configurations (embedding every chunk and question for the dense retrievers) is
    timed once, in ``timings["shared_s"]``; ``per_configuration_s`` holds each configuration's own work.
    """
    settings = settings or BenchSettings()
    say = log or (lambda line: None)
    show = show_progress
    clock = {"start": time.perf_counter()}
    check_output_location(documents, output_dir)
    plan = plan_run(documents, testset, chunkings=chunkings, retrievers=retrievers, rerankers=rerankers,
                    settings=settings, answerer=answerer, embedder=embedder,
                    cache_dir=default_cache_dir(output_dir, cache_dir), judge=judge,
                    judge_unlabelled=judge_unlabelled, human_labels=human_labels)
    chunked = stages.chunk_documents(plan, show)
    line, probe = _plan_line(plan, chunked.chunks)
    say(line)
    for line in left_out_lines({"left_out": left_out(plan.cases, chunked.unjudged)}):
        say(line)
    with StopAfterBatch(say) as stop:  # Ctrl-C: said at once, obeyed at the next batch, the batches kept
        shared = (embed_shared(plan.vectors, chunked.chunks, plan.cases, say, show, batch=batch_size(probe),
                               stop=stop) if plan.dense else {})
    if probe is not None:  # the texts timed for the plan's estimate are part of that shared work
        shared[probe.label] = shared.get(probe.label, 0.0) + probe.total_seconds
    rankings = stages.rerank(plan, chunked, stages.retrieve(plan, chunked, show, say), show, say)
    judgments = stages.judge(plan, chunked, rankings)
    clock["retrieval"] = time.perf_counter()
    answered = stages.answer(plan, chunked, rankings, show, say)
    clock["answers"] = time.perf_counter()
    result = _finish(plan, chunked, judgments, stages.score(plan, judgments, rankings, answered), clock,
                     documents, testset, shared)
    return result if output_dir is None else write(result, Path(output_dir), say)


def _plan_line(plan: BenchPlan, chunks: dict[str, list[Chunk]]) -> tuple[str, EmbeddingProbe | None]:
    """The plan: questions, chunks, configurations, texts to embed and the time that takes at the rate measured
    on a few of them, scorer and answer calls."""
    retrieval = len(chunks) * len(plan.retrievers)
    return plan_and_probe(chunks, plan.cases, configurations=retrieval * (1 + len(plan.rerankers)),
                          retrieval_configurations=retrieval, rerankers=len(plan.rerankers), dense=plan.dense,
                          vectors=plan.vectors, answers=len(plan.answer_cases),
                          answerer=getattr(plan.answerer, "name", None))


def write(result: BenchResult, output_dir: Path, say: Callable[[str], None]) -> BenchResult:
    """The write stage: the report folder written (:func:`~.report_files.write_report_files`); returns the
    result with its ``files`` and ``output_dir``."""
    from .report_files import write_report_files

    say(f"writing the report to {output_dir}")
    return replace(result, files=write_report_files(result, output_dir), output_dir=output_dir)


def _judgment_record(plan: BenchPlan, judgments: Judgments) -> dict[str, Any]:
    record = dict(judgments.record)
    if plan.judge is not None:
        answer_model = getattr(getattr(plan.answerer, "llm", None), "name", None)  # an LLM answerer's model
        record["judge"] = {**plan.judge.describe(answer_model), "usage": plan.judge.usage.to_dict()}
    return record


def _human_record(plan: BenchPlan, results: Sequence[ConfigResult]) -> dict[str, Any]:
    if plan.labels is None:
        return {}
    from .trust import uncorrected

    labels = plan.labels
    return {"source": labels.source, "lines": labels.count, "method": "ppi++", "confidence": plan.settings.confidence,
            "not_corrected": {r.name: why for r in results if (why := uncorrected(r, labels))}}


def _timings(clock: dict[str, float], results: Sequence[ConfigResult],
             shared: dict[str, float]) -> dict[str, Any]:
    now = time.perf_counter()
    return {"retrieval_and_rerank_s": round(clock["retrieval"] - clock["start"], 3),
            "answers_s": round(clock["answers"] - clock["retrieval"], 3),
            "scoring_s": round(now - clock["answers"], 3),
            "total_s": round(now - clock["start"], 3),
            "per_configuration_s": {r.name: round(r.seconds, 3) for r in results},
            "shared_s": {label: round(seconds, 3) for label, seconds in shared.items()}}


def _finish(plan: BenchPlan, chunked: stages.Chunked, judgments: Judgments, results: Sequence[ConfigResult],
            clock: dict[str, float], documents: DocumentSource, testset: TestsetSource,
            shared: dict[str, float]) -> BenchResult:
    """The :class:`BenchResult`: the comparison, the verdict, timings, usage and provenance of the scored
    configurations."""
    from .provenance import provenance, usage_of
    from .scoring import compare_configs, headline_metric, verdict

    settings, results = plan.settings, list(results)
    metric = headline_metric(settings.ks)
    comparison = compare_configs(results, [metric, f"hit_rate@{settings.ks[min(2, len(settings.ks) - 1)]}"],
                                 settings.permutations, settings.seed, settings.correction)
    said = verdict(results, metric, settings.permutations, settings.correction) if results else []
    result = BenchResult(results, plan.cases, plan.documents, chunked.chunks, judgments.qrels, chunked.unjudged,
                         settings, comparison, said, judgments=_judgment_record(plan, judgments),
                         human_labels=_human_record(plan, results),
                         usage=usage_of(plan.rerankers, plan.answerer, plan.vectors),
                         left_out=left_out(plan.cases, chunked.unjudged))
    return replace(result, provenance=provenance(result, documents, testset, plan.origin),
                   timings=_timings(clock, results, shared))
