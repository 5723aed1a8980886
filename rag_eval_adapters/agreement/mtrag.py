"""The MTRAG human evaluation shipped with the package: 477 multi-turn RAG answers rated by people.

Katsis et al., "MTRAG: A Multi-Turn Conversational Benchmark for Evaluating Retrieval-Augmented Generation
Systems" (2025), ``mtrag-human/evaluations/reference_subset_with_human_evaluations.json`` of
IBM/mt-rag-benchmark, Apache License 2.0 (``LICENSE`` and ``NOTICE`` beside the gzip-compressed file in
``rag_eval_adapters/data/mtrag/``). 159 tasks (one turn of a conversation, four domains) each answered by the
reference, Llama 3.1 405B and GPT-4o; each answer rated by two or three people on 1-4 for faithfulness,
completeness, appropriateness and naturalness, and a win-rate (0, 50 or 100). The benchmark's own automatic
scores (``RougeL``, ``Bert-Rec``, ``Bert-KPrec``) and LLM judges (``rl_f``: RAGAS faithfulness, ``rb_llm``,
``rb_agg``, ``conditional_idk``) come with every answer.

:func:`meta_evaluate_mtrag` sets any scorer of the answers (an answer metric such as ``grounding_lexical``
reading the answer's passages, an LLM judge, the benchmark's own scores) against the mean human rating of each
answer, beside the annotators' agreement: one rating against the mean of the others (:func:`mtrag_ceiling`,
0.515 on faithfulness) and the reliability of the mean of three ratings by Spearman-Brown
(:func:`spearman_brown`).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from .measure import Agreement, AgreementStats, Estimate, measure_agreement
from .meta_eval import MetaEvaluation, answer_length, scorer_agreements

__all__ = ["MTRAGAnswer", "MTRAGTask", "MTRAG_LABELS", "MTRAG_SCORES", "MTRAG_GROUPS", "MTRAGScorer", "load_mtrag",
           "mtrag_path", "mtrag_ceiling", "spearman_brown", "meta_evaluate_mtrag", "mtrag_metric_scorer",
           "mtrag_judge_scorer", "benchmark_scorer", "SPEARMAN_BROWN"]

MTRAG_LABELS = ("faithfulness", "completeness", "appropriateness", "naturalness", "win_rate")
"""The human ratings of every answer (``win_rate`` is the file's ``win-rate``)."""
MTRAG_SCORES = {"rl_f": "RAGAS faithfulness judge", "Bert-KPrec": "BERTScore K-precision",
                "Bert-Rec": "BERTScore recall", "RougeL": "ROUGE-L vs reference", "rb_llm": "RAD-Bench judge",
                "rb_agg": "RAD-Bench aggregate", "conditional_idk": "conditional IDK"}
"""The benchmark's own scores of every answer: name -> what it is."""
MTRAG_GROUPS = ("passages", "domain", "turn", "answerability", "model", "question_type", "multi_turn")
"""What the statistics can be grouped by: with or without passages, domain, turn, answerability, answering
model, question type, multi-turn kind."""
SPEARMAN_BROWN = "annotators: mean of {k} (Spearman-Brown)"
"""The row name of :func:`spearman_brown`'s reliability in :func:`meta_evaluate_mtrag`'s result."""
_FILE = "reference_subset_with_human_evaluations.json.gz"


@dataclass(frozen=True)
class MTRAGTask:
    """One task: a turn of a conversation, its passages and reference answer, which three answers answer.

    Attributes
    ----------
    task_id : str
        The file's ``task_id``.
    conversation : tuple of (speaker, text)
        The turns so far, ``user`` and ``agent`` alternating, ending with the user's question.
    contexts : tuple of (document_id, text)
        The reference passages (none for the 9 unanswerable or conversational tasks).
    reference : str
        The reference answer.
    domain, turn, answerability, question_type, multi_turn
        What the statistics can be grouped by (:data:`MTRAG_GROUPS`, with ``passages``).
    """

    task_id: str
    conversation: tuple[tuple[str, str], ...] = field(repr=False)
    contexts: tuple[tuple[str, str], ...] = field(repr=False)
    reference: str = field(repr=False)
    domain: str = ""
    turn: int = 1
    answerability: str = ""
    question_type: str = ""
    multi_turn: str = ""

    @property
    def question(self) -> str:
        """The user's last turn (the question the answers answer)."""
        return self.conversation[-1][1]

    @property
    def passages(self) -> str:
        """``"with passages"`` or ``"no passages"`` (a group of :func:`meta_evaluate_mtrag`)."""
        return "with passages" if self.contexts else "no passages"


@dataclass(frozen=True)
class MTRAGAnswer:
    """One rated answer to a task (the task shared by its three answers).

    Attributes
    ----------
    item_id : str
        ``task_id`` and ``model_id`` joined by ``"::"`` (unique).
    task : MTRAGTask
        The conversation, its passages and reference answer, and the task's groups.
    model_id : str
        The answering model.
    answer : str
        The answer.
    ratings : dict
        Label (:data:`MTRAG_LABELS`) -> {annotator id: rating}.
    scores : dict
        The benchmark's own scores (:data:`MTRAG_SCORES`) present for this answer.
    """

    item_id: str
    task: MTRAGTask
    model_id: str
    answer: str = field(repr=False)
    ratings: dict[str, dict[str, float]] = field(repr=False)
    scores: dict[str, float] = field(repr=False)

    def group(self, name: str) -> str:
        """The answer's value of the group ``name`` (:data:`MTRAG_GROUPS`): ``model`` is its model, the others the
        task's."""
        return self.model_id if name == "model" else str(getattr(self.task, name))

    def rating(self, label: str) -> float:
        """The mean of the people's ratings of ``label``."""
        return float(np.mean(list(self.ratings[label].values())))

    def record(self) -> dict[str, Any]:
        """The answer as a record of :func:`~rag_eval_adapters.answers.evaluate_answers`: ``prediction``,
        ``reference``, ``contexts`` as ``{chunk_id, text}``, ``conversation`` and ``question`` (the whole
        conversation as text when it has more than one turn, so a judge sees what "it" refers to)."""
        task = self.task
        question = task.question if len(task.conversation) == 1 else "\n".join(
            f"{speaker}: {text}" for speaker, text in task.conversation)
        return {"query_id": self.item_id, "prediction": self.answer, "reference": task.reference,
                "contexts": [{"chunk_id": d, "text": t} for d, t in task.contexts], "question": question,
                "conversation": [{"speaker": s, "text": t} for s, t in task.conversation]}


def mtrag_path(name: str = _FILE) -> Path:
    """The path of a shipped file of the set: the gzip-compressed JSON, ``LICENSE``, ``NOTICE``, ``README.md``."""
    path = Path(str(resources.files("rag_eval_adapters") / "data" / "mtrag" / name))
    if not path.is_file():
        raise FileNotFoundError(f"MTRAG data file {name!r} is missing from the installed package ({path})")
    return path


def _ratings(annotations: Mapping[str, Any], where: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for label in MTRAG_LABELS:
        given = annotations.get(label.replace("_", "-"))
        if not isinstance(given, Mapping) or not given:
            raise ValueError(f"{where}: no human {label.replace('_', '-')} ratings")
        try:
            out[label] = {str(k): float(v["value"]) for k, v in given.items()}
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{where}: a {label} rating without a numeric value") from None
    return out


def _task(task: Mapping[str, Any], docs: Mapping[str, str]) -> MTRAGTask:
    """A task of the file, its passages' texts looked up in ``docs``; raises KeyError or ValueError."""
    missing = [c["document_id"] for c in task.get("contexts", []) if c["document_id"] not in docs]
    if missing:
        raise ValueError(f"passage {missing[0]!r} is not among the documents")
    return MTRAGTask(
        str(task["task_id"]), tuple((str(t["speaker"]), str(t["text"])) for t in task["input"]),
        tuple((c["document_id"], docs[c["document_id"]]) for c in task.get("contexts", [])),
        str(task["targets"][0]["text"]), str(task.get("Collection", "")).removeprefix("mt-rag-").split("-")[0],
        int(task.get("Turn", 1)), ",".join(task.get("Answerability", [])).lower(),
        ",".join(task.get("Question Type", [])).lower(), ",".join(task.get("Multi-Turn", [])).lower() or "none")


def _answer(row: Mapping[str, Any], tasks: dict[str, Any], docs: Mapping[str, str], where: str) -> MTRAGAnswer:
    """An evaluation row of the file, its task read once (``tasks`` holds the file's tasks, replaced by their
    :class:`MTRAGTask` when first read)."""
    task = tasks.get(str(row.get("task_id")))
    if task is None:
        raise ValueError(f"{where}: task_id {row.get('task_id')!r} is not among the tasks")
    if not isinstance(task, MTRAGTask):
        try:
            task = tasks[str(row["task_id"])] = _task(task, docs)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    annotations = row.get("annotations") or {}
    scores = {k: float(annotations[k][s]["value"]) for k in MTRAG_SCORES for s in ("system", "composite")
              if s in annotations.get(k, {})}
    return MTRAGAnswer(f"{row['task_id']}::{row['model_id']}", task, str(row["model_id"]),
                       str(row["model_response"]), _ratings(annotations, where), scores)


def load_mtrag(path: str | Path | None = None) -> list[MTRAGAnswer]:
    """The 477 rated answers, in the file's order (the shipped file unless ``path`` names another copy, plain or
    ``.gz``).

    Raises
    ------
    ValueError
        A row without a field, an answer of an unknown task, a passage missing from the documents or an answer
        without ratings, naming the evaluation's index.
    """
    source = Path(path) if path is not None else mtrag_path()
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    try:
        docs = {d["document_id"]: d["text"] for d in data["documents"]}
        tasks = {t["task_id"]: t for t in data["tasks"]}
        rows = data["evaluations"]
    except (KeyError, TypeError):
        raise ValueError(f"{source.name}: expected an object with documents, tasks and evaluations") from None
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(_answer(row, tasks, docs, f"{source.name}: evaluations[{i}]"))
        except KeyError as exc:
            raise ValueError(f"{source.name}: evaluations[{i}]: no field {exc.args[0]!r}") from None
    return out


def mtrag_ceiling(answers: Sequence[MTRAGAnswer], label: str = "faithfulness", *, groups: Sequence[Any] | None = None,
                  n_bootstrap: int = 1000, confidence: float = 0.95, seed: int | None = 0) -> Agreement:
    """Each person's rating against the mean of the others' on the same answer (every rating once; the
    bootstrap resamples whole answers): the agreement of one rating, 0.515 (Spearman) on faithfulness."""
    one, rest, clusters, by = [], [], [], []
    for i, a in enumerate(answers):
        values = list(a.ratings[label].values())
        for k, v in enumerate(values):
            one.append(v)
            rest.append(float(np.mean(values[:k] + values[k + 1:])))
            clusters.append(a.item_id)
            by.append(groups[i] if groups is not None else None)
    return measure_agreement(one, rest, kind="pointwise", groups=by if groups is not None else None,
                             clusters=clusters, scorer="one rating vs the mean of the others",
                             n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)


def spearman_brown(answers: Sequence[MTRAGAnswer], label: str = "faithfulness", k: int = 3, *,
                   groups: Sequence[Any] | None = None, n_bootstrap: int = 1000, confidence: float = 0.95,
                   seed: int | None = 0) -> Agreement:
    r"""The reliability of the mean of ``k`` ratings: Spearman-Brown of the correlation of two ratings of an
    answer, :math:`\rho_k = k\rho_1 / (1 + (k - 1)\rho_1)` (estimate and interval bounds each mapped).

    :math:`\rho_1` pools every ordered pair of two people's ratings of the same answer (0.470 on faithfulness,
    so 0.727 for the mean of three): what a scorer's correlation with the mean of three can reach.
    """
    first, second, clusters, by = [], [], [], []
    for i, a in enumerate(answers):
        for x, y in permutations(a.ratings[label].values(), 2):
            first.append(x)
            second.append(y)
            clusters.append(a.item_id)
            by.append(groups[i] if groups is not None else None)
    pairs = measure_agreement(first, second, kind="pointwise", groups=by if groups is not None else None,
                              clusters=clusters, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)

    def step(e: float | None) -> float | None:  # undefined at or below -1/(k-1) (a small group's estimate)
        return None if e is None or 1 + (k - 1) * e <= 0 else k * e / (1 + (k - 1) * e)

    def stats(s: AgreementStats) -> AgreementStats:
        kept = {n: Estimate(step(e.value), step(e.low), step(e.high)) for n, e in s.estimates.items()
                if n in ("pearson", "spearman")}
        return AgreementStats(s.group, s.n, kept)

    return replace(pairs, scorer=SPEARMAN_BROWN.format(k=k), overall=stats(pairs.overall),
                   groups={g: stats(s) for g, s in pairs.groups.items()}, categories=None)


MTRAGScorer = Callable[[Sequence[MTRAGAnswer]], Sequence[Any]]
"""``scorer(answers)``: one score per answer, or ``None`` (a result with ``score`` None and an ``unmeasured``
reason) for an answer it could not score, which is then dropped for that scorer and counted."""


def mtrag_metric_scorer(metric: Any, embedder: Any = None) -> MTRAGScorer:
    """An answer metric of the registry (``grounding_lexical``, ``token_f1``...) as a scorer: each answer's
    record (:meth:`MTRAGAnswer.record`: its passages, reference and conversation) through
    :func:`~rag_eval_adapters.answers.evaluate_answers`; an answer it cannot score is ``None``."""
    from ..answers import evaluate_answers, parse_answer_metric

    m = parse_answer_metric(metric)
    if m.needs_embedder and embedder is None:
        raise ValueError(f"{m.key} needs an embedder (e.g. E5Embedder())")

    def score(answers: Sequence[MTRAGAnswer]) -> list[float | None]:
        report = evaluate_answers([a.record() for a in answers], [m], embedder, progress=False)
        column = dict(zip(report.query_ids, report.column(m.key), strict=True))
        return [None if a.item_id not in column else float(column[a.item_id]) for a in answers]

    return score


def mtrag_judge_scorer(judge: Any, metric: str = "faithfulness") -> MTRAGScorer:
    """A judged metric (``faithfulness`` against the passages, ``answer_correctness`` against the reference...)
    of an :class:`~rag_eval_adapters.judges.LLMJudge` as a scorer; an unmeasured answer (refusal, invalid reply,
    failed call) is ``None``, dropped and counted, never a number."""
    from ..answers import evaluate_answers

    def score(answers: Sequence[MTRAGAnswer]) -> list[float | None]:
        report = evaluate_answers([a.record() for a in answers], [metric], judge=judge, progress=False)
        unmeasured = report.unmeasured.get(metric, {})
        column = dict(zip(report.query_ids, report.column(metric), strict=True))
        return [None if a.item_id in unmeasured or a.item_id not in column else float(column[a.item_id])
                for a in answers]

    return score


def benchmark_scorer(name: str) -> MTRAGScorer:
    """The benchmark's own score ``name`` (:data:`MTRAG_SCORES`) of each answer, as a scorer."""
    if name not in MTRAG_SCORES:
        raise ValueError(f"unknown MTRAG score {name!r}; the file has {', '.join(MTRAG_SCORES)}")
    return lambda answers: [a.scores.get(name) for a in answers]


def _scored(answers: Sequence[MTRAGAnswer], scorer: MTRAGScorer, name: str) -> tuple[list[float], list[int], dict]:
    """The scores and indices of the answers the scorer scored, and what it dropped (with the reasons)."""
    given = list(scorer(answers))
    if len(given) != len(answers):
        raise ValueError(f"scorer {name!r} returned {len(given)} scores for {len(answers)} answers")
    kept, values, reasons = [], [], {}  # type: list[int], list[float], dict[str, int]
    for i, v in enumerate(given):
        if v is not None and hasattr(v, "unmeasured") and hasattr(v, "score"):
            v = None if v.score is None else v.score
        if v is None:
            reasons["unmeasured"] = reasons.get("unmeasured", 0) + 1
            continue
        if not np.isfinite(float(v)):
            raise ValueError(f"scorer {name!r} gave {v!r} to answer {answers[i].item_id!r}; scores must be finite")
        kept.append(i)
        values.append(float(v))
    lost = len(answers) - len(kept)
    return values, kept, {"questions": lost, "judgements": lost, "reasons": reasons} if lost else {}


def meta_evaluate_mtrag(
    answers: Sequence[MTRAGAnswer],
    scorers: Mapping[str, MTRAGScorer],
    *,
    labels: Sequence[str] = ("faithfulness",),
    group_by: str | None = "passages",
    benchmark: Sequence[str] | None = tuple(MTRAG_SCORES),
    baselines: bool = True,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    source: str = "mtrag",
) -> MetaEvaluation:
    """Each scorer's score of every answer against the mean human rating of each label, overall and by group.

    Parameters
    ----------
    answers : sequence of MTRAGAnswer
        E.g. :func:`load_mtrag` (or a subset of it).
    scorers : mapping
        Name -> scorer (:func:`mtrag_metric_scorer`, :func:`mtrag_judge_scorer`, any ``scorer(answers)``).
    labels : sequence of str
        Of :data:`MTRAG_LABELS` (default faithfulness).
    group_by : str, optional
        One of :data:`MTRAG_GROUPS` (default ``passages``: the 450 answers with passages and the 27 without).
    benchmark : sequence of str, optional
        The benchmark's own scores to add as rows (default all of :data:`MTRAG_SCORES`).
    baselines : bool
        Add answer length (words) as a baseline row.
    n_bootstrap, confidence, seed
        The bootstrap intervals (answers resampled).

    Returns
    -------
    MetaEvaluation
        ``ceiling[label]`` is :func:`mtrag_ceiling`; the first row of ``results`` :func:`spearman_brown`'s
        reliability of the mean of three; ``dropped`` counts the answers a scorer could not score.
    """
    if not answers:
        raise ValueError("no answers to meta-evaluate")
    unknown = [k for k in labels if k not in MTRAG_LABELS] + ([group_by] if group_by not in (None, *MTRAG_GROUPS)
                                                               else [])
    if unknown:
        raise ValueError(f"unknown label or group {unknown[0]!r}; labels: {', '.join(MTRAG_LABELS)}; groups: "
                         f"{', '.join(MTRAG_GROUPS)}")
    groups = [a.group(group_by) for a in answers] if group_by else None
    chosen: dict[str, MTRAGScorer] = dict(scorers)
    chosen.update({f"benchmark: {n} ({MTRAG_SCORES[n]})": benchmark_scorer(n) for n in benchmark or ()})
    base = ["answer_length"] if baselines and "answer_length" not in chosen else []
    if base:
        chosen["answer_length"] = lambda items: list(answer_length([a.answer for a in items]))
    opts: dict[str, Any] = {"n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed}
    results: dict[str, dict[str, Agreement]] = {
        SPEARMAN_BROWN.format(k=3): {k: spearman_brown(answers, k, 3, groups=groups, **opts) for k in labels}}
    scored, dropped = scorer_agreements(
        chosen, lambda name, scorer: _scored(answers, scorer, name),
        lambda i, label: answers[i].rating(label), labels, kind="pointwise", groups=groups, **opts)
    results.update(scored)
    ceiling = {k: mtrag_ceiling(answers, k, groups=groups, **opts) for k in labels}
    return MetaEvaluation(list(labels), results, ceiling, base, len(answers), len(answers), source, dropped)
