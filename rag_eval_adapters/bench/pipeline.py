"""The benchmark run: every chunking x retriever (x reranker), scored, answered, compared and written.

:func:`run_bench` is the Python entry point behind ``rag-eval bench``; see ``docs/bench.md``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cachedir import default_cache_dir
from ..modelcalls import resolve_embedder
from ..progress import progress_bar
from ..testsets import QUESTION_TYPES, TestCase, TestSet, read_testset
from ..validation import check_count
from .answering import ExtractiveAnswerer
from .chunking import Chunk, as_chunking
from .components import DEFAULT_RERANKERS, DEFAULT_RETRIEVERS, needs_embedder
from .embedding import CachedEmbedder, default_embedder
from .inputs import Document, check_output_location, check_spans, load_documents
from .judging import judge_unlabelled, judged_share
from .relevance import build_qrels
from .rerank_step import rerank_hits, resolve_reranker
from .retrievers import resolve_retriever, share_parts
from .scoring import ConfigResult, score_config
from .workload import embed_shared, plan_line

__all__ = ["BenchSettings", "BenchResult", "run_bench", "EVAL_MODES"]

EVAL_MODES = {"all": QUESTION_TYPES, "literal": ("literal",),
              "semantic": ("paraphrase", "scenario")}


@dataclass
class BenchSettings:
    """Every setting of a benchmark run (recorded in ``report.json``).

    ``ci`` gives every mean of the report its interval (``"t"``, ``"normal"`` or ``"bootstrap"``, named in the
    tables; None: none) and ``confidence`` their coverage, also that of the means corrected with human labels.
    """

    ks: tuple[int, ...] = (1, 3, 5, 10, 20)
    candidates: int = 50
    eval_mode: str = "all"
    e2e_limit: int | None = 20
    answer_k: int = 3
    permutations: int = 2000
    worst: int = 5
    seed: int = 0
    correction: str = "holm"
    ci: str | None = None
    confidence: float = 0.95

    def __post_init__(self) -> None:
        from ..intervals import INTERVAL_METHODS, check_confidence
        from ..multitest import check_correction

        self.correction = check_correction(self.correction)
        if self.ci is not None and self.ci not in INTERVAL_METHODS:
            raise ValueError(f"ci must be None or one of {', '.join(INTERVAL_METHODS)}, got {self.ci!r}")
        self.confidence = check_confidence(self.confidence)
        if self.eval_mode not in EVAL_MODES:
            raise ValueError(f"eval_mode must be one of {', '.join(EVAL_MODES)}, got {self.eval_mode!r}")
        if not self.ks:
            raise ValueError(f"ks must be positive integers, got {self.ks!r}")
        self.ks = tuple(sorted({check_count(k, f"each of ks {self.ks!r}") for k in self.ks}))
        for name in ("candidates", "answer_k", "permutations"):
            check_count(getattr(self, name), name)
        if self.e2e_limit is not None:
            check_count(self.e2e_limit, "e2e_limit", minimum=0)


@dataclass
class BenchResult:
    """What :func:`run_bench` computed: per configuration results, the comparison, the verdict, the files."""

    results: list[ConfigResult]
    cases: list[TestCase]
    documents: list[Document]
    chunks: dict[str, list[Chunk]]
    qrels: dict[str, dict[str, dict[str, int]]]
    unjudged: dict[str, dict[str, str]]
    settings: BenchSettings
    comparison: Any = None
    verdict: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    output_dir: Path | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    judgments: dict[str, Any] = field(default_factory=dict)
    human_labels: dict[str, Any] = field(default_factory=dict)

    def result(self, name: str) -> ConfigResult:
        """The configuration called ``name`` (``"s256o32/bm25"``, ``"s256o32/bm25+lexical"``)."""
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(f"no configuration {name!r}; there are {[r.name for r in self.results]}")

    def __repr__(self) -> str:
        return (f"BenchResult(configurations={[r.name for r in self.results]}, queries={len(self.cases)}, "
                f"output_dir={str(self.output_dir) if self.output_dir else None!r})")


def _progress(iterable: Iterable, desc: str, total: int | None, enabled: bool) -> Iterable:
    return progress_bar(iterable, total=total, desc=desc, show=enabled)


def _inputs(documents: Any, testset: Any, eval_mode: str) -> tuple[list[Document], list[TestCase], str]:
    docs = load_documents(documents)
    cases = list(read_testset(testset))
    if isinstance(testset, (str, os.PathLike)):
        origin = str(testset)
    else:
        origin = "TestSet" if isinstance(testset, TestSet) else "records"
    check_spans(cases, docs)
    for case in cases:
        if re.search(r"\s", case.query_id) or not case.query_id:
            where = f"line {case.line}: " if case.line else ""
            raise ValueError(f"{where}query id {case.query_id!r} is empty or holds white space, which a TREC run or "
                             "qrels line cannot hold (it would split the line into more fields); rename the query")
    kept = [c for c in cases if c.query_type in EVAL_MODES[eval_mode]]
    if not kept:
        raise ValueError(f"--eval-mode {eval_mode}: the test set has no {' or '.join(EVAL_MODES[eval_mode])} "
                         "question")
    return docs, kept, origin


def _run_retriever(retriever: Any, chunks: list[Chunk], cases: list[TestCase], depth: int, show: bool):
    """``({query_id: hits}, seconds)``: index the chunks and search every question, 32 at a time."""
    start = time.perf_counter()
    index = retriever.index(chunks)
    hits: list = []
    batch = 32
    for i in _progress(range(0, len(cases), batch), f"{retriever.name}: retrieving",
                       (len(cases) + batch - 1) // batch, show):
        hits.extend(index.search([c.query for c in cases[i:i + batch]], depth))
    return {c.query_id: h for c, h in zip(cases, hits, strict=False)}, time.perf_counter() - start


def _configs_for_chunking(name: str, chunks: list[Chunk], cases: list[TestCase], qrels: dict, retrievers: list,
                          rerankers: list, settings: BenchSettings, show: bool,
                          say: Callable[[str], None]) -> list[ConfigResult]:
    results = []
    texts = {c.chunk_id: c.text for c in chunks}
    depth = max(max(settings.ks), settings.candidates if rerankers else 0)
    for retriever in retrievers:
        hits, seconds = _run_retriever(retriever, chunks, cases, depth, show)
        top = {q: h[: max(settings.ks)] for q, h in hits.items()}
        overall, by_type = score_config(qrels, top, cases, settings.ks)
        results.append(ConfigResult(f"{name}/{retriever.name}", name, retriever.name, None, top, overall,
                                    by_type, seconds))
        if not show:
            say(f"{results[-1].name}: retrieved for {len(cases)} questions in {seconds:.1f} s")
        for scorer, label in rerankers:
            start = time.perf_counter()
            queries = {c.query_id: c.query for c in cases}
            reranked = {q: rerank_hits(queries[q], h[: settings.candidates], texts, scorer, max(settings.ks))
                        for q, h in _progress(hits.items(), f"{retriever.name}+{label}: reranking", len(hits), show)}
            overall, by_type = score_config(qrels, reranked, cases, settings.ks)
            results.append(ConfigResult(f"{name}/{retriever.name}+{label}", name, retriever.name, label,
                                        reranked, overall, by_type, seconds + time.perf_counter() - start))
            if not show:
                say(f"{results[-1].name}: reranked in {time.perf_counter() - start:.1f} s")
    return results


def _answer_all(results: list[ConfigResult], cases: list[TestCase], chunks: dict[str, list[Chunk]], answerer: Any,
                embedder: Any, settings: BenchSettings, show: bool, say: Callable[[str], None],
                judge: Any = None) -> None:
    """Answer the first ``e2e_limit`` questions (that have a reference answer) in every configuration."""
    from .answer_scores import score_answers

    chosen = [c for c in cases if c.answer][: settings.e2e_limit]
    memo: dict[tuple, str] = {}  # the same question over the same chunks is answered (and paid for) once
    if hasattr(answerer, "prepare"):  # batch the work of every configuration (E5 embeddings) up front
        texts_of = {name: {c.chunk_id: c.text for c in found} for name, found in chunks.items()}
        answerer.prepare([c.query for c in chosen] * len(results),
                         [[texts_of[r.chunking][d] for d, _ in r.run.get(c.query_id, [])[: settings.answer_k]]
                          for r in results for c in chosen])
    for result in _progress(results, "answering", len(results), show):
        texts = {c.chunk_id: c.text for c in chunks[result.chunking]}
        answered, errors = [], {}
        for case in chosen:
            contexts = tuple(texts[d] for d, _ in result.run.get(case.query_id, [])[: settings.answer_k])
            key = (case.query, contexts)
            if key not in memo:
                try:
                    memo[key] = str(answerer.answer(case.query, list(contexts)))
                except Exception as exc:  # one failed answer is recorded; the others are still scored
                    errors[case.query_id] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
                    continue
            answered.append((case, memo[key]))
        records = [{"query_id": c.query_id, "prediction": p, "reference": c.answer, "query_type": c.query_type,
                    "question": c.query, "contexts": {d: texts[d] for d, _ in result.run.get(c.query_id, [])
                                                      [: settings.answer_k]}} for c, p in answered]
        result.answers = score_answers(records, embedder, judge) if records else None
        result.answer_errors = errors
        result.answer_texts = {c.query_id: p for c, p in answered}
        if not show:
            say(f"{result.name}: answered {len(answered)} of {len(chosen)} questions")


def run_bench(
    documents: Any,
    testset: Any,
    *,
    chunkings: Sequence[Any] = ("256:32", "512:64"),
    retrievers: Sequence[Any] = DEFAULT_RETRIEVERS,
    rerankers: Sequence[Any] = DEFAULT_RERANKERS,
    settings: BenchSettings | None = None,
    answerer: Any = "extractive",
    embedder: Any = None,
    output_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    show_progress: bool = False,
    judge: Any = None,
    judge_unlabelled: bool = False,
    human_labels: Any = None,
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
    clock = {"start": time.perf_counter()}
    check_output_location(documents, output_dir)
    docs, cases, origin = _inputs(documents, testset, settings.eval_mode)
    chunkers = [as_chunking(c) for c in chunkings]  # a bad chunking is refused before any folder is made
    _unique([c.name for c in chunkers], "chunking")
    e2e = bool(settings.e2e_limit) and answerer is not None and any(c.answer for c in cases)
    rerank_specs = list(rerankers)
    cache_dir = cache_dir or (default_cache_dir() if output_dir else None)  # one folder shared by every run
    vectors = None
    if embedder is not None or e2e or needs_embedder(retrievers, rerank_specs):
        vectors = CachedEmbedder(default_embedder() if embedder is None else resolve_embedder(embedder), cache_dir)
    retriever_objs = share_parts([resolve_retriever(r, vectors, settings.candidates) for r in retrievers])
    scorers = [(resolve_reranker(r, vectors), r if isinstance(r, str) else getattr(r, "name", "rerank"))
               for r in rerank_specs]
    _unique([r.name for r in retriever_objs], "retriever")
    labels = None
    if human_labels is not None:
        from .answer_scores import answer_metric_keys
        from .scoring import metric_keys
        from .trust import check_labels, load_labels

        labels = load_labels(human_labels)
        names = [f"{c.name}/{r.name}{suffix}" for c in chunkers for r in retriever_objs
                 for suffix in ["", *(f"+{label}" for _, label in scorers)]]
        check_labels(labels, names, [c.query_id for c in cases], metric_keys(settings.ks),
                     answer_metric_keys(judge) if e2e else [])
    chunks, qrels, unjudged, results = {}, {}, {}, []
    for chunker in _progress(chunkers, "chunkings", len(chunkers), show_progress):
        chunks[chunker.name] = _distinct_ids(chunker.split(docs), chunker.name)
        qrels[chunker.name], unjudged[chunker.name] = build_qrels(cases, chunks[chunker.name], chunker.name)
        if not qrels[chunker.name]:
            raise ValueError(f"chunking {chunker.name!r}: no test case has a relevant chunk; check the evidence")
    dense = vectors is not None and needs_embedder(retrievers, ())
    chosen = None
    if e2e:
        chosen = ExtractiveAnswerer(vectors) if answerer == "extractive" else answerer
    n_answers = len([c for c in cases if c.answer][: settings.e2e_limit]) if e2e else 0
    say(plan_line(chunks, cases, configurations=len(chunks) * len(retriever_objs) * (1 + len(scorers)),
                  retrieval_configurations=len(chunks) * len(retriever_objs), rerankers=len(scorers), dense=dense,
                  vectors=vectors, answers=n_answers, answerer=getattr(chosen, "name", None)))
    shared = embed_shared(vectors, chunks, cases, say, show_progress) if dense else {}
    for name, found in chunks.items():
        results += _configs_for_chunking(name, found, cases, qrels[name], retriever_objs, scorers, settings,
                                         show_progress, say)
    if judge_unlabelled and judge is None:
        raise ValueError("judge_unlabelled needs a judge (an LLMJudge)")
    judgments = _judge_unlabelled(results, cases, chunks, qrels, judge, settings) if judge_unlabelled else {}
    for r in results:
        r.judged = {f"judged@{k}": judged_share(qrels[r.chunking], r.run, k) for k in settings.ks}
    clock["retrieval"] = time.perf_counter()
    if e2e:
        _answer_all(results, cases, chunks, chosen, vectors, settings, show_progress, say, judge)
    clock["answers"] = time.perf_counter()
    _trust(results, settings, labels)
    result = BenchResult(results, cases, docs, chunks, qrels, unjudged, settings, output_dir=None,
                         judgments=judgments)
    if labels is not None:
        from .trust import uncorrected

        result.human_labels = {"source": labels.source, "lines": labels.count, "method": "ppi++",
                               "confidence": settings.confidence,
                               "not_corrected": {r.name: why for r in results if (why := uncorrected(r, labels))}}
    if judge is not None:
        answer_model = getattr(getattr(chosen, "llm", None), "name", None)  # an LLM answerer's model
        result.judgments["judge"] = {**judge.describe(answer_model), "usage": judge.usage.to_dict()}
    _finish(result, clock, origin, documents, testset, scorers, chosen, vectors)
    result.timings["shared_s"] = {label: round(seconds, 3) for label, seconds in shared.items()}
    if output_dir is not None:
        from .report_files import write_report

        say(f"writing the report to {output_dir}")
        write_report(result, Path(output_dir))
    return result


def _trust(results: list[ConfigResult], settings: BenchSettings, labels: Any) -> None:
    """Each configuration's intervals (``settings.ci``) and means corrected with the human labels."""
    from .trust import corrected_config_means, mean_intervals

    for r in results:
        if settings.ci:
            r.intervals = mean_intervals(r, settings.ci, settings.confidence, settings.seed)
        if labels is not None:
            r.human = corrected_config_means(r, labels, confidence=settings.confidence)


def _judge_unlabelled(results: list[ConfigResult], cases: list[TestCase], chunks: dict, qrels: dict, judge: Any,
                      settings: BenchSettings) -> dict[str, Any]:
    """Grade the unlabelled retrieved chunks of every chunking, complete its judgments and score again."""
    filled = judge_unlabelled(results, cases, chunks, qrels, judge, max(settings.ks))
    for name, done in filled.items():
        qrels[name] = done.qrels
    for r in results:
        r.report, r.by_type = score_config(qrels[r.chunking], r.run, cases, settings.ks)
    return {"unlabelled": {name: {"counts": done.counts, "sources": done.sources,
                                  "unmeasured": {f"{q}\t{d}": why for (q, d), why in done.unmeasured.items()}}
                           for name, done in filled.items()}}


def _distinct_ids(chunks: list[Chunk], chunking: str) -> list[Chunk]:
    """``chunks``, refused (``ValueError``) when two share an id or an id holds white space (TREC files would
    merge them, or split the line)."""
    seen: dict[str, Chunk] = {}
    for chunk in chunks:
        if re.search(r"\s", chunk.chunk_id) or not chunk.chunk_id:
            raise ValueError(f"chunking {chunking!r}: chunk id {chunk.chunk_id!r} is empty or holds white space, "
                             "which a TREC line cannot hold")
        if chunk.chunk_id in seen:
            first = seen[chunk.chunk_id]
            raise ValueError(f"chunking {chunking!r}: two chunks share the id {chunk.chunk_id!r} (documents "
                             f"{first.doc_id!r} and {chunk.doc_id!r}); every chunk needs its own id")
        seen[chunk.chunk_id] = chunk
    return chunks


def _unique(names: list[str], what: str) -> None:
    seen = [n for i, n in enumerate(names) if n in names[:i]]
    if seen:
        raise ValueError(f"two {what}s are both called {seen[0]!r}; give each its own name")


def _finish(result: BenchResult, clock: dict, origin: str, documents: Any, testset: Any, scorers: list,
            answerer: Any, vectors: Any) -> None:
    from .provenance import provenance, usage_of
    from .scoring import compare_configs, headline_metric, verdict

    settings = result.settings
    metric = headline_metric(settings.ks)
    result.comparison = compare_configs(result.results, [metric, f"hit_rate@{settings.ks[min(2, len(settings.ks) - 1)]}"],
                                        settings.permutations, settings.seed, settings.correction)
    result.verdict = (verdict(result.results, metric, settings.permutations, settings.correction)
                      if result.results else [])
    now = time.perf_counter()
    result.timings = {"retrieval_and_rerank_s": round(clock["retrieval"] - clock["start"], 3),
                      "answers_s": round(clock["answers"] - clock["retrieval"], 3),
                      "scoring_s": round(now - clock["answers"], 3),
                      "total_s": round(now - clock["start"], 3),
                      "per_configuration_s": {r.name: round(r.seconds, 3) for r in result.results}}
    result.usage = usage_of(scorers, answerer, vectors)
    result.provenance = provenance(result, documents, testset, origin)
