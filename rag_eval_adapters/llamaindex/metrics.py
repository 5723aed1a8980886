"""LlamaIndex ``BaseRetrievalMetric``s scored by the metric core, and ``metrics_from_names``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Literal, Optional, Union

from llama_index.core.bridge.pydantic import (
    ConfigDict,
    Field,
    field_validator,
)
from llama_index.core.evaluation.retrieval.metrics_base import (
    BaseRetrievalMetric,
    RetrievalMetricResult,
)

from .. import measures
from .._validation import check_k, check_level
from ..matching import TextMatcher, score_texts

MatchMode = Literal["auto", "id", "text"]


# ---------------------------------------------------------------------------------------------- metrics




class _MetricName:
    """``metric_name`` that is LlamaIndex's name on the class and the instance's own key on an instance.

    ``BaseRetrievalEvaluator.aevaluate`` stores each result under ``metric.metric_name``; reading it on the
    instance lets ``HitRate()`` and ``HitRate(top_k=3)`` land under ``hit_rate`` and ``hit_rate@3``.
    """

    def __get__(self, obj: Any, owner: type) -> str:
        if obj is None:
            return owner._llama_name
        return obj.key


def _where(query: Any) -> str:
    return "" if query is None else f"query {query!r}: "


def _callable_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    name = re.sub(r"[^0-9A-Za-z_]+", "", name)
    return name if name and name != "lambda" else "custom"


class _CoreMetric(BaseRetrievalMetric):
    """Shared machinery: options, key, and the mapping of LlamaIndex's call onto the core metric."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid")

    metric_name = _MetricName()
    _llama_name: ClassVar[str]
    _core_cls: ClassVar[type[measures.Metric]]
    # core option name -> this class's field name (LlamaIndex's option names)
    _options: ClassVar[dict[str, str]] = {}

    top_k: Optional[int] = Field(default=None, description="Cutoff: score the first top_k retrieved (None: all).")
    relevance_level: float = Field(default=1.0, description="Lowest grade that counts as relevant.")
    match: MatchMode = Field(
        default="auto",
        description="'id': match ids; 'text': match texts; 'auto': ids when expected_ids is non-empty, else texts.",
    )
    matcher: Optional[Callable[[str, str], bool]] = Field(
        default=None,
        exclude=True,
        description="matcher(retrieved_text, expected_text) -> bool for text matching (None: contains_match).",
    )

    @field_validator("top_k", mode="before")
    @classmethod
    def _valid_top_k(cls, value: Any) -> Optional[int]:
        return check_k(value, "top_k")

    @field_validator("relevance_level", mode="before")
    @classmethod
    def _valid_level(cls, value: Any) -> float:
        return check_level(value)

    # -- options ---------------------------------------------------------------------------------------
    @property
    def measure(self) -> measures.Metric:
        """The core metric object these options describe (e.g. ``measures.HitRate(k=3)``)."""
        options = {core: getattr(self, mine) for core, mine in self._options.items()}
        return self._core_cls(k=self.top_k, **options)

    @classmethod
    def from_measure(cls, metric: measures.Metric, **options: Any) -> "_CoreMetric":
        """The adapter for a core metric object (``measures.NDCG(k=10)`` -> ``NDCG(top_k=10)``)."""
        if not isinstance(metric, cls._core_cls):
            raise TypeError(f"{cls.__name__}.from_measure takes a {cls._core_cls.__name__}, got {metric!r}")
        mine = {field: getattr(metric, core) for core, field in cls._options.items()}
        return cls(top_k=metric.k, **mine, **options)

    def _is_default(self) -> bool:
        return all(getattr(self, name) == info.default for name, info in type(self).model_fields.items())

    @property
    def key(self) -> str:
        """The key of this metric's results in ``RetrievalEvalResult.metric_dict``.

        LlamaIndex's ``metric_name`` with default options; otherwise the core key (name, options, cutoff:
        ``hit_rate@3``, ``mrr_granular``, ``ndcg_exp@10``), with ``_rel<level>`` for a relevance level other
        than 1, ``_id``/``_text`` for a forced match mode and ``_<function name>`` for a custom matcher
        inserted before the cutoff (``recall_rel2_text@5``).
        """
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

    def __repr__(self) -> str:
        fields = type(self).model_fields
        args = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in fields if getattr(self, name) != fields[name].default
        )
        return f"{type(self).__name__}({args})"

    __str__ = __repr__

    # -- scoring ---------------------------------------------------------------------------------------
    def compute(
        self,
        query: Optional[str] = None,
        expected_ids: Optional[list[str]] = None,
        retrieved_ids: Optional[list[str]] = None,
        expected_texts: Optional[list[str]] = None,
        retrieved_texts: Optional[list[str]] = None,
        **kwargs: Any,
    ) -> RetrievalMetricResult:
        """Score one query (same call as LlamaIndex's metrics).

        Args:
            query: the query; only names it in error messages.
            expected_ids: the relevant node ids (any order).
            retrieved_ids: the retrieved node ids, best first. ``[]`` scores 0.0; ``None`` is an error.
            expected_texts: the relevant texts, for text matching (see ``match``).
            retrieved_texts: the retrieved texts, best first, for text matching.
            expected_relevance: keyword only: ``{id: grade}`` for graded relevance (in text matching, keys are
                expected texts). Ids of ``expected_ids`` without a grade get grade 1.
            match: keyword only: overrides the instance's ``match`` for this call.

        Returns:
            ``RetrievalMetricResult(score, metadata={"key": ..., "match": "id" | "text"})``.

        Raises:
            ValueError: no expectation (no ids, grades or texts), no retrieved list, an invalid option.
            TypeError: an unknown keyword argument or a value of the wrong type.
        """
        expected_relevance = kwargs.pop("expected_relevance", None)
        match = kwargs.pop("match", self.match)
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.compute() got unexpected keyword arguments {sorted(kwargs)}; "
                "besides LlamaIndex's arguments it takes expected_relevance= and match="
            )
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
        return score_texts(self.measure, retrieved_texts, expected_texts, matcher=self.matcher, grades=grades,
                           relevance_level=self.relevance_level, query_id=query)


class HitRate(_CoreMetric):
    """Hit rate: 1.0 if a relevant id is within ``top_k``, else 0.0.

    ``use_granular_hit_rate=True``: distinct relevant ids found / relevant ids (in text matching: expected
    texts matched / expected texts).
    """

    _llama_name: ClassVar[str] = "hit_rate"
    _core_cls: ClassVar[type[measures.Metric]] = measures.HitRate
    _options: ClassVar[dict[str, str]] = {"granular": "use_granular_hit_rate"}
    use_granular_hit_rate: bool = False


class MRR(_CoreMetric):
    """Reciprocal rank of the first relevant id within ``top_k`` (0.0 if none).

    ``use_granular_mrr=True``: the mean of 1/rank over the relevant ids found (LlamaIndex's definition).
    """

    _llama_name: ClassVar[str] = "mrr"
    _core_cls: ClassVar[type[measures.Metric]] = measures.MRR
    _options: ClassVar[dict[str, str]] = {"granular": "use_granular_mrr"}
    use_granular_mrr: bool = False


class Precision(_CoreMetric):
    """Relevant retrieved within ``top_k`` / ``top_k`` (``top_k=None``: / number of distinct retrieved)."""

    _llama_name: ClassVar[str] = "precision"
    _core_cls: ClassVar[type[measures.Metric]] = measures.Precision


class Recall(_CoreMetric):
    """Relevant ids within ``top_k`` / relevant ids (in text matching: expected texts matched / expected texts)."""

    _llama_name: ClassVar[str] = "recall"
    _core_cls: ClassVar[type[measures.Metric]] = measures.Recall


class F1(_CoreMetric):
    """2PR / (P + R) of precision and recall at ``top_k`` (0.0 when both are 0). Not in LlamaIndex."""

    _llama_name: ClassVar[str] = "f1"
    _core_cls: ClassVar[type[measures.Metric]] = measures.F1


class AveragePrecision(_CoreMetric):
    """Sum of precision@i over the relevant ranks i <= ``top_k``, divided by the number of relevant ids."""

    _llama_name: ClassVar[str] = "ap"
    _core_cls: ClassVar[type[measures.Metric]] = measures.AveragePrecision


class NDCG(_CoreMetric):
    """DCG@k / IDCG@k with gain ``rel`` (``mode="linear"``) or ``2**rel - 1`` (``mode="exponential"``).

    DCG@k = sum over ranks i <= k of gain(rel_i) / log2(i + 1). The ideal ranking holds every expected id (or
    every graded id of ``expected_relevance``), so without ``top_k`` this equals LlamaIndex's NDCG.
    """

    _llama_name: ClassVar[str] = "ndcg"
    _core_cls: ClassVar[type[measures.Metric]] = measures.NDCG
    _options: ClassVar[dict[str, str]] = {"gain": "mode"}
    mode: Literal["linear", "exponential"] = "linear"


_ADAPTERS: dict[str, type[_CoreMetric]] = {
    cls._llama_name: cls for cls in (HitRate, MRR, Precision, Recall, F1, AveragePrecision, NDCG)
}


def metrics_from_names(
    names: Union[str, measures.Metric, Iterable[Union[str, measures.Metric]]],
    *,
    relevance_level: float = 1.0,
    match: MatchMode = "auto",
    matcher: Optional[TextMatcher] = None,
) -> list[_CoreMetric]:
    """Metric instances for ``RetrieverEvaluator(metrics=...)`` from names such as ``"hit_rate@3"``.

    Names are parsed by :func:`rag_eval_adapters.measures.parse_metric` (``hit_rate``, ``mrr``, ``precision``,
    ``recall``, ``f1``, ``ap``, ``ndcg``, with ``@k``, ``_granular`` and ``_exp``); core metric objects are
    accepted too. Repeated keys are dropped. The keyword options apply to every metric.

    >>> metrics_from_names(["hit_rate@3", "ndcg_exp@10", "mrr"])
    [HitRate(top_k=3), NDCG(top_k=10, mode='exponential'), MRR()]
    """
    if names is None:
        raise TypeError("names is missing (None): name at least one metric, e.g. ['hit_rate@3', 'mrr']")
    names = _refuse_rerank_names(names)
    out = []
    for metric in measures.parse_metrics(names):
        adapter = _ADAPTERS.get(metric.name)
        if adapter is None:
            raise ValueError(
                f"metric {metric.key!r} has no LlamaIndex adapter; use one of: {', '.join(sorted(_ADAPTERS))} "
                "(each with an optional '@k')"
            )
        out.append(adapter.from_measure(metric, relevance_level=relevance_level, match=match, matcher=matcher))
    return out


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
