"""What each stage of a benchmark run hands the next: frozen values, one a stage.

:func:`~rag_eval_adapters.bench.run_bench` runs plan -> chunk -> retrieve -> rerank -> judge -> answer ->
score -> write; each stage takes the values before it and returns a new one (:class:`BenchPlan`,
:class:`Chunked`, :class:`Ranking` tuples, :class:`Judgments`, :class:`Answered` by configuration, the
:class:`~rag_eval_adapters.bench.scoring.ConfigResult` tuple), so no stage fills in what another made. The
protocols name what the run accepts as a component.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..modelcalls import Embedder
from ..report import Report
from ..testsets import TestCase, TestSet
from .chunking import Chunk, Chunking
from .embedding import CachedEmbedder
from .inputs import Document
from .retrievers import Retriever
from .settings import BenchSettings
from .trust import LabelSet

if TYPE_CHECKING:
    from ..judges import LLMJudge

__all__ = ["Answerer", "Scorer", "DocumentSource", "TestsetSource", "ChunkingSpec", "RetrieverSpec",
           "RerankerSpec", "AnswererSpec", "EmbedderSpec", "LabelSource", "Hits", "BenchPlan", "Chunked",
           "Ranking", "Judgments", "Answered"]

Hits = list[tuple[str, float]]
"""One query's ranking: ``(chunk_id, score)`` pairs, best first."""


@runtime_checkable
class Answerer(Protocol):
    """Answers a question from retrieved texts: a ``name`` and ``answer(question, contexts) -> str`` (an optional
    ``prepare(questions, contexts)`` is called once with every question of the run first)."""

    name: str

    def answer(self, question: str, contexts: Sequence[str]) -> str: ...


@runtime_checkable
class Scorer(Protocol):
    """What reranking needs of a :class:`~rag_eval_adapters.rerank.RelevanceScorer`: ``score(query, texts)``."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


DocumentSource = str | os.PathLike | Iterable[Document | Mapping[str, Any]]
"""A JSONL file, a folder of text files, or documents / records with ``doc_id`` and ``text``."""
TestsetSource = str | os.PathLike | TestSet | Iterable[TestCase | Mapping[str, Any]]
"""What :func:`~rag_eval_adapters.testsets.read_testset` reads."""
ChunkingSpec = str | Chunking
"""``"SIZE:OVERLAP"`` or a chunking object."""
RetrieverSpec = str | Retriever
"""A name of :data:`~rag_eval_adapters.bench.components.RETRIEVERS` or a retriever object."""
RerankerSpec = str | Scorer
"""A name of :data:`~rag_eval_adapters.bench.components.RERANKERS` or a relevance scorer."""
AnswererSpec = str | Answerer | None
"""``"extractive"``, an answerer, or None (no answers)."""
EmbedderSpec = str | Embedder | object
"""A name of ``modelcalls.EMBEDDERS``, an Embedder, or a LlamaIndex / LangChain embedding model."""
LabelSource = str | os.PathLike | Mapping[Any, Any] | LabelSet
"""A human-labels JSONL file or ``{run or None: {query_id: {metric: value}}}``."""


@dataclass(frozen=True)
class BenchPlan:
    """The run, checked and resolved before any work: inputs, components, labels.

    ``rerankers`` pairs each scorer with its label (``"lexical"``); ``answerer`` is None when no answers are
    produced; ``labels`` the human labels (checked against the configurations, queries and metrics)."""

    settings: BenchSettings
    documents: list[Document]
    cases: list[TestCase]
    origin: str
    chunkings: list[Chunking]
    retrievers: list[Retriever]
    rerankers: list[tuple[Scorer, str]]
    vectors: CachedEmbedder | None
    answerer: Answerer | None
    judge: LLMJudge | None = None
    judge_unlabelled: bool = False
    labels: LabelSet | None = None
    dense: bool = False

    @property
    def answer_cases(self) -> list[TestCase]:
        """The questions answered: the first ``e2e_limit`` with a reference answer (none without an answerer)."""
        if self.answerer is None:
            return []
        return [c for c in self.cases if c.answer][: self.settings.e2e_limit]

    def configuration_names(self) -> list[str]:
        """Every configuration's name, in the run's order (``s256o32/bm25``, ``s256o32/bm25+lexical``...)."""
        return [f"{c.name}/{r.name}{suffix}" for c in self.chunkings for r in self.retrievers
                for suffix in ["", *(f"+{label}" for _, label in self.rerankers)]]


@dataclass(frozen=True)
class Chunked:
    """Each chunking's chunks, judgments (``{query_id: {chunk_id: grade}}``) and the questions it leaves out
    (``{query_id: reason}``: no chunk of it is relevant)."""

    chunks: dict[str, list[Chunk]]
    qrels: dict[str, dict[str, dict[str, int]]]
    unjudged: dict[str, dict[str, str]]


@dataclass(frozen=True)
class Ranking:
    """One configuration's run (top ``max(ks)`` of each question) and the seconds it took; a retrieval
    configuration also keeps its ``candidates`` (the top ``candidates`` hits) for the rerankers."""

    name: str
    chunking: str
    retriever: str
    reranker: str | None
    run: dict[str, Hits]
    seconds: float
    candidates: dict[str, Hits] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Judgments:
    """The judgments every configuration is scored on (completed by the judge with ``judge_unlabelled``) and
    the record of that judging for ``report.json`` (``{}`` without)."""

    qrels: dict[str, dict[str, dict[str, int]]]
    record: dict[str, Any]


@dataclass(frozen=True)
class Answered:
    """One configuration's answers: their scores (None when none was produced), the failures by query and the
    answer texts by query."""

    report: Report | None
    errors: dict[str, str]
    texts: dict[str, str]
