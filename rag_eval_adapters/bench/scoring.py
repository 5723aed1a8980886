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


def _ranked(reports: Mapping[str, Report], metric: str) -> list[tuple[str, float]]:
    return sorted(((name, r.mean[metric]) for name, r in reports.items()), key=lambda x: (-x[1], x[0]))


def _versus(best: str, other: str, comparison: Any, metric: str, reports: Mapping[str, Report]) -> tuple[float, str]:
    """``(difference best - other, "(significant at 0.05 after Holm's correction over 66 comparisons: ...)")``
    from the test of the pair in ``comparison`` (every pair of configurations on the same questions)."""
    if comparison is None:
        return reports[best].mean[metric] - reports[other].mean[metric], "(too few shared queries to test)"
    for test in comparison.tests:
        if test.metric == metric and {test.run_a, test.run_b} == {best, other}:
            break
    else:  # pragma: no cover - every pair is tested
        raise KeyError(f"no test of {metric} between {best} and {other}")
    sign = 1.0 if test.run_b == best else -1.0
    low, high = sorted((sign * test.ci_low + 0.0, sign * test.ci_high + 0.0))  # + 0.0: no "-0.000"
    adjusted = test.adjusted_p_value if test.adjusted_p_value is not None else test.p_value
    signif = "significant" if adjusted < comparison.correction.alpha else "not significant"
    return sign * test.difference, (
        f"({signif} {comparison.correction}: paired randomization p = {test.p_value:.3g}, adjusted p = "
        f"{adjusted:.3g}, 95% CI [{low:+.3f}, {high:+.3f}], {test.n_queries} queries)")


def _pairs(reports: Mapping[str, Report], metric: str, permutations: int, correction: str) -> Any:
    """Every pair of configurations tested on ``metric`` over the questions they share, as one family."""
    per_query = {name: cast(Mapping[str, Mapping[str, float]], r.per_query) for name, r in reports.items()}
    shared = set.intersection(*(set(rows) for rows in per_query.values()))
    if len(shared) < 2:
        return None
    return compare_per_query(per_query, [metric], n_permutations=permutations, n_bootstrap=permutations,
                             correction=correction)


def _of_type(report: Report, qtype: str | None) -> Report:
    if qtype is None:
        return report
    rows = [i for i, q in enumerate(report.query_ids) if report.attributes.get(q, {}).get("query_type") == qtype]
    return Report(report.metrics, [report.query_ids[i] for i in rows], report.values[rows], {}, {})


def _beats_last(best: str, ranked: list[tuple[str, float]], pairs: Any, reports: Mapping[str, Report],
                metric: str) -> str:
    """``"; it beats the last, X, by ..."``, or, when several tie for last, every one of them with its test."""
    low = ranked[-1][1]
    last = [name for name, v in ranked if v == low]
    if len(last) == 1:
        diff, how = _versus(best, last[0], pairs, metric, reports)
        return f"; it beats the last, {last[0]}, by {diff:+.3f} {how}"
    tests = "; ".join(f"{name} {_versus(best, name, pairs, metric, reports)[1]}" for name in last)
    return (f"; {len(last)} configurations tie for last at {metric} = {low:.3f} ({', '.join(last)}), and it beats "
            f"them by {reports[best].mean[metric] - low:+.3f}: {tests}")


def verdict(results: Sequence[ConfigResult], metric: str, permutations: int = 2000,
            correction: str = "holm") -> list[str]:
    """A few plain sentences: which configuration wins overall and per query type, by how much, how surely.

    On each set of questions (all, then each type) every pair of configurations is tested on ``metric`` and the
    p-values are adjusted together (Holm's correction by default): picking the winner and the runner-up looks at
    every pair, so every pair is the family. Each sentence names that family.
    """
    lines: list[str] = []
    types = sorted({str(a["query_type"]) for r in results for a in r.report.attributes.values()
                    if a.get("query_type") is not None})
    for qtype in [None, *types]:
        label = "all questions" if qtype is None else f"{qtype} questions"
        reports = {r.name: _of_type(r.report, qtype) for r in results}
        reports = {n: rep for n, rep in reports.items() if rep.query_ids}
        if not reports:
            continue
        ranked = _ranked(reports, metric)
        best, value = ranked[0]
        if len(ranked) == 1:
            lines.append(f"On {label}, {best} scores {metric} = {value:.3f}.")
            continue
        tied = [name for name, v in ranked[1:] if v == value]
        pairs = _pairs(reports, metric, permutations, correction)
        if tied:
            text = f"On {label}, {best} ties for first with {', '.join(tied)} at {metric} = {value:.3f}"
        else:
            diff, how = _versus(best, ranked[1][0], pairs, metric, reports)
            text = (f"On {label}, {best} wins with {metric} = {value:.3f}, {diff:+.3f} over the runner-up "
                    f"{ranked[1][0]} {how}")
        if len(ranked) > 2 and ranked[-1][1] < value:
            text += _beats_last(best, ranked, pairs, reports, metric)
        lines.append(text + ".")
    return lines
