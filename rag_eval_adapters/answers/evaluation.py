"""Scoring a batch of answers: :func:`evaluate_answers`, returning the package's :class:`~rag_eval_adapters.Report`."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..progress import progress_bar
from ..report import Report
from .abstention import is_abstention
from .cache import cached
from .embedders import Embedder
from .grounding import grounding_column, is_grounding
from .judged import JudgedMetric, judge_records
from .metrics import AnswerMetric, SemanticSimilarity, parse_answer_metrics
from .record import FIELD_NAMES, RECORD_FIELDS, AnswerRecord, read_records
from .semantic import similarity_batch

__all__ = ["evaluate_answers", "AnswerRecord"]

RESERVED = RECORD_FIELDS  # the fields read from a record (the others are its attributes)


def _semantic(records: list[AnswerRecord], metric: AnswerMetric, embedder: Embedder | None,
              errors: dict[Hashable, str]) -> dict[Hashable, float]:
    """Similarity of every record, in one embedding call; record by record when that call fails."""
    try:
        if embedder is None or not isinstance(metric, SemanticSimilarity):
            raise ValueError(f"{metric.key} needs an embedder")
        values = similarity_batch([r.prediction or "" for r in records], [r.references for r in records],
                                  embedder, side=metric.side)
        return {r.query_id: float(v) for r, v in zip(records, values, strict=False)}
    except Exception:  # noqa: BLE001 - isolate the failing records, keep the others
        pass
    out = {}
    for r in records:
        try:
            out[r.query_id] = metric.score(r.prediction or "", r.references, embedder)
        except Exception as exc:  # noqa: BLE001 - recorded per query
            errors[r.query_id] = f"query {r.query_id!r}: {metric.key}: {type(exc).__name__}: {exc}"
    return out


def evaluate_answers(
    records: Iterable[Mapping[str, Any]],
    metrics: str | AnswerMetric | Iterable[str | AnswerMetric] = ("exact_match", "token_f1", "rouge_l"),
    embedder: Embedder | None = None,
    *,
    cache: Any = None,
    progress: bool = True,
    judge: Any = None,
    answer_model: str | None = None,
    keep_judgments: bool = True,
) -> Report:
    """Score every answer against its reference(s) with each metric.

    Parameters
    ----------
    records : iterable of mappings
        Each with ``query_id``, ``prediction`` and ``reference`` (a string) or ``references`` (one string or a
        list: the best match counts); judged metrics also read ``question``, ``contexts`` and ``answerable``. The
        fields and the other names each is read under (``answer``, ``ground_truth``, ``retrieved_contexts``...)
        are those of :mod:`rag_eval_adapters.answers.record`, the one reader of every answer path. Other fields
        (e.g. ``query_type``) are kept as the query's attributes.
        The grounding metrics (``grounding_lexical``, ``grounding_semantic``) read ``contexts`` instead of the
        references; with only them, records need no reference.
    metrics : names or :class:`~rag_eval_adapters.answers.metrics.AnswerMetric` objects
        Names of the answer family of the registry (:data:`~rag_eval_adapters.answers.ANSWER_METRICS`, listed
        in ``docs/answers.md``): ``exact_match``/``em``, ``token_f1``, ``token_precision``, ``rouge_l_stem_recall``,
        ``semantic_similarity``... Each is also the metric's column in the report. A retrieval metric's name
        (``f1``, ``precision``, ``recall``: retrieval metrics everywhere), or one several answer metrics share a
        part of, is a ``ValueError`` listing the answer metrics to choose from.
    embedder : Embedder, optional
        Needed by ``semantic_similarity``; e.g. :class:`~rag_eval_adapters.answers.E5Embedder`. Each distinct
        text is embedded once.
    cache : cache object or path, optional
        Where embeddings are cached by content hash (:class:`~rag_eval_adapters.answers.CachedEmbedder`): an
        SQLite file path keeps them across runs; default an in-memory cache for this call.
    progress : bool
        Show a progress bar for 1,000 answers or more (on a terminal, unless ``TQDM_DISABLE`` says no).
    judge : LLMJudge, optional
        Needed by the judged metrics (``faithfulness``, ``answer_correctness`` and its ``_precision`` /
        ``_recall``, ``context_relevance``; see :mod:`rag_eval_adapters.judges`), which read each record's
        ``contexts`` and ``question`` too. They mix with the lexical metrics in one report; an item the judge
        cannot score is an unmeasured cell (``report.unmeasured``, with its reason), and its mean is over the
        measured items (``report.measured``). With judged metrics only, records need no reference. Answers
        that abstain ("I don't know", in any language: :func:`~rag_eval_adapters.answers.is_abstention`, or no
        claim found by the judge) are counted in ``report.info["abstained"]`` (``count``, ``rate``,
        ``query_ids``), shown beside the judged means; they score 0 on ``answer_correctness`` against a
        reference (1 on a record with ``answerable: false``, where any other answer scores 0).
    answer_model : str, optional
        The model that wrote the answers; the report warns when the judge is that model.
    keep_judgments : bool
        Keep each item's judge result (claims, verdicts, quotes, reasons) in ``report.info["judgments"]``.

    Returns
    -------
    Report
        Means over the scored answers, values per query, and ``errors``: a record with a bad field (or whose
        embedding failed) is reported there with its query id and the rest are still scored.

    Raises
    ------
    ValueError
        A record without ``query_id``, a repeated ``query_id`` (or two equal as text: ``1`` and ``"1"``), a
        ``query_id`` that does not equal itself (NaN), ``semantic_similarity`` without an embedder, a judged
        metric without a judge,
        no records, or no record that could be scored.
    """
    measures = parse_answer_metrics(metrics)
    return _evaluate(records, measures, embedder, judge, cache=cache, progress=progress, answer_model=answer_model,
                     keep_judgments=keep_judgments)


def _evaluate(records: Iterable[Mapping[str, Any]], measures: list[AnswerMetric], embedder: Embedder | None,
              judge: Any, *, cache: Any, progress: bool, answer_model: str | None, keep_judgments: bool) -> Report:
    """The one loop of :func:`evaluate_answers`: every metric, lexical, semantic or judged, into one report."""
    if any(m.needs_embedder for m in measures):
        if embedder is None:
            first = next(m.key for m in measures if m.needs_embedder)
            raise ValueError(f"{first} needs an embedder: pass embedder=E5Embedder() or another Embedder")
        embedder = cached(embedder, cache)
    judged = [m for m in measures if m.needs_judge]
    if judged and judge is None:
        raise ValueError(f"{', '.join(m.key for m in judged)} need a judge: pass judge=LLMJudge(OpenAICompatibleLLM("
                         "...)) or another LLMJudge")
    valid, errors, attributes = _read(records, measures)
    columns = _score(valid, measures, embedder, errors, progress)
    scored = [r for r in valid if r.query_id not in errors]
    if not scored:
        first = next(iter(errors.values()))
        raise ValueError(f"no answer could be scored; {len(errors)} errors, the first: {first}")
    unmeasured: dict[str, dict[Hashable, str]] = {}
    info: dict[str, Any] = {}
    if judged:
        info = _judged(scored, measures, judge, columns, unmeasured, answer_model, keep_judgments)
    values = np.array([[columns[j].get(r.query_id, 0.0) for j in range(len(measures))] for r in scored],
                      dtype=np.float64)
    counts = {"queries": len(attributes), "scored": len(scored), "errors": len(errors)}
    errors = {q: errors[q] for q in attributes if q in errors}  # in record order
    return Report(measures, [r.query_id for r in scored], values.reshape(len(scored), len(measures)),
                  errors, counts, relevance_level=None, attributes={q: a for q, a in attributes.items() if a},
                  unmeasured={k: v for k, v in unmeasured.items() if v}, info=info)


def _read(records: Iterable[Mapping[str, Any]], measures: Sequence[AnswerMetric]
          ) -> tuple[list[AnswerRecord], dict[Hashable, str], dict[Hashable, dict[str, Any]]]:
    """The valid records, the errors of the others, and every record's attributes (in record order)."""
    # the fields the lexical, semantic and grounding metrics read must be there (a judge says unmeasured instead)
    needed = {field for m in measures if not m.needs_judge for field in m.reads}
    items = records if isinstance(records, (Mapping, str, bytes)) else list(records)  # read_records refuses those
    valid: list[AnswerRecord] = []
    errors: dict[Hashable, str] = {}
    attributes: dict[Hashable, dict[str, Any]] = {}
    for item, (qid, attrs, rec) in zip(items, read_records(items), strict=True):
        attributes[qid] = attrs
        missing = next((field for field in ("prediction", "references", "contexts") if field in needed
                        and not any(name in item for name in FIELD_NAMES[field])), None)
        if isinstance(rec, str):
            errors[qid] = rec
        elif missing is not None:
            first, *others = FIELD_NAMES[missing]
            errors[qid] = (f"query {qid!r}: no {first!r} field"
                           + (f" (nor {', '.join(map(repr, others))})" if others else ""))
        elif "references" in needed and not rec.references:
            errors[qid] = f"query {qid!r}: no reference answer (its 'references' are empty)"
        else:
            valid.append(rec)
    if not attributes:
        raise ValueError("no records: give at least one {query_id, prediction, reference} record")
    return valid, errors, attributes


def _judged(records: list[AnswerRecord], measures: Sequence[AnswerMetric], judge: Any,
            columns: list[dict[Hashable, float]], unmeasured: dict[str, dict[Hashable, str]],
            answer_model: str | None, keep_judgments: bool) -> dict[str, Any]:
    """Score the judged metrics into ``columns`` and ``unmeasured``; the report's ``info``: the judge, usage,
    abstentions and (``keep_judgments``) every judgment."""
    results: dict[str, dict[Hashable, Any]] = {}
    for j, m in enumerate(measures):
        if not isinstance(m, JudgedMetric):
            continue
        if m.judgment not in results:
            results[m.judgment] = judge_records(judge, m.judgment, records)
        for qid, result in results[m.judgment].items():
            if result.score is None:
                unmeasured.setdefault(m.key, {})[qid] = result.unmeasured or "invalid_output"
            else:
                columns[j][qid] = m.value(result)
    abstained = [r.query_id for r in records if is_abstention(r.prediction)
                 or any(getattr(by_id[r.query_id], "abstained", False) for by_id in results.values())]
    info: dict[str, Any] = {"judge": judge.describe(answer_model), "usage": judge.usage.to_dict(),
                            "abstained": {"count": len(abstained), "rate": len(abstained) / len(records),
                                          "query_ids": abstained}}
    if keep_judgments:
        info["judgments"] = {kind: {str(q): r.to_dict() for q, r in by_id.items()} for kind, by_id in results.items()}
    return info


def _score(valid: list[AnswerRecord], measures: Sequence[AnswerMetric], embedder: Embedder | None,
           errors: dict[Hashable, str], progress: bool) -> list[dict[Hashable, float]]:
    """The lexical and semantic metrics of every record (judged ones are left to :func:`_judged`)."""
    columns: list[dict[Hashable, float]] = [{} for _ in measures]
    lexical = [(j, m) for j, m in enumerate(measures)
               if not m.needs_embedder and not m.needs_judge and not is_grounding(m)]
    for r in progress_bar(valid, total=len(valid), desc="scoring answers", unit="answer",
                          show=progress and bool(lexical) and len(valid) >= 1000):
        for j, m in lexical:
            try:
                columns[j][r.query_id] = m.score(r.prediction or "", r.references)
            except Exception as exc:  # noqa: BLE001 - recorded per query
                errors[r.query_id] = f"query {r.query_id!r}: {m.key}: {type(exc).__name__}: {exc}"
    for j, m in enumerate(measures):
        if is_grounding(m):  # grounding: against the record's contexts
            columns[j] = grounding_column(valid, m, embedder, errors)
        elif m.needs_embedder:
            columns[j] = _semantic(valid, m, embedder, errors)
    return columns
