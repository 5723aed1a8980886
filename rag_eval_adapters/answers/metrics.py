"""Answer metrics as small objects with a key, and a parser for their names (``em``, ``f1``, ``rouge_l``...).

>>> parse_answer_metrics(["em", "f1", "rouge_l_stem", "semantic_similarity"])
[ExactMatch(), TokenF1(), RougeL(stem=True), SemanticSimilarity()]
>>> [m.key for m in parse_answer_metrics(["exact_match", "token_recall", "rouge_l_precision"])]
['em', 'token_recall', 'rouge_l_precision']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from .embedders import Embedder
from .lexical import exact_match, rouge_l, token_f1
from .normalize import ROUGE, SQUAD, Normalization
from .semantic import semantic_similarity

__all__ = [
    "AnswerMetric",
    "ExactMatch",
    "TokenF1",
    "RougeL",
    "SemanticSimilarity",
    "parse_answer_metric",
    "parse_answer_metrics",
    "answer_metric_names",
]

Part = Literal["f1", "precision", "recall"]


@dataclass(frozen=True)
class AnswerMetric:
    """An answer metric: ``m.score(prediction, references)`` scores one answer in [0, 1]."""

    name: ClassVar[str] = ""
    needs_embedder: ClassVar[bool] = False

    @property
    def key(self) -> str:
        """The column name in reports and the feedback key in LangSmith."""
        return self.name

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        """The metric for one answer against its reference(s)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                         if getattr(self, f.name) != f.default)
        return f"{type(self).__name__}({args})"


def _check_part(part: str) -> None:
    if part not in ("f1", "precision", "recall"):
        raise ValueError(f"part must be 'f1', 'precision' or 'recall', got {part!r}")


@dataclass(frozen=True, repr=False)
class ExactMatch(AnswerMetric):
    """1 when the normalised answer equals a normalised reference (SQuAD's EM); key ``em``."""

    name: ClassVar[str] = "em"
    normalization: Normalization = SQUAD

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        return exact_match(prediction, references, normalization=self.normalization)


@dataclass(frozen=True, repr=False)
class TokenF1(AnswerMetric):
    """Token-overlap F1 (SQuAD's F1), or its precision or recall; keys ``f1``, ``token_precision``, ``token_recall``."""

    name: ClassVar[str] = "f1"
    part: Part = "f1"
    normalization: Normalization = SQUAD

    def __post_init__(self) -> None:
        _check_part(self.part)

    @property
    def key(self) -> str:
        return "f1" if self.part == "f1" else f"token_{self.part}"

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        return getattr(token_f1(prediction, references, normalization=self.normalization), self.part)


@dataclass(frozen=True, repr=False)
class RougeL(AnswerMetric):
    """ROUGE-L F (or precision/recall), optionally stemmed; keys ``rouge_l``, ``rouge_l_stem_recall``..."""

    name: ClassVar[str] = "rouge_l"
    part: Part = "f1"
    stem: bool = False
    normalization: Normalization = ROUGE

    def __post_init__(self) -> None:
        _check_part(self.part)

    @property
    def key(self) -> str:
        return "rouge_l" + ("_stem" if self.stem else "") + ("" if self.part == "f1" else f"_{self.part}")

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        overlap = rouge_l(prediction, references, stem=self.stem, normalization=self.normalization)
        return getattr(overlap, self.part)


@dataclass(frozen=True, repr=False)
class SemanticSimilarity(AnswerMetric):
    """Cosine similarity of the answer's and the best reference's embeddings; key ``semantic_similarity``."""

    name: ClassVar[str] = "semantic_similarity"
    needs_embedder: ClassVar[bool] = True
    side: Literal["query", "passage"] = "query"

    def __post_init__(self) -> None:
        if self.side not in ("query", "passage"):
            raise ValueError(f"side must be 'query' or 'passage', got {self.side!r}")

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        if embedder is None:
            raise ValueError("semantic_similarity needs an embedder, e.g. embedder=E5Embedder()")
        return semantic_similarity(prediction, references, embedder, side=self.side)


_NAMES: dict[str, AnswerMetric] = {
    "em": ExactMatch(),
    "exact_match": ExactMatch(),
    "f1": TokenF1(),
    "token_f1": TokenF1(),
    "token_precision": TokenF1(part="precision"),
    "token_recall": TokenF1(part="recall"),
    "semantic_similarity": SemanticSimilarity(),
}
for _stem in (False, True):
    for _part in ("f1", "precision", "recall"):
        _m = RougeL(part=_part, stem=_stem)
        _NAMES[_m.key] = _m
_NAMES["rougeL"] = RougeL()


def answer_metric_names() -> list[str]:
    """Every name :func:`parse_answer_metric` accepts."""
    return list(_NAMES)


def parse_answer_metric(metric: str | AnswerMetric) -> AnswerMetric:
    """An :class:`AnswerMetric` from its name (``"em"``, ``"f1"``, ``"rouge_l_stem"``...) or itself."""
    if isinstance(metric, AnswerMetric):
        return metric
    if not isinstance(metric, str):
        raise TypeError(f"an answer metric is a name or an AnswerMetric, got {type(metric).__name__}: {metric!r}")
    name = metric.strip().lower().replace("-", "_")
    found = _NAMES.get(name) or _NAMES.get(metric.strip())
    if found is None:
        raise ValueError(f"unknown answer metric {metric!r}; known: {', '.join(_NAMES)}")
    return found


def parse_answer_metrics(metrics: str | AnswerMetric | Iterable[str | AnswerMetric]) -> list[AnswerMetric]:
    """A list of :class:`AnswerMetric` from names or objects, duplicates (same key) dropped."""
    items = [metrics] if isinstance(metrics, (str, AnswerMetric)) else list(metrics)
    out: dict[str, AnswerMetric] = {}
    for item in items:
        m = parse_answer_metric(item)
        out.setdefault(m.key, m)
    if not out:
        raise ValueError("no answer metric given; choose from em, f1, rouge_l, semantic_similarity")
    return list(out.values())
