"""The work stages of a benchmark run, each a function from the values before it to a new value.

chunk (:func:`chunk_documents`) -> retrieve (:func:`retrieve`) -> rerank (:func:`rerank`) -> judge
(:func:`judge`) -> answer (:func:`answer`) -> score (:func:`score`); the plan before them is
:func:`~rag_eval_adapters.bench.planning.plan_run`, the report after them
:func:`~rag_eval_adapters.bench.pipeline.run_bench`'s write step.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from ..progress import progress_bar
from ..testsets import TestCase
from .chunking import Chunk
from .handoffs import Answered, BenchPlan, Chunked, Hits, Judgments, Ranking
from .relevance import build_qrels
from .rerank_step import rerank_hits
from .retrievers import Retriever
from .scoring import ConfigResult, judged_shares, score_config

__all__ = ["chunk_documents", "retrieve", "rerank", "judge", "answer", "score", "distinct_ids"]

Say = Callable[[str], None]
T = TypeVar("T")


def _progress(iterable: Iterable[T], desc: str, total: int | None, enabled: bool) -> Iterable[T]:
    return progress_bar(iterable, total=total, desc=desc, show=enabled)


def distinct_ids(chunks: list[Chunk], chunking: str) -> list[Chunk]:
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


def chunk_documents(plan: BenchPlan, show: bool) -> Chunked:
    """Every chunking's chunks and the judgments of its chunks (a chunking no question has a relevant chunk
    in is a ``ValueError``)."""
    chunks, qrels, unjudged = {}, {}, {}
    for chunker in _progress(plan.chunkings, "chunkings", len(plan.chunkings), show):
        chunks[chunker.name] = distinct_ids(chunker.split(plan.documents), chunker.name)
        qrels[chunker.name], unjudged[chunker.name] = build_qrels(plan.cases, chunks[chunker.name], chunker.name)
        if not qrels[chunker.name]:
            raise ValueError(f"chunking {chunker.name!r}: no test case has a relevant chunk; check the evidence")
    return Chunked(chunks, qrels, unjudged)


def _search(retriever: Retriever, chunks: list[Chunk], cases: Sequence[TestCase], depth: int,
            show: bool) -> tuple[dict[str, Hits], float]:
    """``({query_id: hits}, seconds)``: index the chunks and search every question, 32 at a time."""
    start = time.perf_counter()
    index = retriever.index(chunks)
    hits: list[Hits] = []
    batch = 32
    for i in _progress(range(0, len(cases), batch), f"{retriever.name}: retrieving",
                       (len(cases) + batch - 1) // batch, show):
        hits.extend(index.search([c.query for c in cases[i:i + batch]], depth))
    return {c.query_id: h for c, h in zip(cases, hits, strict=False)}, time.perf_counter() - start


def retrieve(plan: BenchPlan, chunked: Chunked, show: bool, say: Say) -> tuple[Ranking, ...]:
    """Every chunking x retriever run: the top ``max(ks)`` of each question (and, with rerankers, the top
    ``candidates`` it reranks)."""
    settings = plan.settings
    depth = max(settings.depth, settings.candidates if plan.rerankers else 0)
    out = []
    for name, chunks in chunked.chunks.items():
        for retriever in plan.retrievers:
            hits, seconds = _search(retriever, chunks, plan.cases, depth, show)
            top = {q: h[: settings.depth] for q, h in hits.items()}
            out.append(Ranking(f"{name}/{retriever.name}", name, retriever.name, None, top, seconds,
                               hits if plan.rerankers else {}))
            if not show:
                say(f"{out[-1].name}: retrieved for {len(plan.cases)} questions in {seconds:.1f} s")
    return tuple(out)


def rerank(plan: BenchPlan, chunked: Chunked, rankings: Sequence[Ranking], show: bool,
           say: Say) -> tuple[Ranking, ...]:
    """Every retrieval run followed by its reranked runs (one a reranker, over its ``candidates``); a reranked
    run's seconds include its retrieval's."""
    queries = {c.query_id: c.query for c in plan.cases}
    cut, depth = plan.settings.candidates, plan.settings.depth
    out: list[Ranking] = []
    for first in rankings:
        out.append(replace(first, candidates={}))
        texts = {c.chunk_id: c.text for c in chunked.chunks[first.chunking]}
        for scorer, label in plan.rerankers:
            start = time.perf_counter()
            run = {q: rerank_hits(queries[q], h[:cut], texts, scorer, depth)
                   for q, h in _progress(first.candidates.items(), f"{first.retriever}+{label}: reranking",
                                         len(first.candidates), show)}
            seconds = time.perf_counter() - start
            out.append(Ranking(f"{first.name}+{label}", first.chunking, first.retriever, label, run,
                               first.seconds + seconds))
            if not show:
                say(f"{out[-1].name}: reranked in {seconds:.1f} s")
    return tuple(out)


def judge(plan: BenchPlan, chunked: Chunked, rankings: Sequence[Ranking]) -> Judgments:
    """The judgments to score on: the evidence's, or (``judge_unlabelled``) completed by the judge over every
    chunk retrieved within ``max(ks)`` that no evidence labels."""
    if not plan.judge_unlabelled or plan.judge is None:
        return Judgments(dict(chunked.qrels), {})
    from .judging import judge_unlabelled

    filled = judge_unlabelled(rankings, plan.cases, chunked.chunks, chunked.qrels, plan.judge, plan.settings.depth)
    qrels = {**chunked.qrels, **{name: done.qrels for name, done in filled.items()}}
    record = {"unlabelled": {name: {"counts": done.counts, "sources": done.sources,
                                    "unmeasured": {f"{q}\t{d}": why for (q, d), why in done.unmeasured.items()}}
                             for name, done in filled.items()}}
    return Judgments(qrels, record)


def _answer_one(plan: BenchPlan, ranking: Ranking, texts: dict[str, str],
                memo: dict[tuple[str, tuple[str, ...]], str]) -> Answered:
    """One configuration's answers to :attr:`BenchPlan.answer_cases`, scored; ``memo`` answers a question over
    the same texts once for every configuration."""
    from .answer_scores import score_answers

    assert plan.answerer is not None
    k = plan.settings.answer_k
    answered, errors = [], {}
    for case in plan.answer_cases:
        contexts = tuple(texts[d] for d, _ in ranking.run.get(case.query_id, [])[:k])
        key = (case.query, contexts)
        if key not in memo:
            try:
                memo[key] = str(plan.answerer.answer(case.query, list(contexts)))
            except Exception as exc:  # one failed answer is recorded; the others are still scored
                errors[case.query_id] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
                continue
        answered.append((case, memo[key]))
    records = [{"query_id": c.query_id, "prediction": p, "reference": c.answer, "query_type": c.query_type,
                "question": c.query, "contexts": {d: texts[d] for d, _ in ranking.run.get(c.query_id, [])[:k]}}
               for c, p in answered]
    report = score_answers(records, plan.vectors, plan.judge) if records else None
    return Answered(report, errors, {c.query_id: p for c, p in answered})


def answer(plan: BenchPlan, chunked: Chunked, rankings: Sequence[Ranking], show: bool,
           say: Say) -> dict[str, Answered]:
    """Every configuration's answers to the first ``e2e_limit`` questions that have a reference answer
    (``{}`` without an answerer); the same question over the same chunks is answered (and paid for) once."""
    if plan.answerer is None:
        return {}
    chosen, k = plan.answer_cases, plan.settings.answer_k
    texts_of = {name: {c.chunk_id: c.text for c in found} for name, found in chunked.chunks.items()}
    prepare = getattr(plan.answerer, "prepare", None)
    if prepare is not None:  # batch the work of every configuration (E5 embeddings) up front
        prepare([c.query for c in chosen] * len(rankings),
                [[texts_of[r.chunking][d] for d, _ in r.run.get(c.query_id, [])[:k]] for r in rankings for c in chosen])
    memo: dict[tuple[str, tuple[str, ...]], str] = {}
    out = {}
    for ranking in _progress(rankings, "answering", len(rankings), show):
        out[ranking.name] = _answer_one(plan, ranking, texts_of[ranking.chunking], memo)
        if not show:
            say(f"{ranking.name}: answered {len(out[ranking.name].texts)} of {len(chosen)} questions")
    return out


def _config(plan: BenchPlan, ranking: Ranking, qrels: dict[str, dict[str, int]],
            answered: Answered | None) -> ConfigResult:
    from .trust import corrected_config_means, mean_intervals

    settings = plan.settings
    report, by_type = score_config(qrels, ranking.run, plan.cases, settings.ks)
    result = ConfigResult(ranking.name, ranking.chunking, ranking.retriever, ranking.reranker, ranking.run, report,
                          by_type, ranking.seconds,
                          answers=answered.report if answered else None,
                          answer_errors=answered.errors if answered else {},
                          answer_texts=answered.texts if answered else {},
                          judged=judged_shares(qrels, ranking.run, settings.ks))
    intervals = mean_intervals(result, settings.ci, settings.confidence, settings.seed) if settings.ci else {}
    human = (corrected_config_means(result, plan.labels, confidence=settings.confidence)
             if plan.labels is not None else {})
    return replace(result, intervals=intervals, human=human)


def score(plan: BenchPlan, judgments: Judgments, rankings: Sequence[Ranking],
          answers: dict[str, Answered]) -> tuple[ConfigResult, ...]:
    """Every configuration scored on the judgments: retrieval metrics overall and by query type, ``judged@k``,
    its answers, the intervals of its means (``ci``) and its means corrected with human labels."""
    return tuple(_config(plan, r, judgments.qrels[r.chunking], answers.get(r.name)) for r in rankings)
