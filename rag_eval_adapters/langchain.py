"""Retrieval metrics as LangChain / LangSmith evaluators.

Every metric of :mod:`rag_eval_adapters.measures` becomes a :class:`langsmith.evaluation.RunEvaluator`, usable in

* LangSmith's ``evaluate()`` / ``aevaluate()`` (``Client.evaluate`` too, also with ``upload_results=False``),
* ``langchain_core.tracers.evaluation.EvaluatorCallbackHandler``,
* the legacy ``langchain.smith.RunEvalConfig(custom_evaluators=[...])`` (it takes any ``RunEvaluator``),
* openevals-style direct calls: ``evaluator(inputs=..., outputs=..., reference_outputs=...)``.

The evaluators only find the retrieved document ids and the reference, then call the metric core: the scores
are exactly those of :mod:`rag_eval_adapters.metrics`. Feedback keys are the core metric keys (``hit_rate@3``,
``mrr``, ``ndcg@10``, ``mrr_granular``, ``ndcg_exp@10``), the same names the LlamaIndex adapters use.

>>> from rag_eval_adapters.langchain import HitRateEvaluator
>>> HitRateEvaluator(k=2)(outputs={"documents": ["d7", "d1"]}, reference_outputs={"expected_ids": ["d1"]})["score"]
1.0

Where the retrieved documents are found (:func:`find_documents`): ``outputs[documents_key]`` when
``documents_key`` is given; otherwise the first of ``outputs["documents"]``, ``outputs["output"]``,
``outputs["context"]``, ``outputs["source_documents"]`` holding a list (also one level down, e.g.
``outputs["output"]["documents"]``); otherwise the first retriever child run of the run (depth first, in start
order). Items may be ``Document`` objects, serialized documents (dicts from the LangSmith API, plain or in
LangChain's ``{"lc": 1, "type": "constructor", ...}`` form), ``(Document, score)`` pairs, or plain ids.

A document's id (:func:`document_id`) is ``id_fn(doc)`` when given, else ``doc.metadata[id_key]`` when
``id_key`` is given, else ``Document.id``; a plain id is its own id. Ids are strings (ints and UUIDs are
converted with ``str``, on both sides, so ``1`` and ``"1"`` match).

The reference is ``example.outputs[reference_key]`` (default ``"expected_ids"``): a list of relevant ids, or a
mapping ``id -> grade`` for graded relevance (a document is relevant when its grade is ``>= relevance_level``;
nDCG uses the grades as gains).
"""

from __future__ import annotations

import numbers
import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Optional, Union

from pydantic import ValidationError

try:
    from langchain_core.documents import Document
    from langsmith.evaluation import EvaluationResult, EvaluationResults, RunEvaluator
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(
        "rag_eval_adapters.langchain needs langsmith and langchain-core: "
        "pip install 'rag-eval-adapters[langchain]'"
    ) from exc

from .measures import MRR, NDCG, F1, AveragePrecision, HitRate, Metric, Precision, Recall, parse_metric
from .rerank import (
    AGGREGATIONS,
    DEFAULT_COHERE_MODEL,
    CohereReranker,
    RelevanceScorer,
    RelevancyResult,
    RerankError,
    RerankUsage,
    arerank_relevancy_result,
    check_relevancy_options,
    relevancy_key,
    rerank_relevancy_result,
)

__all__ = [
    "DOCUMENT_KEYS",
    "FEEDBACK_CONFIG",
    "RetrievalMetricEvaluator",
    "RetrievalMetricsEvaluator",
    "HitRateEvaluator",
    "MRREvaluator",
    "PrecisionEvaluator",
    "RecallEvaluator",
    "F1Evaluator",
    "AveragePrecisionEvaluator",
    "NDCGEvaluator",
    "RerankRelevancyEvaluator",
    "CohereRerankRelevancyEvaluator",
    "find_documents",
    "document_id",
    "document_text",
    "retrieved_ids",
    "find_reference",
]

DOCUMENT_KEYS: tuple[str, ...] = ("documents", "output", "context", "source_documents")
"""Output keys searched, in order, for the retrieved documents when no ``documents_key`` is given."""

FEEDBACK_CONFIG: dict[str, Any] = {"type": "continuous", "min": 0.0, "max": 1.0}
"""The LangSmith feedback configuration of every score: continuous in [0, 1]."""

IdFn = Callable[[Any], Any]
_PREVIEW = 10


# ---------------------------------------------------------------------------------------------------------------
# Finding documents, ids and references (reusable by other LangChain evaluators)
# ---------------------------------------------------------------------------------------------------------------


def _where(query_id: Any) -> str:
    return "" if query_id is None else f"query {query_id!r}: "


def _is_run(source: Any) -> bool:
    return not isinstance(source, (Mapping, str, bytes)) and hasattr(source, "outputs")


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _lookup(outputs: Mapping[str, Any]) -> Optional[list[Any]]:
    """The first list under DOCUMENT_KEYS, also one level down (``outputs["output"]["documents"]``)."""
    for key in DOCUMENT_KEYS:
        value = outputs.get(key)
        if _is_list(value):
            return list(value)
    for key in DOCUMENT_KEYS:
        value = outputs.get(key)
        if isinstance(value, Mapping):
            for inner in DOCUMENT_KEYS:
                if _is_list(value.get(inner)):
                    return list(value[inner])
    return None


def _walk(run: Any) -> Iterator[Any]:
    for child in getattr(run, "child_runs", None) or ():
        yield child
        yield from _walk(child)


def _retriever_documents(run: Any) -> Optional[list[Any]]:
    """The documents of the first retriever child run (depth first, in start order), if any."""
    for child in _walk(run):
        outputs = getattr(child, "outputs", None)
        if getattr(child, "run_type", None) == "retriever" and isinstance(outputs, Mapping):
            documents = outputs.get("documents")
            if _is_list(documents):
                return list(documents)
    return None


def _rebuild(item: Mapping[str, Any]) -> Union[Document, Mapping[str, Any]]:
    """A Document from a serialized one (LangSmith API dict or LangChain ``lc`` constructor form)."""
    fields: Mapping[str, Any] = item
    if item.get("lc") == 1 and item.get("type") == "constructor" and isinstance(item.get("kwargs"), Mapping):
        path = item.get("id")
        if not (isinstance(path, (list, tuple)) and path and path[-1] == "Document"):
            return item
        fields = item["kwargs"]
    if not any(name in fields for name in ("page_content", "id", "metadata")):
        return item
    metadata = fields.get("metadata") or {}
    doc_id = fields.get("id")
    if isinstance(doc_id, uuid.UUID):
        doc_id = str(doc_id)
    return Document(
        page_content=str(fields.get("page_content") or ""),
        metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
        id=doc_id,
    )


def _normalise_item(item: Any) -> Any:
    if isinstance(item, Document):
        return item
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], numbers.Real)
            and not isinstance(item[1], bool)):
        first = _normalise_item(item[0])  # (Document, score) from similarity_search_with_score, or (id, score)
        if isinstance(first, (Document, str, uuid.UUID)):
            return first
        return item
    if isinstance(item, Mapping):
        return _rebuild(item)
    return item


def find_documents(source: Any, *, documents_key: Optional[str] = None, query_id: Any = None) -> list[Any]:
    """The retrieved items, in rank order, from a run, an outputs mapping, or a bare list.

    ``source`` is a LangSmith/LangChain run (its ``outputs``, then its retriever child runs are searched), a
    mapping of outputs, or the list of documents itself. With ``documents_key`` only ``outputs[documents_key]``
    is used. Without it: the first list under :data:`DOCUMENT_KEYS` (also one level down), then the first
    retriever child run. Serialized documents are rebuilt into :class:`~langchain_core.documents.Document`,
    ``(Document, score)`` and ``(id, score)`` pairs give their first item, other items (plain ids) are returned
    unchanged.

    An empty list is a retrieval that found nothing. Raises ``ValueError`` when no documents can be found.
    """
    found: Optional[list[Any]] = None
    run = source if _is_run(source) else None
    outputs = source.outputs if run is not None else source
    if outputs is None and run is not None and getattr(run, "error", None):
        raise ValueError(
            f"{_where(query_id)}the run has no outputs because it failed ({run.error}); "
            "fix the target so that it returns the retrieved documents"
        )
    if _is_list(outputs):
        found = list(outputs)
    elif isinstance(outputs, Mapping) or outputs is None:
        outputs = outputs or {}
        if documents_key is not None:
            if documents_key not in outputs:
                raise ValueError(
                    f"{_where(query_id)}outputs[{documents_key!r}] is missing (the outputs have keys "
                    f"{sorted(map(str, outputs))}); return the retrieved documents under {documents_key!r} "
                    "or pass another documents_key"
                )
            value = outputs[documents_key]
            if not _is_list(value):
                raise ValueError(
                    f"{_where(query_id)}outputs[{documents_key!r}] must be a list of documents or ids in rank "
                    f"order, got {type(value).__name__}"
                )
            found = list(value)
        else:
            found = _lookup(outputs)
            if found is None and run is not None:
                found = _retriever_documents(run)
            if found is None:
                has_children = run is not None and bool(getattr(run, "child_runs", None))
                raise ValueError(
                    f"{_where(query_id)}no retrieved documents found: the outputs (keys "
                    f"{sorted(map(str, outputs))}) hold no list under {', '.join(map(repr, DOCUMENT_KEYS))}"
                    + (
                        " and no retriever child run returned documents"
                        if has_children
                        else " and no retriever child run is available"
                    )
                    + "; return them as outputs['documents'] (e.g. {'documents': retriever.invoke(question)}), "
                    "or pass documents_key='<your key>'"
                )
    else:
        raise TypeError(
            f"{_where(query_id)}outputs must be a mapping, a run or a list of documents, "
            f"got {type(outputs).__name__}"
        )
    return [_normalise_item(item) for item in found]


def _as_id(value: Any, what: str, query_id: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, uuid.UUID) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        return str(value)
    if value is None:
        raise ValueError(f"{_where(query_id)}{what} is None; every document needs an id")
    raise TypeError(f"{_where(query_id)}{what} must be a string id (or an int/UUID), got {value!r}")


def document_id(
    item: Any,
    *,
    id_key: Optional[str] = None,
    id_fn: Optional[IdFn] = None,
    rank: Optional[int] = None,
    query_id: Any = None,
) -> str:
    """The id of one retrieved item: ``id_fn(item)``, else ``item.metadata[id_key]``, else ``Document.id``.

    Plain ids (strings, ints, UUIDs) are their own id. The result is a string. ``rank`` (1-based) and
    ``query_id`` only name the item in error messages.
    """
    what = "document" if rank is None else f"document at rank {rank}"
    if id_fn is not None:
        return _as_id(id_fn(item), f"id_fn({what})", query_id)
    if isinstance(item, Document):
        if id_key is not None:
            if id_key not in item.metadata:
                raise ValueError(
                    f"{_where(query_id)}{what} has no metadata[{id_key!r}] (its metadata keys: "
                    f"{sorted(map(str, item.metadata))}); store the id there when indexing, or pass another "
                    "id_key or an id_fn"
                )
            return _as_id(item.metadata[id_key], f"{what} metadata[{id_key!r}]", query_id)
        if item.id is None:
            raise ValueError(
                f"{_where(query_id)}{what} has no id: set Document.id when indexing, or pass "
                "id_key='<metadata key holding the id>' or id_fn=<callable returning the id>"
            )
        return _as_id(item.id, f"{what} id", query_id)
    if isinstance(item, (str, uuid.UUID)) or (isinstance(item, numbers.Integral) and not isinstance(item, bool)):
        return _as_id(item, what, query_id)
    raise TypeError(
        f"{_where(query_id)}{what} is a {type(item).__name__} ({_short(item)}), neither a Document nor an id; "
        "pass id_fn=<callable returning its id>"
    )


def document_text(item: Any) -> Optional[str]:
    """The text of one retrieved item: ``Document.page_content``; ``None`` for a plain id."""
    item = _normalise_item(item)
    if isinstance(item, Document):
        return item.page_content
    return None


def retrieved_ids(
    source: Any,
    *,
    documents_key: Optional[str] = None,
    id_key: Optional[str] = None,
    id_fn: Optional[IdFn] = None,
    query_id: Any = None,
) -> list[str]:
    """The retrieved document ids in rank order (see :func:`find_documents` and :func:`document_id`)."""
    items = find_documents(source, documents_key=documents_key, query_id=query_id)
    return [
        document_id(item, id_key=id_key, id_fn=id_fn, rank=rank, query_id=query_id)
        for rank, item in enumerate(items, start=1)
    ]


def find_reference(
    source: Any,
    reference_key: str = "expected_ids",
    *,
    query_id: Any = None,
) -> Union[list[str], dict[str, Any]]:
    """The relevant ids (a list) or graded relevance (a dict id -> grade) for one query.

    ``source`` is a LangSmith ``Example`` (its ``outputs[reference_key]``), a mapping of reference outputs
    (``reference_outputs[reference_key]``), or the bare list of relevant ids. Raises ``ValueError`` when the
    reference is missing or empty.
    """
    field = f"outputs[{reference_key!r}]"
    if source is None:
        raise ValueError(
            f"{_where(query_id)}no reference: the evaluator needs the dataset example with {field} holding the "
            "relevant document ids. LangSmith evaluate() passes it; with EvaluatorCallbackHandler pass "
            "example_id=...; in a direct call pass reference_outputs={" + repr(reference_key) + ": [...]}"
        )
    if _is_list(source) or isinstance(source, (set, frozenset)):
        value: Any = source
        field = "reference"
    else:
        outputs = source if isinstance(source, Mapping) else getattr(source, "outputs", None)
        if outputs is None:
            outputs = {}
        if not isinstance(outputs, Mapping):
            raise TypeError(
                f"{_where(query_id)}the reference outputs must be a mapping, got {type(outputs).__name__}"
            )
        if outputs.get(reference_key) is None:
            example = "" if isinstance(source, Mapping) else "the example's "
            raise ValueError(
                f"{_where(query_id)}{example}{field} is missing (the reference outputs have keys "
                f"{sorted(map(str, outputs))}); store the relevant document ids (or a mapping id -> grade) "
                "there, or pass reference_key='<your key>'"
            )
        value = outputs[reference_key]
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{_where(query_id)}{field} is a single string ({value!r}); store a list of ids, e.g. [{value!r}]"
        )
    if isinstance(value, Mapping):
        reference: Union[list[str], dict[str, Any]] = {
            _as_id(doc, f"{field} key", query_id): grade for doc, grade in value.items()
        }
    elif isinstance(value, Iterable):
        reference = [_as_id(doc, f"{field} item", query_id) for doc in value]
    else:
        raise TypeError(
            f"{_where(query_id)}{field} must be a list of ids or a mapping id -> grade, got {type(value).__name__}"
        )
    if not reference:
        raise ValueError(
            f"{_where(query_id)}{field} is empty: a query needs at least one relevant document id to be scored"
        )
    return reference


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _preview(values: Sequence[Any]) -> str:
    shown = ", ".join(map(str, values[:_PREVIEW]))
    return f"[{shown}{', ...' if len(values) > _PREVIEW else ''}]"


def _comment(ids: Sequence[str], reference: Union[list[str], dict[str, Any]]) -> str:
    if isinstance(reference, dict):
        items = [f"{doc}: {grade}" for doc, grade in reference.items()]
        expected = "{" + ", ".join(items[:_PREVIEW]) + (", ..." if len(items) > _PREVIEW else "") + "}"
    else:
        expected = _preview(reference)
    return f"retrieved {len(ids)} ids {_preview(ids)}; expected {len(reference)} {expected}"


# ---------------------------------------------------------------------------------------------------------------
# Evaluators
# ---------------------------------------------------------------------------------------------------------------


def _make(cls: type[Metric], **fields: Any) -> Metric:
    """``cls(**fields)``, a pydantic validation error turned into a plain ``ValueError``/``TypeError``."""
    try:
        return cls(**fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        message = str(error.get("msg", exc)).removeprefix("Value error, ")
        raise (TypeError if "type" in error.get("type", "") else ValueError)(
            f"{cls.__name__}: {message}"
        ) from None


def _bounded(metric: Metric) -> Metric:
    if not metric.bounded:
        raise ValueError(
            f"metric {metric.key!r} is not bounded by 1, so it cannot be LangSmith feedback in [0, 1]; "
            f"use its normalised form (e.g. 'ndcg' instead of 'dcg')"
        )
    return metric


def _query_id(run: Any, example: Any) -> Any:
    for value in (getattr(example, "id", None), getattr(run, "reference_example_id", None)):
        if value is not None:
            return str(value)
    return None


class _RetrievalEvaluator(RunEvaluator):
    """Shared extraction of retrieved ids and reference; subclasses decide which metrics to score."""

    def __init__(
        self,
        *,
        reference_key: str = "expected_ids",
        documents_key: Optional[str] = None,
        id_key: Optional[str] = None,
        id_fn: Optional[IdFn] = None,
        relevance_level: float = 1,
    ) -> None:
        for name, value in (("reference_key", reference_key), ("documents_key", documents_key), ("id_key", id_key)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {value!r}")
        if id_fn is not None and not callable(id_fn):
            raise TypeError(f"id_fn must be a callable taking a document and returning its id, got {id_fn!r}")
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, numbers.Real):
            raise TypeError(f"relevance_level must be a number (a grade threshold), got {relevance_level!r}")
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
        return [metric.key for metric in self.metrics]

    # -- shared ----------------------------------------------------------------------------------------------------
    @property
    def feedback_keys(self) -> list[str]:
        """The feedback keys this evaluator emits (LangSmith also uses them to report an example's error)."""
        return self._keys()

    def _options(self) -> str:
        defaults = {"reference_key": "expected_ids", "documents_key": None, "id_key": None, "id_fn": None,
                    "relevance_level": 1}
        return "".join(f", {name}={getattr(self, name)!r}" for name, default in defaults.items()
                       if getattr(self, name) != default)

    def _results(self, source: Any, reference_source: Any, query_id: Any) -> list[EvaluationResult]:
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
            for metric, key in zip(self.metrics, self._keys())
        ]

    def _run_results(self, run: Any, example: Any) -> list[EvaluationResult]:
        return self._results(run, example, _query_id(run, example))

    def _package(self, results: list[EvaluationResult]) -> Union[EvaluationResult, EvaluationResults]:
        raise NotImplementedError

    def evaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: Optional[uuid.UUID] = None,
        **kwargs: Any,
    ) -> Union[EvaluationResult, EvaluationResults]:
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
        evaluator_run_id: Optional[uuid.UUID] = None,
        **kwargs: Any,
    ) -> Union[EvaluationResult, EvaluationResults]:
        """As :meth:`evaluate_run`, natively async (the work is CPU-only and quick: no thread pool)."""
        return self._package(self._run_results(run, example))

    def _call(self, outputs: Any, reference_outputs: Any, query_id: Any) -> list[dict[str, Any]]:
        return [
            {"key": result.key, "score": result.score, "comment": result.comment}
            for result in self._results(outputs, reference_outputs, query_id)
        ]


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

    ``score = metric.score(retrieved_ids, reference)``, exactly the core's value, in [0, 1]; an empty retrieval
    scores 0. A missing reference or outputs without documents is a ``ValueError`` naming what was missing
    (inside LangSmith ``evaluate()`` it becomes that example's error feedback under :attr:`feedback_keys`).
    """

    def __init__(
        self,
        metric: Union[str, Metric],
        *,
        k: Optional[int] = None,
        key: Optional[str] = None,
        reference_key: str = "expected_ids",
        documents_key: Optional[str] = None,
        id_key: Optional[str] = None,
        id_fn: Optional[IdFn] = None,
        relevance_level: float = 1,
    ) -> None:
        super().__init__(reference_key=reference_key, documents_key=documents_key, id_key=id_key, id_fn=id_fn,
                         relevance_level=relevance_level)
        parsed = parse_metric(metric)
        if k is not None:
            if parsed.k is None:
                parsed = _make(type(parsed), **{**parsed.model_dump(), "k": k})
            elif parsed.k != k:
                raise ValueError(
                    f"metric {parsed.key!r} already has cutoff {parsed.k}, which conflicts with k={k!r}; "
                    f"give the cutoff once, e.g. {parsed.name!r} with k={k!r}"
                )
        if key is not None and (not isinstance(key, str) or not key):
            raise TypeError(f"key must be a non-empty string (the feedback key), got {key!r}")
        self.metric: Metric = _bounded(parsed)
        self.key: str = key if key is not None else parsed.key

    @property
    def metrics(self) -> list[Metric]:
        return [self.metric]

    def _keys(self) -> list[str]:
        return [self.key]

    def _package(self, results: list[EvaluationResult]) -> EvaluationResult:
        return results[0]

    def __call__(
        self,
        *,
        inputs: Any = None,
        outputs: Any,
        reference_outputs: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """openevals-style call: ``{"key", "score", "comment"}`` for one query.

        ``outputs`` is the target's outputs (or the list of documents), ``reference_outputs`` the example's
        outputs (or the list of relevant ids); ``inputs`` and extra keywords are ignored.
        """
        return self._call(outputs, reference_outputs, None)[0]

    def __repr__(self) -> str:
        own = f", key={self.key!r}" if self.key != self.metric.key else ""
        return f"{type(self).__name__}({self.metric.key!r}{own}{self._options()})"


class RetrievalMetricsEvaluator(_RetrievalEvaluator):
    """Several core metrics in one pass over a run, returned as LangSmith ``EvaluationResults``.

    >>> RetrievalMetricsEvaluator(["hit_rate@3", "mrr", "ndcg@10"]).feedback_keys
    ['hit_rate@3', 'mrr', 'ndcg@10']

    Options are those of :class:`RetrievalMetricEvaluator` (but not ``k``/``key``: each metric names its cutoff).
    The documents and the reference are extracted once; every result is the core's value for that metric.
    """

    def __init__(
        self,
        metrics: Union[str, Metric, Iterable[Union[str, Metric]]],
        *,
        reference_key: str = "expected_ids",
        documents_key: Optional[str] = None,
        id_key: Optional[str] = None,
        id_fn: Optional[IdFn] = None,
        relevance_level: float = 1,
    ) -> None:
        super().__init__(reference_key=reference_key, documents_key=documents_key, id_key=id_key, id_fn=id_fn,
                         relevance_level=relevance_level)
        specs = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
        parsed = [_bounded(parse_metric(spec)) for spec in specs]
        if not parsed:
            raise ValueError("no metric given: name at least one, e.g. ['hit_rate@3', 'mrr', 'ndcg@10']")
        keys = [metric.key for metric in parsed]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise ValueError(f"metrics {duplicates} are given more than once; each feedback key must be unique")
        self._metrics = parsed

    @property
    def metrics(self) -> list[Metric]:
        return list(self._metrics)

    def _package(self, results: list[EvaluationResult]) -> EvaluationResults:
        return EvaluationResults(results=results)

    def __call__(
        self,
        *,
        inputs: Any = None,
        outputs: Any,
        reference_outputs: Any = None,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """openevals-style call: a list of ``{"key", "score", "comment"}``, one per metric."""
        return self._call(outputs, reference_outputs, None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._keys()!r}{self._options()})"


class HitRateEvaluator(RetrievalMetricEvaluator):
    """``hit_rate@k``: 1 if a relevant id is within the top k (granular: share of relevant ids found)."""

    def __init__(self, k: Optional[int] = None, *, granular: bool = False, **options: Any) -> None:
        super().__init__(_make(HitRate, k=k, granular=granular), **options)


class MRREvaluator(RetrievalMetricEvaluator):
    """``mrr@k``: 1/rank of the first relevant id within k (granular: mean 1/rank of the relevant ids found)."""

    def __init__(self, k: Optional[int] = None, *, granular: bool = False, **options: Any) -> None:
        super().__init__(_make(MRR, k=k, granular=granular), **options)


class PrecisionEvaluator(RetrievalMetricEvaluator):
    """``precision@k``: relevant ids within the top k, divided by k (k=None: by the number retrieved)."""

    def __init__(self, k: Optional[int] = None, **options: Any) -> None:
        super().__init__(_make(Precision, k=k), **options)


class RecallEvaluator(RetrievalMetricEvaluator):
    """``recall@k``: relevant ids within the top k, divided by the number of relevant ids."""

    def __init__(self, k: Optional[int] = None, **options: Any) -> None:
        super().__init__(_make(Recall, k=k), **options)


class F1Evaluator(RetrievalMetricEvaluator):
    """``f1@k``: harmonic mean of precision@k and recall@k."""

    def __init__(self, k: Optional[int] = None, **options: Any) -> None:
        super().__init__(_make(F1, k=k), **options)


class AveragePrecisionEvaluator(RetrievalMetricEvaluator):
    """``ap@k``: sum of precision at each relevant rank within k, over the number of relevant ids."""

    def __init__(self, k: Optional[int] = None, **options: Any) -> None:
        super().__init__(_make(AveragePrecision, k=k), **options)


class NDCGEvaluator(RetrievalMetricEvaluator):
    """``ndcg@k``: DCG@k / ideal DCG@k, gains = grades (``gain="exponential"``: 2**grade - 1)."""

    def __init__(self, k: Optional[int] = None, *, gain: str = "linear", **options: Any) -> None:
        super().__init__(_make(NDCG, k=k, gain=gain), **options)


# ---------------------------------------------------------------------------------------------------------------
# Reranker relevancy (no reference needed)
# ---------------------------------------------------------------------------------------------------------------


def _relevancy_comment(result: RelevancyResult) -> str:
    if not result.scores:
        return f"no documents retrieved: {result.scorer} relevancy 0"
    shown = ", ".join(f"{s:.4g}" for s in result.scores[:_PREVIEW])
    more = ", ..." if len(result.scores) > _PREVIEW else ""
    how = f"{result.normalize}, then " if result.normalize else ""
    return f"{how}{result.agg} of {len(result.scores)} {result.scorer} scores [{shown}{more}]"


class RerankRelevancyEvaluator(RunEvaluator):
    """A LangSmith ``RunEvaluator`` scoring how relevant the retrieved texts are to the query: no reference needed.

    ``score = agg_i scorer(query, texts[i])`` (:func:`rag_eval_adapters.rerank.rerank_relevancy`) with ``agg`` in
    ``max`` (default), ``mean`` or ``median``; in [0, 1] (an uncalibrated scorer needs ``normalize="sigmoid"``).
    No retrieved documents scores 0.

    * The query is ``run.inputs[query_key]``, else ``example.inputs[query_key]`` (a ``ValueError`` naming the
      keys there when neither has it).
    * The texts are the ``page_content`` of the retrieved documents, found as for the id metrics
      (:func:`find_documents`: ``outputs[documents_key]``, the usual output keys, or the retriever child run);
      plain strings are taken as the texts themselves.
    * The feedback key is ``rerank_relevancy`` for default options, else ``rerank_relevancy_<agg>`` and/or a
      ``_sigmoid`` suffix, or ``key``.
    * When the scorer fails for a query (a :class:`~rag_eval_adapters.rerank.RerankError` once its retries are
      exhausted), the result is recorded, not scored: ``EvaluationResult(score=None, comment="RerankError: ...",
      extra={"error": True})``. Invalid input (no query, no documents) raises, and LangSmith ``evaluate()`` makes
      it that example's error.

    ``evaluate_run`` scores with ``scorer.score``; ``aevaluate_run`` awaits ``scorer.ascore`` (native async:
    ``aevaluate()`` with ``max_concurrency`` scores many examples at once). The openevals-style call
    ``evaluator(inputs=..., outputs=...)`` returns ``{"key", "score", "comment"}``.
    """

    _default_key: str = "rerank_relevancy"

    def __init__(
        self,
        scorer: RelevanceScorer,
        agg: str = "max",
        normalize: Optional[str] = None,
        *,
        query_key: str = "query",
        documents_key: Optional[str] = None,
        key: Optional[str] = None,
    ) -> None:
        check_relevancy_options(scorer, agg, normalize)
        for name, value in (("query_key", query_key), ("documents_key", documents_key), ("key", key)):
            if value is not None and (not isinstance(value, str) or not value):
                raise TypeError(f"{name} must be a non-empty string, got {value!r}")
        self.scorer = scorer
        self.agg = agg
        self.normalize = normalize
        self.query_key = query_key
        self.documents_key = documents_key
        self.key: str = key if key is not None else relevancy_key(self._default_key, agg, normalize)

    @property
    def feedback_keys(self) -> list[str]:
        """The feedback key this evaluator emits (LangSmith also uses it to report an example's error)."""
        return [self.key]

    def _repr_args(self) -> list[str]:
        return [f"scorer={self.scorer!r}"]

    def __repr__(self) -> str:
        args = self._repr_args()
        if self.agg != "max":
            args.append(f"agg={self.agg!r}")
        if self.normalize is not None:
            args.append(f"normalize={self.normalize!r}")
        if self.query_key != "query":
            args.append(f"query_key={self.query_key!r}")
        if self.documents_key is not None:
            args.append(f"documents_key={self.documents_key!r}")
        if self.key != relevancy_key(self._default_key, self.agg, self.normalize):
            args.append(f"key={self.key!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    # -- extraction --------------------------------------------------------------------------------------------
    def _query(self, sources: Sequence[tuple[str, Any]], query_id: Any) -> Any:
        seen = []
        for where, inputs in sources:
            if isinstance(inputs, Mapping):
                if self.query_key in inputs:
                    return inputs[self.query_key]
                seen.append(f"{where} has keys {sorted(map(str, inputs))}")
            elif inputs is not None:
                seen.append(f"{where} is a {type(inputs).__name__}")
        found = "; ".join(seen) or "no inputs were given"
        text_keys = list(dict.fromkeys(k for _, inputs in sources if isinstance(inputs, Mapping)
                                       for k, v in inputs.items() if isinstance(v, str)))
        if len(text_keys) == 1:
            hint = f"query_key={text_keys[0]!r}"
        else:
            hint = "query_key='<the input key holding the question>'" + (
                f" (string inputs: {', '.join(map(repr, text_keys))})" if text_keys else "")
        raise ValueError(
            f"{_where(query_id)}no query: {' and '.join(w for w, _ in sources)} hold no {self.query_key!r} "
            f"({found}); pass {hint}"
        )

    def _texts(self, source: Any, query_id: Any) -> list[str]:
        texts = []
        for rank, item in enumerate(find_documents(source, documents_key=self.documents_key, query_id=query_id), 1):
            text = item if isinstance(item, str) else document_text(item)
            if text is None:
                raise TypeError(
                    f"{_where(query_id)}document at rank {rank} is a {type(item).__name__} ({_short(item)}), "
                    "neither a Document nor a text; return Documents (their page_content is scored) or strings"
                )
            texts.append(text)
        return texts

    def _run_inputs(self, run: Any, example: Any) -> tuple[Any, list[str]]:
        query_id = _query_id(run, example)
        sources = [("run.inputs", getattr(run, "inputs", None))]
        if example is not None:
            sources.append(("example.inputs", getattr(example, "inputs", None)))
        return self._query(sources, query_id), self._texts(run, query_id)

    # -- results -----------------------------------------------------------------------------------------------
    def _result(self, result: RelevancyResult) -> EvaluationResult:
        return EvaluationResult(key=self.key, score=result.score, comment=_relevancy_comment(result),
                                feedback_config=dict(FEEDBACK_CONFIG))

    def _failure(self, error: RerankError) -> EvaluationResult:
        return EvaluationResult(key=self.key, score=None, comment=f"{type(error).__name__}: {error}",
                                extra={"error": True})

    def _score(self, query: Any, texts: list[str]) -> EvaluationResult:
        try:
            result = rerank_relevancy_result(query, texts, self.scorer, self.agg, normalize=self.normalize)
        except RerankError as error:
            return self._failure(error)
        return self._result(result)

    def evaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: Optional[uuid.UUID] = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """Score the documents retrieved in ``run`` for the run's query (``scorer.score``, blocking)."""
        return self._score(*self._run_inputs(run, example))

    async def aevaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: Optional[uuid.UUID] = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """As :meth:`evaluate_run`, natively async: awaits ``scorer.ascore`` (no thread pool)."""
        query, texts = self._run_inputs(run, example)
        try:
            result = await arerank_relevancy_result(query, texts, self.scorer, self.agg,
                                                    normalize=self.normalize)
        except RerankError as error:
            return self._failure(error)
        return self._result(result)

    def __call__(self, *, inputs: Any, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> dict[str, Any]:
        """openevals-style call: ``{"key", "score", "comment"}`` for one query.

        ``inputs`` holds the query under ``query_key`` (or is the query string), ``outputs`` the target's
        outputs (or the list of documents / texts). ``reference_outputs`` and extra keywords are ignored. A
        scorer failure gives ``score=None`` and the error as the comment.
        """
        query = inputs if isinstance(inputs, str) else self._query([("inputs", inputs)], None)
        result = self._score(query, self._texts(outputs, None))
        return {"key": result.key, "score": result.score, "comment": result.comment}


class CohereRerankRelevancyEvaluator(RerankRelevancyEvaluator):
    """:class:`RerankRelevancyEvaluator` on Cohere Rerank (:class:`~rag_eval_adapters.rerank.CohereReranker`).

    Feedback key ``cohere_rerank_relevancy`` (``cohere_rerank_relevancy_mean`` with ``agg="mean"``), the key
    LlamaIndex and the LlamaIndex adapter use. The key comes from ``api_key``, ``$CO_API_KEY`` or
    ``$COHERE_API_KEY``; ``base_url`` points at any Cohere-compatible endpoint. Other keyword arguments
    (``timeout``, ``max_retries``, ``max_concurrency``, ``cache``, ``client``, ...) go to ``CohereReranker``.
    """

    _default_key: str = "cohere_rerank_relevancy"

    def __init__(
        self,
        model: str = DEFAULT_COHERE_MODEL,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        agg: str = "max",
        query_key: str = "query",
        *,
        normalize: Optional[str] = None,
        documents_key: Optional[str] = None,
        key: Optional[str] = None,
        **reranker_kwargs: Any,
    ) -> None:
        if agg not in AGGREGATIONS:  # before the reranker asks for a key
            raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
        reranker = CohereReranker(model=model, api_key=api_key, base_url=base_url, **reranker_kwargs)
        super().__init__(reranker, agg, normalize, query_key=query_key, documents_key=documents_key, key=key)

    @property
    def model(self) -> str:
        """The Cohere rerank model."""
        return self.scorer.model  # type: ignore[attr-defined]

    @property
    def usage(self) -> RerankUsage:
        """What the reranker has spent so far (requests, retries, billed search units, ...)."""
        return self.scorer.usage  # type: ignore[attr-defined]

    def _repr_args(self) -> list[str]:
        args = [f"model={self.scorer.model!r}"]  # type: ignore[attr-defined]
        if self.scorer.base_url:  # type: ignore[attr-defined]
            args.append(f"base_url={self.scorer.base_url!r}")  # type: ignore[attr-defined]
        return args
