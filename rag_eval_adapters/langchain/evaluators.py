"""Retrieval metrics as LangSmith ``RunEvaluator``s, one per metric or several in one pass."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from langsmith.evaluation import EvaluationResult, EvaluationResults, RunEvaluator

from .. import measures
from ..matching import TextMatcher, score_texts
from ..measures import Metric, parse_metric
from ..validation import check_level
from .documents import DOCUMENT_KEYS as DOCUMENT_KEYS  # defined with the document lookup; kept importable here
from .documents import (
    FEEDBACK_CONFIG,
    IdFn,
    _check_keys,
    _comment,
    _query_id,
    find_expected_texts,
    find_reference,
    retrieved_ids,
    retrieved_texts,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11


class EvaluatorOptions(TypedDict, total=False):
    """The keyword options every retrieval evaluator takes (documented on :class:`RetrievalMetricEvaluator`)."""

    reference_key: str
    documents_key: str | None
    id_key: str | None
    id_fn: IdFn | None
    relevance_level: float
    text_key: str
    matcher: TextMatcher | None


def _bounded(metric: Metric) -> Metric:
    if not metric.bounded:
        raise ValueError(
            f"metric {metric.key!r} is not bounded by 1, so it cannot be LangSmith feedback in [0, 1]; "
            f"use its normalised form (e.g. 'ndcg' instead of 'dcg')"
        )
    return metric


class _RetrievalEvaluator(RunEvaluator):
    """Shared extraction of retrieved ids and reference; subclasses decide which metrics to score."""

    _single: ClassVar[bool] = False  # one metric: one result (not EvaluationResults, not a list)

    def __init__(
        self,
        *,
        reference_key: str = "expected_ids",
        documents_key: str | None = None,
        id_key: str | None = None,
        id_fn: IdFn | None = None,
        relevance_level: float = 1,
        text_key: str = "expected_texts",
        matcher: TextMatcher | None = None,
    ) -> None:
        _check_keys({"reference_key": reference_key, "documents_key": documents_key, "id_key": id_key,
                     "text_key": text_key})
        if id_fn is not None and not callable(id_fn):
            raise TypeError(f"id_fn must be a callable taking a document and returning its id, got {id_fn!r}")
        check_level(relevance_level)
        if matcher is not None and not callable(matcher):
            raise TypeError(f"matcher must be a callable (retrieved_text, expected_text) -> bool, got {matcher!r}")
        self.text_key = text_key
        self.matcher = matcher
        self.reference_key = reference_key
        self.documents_key = documents_key
        self.id_key = id_key
        self.id_fn = id_fn
        self.relevance_level = relevance_level

    # -- to implement -------------------------------------------------------------------------------------------
    @property
    def metrics(self) -> list[Metric]:
        raise NotImplementedError

    def _keys(self) -> list[str]:
        return [metric.label for metric in self.metrics]

    # -- shared ----------------------------------------------------------------------------------------------------
    @property
    def feedback_keys(self) -> list[str]:
        """The feedback keys this evaluator emits (LangSmith also uses them to report an example's error)."""
        return self._keys()

    def _options(self) -> str:
        """The options that differ from their defaults (those of :meth:`__init__`), as ``repr`` shows them."""
        defaults = inspect.signature(_RetrievalEvaluator.__init__).parameters
        return "".join(f", {name}={getattr(self, name)!r}" for name in EvaluatorOptions.__annotations__
                       if getattr(self, name) != defaults[name].default)

    def _results(self, source: Any, reference_source: Any, query_id: Any) -> list[EvaluationResult]:
        expected_texts = find_expected_texts(reference_source, self.reference_key, self.text_key, query_id=query_id)
        if expected_texts is not None:
            return self._text_results(source, expected_texts, query_id)
        reference = find_reference(reference_source, self.reference_key, query_id=query_id)
        ids = retrieved_ids(source, documents_key=self.documents_key, id_key=self.id_key, id_fn=self.id_fn,
                            query_id=query_id)
        comment = _comment(ids, reference)
        return [
            EvaluationResult(
                key=key,
                score=float(metric.score(ids, reference, relevance_level=self.relevance_level, query_id=query_id)),
                comment=comment,
                feedback_config=dict(FEEDBACK_CONFIG),
            )
            for metric, key in zip(self.metrics, self._keys(), strict=False)
        ]

    def _text_results(self, source: Any, expected: Any, query_id: Any) -> list[EvaluationResult]:
        """Scores by text matching (:func:`rag_eval_adapters.matching.score_texts`): the reference holds texts."""
        texts = retrieved_texts(source, documents_key=self.documents_key, query_id=query_id)
        grades = dict(expected) if isinstance(expected, dict) else None
        wanted = list(expected)
        comment = f"text matching: retrieved {len(texts)} texts; expected {len(wanted)} texts"
        return [
            EvaluationResult(
                key=key,
                score=float(score_texts(metric, texts, wanted, matcher=self.matcher, grades=grades,
                                        relevance_level=self.relevance_level, query_id=query_id)),
                comment=comment,
                feedback_config=dict(FEEDBACK_CONFIG),
            )
            for metric, key in zip(self.metrics, self._keys(), strict=False)
        ]

    def _run_results(self, run: Any, example: Any) -> list[EvaluationResult]:
        return self._results(run, example, _query_id(run, example))

    def _package(self, results: list[EvaluationResult]) -> EvaluationResult | EvaluationResults:
        return results[0] if self._single else EvaluationResults(results=results)

    def evaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> EvaluationResult | EvaluationResults:
        """Score the documents retrieved in ``run`` against ``example.outputs[reference_key]``.

        ``evaluator_run_id`` and extra keywords are accepted for interface compatibility; the evaluator is
        plain arithmetic and is not traced, so results carry no ``source_run_id``.
        Raises ``ValueError`` naming what is missing when the reference or the documents cannot be found.
        """
        return self._package(self._run_results(run, example))

    async def aevaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> EvaluationResult | EvaluationResults:
        """As :meth:`evaluate_run`, natively async (the work is CPU-only and quick: no thread pool)."""
        return self._package(self._run_results(run, example))

    def __call__(
        self,
        *,
        inputs: Any = None,
        outputs: Any,
        reference_outputs: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """openevals-style call: ``{"key", "score", "comment"}`` for one query, or a list of them, one per metric,
        from an evaluator of several metrics (:class:`RetrievalMetricsEvaluator`).

        ``outputs`` is the target's outputs (or the list of documents), ``reference_outputs`` the example's
        outputs (or the list of relevant ids); ``inputs`` and extra keywords are ignored.
        """
        results = [
            {"key": result.key, "score": result.score, "comment": result.comment}
            for result in self._results(outputs, reference_outputs, None)
        ]
        return results[0] if self._single else results


class RetrievalMetricEvaluator(_RetrievalEvaluator):
    """A LangSmith ``RunEvaluator`` scoring one retrieval metric of the core, e.g. ``hit_rate@3`` or ``ndcg@10``.

    Args:
        metric: a name (``"ndcg@10"``, ``"mrr_granular"``, ``"ap@100"``) or a :class:`~rag_eval_adapters.measures.Metric`.
            Unbounded metrics (``dcg``) are rejected: LangSmith feedback here is continuous in [0, 1].
        k: cutoff, for a metric given without one (``RetrievalMetricEvaluator("mrr", k=5)`` is ``mrr@5``).
        key: feedback key; default the metric's key (``hit_rate@3``).
        reference_key: key of the example outputs holding the relevant ids, or a mapping id -> grade.
        documents_key: key of the run outputs holding the retrieved documents (default: searched, see module doc).
        id_key: metadata key holding a document's id (default ``Document.id``).
        id_fn: callable returning a document's id (overrides ``id_key``).
        relevance_level: lowest grade counted relevant (graded references).
        text_key: key of the example outputs holding the relevant *texts* (a list, or a mapping text -> grade),
            used when the outputs have no ``reference_key``: the retrieved documents' texts (``page_content``)
            are then matched against them (:func:`rag_eval_adapters.matching.score_texts`, the rule of
            ``evaluate(..., match="text")`` and of the LlamaIndex metrics).
        matcher: ``matcher(retrieved_text, expected_text) -> bool`` for text matching (default
            :func:`~rag_eval_adapters.matching.contains_match`).

    ``score = metric.score(retrieved_ids, reference)``, exactly the core's value, in [0, 1]; an empty retrieval
    scores 0. A missing reference or outputs without documents is a ``ValueError`` naming what was missing
    (inside LangSmith ``evaluate()`` it becomes that example's error feedback under :attr:`feedback_keys`).
    """

    _single = True
    metric_class: ClassVar[type[Metric]]  # the registry metric of each per-metric subclass (HitRateEvaluator, ...)

    def __init__(
        self,
        metric: str | Metric,
        *,
        k: int | None = None,
        key: str | None = None,
        **options: Unpack[EvaluatorOptions],
    ) -> None:
        super().__init__(**options)
        parsed = parse_metric(metric)
        if k is not None:
            if parsed.k is None:
                parsed = type(parsed)(**{**parsed.model_dump(), "k": k})
            elif parsed.k != k:
                raise ValueError(
                    f"metric {parsed.key!r} already has cutoff {parsed.k}, which conflicts with k={k!r}; "
                    f"give the cutoff once, e.g. {parsed.name!r} with k={k!r}"
                )
        if key is not None and (not isinstance(key, str) or not key):
            raise TypeError(f"key must be a non-empty string (the feedback key), got {key!r}")
        self.metric: Metric = _bounded(parsed)
        self.key: str = key if key is not None else parsed.label

    @property
    def metrics(self) -> list[Metric]:
        return [self.metric]

    def _keys(self) -> list[str]:
        return [self.key]

    def __repr__(self) -> str:
        own = f", key={self.key!r}" if self.key != self.metric.label else ""
        return f"{type(self).__name__}({self.metric.label!r}{own}{self._options()})"


class RetrievalMetricsEvaluator(_RetrievalEvaluator):
    """Several core metrics in one pass over a run, returned as LangSmith ``EvaluationResults``.

    >>> RetrievalMetricsEvaluator(["hit_rate@3", "mrr", "ndcg@10"]).feedback_keys
    ['hit_rate@3', 'mrr', 'ndcg@10']

    Options are those of :class:`RetrievalMetricEvaluator` (but not ``k``/``key``: each metric names its cutoff).
    The documents and the reference are extracted once; every result is the core's value for that metric.
    """

    def __init__(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        **options: Unpack[EvaluatorOptions],
    ) -> None:
        super().__init__(**options)
        if metrics is None:
            raise TypeError("metrics is None: name at least one, e.g. ['hit_rate@3', 'mrr', 'ndcg@10']")
        specs = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
        parsed = [_bounded(parse_metric(spec)) for spec in specs]
        if not parsed:
            raise ValueError("no metric given: name at least one, e.g. ['hit_rate@3', 'mrr', 'ndcg@10']")
        keys = [metric.key for metric in parsed]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})  # the same metric, by any name
        if duplicates:
            raise ValueError(f"metrics {duplicates} are given more than once; each feedback key must be unique")
        self._metrics = parsed

    @property
    def metrics(self) -> list[Metric]:
        return list(self._metrics)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._keys()!r}{self._options()})"


def _evaluator(core: type[Metric]) -> type[RetrievalMetricEvaluator]:
    """The evaluator class of a registry metric: ``XEvaluator(k, *, <options>, **evaluator options)``."""
    declared = core.option_parameters(exclude=("k",))  # as the per-query functions read them
    options = [option.name for option in declared]

    def __init__(self: RetrievalMetricEvaluator, k: int | None = None, **kwargs: Any) -> None:
        mine = {name: kwargs.pop(name) for name in options if name in kwargs}
        metric = core(**mine) if k is None else core(k=k, **mine)
        RetrievalMetricEvaluator.__init__(self, metric, **kwargs)

    P = inspect.Parameter
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [P("self", P.POSITIONAL_OR_KEYWORD), P("k", P.POSITIONAL_OR_KEYWORD, default=None),
         *(option.replace(kind=P.KEYWORD_ONLY) for option in declared),
         P("options", P.VAR_KEYWORD)]
    )
    summary = (core.__doc__ or "").strip().splitlines()[0]
    name = f"{core.__name__}Evaluator"
    doc = (f"``{core.name}@k`` as LangSmith feedback, scored by :class:`rag_eval_adapters.measures.{core.__name__}`: "
           f"{summary}\n\nOptions of the metric: {', '.join(options)}; the others are those of "
           ":class:`RetrievalMetricEvaluator`.")
    return type(name, (RetrievalMetricEvaluator,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                                    "__qualname__": name, "metric_class": core})


# one evaluator class per registry metric bounded by 1 (DCG cannot be feedback in [0, 1]), each named here
# (importable, picklable, visible to IDEs and type checkers)
HitRateEvaluator = _evaluator(measures.HitRate)
MRREvaluator = _evaluator(measures.MRR)
PrecisionEvaluator = _evaluator(measures.Precision)
RecallEvaluator = _evaluator(measures.Recall)
F1Evaluator = _evaluator(measures.F1)
AveragePrecisionEvaluator = _evaluator(measures.AveragePrecision)
RPrecisionEvaluator = _evaluator(measures.RPrecision)
NDCGEvaluator = _evaluator(measures.NDCG)
JudgedShareEvaluator = _evaluator(measures.JudgedShare)

EVALUATORS: dict[str, type[RetrievalMetricEvaluator]] = {
    cls.metric_class.name: cls
    for cls in (HitRateEvaluator, MRREvaluator, PrecisionEvaluator, RecallEvaluator, F1Evaluator,
                AveragePrecisionEvaluator, RPrecisionEvaluator, NDCGEvaluator, JudgedShareEvaluator)
}
"""Registry name -> evaluator class, for every registry metric bounded by 1."""
