"""LlamaIndex adapters: drop-in retrieval metrics for ``RetrieverEvaluator``, and whole-data-set evaluation.

Swap the imports and get LlamaIndex's numbers, then switch on what LlamaIndex lacks::

    # from llama_index.core.evaluation.retrieval.metrics import HitRate, MRR
    from rag_eval_adapters.llamaindex import HitRate, MRR, NDCG, evaluate_dataset
    from llama_index.core.evaluation import RetrieverEvaluator

    evaluator = RetrieverEvaluator(metrics=[HitRate(), MRR(), HitRate(top_k=3), NDCG(top_k=10)], retriever=retriever)
    run = evaluate_dataset(evaluator, "qa.jsonl", workers=8)
    run.mean        # {"hit_rate": ..., "mrr": ..., "hit_rate@3": ..., "ndcg@10": ...}

Every class subclasses LlamaIndex's ``BaseRetrievalMetric`` with LlamaIndex's ``metric_name`` and option
names, and scores through :mod:`rag_eval_adapters.measures`. The differences from LlamaIndex's own classes
are listed in ``docs/llamaindex.md``. This is the only module of the package that imports ``llama_index``.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import math
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Optional, Union

import numpy as np

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr, field_validator
    from llama_index.core.evaluation.retrieval.base import BaseRetrievalEvaluator, RetrievalEvalResult
    from llama_index.core.evaluation.retrieval.metrics_base import BaseRetrievalMetric, RetrievalMetricResult
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "rag_eval_adapters.llamaindex needs llama-index-core: pip install 'rag-eval-adapters[llamaindex]'"
    ) from exc

from . import measures
from ._validation import check_k, check_level
from .matching import TextMatcher, judge_texts
from .rerank import (
    AGGREGATIONS,
    DEFAULT_COHERE_MODEL,
    CohereReranker,
    RelevanceScorer,
    RerankUsage,
    check_relevancy_options,
    relevancy_key,
    rerank_relevancy_result,
)

__all__ = [
    "HitRate",
    "MRR",
    "Precision",
    "Recall",
    "F1",
    "AveragePrecision",
    "NDCG",
    "metrics_from_names",
    "evaluate_dataset",
    "aevaluate_dataset",
    "DatasetEvaluation",
    "QueryError",
    "evaluate_retriever",
    "ScoringRetriever",
    "nodes_from_records",
    "RerankRelevancyMetric",
    "CohereRerankRelevancyMetric",
]

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
    # text matching: "ranking": scored on the ranking; "coverage": expected texts matched; "f1": both
    _text_kind: ClassVar[str] = "ranking"

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

    def _text_score_kind(self) -> str:
        return self._text_kind

    def _score_texts(self, query: Any, expected_texts: Any, retrieved_texts: Any, grades: Any) -> float:
        if retrieved_texts is None:
            raise ValueError(
                f"{_where(query)}retrieved_texts is missing: text matching needs the retrieved texts in rank "
                "order ([] for an empty retrieval, which scores 0.0)"
            )
        texts = list(dict.fromkeys(retrieved_texts))  # a repeated text counts once, at its first rank
        if self.top_k is not None:
            texts = texts[: self.top_k]
        judged = judge_texts(texts, expected_texts, matcher=self.matcher, grades=grades, query_id=query)
        level = self.relevance_level
        if self._text_score_kind() == "ranking":
            return self.measure.score(judged.retrieved_ids, judged.qrels, relevance_level=level, query_id=query)
        # expected texts matched / expected texts (recall, granular hit rate)
        recall = measures.Recall().score(
            judged.covered_ids, judged.expected_qrels, relevance_level=level, query_id=query
        )
        if self._text_score_kind() != "f1":
            return recall
        precision = measures.Precision(k=self.top_k).score(
            judged.retrieved_ids, judged.qrels, relevance_level=level, query_id=query
        )
        return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


class HitRate(_CoreMetric):
    """Hit rate: 1.0 if a relevant id is within ``top_k``, else 0.0.

    ``use_granular_hit_rate=True``: distinct relevant ids found / relevant ids (in text matching: expected
    texts matched / expected texts).
    """

    _llama_name: ClassVar[str] = "hit_rate"
    _core_cls: ClassVar[type[measures.Metric]] = measures.HitRate
    _options: ClassVar[dict[str, str]] = {"granular": "use_granular_hit_rate"}
    use_granular_hit_rate: bool = False

    def _text_score_kind(self) -> str:
        return "coverage" if self.use_granular_hit_rate else "ranking"


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
    _text_kind: ClassVar[str] = "coverage"


class F1(_CoreMetric):
    """2PR / (P + R) of precision and recall at ``top_k`` (0.0 when both are 0). Not in LlamaIndex."""

    _llama_name: ClassVar[str] = "f1"
    _core_cls: ClassVar[type[measures.Metric]] = measures.F1
    _text_kind: ClassVar[str] = "f1"


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


@dataclass(frozen=True)
class QueryError:
    """A query of a data set that could not be scored: its position, its text and why."""

    index: int
    query: Optional[str]
    message: str

    def __str__(self) -> str:
        return f"#{self.index} {self.query!r}: {self.message}"


@dataclass
class DatasetEvaluation:
    """The result of :func:`evaluate_dataset`.

    Attributes:
        results: the ``RetrievalEvalResult`` of every scored query, in input order.
        indices: the input position of each result.
        errors: the queries whose retrieval or metric raised (or whose row is malformed), in input order.
        mean: metric key -> mean over the scored queries (``{}`` when none was scored).
        total: number of queries in the data set.
        interrupted: True when the run was stopped (Ctrl-C); ``results`` then hold the finished queries.
    """

    results: list[RetrievalEvalResult]
    indices: list[int]
    errors: list[QueryError]
    mean: dict[str, float]
    total: int
    interrupted: bool = False

    @property
    def unfinished(self) -> int:
        """Queries neither scored nor failed (only when interrupted)."""
        return self.total - len(self.results) - len(self.errors)

    def rows(self) -> list[dict[str, Any]]:
        """One dict a scored query: ``index``, ``query``, one entry per metric key, the ids."""
        return [
            {"index": index, "query": result.query, **result.metric_vals_dict,
             "expected_ids": list(result.expected_ids), "retrieved_ids": list(result.retrieved_ids)}
            for index, result in zip(self.indices, self.results)
        ]

    def to_dataframe(self, include_errors: bool = False) -> Any:
        """A pandas DataFrame, one row a scored query (see :meth:`rows`).

        ``include_errors=True`` adds a row for each failed query, with its message in an ``error`` column and
        no metric values.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
        rows = self.rows()
        columns = ["index", "query", *self.mean, "expected_ids", "retrieved_ids"]
        if include_errors:
            for row in rows:
                row["error"] = None
            rows += [{"index": e.index, "query": e.query, "error": e.message} for e in self.errors]
            rows.sort(key=lambda row: row["index"])
            columns.append("error")
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        mean = ", ".join(f"{key!r}: {value:.4f}" for key, value in self.mean.items())
        extra = f", unfinished={self.unfinished}" if self.interrupted else ""
        return (
            f"DatasetEvaluation(scored={len(self.results)}, errors={len(self.errors)}, total={self.total}, "
            f"interrupted={self.interrupted}{extra}, mean={{{mean}}})"
        )


@dataclass
class _Item:
    index: int
    query: Optional[str] = None
    expected_ids: list[str] = field(default_factory=list)
    expected_texts: Optional[list[str]] = None
    problem: Optional[str] = None


def _field(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name)
    return getattr(raw, name, None)


def _list_of_str(value: Any, name: str) -> Optional[list[str]]:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise TypeError(f"{name} must be a list of strings, got {type(value).__name__} {value!r:.60}")
    values = list(value)
    for i, item in enumerate(values):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a string, got {type(item).__name__} {item!r:.60}")
    return values


def _item(index: int, raw: Any) -> _Item:
    item = _Item(index)
    query = _field(raw, "query")
    if isinstance(query, str):
        item.query = query
    try:
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"row has no query (a non-empty 'query' string is required), got {query!r:.60}")
        item.expected_ids = _list_of_str(_field(raw, "expected_ids"), "expected_ids") or []
        item.expected_texts = _list_of_str(_field(raw, "expected_texts"), "expected_texts")
        if not item.expected_ids and not item.expected_texts:
            raise ValueError("no expectation: give 'expected_ids' (or 'expected_texts') with at least one entry")
    except (TypeError, ValueError) as exc:
        item.problem = f"{type(exc).__name__}: {exc}"
    return item


def _load(dataset: Any) -> list[_Item]:
    if isinstance(dataset, (str, os.PathLike)):
        path = Path(dataset)
        if not path.is_file():
            raise FileNotFoundError(f"data set file {str(path)!r} not found (expected JSONL: one object a line)")
        items = []
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                index = len(items)
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as exc:
                    items.append(_Item(index, problem=f"ValueError: {path.name} line {number}: invalid JSON ({exc})"))
                    continue
                if not isinstance(raw, dict):
                    items.append(_Item(index, problem=f"ValueError: {path.name} line {number}: expected an object "
                                                      '{"query": ..., "expected_ids": [...]}'))
                    continue
                item = _item(index, raw)
                if item.problem:
                    item.problem = f"{item.problem} ({path.name} line {number})"
                items.append(item)
        return items
    if isinstance(dataset, (bytes, Mapping)) or not isinstance(dataset, Iterable):
        raise TypeError(
            "dataset must be an iterable of rows (mappings or objects with query, expected_ids and optionally "
            f"expected_texts) or the path of a JSONL file, got {type(dataset).__name__}"
        )
    return [_item(index, raw) for index, raw in enumerate(dataset)]


class _Run:
    """Mutable state of one data-set run, filled as queries finish (so an interrupted run keeps them)."""

    def __init__(self, items: list[_Item]) -> None:
        self.items = items
        self.results: dict[int, RetrievalEvalResult] = {}
        self.errors: dict[int, QueryError] = {
            item.index: QueryError(item.index, item.query, item.problem) for item in items if item.problem
        }
        self.interrupted = False
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.task: Optional[asyncio.Task] = None

    def finish(self) -> DatasetEvaluation:
        indices = sorted(self.results)
        results = [self.results[i] for i in indices]
        sums: dict[str, list[float]] = {}
        for result in results:
            for key, value in result.metric_vals_dict.items():
                sums.setdefault(key, []).append(value)
        mean = {key: math.fsum(values) / len(values) for key, values in sums.items()}
        return DatasetEvaluation(
            results=results,
            indices=indices,
            errors=[self.errors[i] for i in sorted(self.errors)],
            mean=mean,
            total=len(self.items),
            interrupted=self.interrupted,
        )


def _progress(total: int, enabled: bool) -> Any:
    disable = (not enabled) or os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")
    if not disable:
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            # disable=None: tqdm turns itself off when the output is not a terminal
            return tqdm(total=total, desc="Evaluating queries", unit="query", disable=None)

    class _Silent:
        def update(self, n: int = 1) -> None:
            pass

        def close(self) -> None:
            pass

    return _Silent()


async def _evaluate_all(
    evaluator: BaseRetrievalEvaluator, run: _Run, workers: int, show_progress: bool, swallow_cancel: bool
) -> None:
    run.loop, run.task = asyncio.get_running_loop(), asyncio.current_task()
    todo = iter([item for item in run.items if not item.problem])
    bar = _progress(len(run.items), show_progress)
    bar.update(len(run.errors))

    async def one(item: _Item) -> None:
        try:
            result = await evaluator.aevaluate(
                query=item.query, expected_ids=item.expected_ids, expected_texts=item.expected_texts
            )
        except Exception as exc:  # one failing query is recorded, the rest still scored
            run.errors[item.index] = QueryError(item.index, item.query, f"{type(exc).__name__}: {exc}")
        else:
            run.results[item.index] = result
        bar.update(1)

    async def worker() -> None:
        for item in todo:  # one shared iterator: each item is taken by exactly one worker
            await one(item)

    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        run.interrupted = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not swallow_cancel:
            raise
    finally:
        bar.close()


def _check(evaluator: Any, workers: Any) -> None:
    if not isinstance(evaluator, BaseRetrievalEvaluator):
        raise TypeError(
            "evaluator must be a LlamaIndex BaseRetrievalEvaluator such as "
            f"RetrieverEvaluator(metrics=[...], retriever=...), got {type(evaluator).__name__}"
        )
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int (queries evaluated at once), got {workers!r}")


def evaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """Evaluate every query of a data set with ``evaluator.aevaluate``, at most ``workers`` at once.

    Args:
        evaluator: any LlamaIndex ``BaseRetrievalEvaluator``, e.g. ``RetrieverEvaluator(metrics=..., retriever=...)``.
        dataset: an iterable of mappings or objects with ``query``, ``expected_ids`` and optionally
            ``expected_texts``, or the path of a JSONL file with those keys.
        workers: how many queries are evaluated concurrently (on one event loop: a retriever gains from it
            when its ``aretrieve`` really awaits, as network retrievers do).
        show_progress: show a tqdm progress bar (when tqdm is installed and the output is a terminal; the
            ``TQDM_DISABLE`` environment variable turns it off).

    Returns:
        :class:`DatasetEvaluation` with the scored results in input order, the failed queries (a query whose
        retrieval or metric raises, or whose row is malformed, is recorded and the others are still scored),
        and the mean of each metric over the scored queries. Ctrl-C stops the run and returns what finished,
        with ``interrupted=True``.

    Works from plain scripts and from inside a running event loop (e.g. Jupyter), where the run happens on a
    separate thread. From async code, ``await aevaluate_dataset(...)`` instead.
    """
    _check(evaluator, workers)
    run = _Run(_load(dataset))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            asyncio.run(_evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=True))
        except KeyboardInterrupt:
            run.interrupted = True
    else:
        _run_on_thread(evaluator, run, workers, show_progress)
    return run.finish()


def _run_on_thread(evaluator: BaseRetrievalEvaluator, run: _Run, workers: int, show_progress: bool) -> None:
    failure: list[BaseException] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            context.run(asyncio.run, _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=True))
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="rag-eval-dataset", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        run.interrupted = True
        if run.loop is not None and run.task is not None:
            run.loop.call_soon_threadsafe(run.task.cancel)
        thread.join()
    if failure:
        raise failure[0]


async def aevaluate_dataset(
    evaluator: BaseRetrievalEvaluator,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """The async form of :func:`evaluate_dataset` (same arguments and result).

    Cancelling the awaiting task cancels the queries in flight and propagates ``CancelledError``, as asyncio
    code expects; use :func:`evaluate_dataset` for a run that returns its partial results on Ctrl-C.
    """
    _check(evaluator, workers)
    run = _Run(_load(dataset))
    await _evaluate_all(evaluator, run, workers, show_progress, swallow_cancel=False)
    return run.finish()


def evaluate_retriever(
    retriever: Any,
    dataset: Union[str, os.PathLike, Iterable[Any]],
    metrics: Iterable[Union[str, measures.Metric, BaseRetrievalMetric]] = ("hit_rate", "mrr"),
    *,
    workers: int = 8,
    show_progress: bool = True,
) -> DatasetEvaluation:
    """Evaluate a LlamaIndex retriever on a data set: ``RetrieverEvaluator`` with these metrics, then
    :func:`evaluate_dataset`.

    ``metrics`` are names (``"ndcg@10"``), core metric objects or metric instances (ours or LlamaIndex's).

    >>> evaluation = evaluate_retriever(retriever, "qa.jsonl", ["hit_rate@3", "mrr", "ndcg@10"])  # doctest: +SKIP
    """
    from llama_index.core.evaluation import RetrieverEvaluator

    built = [
        metric if isinstance(metric, BaseRetrievalMetric) else metrics_from_names([metric])[0]
        for metric in metrics
    ]
    evaluator = RetrieverEvaluator(metrics=built, retriever=retriever)
    return evaluate_dataset(evaluator, dataset, workers=workers, show_progress=show_progress)


# ---------------------------------------------------------------------------------------------- retrievers


def nodes_from_records(records: Iterable[Mapping[str, Any]]) -> list[Any]:
    """LlamaIndex ``TextNode``s from records ``{"id", "text", ...}``; the other keys become metadata."""
    nodes = []
    for number, record in enumerate(records):
        if not isinstance(record, Mapping) or "id" not in record or "text" not in record:
            raise ValueError(f"record {number} must be a mapping with 'id' and 'text', got {record!r:.80}")
        metadata = {k: v for k, v in record.items() if k not in ("id", "text")}
        nodes.append(TextNode(id_=str(record["id"]), text=str(record["text"]), metadata=metadata))
    if not nodes:
        raise ValueError("no records: give at least one {'id', 'text'} record")
    return nodes


class ScoringRetriever(BaseRetriever):
    """A LlamaIndex retriever over fixed nodes, ranked by any scoring function.

    ``score_fn(query) -> one score per node`` (a list or numpy array, in node order). The retriever returns
    the ``top_k`` nodes with a positive score, best first, ties broken by node order. It turns any search
    code (BM25, TF-IDF, a vector library) into a retriever that ``RetrieverEvaluator`` can evaluate.
    """

    def __init__(self, nodes: Iterable[Any], score_fn: Callable[[str], Any], top_k: int = 10,
                 **kwargs: Any) -> None:
        if not callable(score_fn):
            raise TypeError(f"score_fn must be callable: query -> one score per node, got {score_fn!r}")
        self._nodes = list(nodes)
        if not self._nodes:
            raise ValueError("ScoringRetriever needs at least one node")
        self.top_k = check_k(top_k, "top_k")
        if self.top_k is None:
            raise ValueError("top_k must be a positive int")
        self._score_fn = score_fn
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        scores = np.asarray(self._score_fn(query_bundle.query_str), dtype=np.float64).ravel()
        if scores.shape[0] != len(self._nodes):
            raise ValueError(
                f"score_fn returned {scores.shape[0]} scores for {len(self._nodes)} nodes "
                f"(query {query_bundle.query_str!r})"
            )
        order = np.argsort(-scores, kind="stable")[: self.top_k]
        order = order[scores[order] > 0]
        return [NodeWithScore(node=self._nodes[i], score=float(scores[i])) for i in order]

    def __repr__(self) -> str:
        name = getattr(self._score_fn, "__name__", None) or type(self._score_fn).__name__
        return f"ScoringRetriever(nodes={len(self._nodes)}, score_fn={name}, top_k={self.top_k})"


# ---------------------------------------------------------------------------------------------- reranker relevancy


class RerankRelevancyMetric(BaseRetrievalMetric):
    """Relevancy of the retrieved texts to the query, judged by a reranker: no expected ids needed.

    ``score = agg_i scorer(query, retrieved_texts[i])`` with ``agg`` in ``max`` (default), ``mean`` or ``median``
    (see :func:`rag_eval_adapters.rerank.rerank_relevancy`). The score is in [0, 1]: a scorer returning raw
    logits (``scorer.calibrated`` False, e.g. a cross-encoder) needs ``normalize="sigmoid"``
    (``1 / (1 + exp(-s))`` per text). No retrieved texts scores 0.0 without calling the scorer.

    ``agg`` is set on the instance because ``RetrieverEvaluator`` never forwards it to :meth:`compute`
    (``compute(..., agg="mean")`` still overrides it for one call). The result key (``metric_name`` of the
    instance) is ``rerank_relevancy`` for default options, else ``rerank_relevancy_<agg>`` and/or a
    ``_sigmoid`` suffix (``rerank_relevancy_mean``), so instances differing in options do not overwrite each
    other in ``RetrievalEvalResult.metric_dict``. Two instances differing only in scorer need ``key=``.

    Scorer errors (a :class:`~rag_eval_adapters.rerank.RerankError` once retries are exhausted) and invalid
    input propagate: :func:`evaluate_dataset` records that query as failed and scores the others.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid")

    metric_name = _MetricName()
    _llama_name: ClassVar[str] = "rerank_relevancy"

    agg: Literal["max", "mean", "median"] = Field(default="max", description="Aggregation of the per-text scores.")
    normalize: Optional[Literal["sigmoid"]] = Field(
        default=None, description="'sigmoid' maps uncalibrated scores (logits) into [0, 1] before aggregating."
    )
    _scorer: Any = PrivateAttr()
    _key: Optional[str] = PrivateAttr(default=None)

    def __init__(
        self,
        scorer: RelevanceScorer,
        agg: Literal["max", "mean", "median"] = "max",
        normalize: Optional[Literal["sigmoid"]] = None,
        *,
        key: Optional[str] = None,
    ) -> None:
        check_relevancy_options(scorer, agg, normalize)
        if key is not None and (not isinstance(key, str) or not key):
            raise TypeError(f"key must be a non-empty string (the result key), got {key!r}")
        super().__init__(agg=agg, normalize=normalize)
        self._scorer = scorer
        self._key = key

    @property
    def scorer(self) -> RelevanceScorer:
        """The scorer judging each (query, text) pair."""
        return self._scorer

    @property
    def key(self) -> str:
        """The key of this metric's results in ``RetrievalEvalResult.metric_dict`` (see the class docstring)."""
        if self._key is not None:
            return self._key
        return relevancy_key(type(self)._llama_name, self.agg, self.normalize)

    def _repr_args(self) -> list[str]:
        return [f"scorer={self._scorer!r}"]

    def __repr__(self) -> str:
        args = self._repr_args()
        if self.agg != "max":
            args.append(f"agg={self.agg!r}")
        if self.normalize is not None:
            args.append(f"normalize={self.normalize!r}")
        if self._key is not None:
            args.append(f"key={self._key!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    __str__ = __repr__

    def compute(
        self,
        query: Optional[str] = None,
        expected_ids: Optional[list[str]] = None,
        retrieved_ids: Optional[list[str]] = None,
        expected_texts: Optional[list[str]] = None,
        retrieved_texts: Optional[list[str]] = None,
        agg: Optional[Literal["max", "mean", "median"]] = None,
        **kwargs: Any,
    ) -> RetrievalMetricResult:
        """Score one query (LlamaIndex's call; synchronous, as ``RetrieverEvaluator.aevaluate`` calls it).

        Args:
            query: the query text (required: the reranker scores it against each text).
            expected_ids, retrieved_ids, expected_texts: ignored (this metric needs no expectation).
            retrieved_texts: the retrieved texts, best first (``RetrieverEvaluator`` passes them). ``[]``
                scores 0.0.
            agg: ``max``, ``mean`` or ``median`` for this call (default: the instance's ``agg``).

        Returns:
            ``RetrievalMetricResult(score, metadata={"key", "agg", "scores", "scorer", "normalize"})``, with
            ``scores`` the per-text scores in input order.

        Raises:
            ValueError / TypeError: no or malformed query or texts, an invalid ``agg``, an unknown keyword.
            RerankError: the scorer failed for this query (after its retries).
        """
        del expected_ids, retrieved_ids, expected_texts  # relevancy needs no expectation
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.compute() got unexpected keyword arguments {sorted(kwargs)}; "
                "besides LlamaIndex's arguments it takes agg="
            )
        if retrieved_texts is None:
            raise ValueError(
                f"{_where(query)}retrieved_texts is missing: {type(self).__name__} scores the retrieved texts "
                "against the query. RetrieverEvaluator passes them (mode='text', the default); in a direct "
                "call pass retrieved_texts=[node.get_content() for node in nodes] ([] scores 0.0)"
            )
        agg = self.agg if agg is None else agg
        result = rerank_relevancy_result(query, retrieved_texts, self._scorer, agg, normalize=self.normalize)
        return RetrievalMetricResult(
            score=result.score,
            metadata={"key": self.key, "agg": agg, "scores": result.scores, "scorer": result.scorer,
                      "normalize": result.normalize},
        )


class CohereRerankRelevancyMetric(RerankRelevancyMetric):
    """LlamaIndex's ``CohereRerankRelevancyMetric``, on :class:`~rag_eval_adapters.rerank.CohereReranker`.

    Same ``metric_name`` (``cohere_rerank_relevancy``) and, pointed at the same endpoint, the same numbers
    (``max`` / ``mean`` / ``median`` of Cohere's ``relevance_score`` over the retrieved texts). Differences: the
    default model is ``rerank-v3.5`` (LlamaIndex's ``rerank-english-v2.0`` is shut down), the v2 API, ``agg``
    settable on the instance (``RetrieverEvaluator`` never forwards it), key from ``api_key`` /
    ``$CO_API_KEY`` / ``$COHERE_API_KEY`` with a ``ValueError`` saying how to fix a missing one, ``base_url``
    for any Cohere-compatible endpoint, retries with back-off, batching beyond 1,000 texts, response
    validation, cost in :attr:`usage`, and no retrieved texts scores 0.0 (LlamaIndex's crashes or gives NaN).

    ``agg="mean"`` gives the key ``cohere_rerank_relevancy_mean`` (see :class:`RerankRelevancyMetric`). Other
    keyword arguments (``timeout``, ``max_retries``, ``max_docs_per_request``, ``cache``, ``client``, ...) go
    to :class:`~rag_eval_adapters.rerank.CohereReranker`.
    """

    _llama_name: ClassVar[str] = "cohere_rerank_relevancy"

    def __init__(
        self,
        model: str = DEFAULT_COHERE_MODEL,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        agg: Literal["max", "mean", "median"] = "max",
        *,
        normalize: Optional[Literal["sigmoid"]] = None,
        key: Optional[str] = None,
        **reranker_kwargs: Any,
    ) -> None:
        if agg not in AGGREGATIONS:  # before the reranker asks for a key
            raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
        reranker = CohereReranker(model=model, api_key=api_key, base_url=base_url, **reranker_kwargs)
        super().__init__(reranker, agg=agg, normalize=normalize, key=key)

    @property
    def model(self) -> str:
        """The Cohere rerank model."""
        return self._scorer.model

    @property
    def usage(self) -> RerankUsage:
        """What the reranker has spent so far (requests, retries, billed search units, ...)."""
        return self._scorer.usage

    def _repr_args(self) -> list[str]:
        args = [f"model={self._scorer.model!r}"]
        if self._scorer.base_url:
            args.append(f"base_url={self._scorer.base_url!r}")
        return args


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
