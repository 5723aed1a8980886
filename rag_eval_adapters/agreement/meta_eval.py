"""Meta-evaluation: how far each answer scorer agrees with people on pairwise human labels.

A *scorer* scores answers against reference answers: ``scorer(answers, references, queries) -> scores``, one
score per answer (any answer metric through :class:`AnswerScorer`; an LLM judge through
:class:`~rag_eval_adapters.agreement.JudgeScorer`, whose unmeasured answers are dropped and counted). On pairwise
judgements (two answers to a question and a person's preference on -2..2) the scorer's difference, answer 2
minus answer 1, is set against each label with :func:`~rag_eval_adapters.agreement.measure_agreement`: overall
and by group (domain), the bootstrap resampling whole questions (both annotators' rows of a question together).

Beside the scorers:

* the trivial baselines (:data:`BASELINES`): answer length and lexical overlap with the reference (the share of
  the reference's tokens the answer contains). A scorer that agrees no better than length with the labels measures
  length;
* the ceiling: one annotator's label against the other's on the same question, the agreement people reach with
  each other (on the RAGChecker set, overall Pearson / Spearman 70.1 / 68.9).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .measure import Agreement, measure_agreement
from .ragchecker import PairwiseJudgement

__all__ = ["Scorer", "AnswerScorer", "answer_length", "BASELINES", "MetaEvaluation", "meta_evaluate",
           "meta_evaluate_scores", "annotator_ceiling", "pairwise_differences", "scored_pairs", "scorer_agreements"]

Scorer = Callable[[Sequence[str], Sequence[str], Sequence[str]], Sequence[Any] | np.ndarray]
"""``scorer(answers, references, queries)``: one score per answer (``None``, or a result with ``score`` None and
an ``unmeasured`` reason, for an answer it could not score: see :func:`scored_pairs`)."""


class AnswerScorer:
    """An answer metric of the registry (``token_f1``, ``rouge_l``, ``semantic_similarity``...) as a scorer.

    Parameters
    ----------
    metric : str or AnswerMetric
        A name :func:`~rag_eval_adapters.answers.parse_answer_metric` reads.
    embedder : Embedder, optional
        Needed by ``semantic_similarity`` (e.g. :class:`~rag_eval_adapters.answers.E5Embedder`).
    """

    def __init__(self, metric: Any, embedder: Any = None) -> None:
        from ..answers import parse_answer_metric

        self.metric = parse_answer_metric(metric)
        if self.metric.needs_embedder and embedder is None:
            raise ValueError(f"{self.metric.key} needs an embedder (e.g. E5Embedder())")
        self.embedder = embedder
        self.name = self.metric.key

    def __call__(self, answers: Sequence[str], references: Sequence[str], queries: Sequence[str] = ()) -> np.ndarray:
        from ..answers import evaluate_answers

        records = [{"query_id": i, "prediction": a, "reference": r}
                   for i, (a, r) in enumerate(zip(answers, references, strict=True))]
        report = evaluate_answers(records, [self.metric], self.embedder, progress=False)
        if report.errors:
            first = next(iter(report.errors.values()))
            raise ValueError(f"{self.name}: {len(report.errors)} answers could not be scored; the first: {first}")
        return report.column(self.metric.key)

    def __repr__(self) -> str:
        return f"AnswerScorer({self.metric!r})"


def answer_length(answers: Sequence[str], references: Sequence[str] = (), queries: Sequence[str] = ()) -> np.ndarray:
    """The answers' lengths in words (white-space separated): the baseline a length-confounded label follows."""
    return np.array([len(str(a).split()) for a in answers], dtype=np.float64)


BASELINES: dict[str, Scorer] = {"answer_length": answer_length}
"""The trivial scorers reported beside every other: ``answer_length`` and ``reference_overlap`` (the answer's
token recall of the reference, :class:`AnswerScorer` of ``token_recall``)."""


def _baselines() -> dict[str, Scorer]:
    return {"answer_length": answer_length, "reference_overlap": AnswerScorer("token_recall")}


def _score_of(value: Any) -> tuple[float | None, str | None]:
    """``(score, None)`` of a number, or ``(None, reason)`` of an answer the scorer could not score: ``None``, or a
    result with ``score`` None and its ``unmeasured`` reason (a :class:`~rag_eval_adapters.judges.JudgeResult`)."""
    if value is None:
        return None, "unmeasured"
    if hasattr(value, "score") and hasattr(value, "unmeasured"):
        return (None, str(value.unmeasured or "unmeasured")) if value.score is None else (float(value.score), None)
    return float(value), None


def scored_pairs(judgements: Sequence[PairwiseJudgement], scorer: Scorer) -> tuple[np.ndarray, np.ndarray, dict]:
    """The scorer's ``score(answer 2) - score(answer 1)`` for the judgements it could score on both answers.

    Each question's answers are scored once. A scorer gives one value per answer: a finite number, or, for an
    answer it could not score (an LLM judge's refusal, invalid output or failed call), ``None`` or a result whose
    ``score`` is None and whose ``unmeasured`` names the reason. Such a question is dropped (for this scorer), never
    given a number.

    Returns
    -------
    differences : ndarray
        One per kept judgement, in order.
    kept : ndarray of int
        The indices of the kept judgements in ``judgements``.
    dropped : dict
        ``{"questions": k, "judgements": m, "reasons": {reason: answers}}`` (zeros when nothing was dropped).

    Raises
    ------
    ValueError
        A scorer that returns the wrong number of scores, or a NaN or infinite score.
    """
    first: dict[str, PairwiseJudgement] = {}
    for j in judgements:
        first.setdefault(j.item_id, j)
    items = list(first.values())
    answers = [a for j in items for a in j.answers]
    references = [j.reference for j in items for _ in (0, 1)]
    queries = [j.query for j in items for _ in (0, 1)]
    given = scorer(answers, references, queries)
    given = list(given.reshape(-1)) if isinstance(given, np.ndarray) else list(given)
    if len(given) != len(answers):
        raise ValueError(f"the scorer returned {len(given)} scores for {len(answers)} answers")
    read = [_score_of(v) for v in given]
    reasons: dict[str, int] = {}
    diff: dict[str, float] = {}
    for i, j in enumerate(items):
        (one, why_1), (two, why_2) = read[2 * i], read[2 * i + 1]
        for k, score in ((2 * i, one), (2 * i + 1, two)):
            if score is not None and not np.isfinite(score):
                raise ValueError(f"the scorer returned {score!r} for answer {k % 2 + 1} of question {j.item_id!r}; "
                                 "scores must be finite (an answer it cannot score is None, counted as dropped)")
        for why in (why_1, why_2):
            if why is not None:
                reasons[why] = reasons.get(why, 0) + 1
        if one is not None and two is not None:
            diff[j.item_id] = two - one
    kept = np.array([i for i, j in enumerate(judgements) if j.item_id in diff], dtype=np.int64)
    dropped = {"questions": len(items) - len(diff), "judgements": len(judgements) - kept.size, "reasons": reasons}
    return np.array([diff[judgements[i].item_id] for i in kept], dtype=np.float64), kept, dropped


def pairwise_differences(judgements: Sequence[PairwiseJudgement], scorer: Scorer) -> np.ndarray:
    """The scorer's ``score(answer 2) - score(answer 1)`` for every judgement; each question's answers scored once.

    Raises ``ValueError`` when the scorer could not score an answer (:func:`scored_pairs` drops such questions
    instead, and counts them)."""
    diff, _, dropped = scored_pairs(judgements, scorer)
    if dropped["questions"]:
        reasons = ", ".join(f"{k} {v}" for k, v in dropped["reasons"].items())
        raise ValueError(f"the scorer could not score {dropped['questions']} questions ({reasons}); "
                         "scored_pairs drops and counts them")
    return diff


def annotator_ceiling(judgements: Sequence[PairwiseJudgement], label: str, *, n_bootstrap: int = 1000,
                      confidence: float = 0.95, seed: int | None = 0) -> Agreement:
    """The first annotator's label against the second's, question by question (questions judged twice only)."""
    by_item: dict[str, dict[int, PairwiseJudgement]] = {}
    for j in judgements:
        by_item.setdefault(j.item_id, {})[j.annotator] = j
    pairs = [(v[0], v[1]) for v in by_item.values() if 0 in v and 1 in v]
    if len(pairs) < 2:
        raise ValueError("the annotator ceiling needs at least 2 questions judged by two people")
    return measure_agreement([a.labels[label] for a, _ in pairs], [b.labels[label] for _, b in pairs],
                             kind="pairwise", groups=[a.group for a, _ in pairs], scorer="annotator vs annotator",
                             n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)


@dataclass(frozen=True)
class MetaEvaluation:
    """Every scorer's agreement with every label, the baselines' and the annotators' ceiling.

    ``m.results[scorer][label]`` is an :class:`~rag_eval_adapters.agreement.Agreement` (with ``.groups`` by
    domain); ``m.ceiling[label]`` the annotators' own; ``m.baselines`` names which results are baselines;
    ``m.dropped[scorer]`` counts the questions (and judgements) a scorer could not score on both answers, left out
    of its statistics, with the reasons (``{"questions", "judgements", "reasons": {reason: answers}}``; only
    scorers that dropped any).
    """

    labels: list[str]
    results: dict[str, dict[str, Agreement]]
    ceiling: dict[str, Agreement]
    baselines: list[str] = field(default_factory=list)
    n_judgements: int = 0
    n_items: int = 0
    source: str = ""
    dropped: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: counts, labels, and per scorer and label the agreement (overall and by group)."""
        return {"source": self.source, "judgements": self.n_judgements, "questions": self.n_items,
                "labels": self.labels, "baselines": self.baselines,
                "ceiling": {k: a.to_dict() for k, a in self.ceiling.items()},
                "dropped": {s: dict(d) for s, d in self.dropped.items()},
                "scorers": {s: {k: a.to_dict() for k, a in by.items()} for s, by in self.results.items()}}

    def __repr__(self) -> str:
        return (f"MetaEvaluation({self.n_judgements} judgements of {self.n_items} questions, labels={self.labels}, "
                f"scorers={list(self.results)})")


def meta_evaluate(
    judgements: Sequence[PairwiseJudgement],
    scorers: Mapping[str, Scorer],
    *,
    labels: Sequence[str] | None = None,
    baselines: bool = True,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    source: str = "",
) -> MetaEvaluation:
    """Each scorer's difference (answer 2 - answer 1) against each human label, overall and by domain.

    Parameters
    ----------
    judgements : sequence of PairwiseJudgement
        E.g. :func:`~rag_eval_adapters.agreement.load_ragchecker`.
    scorers : mapping
        Name -> scorer (:class:`AnswerScorer`, :func:`answer_length`, a
        :class:`~rag_eval_adapters.agreement.JudgeScorer`...). A question a scorer cannot score on both answers is
        left out of that scorer's statistics and counted in ``dropped`` (:func:`scored_pairs`).
    labels : sequence of str, optional
        The labels to test against (default: every label of the first judgement).
    baselines : bool
        Add :data:`BASELINES` (answer length, reference overlap) unless a scorer of that name is given.
    n_bootstrap, confidence, seed
        The bootstrap intervals (questions resampled).
    source : str
        A name for the data, carried into the result.

    Returns
    -------
    MetaEvaluation
    """
    if not judgements:
        raise ValueError("no judgements to meta-evaluate")
    known = list(judgements[0].labels)
    labels = list(labels) if labels is not None else known
    unknown = [k for k in labels if k not in known]
    if unknown:
        raise ValueError(f"unknown label {unknown[0]!r}; the judgements have {', '.join(known)}")
    chosen = dict(scorers)
    base_names = []
    if baselines:
        for name, fn in _baselines().items():
            if name not in chosen:
                chosen[name] = fn
                base_names.append(name)
    groups = [j.group for j in judgements]
    clusters = [j.item_id for j in judgements]
    results, dropped = scorer_agreements(
        chosen, lambda name, scorer: scored_pairs(judgements, scorer),
        lambda i, label: judgements[i].labels[label], labels, kind="pairwise", groups=groups, clusters=clusters,
        n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
    ceiling = {label: annotator_ceiling(judgements, label, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
               for label in labels}
    return MetaEvaluation(labels, results, ceiling, base_names, len(judgements), len(set(clusters)), source,
                          dropped)


def scorer_agreements(
    scorers: Mapping[str, Any],
    score: Callable[[str, Any], tuple[Sequence[float] | np.ndarray, Sequence[int] | np.ndarray, Mapping[str, Any]]],
    label_of: Callable[[int, str], float],
    labels: Sequence[str],
    *,
    kind: str,
    groups: Sequence[Any] | None = None,
    clusters: Sequence[Any] | None = None,
    **resampling: Any,
) -> tuple[dict[str, dict[str, Agreement]], dict[str, dict[str, Any]]]:
    """Each scorer's agreement with each label, over the items it could score; what each scorer dropped.

    Parameters
    ----------
    scorers : mapping
        Name -> scorer, passed to ``score``.
    score : callable
        ``score(name, scorer) -> (values, kept, dropped)``: the values of the items the scorer scored, their indices, and
        what it dropped (``{"questions": n, ...}``, empty or zero when nothing), as :func:`scored_pairs`.
    label_of : callable
        ``label_of(index, label)``: the human value of an item.
    labels : sequence of str
        The labels to measure against.
    kind, groups, clusters, resampling
        :func:`~rag_eval_adapters.agreement.measure_agreement`'s (``groups`` and ``clusters`` one per item, kept
        with the items scored; ``resampling``: ``n_bootstrap``, ``confidence``, ``seed``).

    Returns
    -------
    results : dict
        ``{scorer: {label: Agreement}}``.
    dropped : dict
        ``{scorer: dropped}`` of the scorers that dropped any item.

    Raises
    ------
    ValueError
        A scorer that scored fewer than 2 items.
    """
    results: dict[str, dict[str, Agreement]] = {}
    dropped: dict[str, dict[str, Any]] = {}
    for name, scorer in scorers.items():
        values, kept, lost = score(name, scorer)
        if lost and lost.get("questions"):
            dropped[name] = dict(lost)
        if len(kept) < 2:
            reasons = ", ".join(f"{k} {v}" for k, v in (lost or {}).get("reasons", {}).items())
            raise ValueError(f"scorer {name!r} could score {len(kept)} items only; its agreement needs at least 2 "
                             f"({(lost or {}).get('questions', 0)} dropped: {reasons or 'none'})")
        results[name] = {
            label: measure_agreement(values, [label_of(i, label) for i in kept], kind=kind,
                                     groups=[groups[i] for i in kept] if groups is not None else None,
                                     clusters=[clusters[i] for i in kept] if clusters is not None else None,
                                     scorer=name, **resampling)
            for label in labels}
    return results, dropped


def meta_evaluate_scores(
    scores: Mapping[Any, Mapping[str, float]],
    labels: Mapping[Any, Mapping[str, float]],
    *,
    kind: str = "pointwise",
    groups: Mapping[Any, Any] | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    source: str = "",
) -> MetaEvaluation:
    """Scorers' values already computed, against human labels: ``{item: {scorer: value}}`` and ``{item: {label:
    value}}`` (pointwise grades, or pairwise preferences with the scorers' differences).

    Every labelled item must have every scorer's value; items scored but not labelled are left out. ``groups``
    (``{item: group}``) adds the statistics by group. There is no ceiling (one label per item) and no baseline
    (no texts).
    """
    missing = [q for q in labels if q not in scores]
    if missing:
        raise ValueError(f"{len(missing)} labelled items have no score, e.g. {missing[0]!r}")
    items = list(labels)
    if len(items) < 2:
        raise ValueError(f"meta-evaluation needs at least 2 labelled items, got {len(items)}")
    label_names = list(dict.fromkeys(k for q in items for k in labels[q]))
    scorer_names = list(dict.fromkeys(k for q in items for k in scores[q]))
    results: dict[str, dict[str, Agreement]] = {}
    for scorer in scorer_names:
        lacking = [q for q in items if scorer not in scores[q]]
        if lacking:
            raise ValueError(f"item {lacking[0]!r} has no value of scorer {scorer!r}")
        results[scorer] = {}
        for label in label_names:
            rows = [q for q in items if label in labels[q]]
            results[scorer][label] = measure_agreement(
                [scores[q][scorer] for q in rows], [labels[q][label] for q in rows], kind=kind,
                groups=[groups.get(q) for q in rows] if groups is not None else None, scorer=scorer,
                n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
    return MetaEvaluation(label_names, results, {}, [], len(items), len(items), source)
