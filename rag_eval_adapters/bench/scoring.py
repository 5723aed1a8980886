"""Scoring the benchmark's configurations: retrieval metrics overall and by query type, paired tests, and
the plain-language verdict."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from .. import Report, evaluate
from ..compare import compare_per_query
from ..testsets import TestCase

__all__ = ["METRIC_DEFINITIONS", "metric_keys", "ConfigResult", "score_config", "judged_shares", "compare_configs",
           "verdict", "headline_metric"]

METRIC_DEFINITIONS = {
    "hit_rate": "hit rate@k: share of queries with at least one relevant chunk in the top k "
                "(the seed benchmarks call this \"Recall@k\")",
    "recall": "recall@k: relevant chunks in the top k / all relevant chunks of the query (trec_eval recall_k)",
    "precision": "precision@k: relevant chunks in the top k / k (trec_eval P_k)",
    "mrr": "MRR@k: 1 / rank of the first relevant chunk within the top k, else 0",
    "ndcg": "nDCG@k: linear gain = percent of the evidence span a chunk covers (1..100), log2 discount, "
            "ideal ranking from all judged chunks (trec_eval ndcg_cut_k)",
}
RELEVANCE_NOTE = ("relevant = the chunk overlaps an evidence span (or matches an expected text, or is a listed "
                  "chunk id); binary metrics count every such chunk, nDCG weighs it by its grade")


def metric_keys(ks: Sequence[int]) -> list[str]:
    """Every metric at every k, metric by metric, as the registry keys them: ``hit_rate@1, ..., ndcg@20``."""
    from ..measures import parse_metric

    return [parse_metric(f"{m}@{k}").key for m in METRIC_DEFINITIONS for k in ks]


def headline_metric(ks: Sequence[int]) -> str:
    """nDCG at 10 (or at the largest k below 10, else the smallest k): the metric the verdict ranks by."""
    below = [k for k in ks if k <= 10]
    return f"ndcg@{max(below) if below else min(ks)}"


@dataclass(frozen=True)
class ConfigResult:
    """One configuration's run and scores, made whole by the score stage (frozen: a new value, never filled in
    later); ``judged`` its ``judged@k`` (the registry's, see :func:`judged_shares`), ``intervals`` the intervals of its means (``{"retrieval": {"all": {metric:
    MeanInterval}, "by_query_type": {...}}, "answers": {...}}``, with ``BenchSettings.ci``) and ``human`` its
    means corrected with human labels (``{metric: PPIInterval}``)."""

    name: str
    chunking: str
    retriever: str
    reranker: str | None
    run: dict[str, list[tuple[str, float]]]
    report: Report
    by_type: Any = None
    seconds: float = 0.0
    answers: Report | None = None
    answer_errors: dict[str, str] = field(default_factory=dict)
    answer_texts: dict[str, str] = field(default_factory=dict)
    judged: dict[str, float] = field(default_factory=dict)
    intervals: dict[str, Any] = field(default_factory=dict)
    human: dict[str, Any] = field(default_factory=dict)

    @property
    def stage(self) -> str:
        return "reranked" if self.reranker else "retrieval"

    def __repr__(self) -> str:
        return f"ConfigResult({self.name!r}, queries={len(self.report.query_ids)})"


def _evaluate(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[tuple[str, float]]],
              keys: Sequence[str]) -> Report:
    """The core :func:`evaluate` of the judged queries of ``run``."""
    scores = {q: {d: s for d, s in hits} for q, hits in run.items() if q in qrels}
    return evaluate(cast(Mapping[Hashable, Mapping[Hashable, float]], dict(qrels)),
                    cast(Mapping[Hashable, Mapping[Hashable, float]], scores), list(keys))


def score_config(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[tuple[str, float]]],
                 cases: Sequence[TestCase], ks: Sequence[int]) -> tuple[Report, Any]:
    """The core :func:`evaluate` of a run (judged queries only), with each query's ``query_type`` as an
    attribute, and its :meth:`~rag_eval_adapters.Report.by` ``query_type`` groups."""
    types: dict[Hashable, Mapping[str, Any]] = {c.query_id: {"query_type": c.query_type} for c in cases
                                                if c.query_id in qrels}
    overall = _evaluate(qrels, run, metric_keys(ks)).with_attributes(types)
    return overall, overall.by("query_type", n_bootstrap=200)


def judged_shares(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Sequence[tuple[str, float]]],
                  ks: Sequence[int]) -> dict[str, float]:
    """``{"judged@k": share}``: the registry's ``judged@k`` (:class:`~rag_eval_adapters.measures.JudgedShare`,
    its ranking order and tie rule) of each question, averaged over every question of the run; a question
    without judgments (left out of the other scores) counts 0."""
    keys = [f"judged@{k}" for k in ks]
    if not run:
        return dict.fromkeys(keys, 0.0)
    per_query = _evaluate(qrels, run, keys).per_query if any(q in qrels for q in run) else {}
    return {key: sum(values[key] for values in per_query.values()) / len(run) for key in keys}


def compare_configs(results: Sequence[ConfigResult], metrics: Sequence[str], permutations: int,
                    seed: int = 0, correction: str = "holm") -> Any | None:
    """Paired tests (:func:`rag_eval_adapters.compare.compare_per_query`) between every two configurations, each
    metric's p-values adjusted together (Holm's correction by default), as the verdict's are."""
    if len(results) < 2:
        return None
    per_query = {r.name: {str(q): v for q, v in r.report.per_query.items()} for r in results}
    return compare_per_query(per_query, list(metrics), n_permutations=permutations,
                             n_bootstrap=permutations, seed=seed, correction=correction, family="metric")


def verdict(results: Sequence[ConfigResult], metric: str, permutations: int = 2000,
            correction: str = "holm") -> list[str]:
    """The verdict in plain words (:func:`rag_eval_adapters.bench.verdict.verdict`, kept here under its old
    name)."""
    from .verdict import verdict as plain_verdict

    return plain_verdict(results, metric, permutations, correction)
