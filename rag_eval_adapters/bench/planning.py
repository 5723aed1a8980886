"""The first stage of a benchmark run: read and check the inputs, resolve every component, check the labels.

Everything that can be refused is refused here, before any chunk is made or any folder written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..modelcalls import resolve_embedder
from ..testsets import TestCase, TestSet, read_testset
from .answering import ExtractiveAnswerer
from .chunking import as_chunking
from .components import needs_embedder
from .embedding import CachedEmbedder, default_embedder
from .handoffs import (
    AnswererSpec,
    BenchPlan,
    ChunkingSpec,
    DocumentSource,
    EmbedderSpec,
    LabelSource,
    RerankerSpec,
    RetrieverSpec,
    TestsetSource,
)
from .inputs import Document, check_spans, load_documents
from .rerank_step import resolve_reranker
from .retrievers import resolve_retriever, share_parts
from .settings import EVAL_MODES, BenchSettings

if TYPE_CHECKING:
    from ..judges import LLMJudge
    from .trust import LabelSet

__all__ = ["read_inputs", "plan_run", "unique_names"]


def read_inputs(documents: DocumentSource, testset: TestsetSource,
                eval_mode: str) -> tuple[list[Document], list[TestCase], str]:
    """``(documents, the cases of the evaluation mode, where the test set came from)``; a query id a TREC line
    cannot hold, or a mode without questions, is a ``ValueError``."""
    docs = load_documents(Path(documents) if isinstance(documents, os.PathLike) else documents)
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


def unique_names(names: Sequence[str], what: str) -> None:
    """Refuse (``ValueError``) two components of one kind with the same name."""
    seen = [n for i, n in enumerate(names) if n in names[:i]]
    if seen:
        raise ValueError(f"two {what}s are both called {seen[0]!r}; give each its own name")


def _vectors(embedder: EmbedderSpec | None, needed: bool,
             cache_dir: str | os.PathLike | None) -> CachedEmbedder | None:
    if embedder is None and not needed:
        return None
    return CachedEmbedder(default_embedder() if embedder is None else resolve_embedder(embedder), cache_dir)


def _labels(human_labels: LabelSource, plan: BenchPlan) -> LabelSet:
    from .answer_scores import answer_metric_keys
    from .scoring import metric_keys
    from .trust import check_labels, load_labels

    labels = load_labels(human_labels)
    check_labels(labels, plan.configuration_names(), [c.query_id for c in plan.cases],
                 metric_keys(plan.settings.ks), answer_metric_keys(plan.judge) if plan.answerer is not None else [])
    return labels


def plan_run(documents: DocumentSource, testset: TestsetSource, *, chunkings: Sequence[ChunkingSpec],
             retrievers: Sequence[RetrieverSpec], rerankers: Sequence[RerankerSpec], settings: BenchSettings,
             answerer: AnswererSpec, embedder: EmbedderSpec | None, cache_dir: str | os.PathLike | None,
             judge: LLMJudge | None, judge_unlabelled: bool, human_labels: LabelSource | None) -> BenchPlan:
    """The :class:`BenchPlan` of a run: inputs read and checked, chunkings, retrievers, rerankers, the embedder
    (behind its cache), the answerer and the human labels resolved; names checked unique."""
    from dataclasses import replace

    docs, cases, origin = read_inputs(documents, testset, settings.eval_mode)
    chunkers = [as_chunking(c) for c in chunkings]  # a bad chunking is refused before any folder is made
    unique_names([c.name for c in chunkers], "chunking")
    e2e = bool(settings.e2e_limit) and answerer is not None and any(c.answer for c in cases)
    specs = list(rerankers)
    vectors = _vectors(embedder, e2e or needs_embedder(retrievers, specs), cache_dir)
    found = share_parts([resolve_retriever(r, vectors, settings.candidates) for r in retrievers])
    unique_names([r.name for r in found], "retriever")
    scorers = [(resolve_reranker(r, vectors), r if isinstance(r, str) else str(getattr(r, "name", "rerank")))
               for r in specs]
    if judge_unlabelled and judge is None:
        raise ValueError("judge_unlabelled needs a judge (an LLMJudge)")
    chosen = None
    if e2e:
        chosen = ExtractiveAnswerer(vectors) if answerer == "extractive" else answerer
    plan = BenchPlan(settings, docs, cases, origin, chunkers, found, scorers, vectors, chosen,  # type: ignore[arg-type]
                     judge, judge_unlabelled, dense=vectors is not None and needs_embedder(retrievers, ()))
    return plan if human_labels is None else replace(plan, labels=_labels(human_labels, plan))


def default_cache_dir(output_dir: str | os.PathLike | None,
                      cache_dir: str | os.PathLike | None) -> str | os.PathLike | None:
    """The embedding cache's folder: ``cache_dir``, else (a run that writes a report folder) the shared cache folder
    of :func:`rag_eval_adapters.cachedir.default_cache_dir`, keyed by model, else none (memory only)."""
    from ..cachedir import default_cache_dir as shared_cache_dir

    return cache_dir or (shared_cache_dir() if output_dir else None)
