"""LlamaIndex ``BaseRetrievalMetric``s scored by the metric core, and ``metrics_from_names``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal

from llama_index.core.bridge.pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    BaseRetrievalMetric,
    RetrievalMetricResult,
)

from .. import measures
from ..matching import TextMatcher, score_texts
from ..validation import Cutoff, RelevanceLevel, plain_error

__all__ = ["HitRate", "MRR", "Precision", "Recall", "F1", "AveragePrecision", "NDCG", "metrics_from_names"]

MatchMode = Literal["auto", "id", "text"]


# ---------------------------------------------------------------------------------------------- metrics


class _MetricName:
    """``metric_name`` that is LlamaIndex's name on the class and the instance's own key on an instance.

    ``BaseRetrievalEvaluator.aevaluate`` stores each result under ``metric.metric_name``; reading it on the
    instance lets ``HitRate()`` and ``HitRate(top_k=3)`` land under ``hit_rate`` and ``hit_rate@3``.
    """

    def __get__(self, obj: Any, owner: type[_KeyedMetric]) -> str:
        if obj is None:
            return owner._llama_name
        return obj.key


def _where(query: Any) -> str:
    return "" if query is None else f"query {query!r}: "


def _callable_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    name = re.sub(r"[^0-9A-Za-z_]+", "", name)
    return name if name and name != "lambda" else "custom"


class _KeyedMetric(BaseRetrievalMetric):
    """A LlamaIndex retrieval metric whose results land under its own ``key``, called as LlamaIndex calls every
    metric: :meth:`compute` checks the keywords and hands the query to the subclass's ``_score``, which says
    how one query is scored; ``_keywords`` names the keyword options ``_score`` takes besides LlamaIndex's
    arguments, and ``_repr_args`` what ``repr`` shows."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid")

    metric_name = _MetricName()
    _llama_name: ClassVar[str]
    _keywords: ClassVar[tuple[str, ...]] = ()

    def _repr_args(self) -> list[str]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._repr_args())})"

    __str__ = __repr__

    def compute(
        self,
        query: str | None = None,
        expected_ids: list[str] | None = None,
        retrieved_ids: list[str] | None = None,
        expected_texts: list[str] | None = None,
        retrieved_texts: list[str] | None = None,
        **kwargs: Any,
    ) -> RetrievalMetricResult:
        """Score one query (LlamaIndex's call, synchronous, as ``RetrieverEvaluator.aevaluate`` makes it).

        Args:
            query: the query. A reranker relevancy metric scores the retrieved texts against it; the others only
                name it in error messages.
            expected_ids: the relevant node ids (any order); not read by reranker relevancy.
            retrieved_ids: the retrieved node ids, best first. ``[]`` scores 0.0; ``None`` is an error when ids
                are matched. Not read by reranker relevancy.
            expected_texts: the relevant texts, for text matching (see ``match``); not read by reranker relevancy.
            retrieved_texts: the retrieved texts, best first, for text matching and reranker relevancy (``[]``
                scores 0.0).
            expected_relevance: keyword only, metrics of the core: ``{id: grade}`` for graded relevance (in
                text matching, keys are expected texts). Ids of ``expected_ids`` without a grade get grade 1.
            match: keyword only, metrics of the core: overrides the instance's ``match`` for this call.
            agg: keyword only, reranker relevancy: ``max``, ``mean`` or ``median`` for this call (default: the
                instance's ``agg``).

        Returns:
            ``RetrievalMetricResult(score, metadata={"key": ..., ...})``: with ``"match"`` (``"id"`` or
            ``"text"``) for a metric of the core; with ``"agg"``, ``"scores"`` (per text, in input order),
            ``"scorer"`` and ``"normalize"`` for reranker relevancy.

        Raises:
            ValueError: no expectation (no ids, grades or texts), no retrieved list, no query for reranker
                relevancy, an invalid option.
            TypeError: a keyword argument this metric does not take, or a value of the wrong type.
            RerankError: a reranker failed for this query (after its retries).
        """
        unknown = sorted(set(kwargs) - set(self._keywords))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}.compute() got unexpected keyword arguments {unknown}; "
                f"besides LlamaIndex's arguments it takes {' and '.join(f'{name}=' for name in self._keywords)}"
            )
        return self._score(query, expected_ids, retrieved_ids, expected_texts, retrieved_texts, **kwargs)

    def _score(self, *arguments: Any, **options: Any) -> RetrievalMetricResult:
        """Score one query: ``(query, expected_ids, retrieved_ids, expected_texts, retrieved_texts)`` and the
        subclass's keyword options (``_keywords``), which each subclass's signature names."""
        raise NotImplementedError


class _CoreMetric(_KeyedMetric):
    """Shared machinery: options, key, and the mapping of LlamaIndex's call onto the core metric."""

    _keywords: ClassVar[tuple[str, ...]] = ("expected_relevance", "match")
    _core_cls: ClassVar[type[measures.Metric]]
    # core option name -> this class's field name (LlamaIndex's option names)
    _options: ClassVar[dict[str, str]] = {}

    top_k: Cutoff = Field(default=None, description="Cutoff: score the first top_k retrieved (None: all).")
    relevance_level: RelevanceLevel = Field(default=1.0, description="Lowest grade that counts as relevant.")
    match: MatchMode = Field(
        default="auto",
        description="'id': match ids; 'text': match texts; 'auto': ids when expected_ids is non-empty, else texts.",
    )
    matcher: Callable[[str, str], bool] | None = Field(
        default=None,
        exclude=True,
        description="matcher(retrieved_text, expected_text) -> bool for text matching (None: contains_match).",
    )
    _label: str | None = PrivateAttr(default=None)  # the name metrics_from_names was given, when not the key

    def __init__(self, **options: Any) -> None:
        try:
            super().__init__(**options)
        except ValidationError as exc:
            raise plain_error(exc, type(self).__name__) from None
        self.measure  # noqa: B018 - refuses options the core metric refuses (a cutoff for r_precision)

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise plain_error(exc, type(self).__name__) from None
        if name in type(self).model_fields:
            self._label = None  # a changed option changes the key

    # -- options ---------------------------------------------------------------------------------------
    @property
    def measure(self) -> measures.Metric:
        """The core metric object these options describe (e.g. ``measures.HitRate(k=3)``)."""
        options = {core: getattr(self, mine) for core, mine in self._options.items()}
        return self._core_cls.of(**options) if self.top_k is None else self._core_cls.of(k=self.top_k, **options)

    @classmethod
    def from_measure(cls, metric: measures.Metric, **options: Any) -> _CoreMetric:
        """The adapter for a core metric object (``measures.NDCG(k=10)`` -> ``NDCG(top_k=10)``)."""
        if not isinstance(metric, cls._core_cls):
            raise TypeError(f"{cls.__name__}.from_measure takes a {cls._core_cls.__name__}, got {metric!r}")
        mine = {field: getattr(metric, core) for core, field in cls._options.items()}
        return cls(top_k=metric.k, **{**mine, **options})

    def _is_default(self) -> bool:
        return all(getattr(self, name) == info.default for name, info in type(self).model_fields.items())

    @property
    def key(self) -> str:
        """The key of this metric's results in ``RetrievalEvalResult.metric_dict``.

        LlamaIndex's ``metric_name`` with default options; otherwise the core key (name, options, cutoff:
        ``hit_rate@3``, ``mrr_granular``, ``ndcg_exp@10``), with ``_rel<level>`` for a relevance level other
        than 1, ``_id``/``_text`` for a forced match mode and ``_<function name>`` for a custom matcher
        inserted before the cutoff (``recall_rel2_text@5``). A metric made by :func:`metrics_from_names` keeps
        the name it was given (``"P@5"``, ``"map@100"``).
        """
        label = (self.__pydantic_private__ or {}).get("_label")
        if label is not None:
            return label
        if self._is_default():
            return type(self)._llama_name
        metric = self.measure
        extra = ""
        if self.relevance_level != 1:
            extra += f"_rel{self.relevance_level:g}"
        if self.match != "auto":
            extra += f"_{self.match}"
        if self.matcher is not None:
            extra += f"_{_callable_name(self.matcher)}"
        if not extra:
            return metric.key
        return f"{metric.name}{metric.options}{extra}" + ("" if metric.k is None else f"@{metric.k}")

    def _repr_args(self) -> list[str]:
        fields = type(self).model_fields
        return [f"{name}={getattr(self, name)!r}" for name in fields if getattr(self, name) != fields[name].default]

    # -- scoring ---------------------------------------------------------------------------------------
    def _score(self, query: Any, expected_ids: Any, retrieved_ids: Any, expected_texts: Any, retrieved_texts: Any,
               expected_relevance: Any = None, match: Any = None) -> RetrievalMetricResult:
        """Score one query by ids or by texts (``match``, default the instance's): see :meth:`compute`."""
        match = self.match if match is None else match
        for name, value in (("expected_ids", expected_ids), ("retrieved_ids", retrieved_ids),
                            ("expected_texts", expected_texts), ("retrieved_texts", retrieved_texts)):
            if isinstance(value, (str, bytes)):
                raise TypeError(f"{_where(query)}{name} is a single string; pass a list, e.g. [{value!r}]")
        if expected_relevance is not None and not isinstance(expected_relevance, Mapping):
            raise TypeError(
                f"{_where(query)}expected_relevance must be a mapping id -> grade, "
                f"got {type(expected_relevance).__name__}"
            )
        mode = self._mode(match, query, expected_ids, expected_texts, expected_relevance)
        if mode == "id":
            score = self._score_ids(query, expected_ids, retrieved_ids, expected_relevance)
        else:
            score = self._score_texts(query, expected_texts, retrieved_texts, expected_relevance)
        return RetrievalMetricResult(score=score, metadata={"key": self.key, "match": mode})

    @staticmethod
    def _mode(match: Any, query: Any, expected_ids: Any, expected_texts: Any, expected_relevance: Any) -> str:
        if match not in ("auto", "id", "text"):
            raise ValueError(f"match must be 'auto', 'id' or 'text', got {match!r}")
        has_ids = bool(expected_ids) or bool(expected_relevance)
        if match == "text" or (match == "auto" and not expected_ids and expected_texts):
            if not expected_texts:
                raise ValueError(
                    f"{_where(query)}expected_texts is missing or empty, but match='text' needs the relevant "
                    "texts: pass expected_texts, or use match='id' with expected_ids"
                )
            return "text"
        if not has_ids:
            if match == "id":
                raise ValueError(
                    f"{_where(query)}expected_ids is missing or empty, but match='id' needs the relevant ids: "
                    "pass expected_ids (or expected_relevance={id: grade})"
                )
            raise ValueError(
                f"{_where(query)}no expectation: expected_ids and expected_texts are both missing or empty; "
                "pass the ids of the relevant nodes as expected_ids (or their texts as expected_texts)"
            )
        return "id"

    def _score_ids(self, query: Any, expected_ids: Any, retrieved_ids: Any, expected_relevance: Any) -> float:
        if expected_relevance:
            expected: Any = dict(expected_relevance)
            for doc in expected_ids or ():
                expected.setdefault(doc, 1)
        else:
            expected = list(expected_ids)
        if retrieved_ids is None:
            raise ValueError(
                f"{_where(query)}retrieved_ids is missing: pass the retrieved node ids in rank order "
                "([] for an empty retrieval, which scores 0.0)"
            )
        return self.measure.score(retrieved_ids, expected, relevance_level=self.relevance_level, query_id=query)

    def _score_texts(self, query: Any, expected_texts: Any, retrieved_texts: Any, grades: Any) -> float:
        """The core's text-matching rule (:func:`rag_eval_adapters.matching.score_texts`)."""
        return score_texts(self.measure, retrieved_texts, expected_texts, matcher=self.matcher, grades=grades,
                           relevance_level=self.relevance_level, query_id=query)


def _adapter(
    core: type[measures.Metric],
    options: dict[str, str] | None = None,
) -> type[_CoreMetric]:
    """The LlamaIndex metric class of a registry metric: ``top_k`` for its cutoff, its other options under
    LlamaIndex's names (``options``: core name -> LlamaIndex name), scored by the core metric."""
    declared = core.option_parameters(exclude=("k", "rel"))  # as the per-query functions read them
    renamed = {option.name: (options or {}).get(option.name, option.name) for option in declared}
    annotations: dict[str, Any] = {
        "_llama_name": ClassVar[str], "_core_cls": ClassVar[type], "_options": ClassVar[dict],
    }
    namespace: dict[str, Any] = {
        "__module__": __name__, "__qualname__": core.__name__, "__annotations__": annotations,
        "_llama_name": core.name, "_core_cls": core, "_options": renamed,
    }
    for name, mine in renamed.items():
        info = core.model_fields[name]
        arguments = (info.annotation, *info.metadata)  # Annotated[type, *metadata], spelled for Python 3.10
        annotations[mine] = Annotated[arguments]
        namespace[mine] = info.default
    summary = (core.__doc__ or "").strip().splitlines()[0]
    named = ", ".join(f"``{mine}`` (the core's ``{name}``)" for name, mine in renamed.items())
    namespace["__doc__"] = (
        f"LlamaIndex metric ``{core.name}`` scored by :class:`rag_eval_adapters.measures.{core.__name__}`: "
        f"{summary}\n\nOptions: ``top_k`` (the cutoff), ``relevance_level``, ``match``, ``matcher``"
        + (f", {named}" if named else "") + "."
    )
    return type(core.__name__, (_CoreMetric,), namespace)


# one adapter per registry metric, each named here (importable, picklable, visible to IDEs and type checkers);
# LlamaIndex's option names where LlamaIndex has the metric, the core's otherwise
HitRate = _adapter(measures.HitRate, {"granular": "use_granular_hit_rate"})
MRR = _adapter(measures.MRR, {"granular": "use_granular_mrr"})
Precision = _adapter(measures.Precision)
Recall = _adapter(measures.Recall)
F1 = _adapter(measures.F1)
AveragePrecision = _adapter(measures.AveragePrecision)
RPrecision = _adapter(measures.RPrecision)
JudgedShare = _adapter(measures.JudgedShare)
DCG = _adapter(measures.DCG)
NDCG = _adapter(measures.NDCG, {"gain": "mode"})

_ADAPTERS: dict[str, type[_CoreMetric]] = {
    cls._llama_name: cls for cls in (HitRate, MRR, Precision, Recall, F1, AveragePrecision, RPrecision, DCG, NDCG,
                                      JudgedShare)
}


def metrics_from_names(
    names: str | measures.Metric | Iterable[str | measures.Metric],
    *,
    relevance_level: float = 1.0,
    match: MatchMode = "auto",
    matcher: TextMatcher | None = None,
) -> list[_CoreMetric]:
    """Metric instances for ``RetrieverEvaluator(metrics=...)`` from names such as ``"hit_rate@3"``.

    Names are parsed by :func:`rag_eval_adapters.measures.parse_metric` (every registry metric and alias, with
    ``@k``, ``_granular`` and ``_exp``); core metric objects are accepted too. Repeated keys are dropped. The
    keyword options apply to every metric; a metric's own ``rel`` (``P(rel=2)@5``) sets its
    ``relevance_level``.

    >>> metrics_from_names(["hit_rate@3", "ndcg_exp@10", "mrr"])
    [HitRate(top_k=3), NDCG(top_k=10, mode='exponential'), MRR()]
    """
    names = _refuse_rerank_names(names)
    out: dict[str, _CoreMetric] = {}
    for metric in measures.parse_metrics(names):
        rel = getattr(metric, "rel", None)  # the binary metrics' own level
        level = relevance_level if rel is None else rel
        adapter = _ADAPTERS[metric.name].from_measure(metric, relevance_level=level, match=match, matcher=matcher)
        if metric.label != metric.key:  # the name asked for is the name read back
            adapter._label = metric.label
        out.setdefault(adapter.key, adapter)
    return list(out.values())


# ---------------------------------------------------------------------------------------------- data sets


def _refuse_rerank_names(names: Any) -> Any:
    """``names`` (a list when it was an iterable); a ValueError saying how to build a reranker metric when one
    of them names one (they need a scorer or a Cohere key, so they are not built from names)."""
    if isinstance(names, (str, measures.Metric)) or not isinstance(names, Iterable):
        items, names = [names], names
    else:
        items = names = list(names)
    for name in items:
        if isinstance(name, str) and name.strip().lower().startswith(("rerank_relevancy", "cohere_rerank_relevancy")):
            raise ValueError(
                f"{name!r} cannot be built from a name: reranker metrics need a scorer or a Cohere key. Add "
                "CohereRerankRelevancyMetric(model=..., api_key=..., agg=...) or RerankRelevancyMetric(scorer=...) "
                "to the metrics list yourself"
            )
    return names
