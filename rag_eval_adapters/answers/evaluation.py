"""Scoring a batch of answers: :func:`evaluate_answers`, returning the package's :class:`~rag_eval_adapters.Report`."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..progress import progress_bar
from ..report import Report
from .cache import cached
from .embedders import Embedder
from .grounding import grounding_column
from .lexical import check_prediction, check_references
from .metrics import AnswerMetric, SemanticSimilarity, parse_answer_metrics
from .semantic import similarity_batch

__all__ = ["evaluate_answers", "AnswerRecord"]

RESERVED = ("query_id", "prediction", "reference", "references")


class AnswerRecord:
    """One validated record: ``query_id``, ``prediction``, ``references`` and the other fields as ``attributes``."""

    __slots__ = ("query_id", "prediction", "references", "attributes")

    def __init__(self, query_id: Hashable, prediction: str, references: list[str], attributes: dict[str, Any]):
        self.query_id = query_id
        self.prediction = prediction
        self.references = references
        self.attributes = attributes

    def __repr__(self) -> str:
        return (f"AnswerRecord(query_id={self.query_id!r}, prediction={self.prediction!r:.40}, "
                f"references={self.references!r:.60}, attributes={self.attributes!r})")


def _record(item: Any, index: int, needs_reference: bool = True) -> tuple[Hashable, AnswerRecord | str]:
    """The query id and the record, or the query id and an error message (``ValueError`` without an id)."""
    if not isinstance(item, Mapping):
        raise TypeError(f"record {index} must be a mapping with query_id, prediction and reference(s), "
                        f"got {type(item).__name__}")
    if "query_id" not in item or item["query_id"] is None:
        raise ValueError(f"record {index} has no query_id; every record needs one")
    qid = item["query_id"]
    if not isinstance(qid, Hashable):
        raise TypeError(f"record {index}: query_id must be a string or a number, got {type(qid).__name__}")
    try:
        unequal = bool(qid != qid)
    except (TypeError, ValueError):  # pandas' NA has no truth value
        unequal = True
    if unequal:  # NaN equals nothing, itself included: two NaN ids would both pass the uniqueness check
        raise ValueError(f"record {index}: query_id is {qid!r}, which does not equal itself; give each query an "
                         "id that does (a string or a finite number)")
    try:
        if "prediction" not in item:
            raise ValueError("no 'prediction' field")
        prediction = check_prediction(item["prediction"], "prediction")
        if "references" in item and "reference" in item:
            raise ValueError("give either 'reference' or 'references', not both")
        field = "references" if "references" in item else "reference"
        if field not in item and needs_reference:
            raise ValueError("no 'reference' or 'references' field")
        references = check_references(item[field], field) if field in item else []
    except (TypeError, ValueError) as exc:
        return qid, f"query {qid!r}: {exc}"
    attributes = {k: v for k, v in item.items() if k not in RESERVED}
    return qid, AnswerRecord(qid, prediction, references, attributes)


def _semantic(records: list[AnswerRecord], metric: SemanticSimilarity, embedder: Embedder,
              errors: dict[Hashable, str]) -> dict[Hashable, float]:
    """Similarity of every record, in one embedding call; record by record when that call fails."""
    try:
        values = similarity_batch([r.prediction for r in records], [r.references for r in records],
                                  embedder, side=metric.side)
        return {r.query_id: float(v) for r, v in zip(records, values, strict=False)}
    except Exception:  # noqa: BLE001 - isolate the failing records, keep the others
        pass
    out = {}
    for r in records:
        try:
            out[r.query_id] = metric.score(r.prediction, r.references, embedder)
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
) -> Report:
    """Score every answer against its reference(s) with each metric.

    Parameters
    ----------
    records : iterable of mappings
        Each with ``query_id``, ``prediction`` and ``reference`` (a string) or ``references`` (one string or a
        list: the best match counts). Other fields (e.g. ``query_type``) are kept as the query's attributes.
        The grounding metrics (``grounding_lexical``, ``grounding_semantic``) read ``contexts`` (or
        ``retrieved_contexts``) instead; with only them, records need no reference.
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
        measured items (``report.measured``). With judged metrics only, records need no reference.
    answer_model : str, optional
        The model that wrote the answers; the report warns when the judge is that model.

    Returns
    -------
    Report
        Means over the scored answers, values per query, and ``errors``: a record with a bad field (or whose
        embedding failed) is reported there with its query id and the rest are still scored.

    Raises
    ------
    ValueError
        A record without ``query_id``, a repeated ``query_id``, a ``query_id`` that does not equal itself
        (NaN), ``semantic_similarity`` without an embedder,
        no records, or no record that could be scored.
    """
    judged, metrics = _split_judged(metrics)
    if judged:
        return _with_judged(records, judged, metrics, judge, answer_model,
                            lambda rows: evaluate_answers(rows, metrics, embedder, cache=cache, progress=progress))
    measures = parse_answer_metrics(metrics)
    if any(m.needs_embedder for m in measures):
        if embedder is None:
            first = next(m.key for m in measures if m.needs_embedder)
            raise ValueError(f"{first} needs an embedder: pass embedder=E5Embedder() or another Embedder")
        embedder = cached(embedder, cache)
    if isinstance(records, Mapping) or isinstance(records, (str, bytes)):
        raise TypeError("records must be an iterable of mappings (one per answer), not a single mapping or string")
    valid: list[AnswerRecord] = []
    errors: dict[Hashable, str] = {}
    attributes: dict[Hashable, dict[str, Any]] = {}
    seen: set = set()
    for index, item in enumerate(records):
        qid, rec = _record(item, index, any(not getattr(m, "reads_contexts", False) for m in measures))
        if qid in seen:
            raise ValueError(f"record {index}: query_id {qid!r} appears twice; query ids must be unique")
        seen.add(qid)
        attributes[qid] = {k: v for k, v in item.items() if k not in RESERVED}
        if isinstance(rec, str):
            errors[qid] = rec
        else:
            valid.append(rec)
    if not seen:
        raise ValueError("no records: give at least one {query_id, prediction, reference} record")
    columns = _score(valid, measures, embedder, errors, progress)
    scored = [r for r in valid if r.query_id not in errors]
    if not scored:
        first = next(iter(errors.values()))
        raise ValueError(f"no answer could be scored; {len(errors)} errors, the first: {first}")
    values = np.array([[columns[j][r.query_id] for j in range(len(measures))] for r in scored], dtype=np.float64)
    counts = {"queries": len(seen), "scored": len(scored), "errors": len(errors)}
    errors = {q: errors[q] for q in attributes if q in errors}  # in record order
    return Report(measures, [r.query_id for r in scored], values.reshape(len(scored), len(measures)),
                  errors, counts, relevance_level=None, attributes={q: a for q, a in attributes.items() if a})


def _score(valid: list[AnswerRecord], measures: Sequence[AnswerMetric], embedder: Embedder | None,
           errors: dict[Hashable, str], progress: bool) -> list[dict[Hashable, float]]:
    columns: list[dict[Hashable, float]] = [{} for _ in measures]
    lexical = [(j, m) for j, m in enumerate(measures) if not m.needs_embedder and not getattr(m, "reads_contexts", False)]
    for r in progress_bar(valid, total=len(valid), desc="scoring answers", unit="answer",
                          show=progress and bool(lexical) and len(valid) >= 1000):
        for j, m in lexical:
            try:
                columns[j][r.query_id] = m.score(r.prediction, r.references)
            except Exception as exc:  # noqa: BLE001 - recorded per query
                errors[r.query_id] = f"query {r.query_id!r}: {m.key}: {type(exc).__name__}: {exc}"
    for j, m in enumerate(measures):
        if getattr(m, "reads_contexts", False):  # grounding: against the record's contexts
            columns[j] = grounding_column(valid, m, embedder, errors)
        elif m.needs_embedder:
            columns[j] = _semantic(valid, m, embedder, errors)
    return columns


def _split_judged(metrics: Any) -> tuple[list[str], Any]:
    """``(judged metric names, the other metrics)``; the others as given when there is no judged one."""
    from ..judges import is_judged_metric

    items = [metrics] if isinstance(metrics, (str, AnswerMetric)) else list(metrics)
    judged = [m for m in items if is_judged_metric(m)]
    return (judged, [m for m in items if not is_judged_metric(m)]) if judged else ([], items)


def _with_judged(records: Iterable[Mapping[str, Any]], judged: list[str], rest: list[Any], judge: Any,
                 answer_model: str | None, lexical: Any) -> Report:
    """The judged metrics (and the ``rest``, scored by ``lexical``) of ``records`` in one report."""
    from ..judges import RECORD_FIELDS, judge_answers

    if judge is None:
        raise ValueError(f"{', '.join(judged)} need a judge: pass judge=LLMJudge(OpenAICompatibleLLM(...)) or another "
                         "LLMJudge")
    if isinstance(records, Mapping) or isinstance(records, (str, bytes)):
        raise TypeError("records must be an iterable of mappings (one per answer), not a single mapping or string")
    rows = list(records)
    judged_report = judge_answers(rows, judged, judge, answer_model=answer_model)
    if not rest:
        return judged_report
    plain = lexical(rows)
    row_of = {q: i for i, q in enumerate(judged_report.query_ids)}
    picked = judged_report.values[[row_of[q] for q in plain.query_ids]]
    values = np.hstack([plain.values, np.nan_to_num(picked, nan=0.0)]) if plain.query_ids else np.empty((0, 0))
    unmeasured = {k: {q: r for q, r in cells.items() if q in plain.per_query}
                  for k, cells in judged_report.unmeasured.items()}
    attributes = {q: {k: v for k, v in a.items() if k not in RECORD_FIELDS} for q, a in plain.attributes.items()}
    return Report(plain.metrics + judged, plain.query_ids, values, plain.errors, plain.counts,
                  relevance_level=None, attributes={q: a for q, a in attributes.items() if a},
                  unmeasured=unmeasured, info=judged_report.info)
