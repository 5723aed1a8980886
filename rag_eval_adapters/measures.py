"""Metrics as small parameterised objects, with a registry and a parser for names such as ``ndcg@10``.

>>> from rag_eval_adapters.measures import NDCG, parse_metric
>>> parse_metric("ndcg@10") == NDCG(k=10)
True
>>> NDCG(k=10, gain="exponential").key
'ndcg_exp@10'
>>> parse_metric("mrr_granular@5")
MRR(k=5, granular=True)

A metric's ``key`` is its name, then its options, then its cutoff: ``hit_rate@3``, ``mrr_granular``,
``ndcg_exp@10``, ``ap@100``. The same keys name columns in reports, LangSmith feedback and LlamaIndex results.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import Any, ClassVar, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from . import metrics as _fn
from ._kernel import Judged
from ._validation import check_k

__all__ = [
    "Metric",
    "HitRate",
    "MRR",
    "Precision",
    "Recall",
    "F1",
    "AveragePrecision",
    "RPrecision",
    "DCG",
    "NDCG",
    "METRICS",
    "parse_metric",
    "parse_metrics",
    "metric_names",
]


class Metric(BaseModel):
    """A retrieval metric with its options; ``m.score(retrieved_ids, expected)`` scores one query."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: ClassVar[str]
    k: int | None = None

    @field_validator("k", mode="before")
    @classmethod
    def _valid_k(cls, value: Any) -> int | None:
        return check_k(value)

    @property
    def options(self) -> str:
        """The option suffix of the key ("" for defaults)."""
        return ""

    @property
    def key(self) -> str:
        """Name, options and cutoff, e.g. ``hit_rate@3``, ``mrr_granular``, ``ndcg_exp@10``."""
        return f"{self.name}{self.options}" + ("" if self.k is None else f"@{self.k}")

    @property
    def bounded(self) -> bool:
        """Whether every value lies in [0, 1]."""
        return True

    def score(
        self,
        retrieved_ids: Any,
        expected: Any,
        *,
        relevance_level: float = 1,
        query_id: Hashable | None = None,
    ) -> float:
        """The metric for one query (see :mod:`rag_eval_adapters.metrics`)."""
        raise NotImplementedError

    def __call__(self, retrieved_ids: Any, expected: Any, **kwargs: Any) -> float:
        """Same as :meth:`score`."""
        return self.score(retrieved_ids, expected, **kwargs)

    def compute(self, judged: Judged) -> np.ndarray:
        """The metric for every query of a batch of statistics."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items()
                         if value != type(self).model_fields[name].default)
        return f"{type(self).__name__}({args})"


class _Granular(Metric):
    granular: bool = False

    @property
    def options(self) -> str:
        return "_granular" if self.granular else ""


class _Graded(Metric):
    gain: Literal["linear", "exponential"] = "linear"

    @property
    def options(self) -> str:
        return "_exp" if self.gain == "exponential" else ""


class HitRate(_Granular):
    """1 if a relevant id is ranked within k (granular: share of relevant ids found). trec_eval ``success_k``."""

    name: ClassVar[str] = "hit_rate"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.hit_rate(retrieved_ids, expected, self.k, self.granular,
                            relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.hit_rate(self.k, self.granular)


class MRR(_Granular):
    """1/rank of the first relevant id within k (granular: mean 1/rank of those found). trec_eval ``recip_rank``."""

    name: ClassVar[str] = "mrr"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.mrr(retrieved_ids, expected, self.k, self.granular,
                       relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.mrr(self.k, self.granular)


class Precision(Metric):
    """Relevant ids within k, divided by k. trec_eval ``P_k``."""

    name: ClassVar[str] = "precision"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.precision(retrieved_ids, expected, self.k, relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.precision(self.k)


class Recall(Metric):
    """Relevant ids within k, divided by the number of relevant ids. trec_eval ``recall_k``."""

    name: ClassVar[str] = "recall"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.recall(retrieved_ids, expected, self.k, relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.recall(self.k)


class F1(Metric):
    """Harmonic mean of precision and recall at k."""

    name: ClassVar[str] = "f1"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.f1(retrieved_ids, expected, self.k, relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.f1(self.k)


class AveragePrecision(Metric):
    """Sum of precision at relevant ranks within k over the number of relevant ids. trec_eval ``map``/``map_cut_k``."""

    name: ClassVar[str] = "ap"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.average_precision(retrieved_ids, expected, self.k,
                                     relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.average_precision(self.k)


class RPrecision(Metric):
    """Precision at R, the number of relevant ids. trec_eval ``Rprec``. Takes no cutoff."""

    name: ClassVar[str] = "r_precision"

    @field_validator("k", mode="before")
    @classmethod
    def _no_k(cls, value: Any) -> None:
        if value is not None:
            raise ValueError("r_precision takes no cutoff: its cutoff is R, the number of relevant ids")
        return None

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.r_precision(retrieved_ids, expected, relevance_level=relevance_level, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.r_precision()


class DCG(_Graded):
    """Sum of gain(rel_i)/log2(i+1) over ranks i <= k. Not bounded by 1."""

    name: ClassVar[str] = "dcg"

    @property
    def bounded(self) -> bool:
        return False

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.dcg(retrieved_ids, expected, self.k, self.gain, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.dcg(self.k, self.gain)


class NDCG(_Graded):
    """dcg@k / idcg@k, the ideal taken over every judged grade. trec_eval ``ndcg``/``ndcg_cut_k``."""

    name: ClassVar[str] = "ndcg"

    def score(self, retrieved_ids, expected, *, relevance_level=1, query_id=None) -> float:
        return _fn.ndcg(retrieved_ids, expected, self.k, self.gain, query_id=query_id)

    def compute(self, judged: Judged) -> np.ndarray:
        return judged.ndcg(self.k, self.gain)


METRICS: dict[str, type[Metric]] = {
    cls.name: cls for cls in (HitRate, MRR, Precision, Recall, F1, AveragePrecision, RPrecision, DCG, NDCG)
}

_ALIASES = {
    "map": "ap",
    "average_precision": "ap",
    "hit": "hit_rate",
    "hitrate": "hit_rate",
    "success": "hit_rate",
    "rr": "mrr",
    "recip_rank": "mrr",
    "p": "precision",
    "r": "recall",
    "rprec": "r_precision",
    "r-precision": "r_precision",
}

_OPTIONS = {"granular": {"granular": True}, "exp": {"gain": "exponential"}, "exponential": {"gain": "exponential"}}

_PATTERN = re.compile(r"^(?P<body>[a-z][a-z0-9_\-]*?)(?:@(?P<k>\d+))?$")

MetricLike = Union[str, Metric]


def metric_names() -> list[str]:
    """The valid metric names (without cutoff or options)."""
    return sorted(METRICS)


def parse_metric(spec: MetricLike) -> Metric:
    """A metric object from a name such as ``"ndcg@10"``, ``"mrr_granular"``, ``"map@100"`` (or a metric object).

    Raises ``ValueError`` for an unknown name, listing the valid ones.
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a metric is a name such as 'ndcg@10' or a Metric object, got {spec!r}")
    match = _PATTERN.match(spec.strip().lower())
    if match is None:
        raise ValueError(_unknown(spec))
    body, k = match["body"], match["k"]
    options: dict[str, Any] = {}
    name = _ALIASES.get(body, body)
    if name not in METRICS:
        head, _, tail = body.rpartition("_")
        if tail in _OPTIONS and _ALIASES.get(head, head) in METRICS:
            name, options = _ALIASES.get(head, head), dict(_OPTIONS[tail])
        else:
            raise ValueError(_unknown(spec))
    cls = METRICS[name]
    if any(option not in cls.model_fields for option in options):
        raise ValueError(f"metric {spec!r}: {name} has no option {body.rpartition('_')[2]!r}. " + _valid())
    if k is not None:
        if int(k) < 1:
            raise ValueError(f"metric {spec!r}: the cutoff after '@' must be a positive integer")
        options["k"] = int(k)
    try:
        return cls(**options)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise ValueError(f"metric {spec!r}: {message}") from None


def parse_metrics(specs: MetricLike | Iterable[MetricLike]) -> list[Metric]:
    """Metric objects from names and/or objects, duplicates (same key) dropped, order kept."""
    if specs is None:
        raise TypeError("metrics is missing (None): name at least one metric, e.g. ['ndcg@10', 'mrr']")
    if isinstance(specs, (str, Metric)):
        specs = [specs]
    out: dict[str, Metric] = {}
    for spec in specs:
        metric = parse_metric(spec)
        out.setdefault(metric.key, metric)
    if not out:
        raise ValueError("no metric given: name at least one, e.g. 'ndcg@10'. " + _valid())
    return list(out.values())


def _valid() -> str:
    return (
        "Valid metrics: " + ", ".join(metric_names())
        + " (aliases: map, average_precision, recip_rank, success, p, r, rprec), each optionally with '@k'; "
        "options: '_granular' for hit_rate and mrr, '_exp' for dcg and ndcg (e.g. 'hit_rate@3', 'ndcg_exp@10')"
    )


def _unknown(spec: str) -> str:
    return f"unknown metric {spec!r}. " + _valid()
