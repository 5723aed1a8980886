r"""Answer metrics: classes of the metric registry's ``"answer"`` family, and the parser of their names.

Each answer metric is declared once, as a class, like the retrieval metrics of
:mod:`rag_eval_adapters.measures`: its canonical ``name``, its ``aliases``, its named ``variants`` (a name with
options, e.g. ``token_recall``), its options (pydantic fields, checked when the object is made) and its
formula in the docstring. Declaring the class registers it; :func:`parse_answer_metric`, the names table and
the definitions of ``docs/answers.md`` and the error messages are derived from the registry.

Names: ``exact_match`` (``em``), ``token_f1``, ``token_precision``, ``token_recall``, ``rouge_l`` (``rougeL``;
``rouge_l_precision``, ``rouge_l_recall``, ``rouge_l_stem...``) and ``semantic_similarity``. A name means one
metric in the whole registry, and a metric's report column (its ``key``) is its canonical name, which parses
back to it. ``f1``, ``precision`` and ``recall`` (with or without ``@k``) are retrieval metrics everywhere: given
here, like any retrieval name (``ndcg@10``), they are a ``ValueError`` listing the answer metrics to use
instead (``token_f1``...). A name several answer metrics share a part of (``stem``) is an error too.

>>> parse_answer_metrics(["em", "token_f1", "rouge_l_stem", "semantic_similarity"])
[ExactMatch(), TokenF1(), RougeL(stem=True), SemanticSimilarity()]
>>> [m.key for m in parse_answer_metrics(["em", "token_recall", "rouge_l_precision"])]
['exact_match', 'token_recall', 'rouge_l_precision']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from pydantic import InstanceOf

from ..measures import (  # parse_metric: the retrieval family, so a retrieval name is recognised here
    REGISTRY,
    Registered,
    close_name,
    names_of,
    parse_metric,
    unknown_name,
)
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
    "ANSWER_METRICS",
    "parse_answer_metric",
    "parse_answer_metrics",
    "answer_metric_names",
]

FAMILY = "answer"
Part = Literal["f1", "precision", "recall"]


class AnswerMetric(Registered):
    """An answer metric: ``m.score(prediction, references)`` scores one answer in [0, 1].

    Subclasses declare ``name`` (which registers them in the ``"answer"`` family), ``aliases``, ``variants``,
    their options as fields and :meth:`score`; the formula goes in the docstring, under ``.. math::``.
    """

    family: ClassVar[str] = FAMILY
    needs_embedder: ClassVar[bool] = False
    """Whether :meth:`score` needs an embedder (``evaluate_answers`` then requires one)."""
    needs_judge: ClassVar[bool] = False
    """Whether the metric is scored by an LLM judge (``evaluate_answers`` then requires ``judge=``); see
    :mod:`rag_eval_adapters.answers.judged`."""
    reads: ClassVar[tuple[str, ...]] = ("prediction", "references")
    """The record fields the metric reads (:data:`rag_eval_adapters.answers.record.FIELD_NAMES`); a record
    without them is an error of that query (lexical and semantic metrics) or an unmeasured cell (judged ones)."""

    def __init__(self, *args: Any, **options: Any) -> None:
        fields = list(type(self).model_fields)  # options may also be given in order, as before (TokenF1("recall"))
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} options, got {len(args)}")
        for name, value in zip(fields, args, strict=False):
            if name in options:
                raise TypeError(f"{type(self).__name__} got two values for {name!r}")
            options[name] = value
        super().__init__(**options)

    @property
    def key(self) -> str:
        """The column name in reports and the feedback key in LangSmith: the canonical name of the metric with
        its options (a name of :data:`ANSWER_METRICS` or a variant); the metric of every name reads back from its
        key: ``parse_answer_metric(parse_answer_metric(name).key) == parse_answer_metric(name)``."""
        return self.name

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        """The metric for one answer against its reference(s)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.key


ANSWER_METRICS: dict[str, type[AnswerMetric]] = REGISTRY.setdefault(FAMILY, {})  # type: ignore[assignment]
"""The answer metrics: canonical name -> class, in documentation order."""


class ExactMatch(AnswerMetric):
    r"""Exact match: 1 when the normalised answer equals a normalised reference, else 0 (SQuAD's EM).

    .. math:: \mathrm{EM} = \max_{r} \mathbb{1}[\mathrm{tokens}(a) = \mathrm{tokens}(r)]

    :math:`\mathrm{tokens}` is the normalisation of the ``SQUAD`` preset (see above); two answers that are both
    empty after it match (``"The"`` vs ``"a"`` scores 1), as in SQuAD v1.1. Key ``exact_match``.

    References
    ----------
    P. Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of Text", EMNLP 2016.
    """

    name: ClassVar[str] = "exact_match"
    aliases: ClassVar[tuple[str, ...]] = ("em",)
    normalization: InstanceOf[Normalization] = SQUAD

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        return exact_match(prediction, references, normalization=self.normalization)


class TokenF1(AnswerMetric):
    r"""Token F1: the harmonic mean of token precision and recall (SQuAD's F1), or one of the two.

    .. math:: \mathrm{F1} = \max_{r} \frac{2PR}{P + R}, \quad P = \frac{|a \cap r|}{|a|}, \quad R = \frac{|a \cap r|}{|r|}

    :math:`a \cap r` is the multiset intersection of the token lists; 0 when there is no overlap or a side is
    empty. With several references the one of highest F1 counts (its precision and recall with it; among
    ties the first, and references given as a set are taken in sorted order, so the result never depends on
    ``PYTHONHASHSEED``). Keys ``token_f1``, ``token_precision``, ``token_recall`` (``f1`` is retrieval F1, of
    retrieved ids).

    References
    ----------
    P. Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of Text", EMNLP 2016.
    """

    name: ClassVar[str] = "token_f1"
    variants: ClassVar[dict[str, dict[str, Any]]] = {
        "token_precision": {"part": "precision"}, "token_recall": {"part": "recall"},
    }
    part: Part = "f1"
    normalization: InstanceOf[Normalization] = SQUAD

    @property
    def key(self) -> str:
        return f"token_{self.part}"

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        return getattr(token_f1(prediction, references, normalization=self.normalization), self.part)


class RougeL(AnswerMetric):
    r"""ROUGE-L: the F measure of the longest common subsequence of the token lists (or its P or R).

    .. math:: \mathrm{ROUGE\text{-}L} = \max_{r} \frac{2PR}{P + R}, \quad P = \frac{\mathrm{LCS}(a, r)}{|a|}, \quad R = \frac{\mathrm{LCS}(a, r)}{|r|}

    0 when a side has no tokens; several references: the highest F counts, as ``rouge-score``'s
    ``score_multi``. ``stem=True`` applies NLTK's Porter stemmer, as ``rouge-score`` does, to ASCII tokens
    longer than three characters (other scripts are left alone; ``nltk`` comes with the ``answers`` extra and
    is imported only when stemming is asked for). The LCS is computed bit-parallel (Hyyrö 2004), in
    :math:`O(nm/64)` time and memory linear in the text length (only the masks of frequent tokens are kept).
    Keys ``rouge_l``, ``rouge_l_precision``, ``rouge_l_recall``, ``rouge_l_stem...``.

    References
    ----------
    C.-Y. Lin, "ROUGE: A Package for Automatic Evaluation of Summaries", ACL Workshop 2004.
    """

    name: ClassVar[str] = "rouge_l"
    aliases: ClassVar[tuple[str, ...]] = ("rougeL",)
    variants: ClassVar[dict[str, dict[str, Any]]] = {
        "rouge_l" + ("_stem" if stem else "") + ("" if part == "f1" else f"_{part}"): {"part": part, "stem": stem}
        for stem in (False, True) for part in ("f1", "precision", "recall") if stem or part != "f1"
    }
    part: Part = "f1"
    stem: bool = False
    normalization: InstanceOf[Normalization] = ROUGE

    @property
    def key(self) -> str:
        return "rouge_l" + ("_stem" if self.stem else "") + ("" if self.part == "f1" else f"_{self.part}")

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        overlap = rouge_l(prediction, references, stem=self.stem, normalization=self.normalization)
        return getattr(overlap, self.part)


class SemanticSimilarity(AnswerMetric):
    r"""Semantic similarity: the cosine of the answer's and the best reference's embeddings, clipped at 0.

    .. math:: \mathrm{sim} = \max_{r} \max\left(0, \frac{e(a) \cdot e(r)}{\lVert e(a) \rVert \, \lVert e(r) \rVert}\right)

    Both texts are embedded as queries (``side="query"``, E5's advice for symmetric tasks) or as passages
    (``side="passage"``, as LlamaIndex's ``SemanticSimilarityEvaluator``). Needs an embedder. Vectors of any
    finite scale work (each is divided by its largest component before its norm is taken, so components
    near 1e308 or subnormal ones give the right cosine); a zero vector, NaN or infinity is an error.

    References
    ----------
    L. Wang et al., "Text Embeddings by Weakly-Supervised Contrastive Pre-training", arXiv:2212.03533, 2022.
    """

    name: ClassVar[str] = "semantic_similarity"
    needs_embedder: ClassVar[bool] = True
    side: Literal["query", "passage"] = "query"

    def score(self, prediction: str, references: Any, embedder: Embedder | None = None) -> float:
        if embedder is None:
            raise ValueError("semantic_similarity needs an embedder, e.g. embedder=E5Embedder()")
        return semantic_similarity(prediction, references, embedder, side=self.side)


def answer_metric_names() -> list[str]:
    """Every name :func:`parse_answer_metric` accepts (canonical names, aliases and variants)."""
    return [name for cls in ANSWER_METRICS.values() for name in (cls.name, *cls.aliases, *cls.variants)]


def parse_answer_metric(metric: str | AnswerMetric) -> AnswerMetric:
    """An :class:`AnswerMetric` from its name (``"exact_match"``, ``"em"``, ``"token_f1"``, ``"rouge_l_stem"``...)
    or itself.

    Raises
    ------
    ValueError
        An unknown name (suggesting the closest); a retrieval metric's name (``f1``, ``precision@5``,
        ``ndcg@10``: retrieval metrics everywhere); or a name several answer metrics share a part of (``stem``);
        each listing the answer metrics to choose from.
    TypeError
        ``metric`` is neither a string nor an :class:`AnswerMetric`.
    """
    if isinstance(metric, AnswerMetric):
        return metric
    if not isinstance(metric, str):
        raise TypeError(f"an answer metric is a name or an AnswerMetric, got {type(metric).__name__}: {metric!r}")
    name = metric.strip().lower().replace("-", "_")
    found = names_of(FAMILY).get(name)
    if found is not None:
        cls, options = found
        made = cls(**options)
        assert isinstance(made, AnswerMetric)  # the answer family holds answer metrics only
        return made
    retrieval = _retrieval_name(metric.strip())
    if retrieval:
        raise ValueError(f"{retrieval}; for answers use one of: {', '.join(_choices(name))}")
    known = ", ".join(answer_metric_names())
    claimed = unknown_name(FAMILY, name)
    if claimed:
        raise ValueError(f"answer metric {metric!r}: {claimed}. Answer metrics: {known}")
    close = close_name(FAMILY, name)
    hint = f" (did you mean {close!r}?)" if close else ""
    raise ValueError(f"unknown answer metric {metric!r}{hint}; known: {known}")


def _retrieval_name(name: str) -> str | None:
    """Why ``name`` is no answer metric when it is a retrieval metric's name (``f1``, ``ndcg@10``), else None."""
    try:
        retrieval = parse_metric(name)
    except (ValueError, TypeError):
        return None
    return (f"{name!r} is retrieval {type(retrieval).__name__} ({retrieval!r}: of retrieved ids, scored by "
            "rag_eval_adapters.evaluate), not an answer metric")


def _choices(name: str) -> list[str]:
    """The answer metrics' canonical names and variants, those sharing a part of ``name`` (``f1``) first."""
    names = [n for cls in ANSWER_METRICS.values() for n in (cls.name, *cls.variants)]
    tokens = set(name.split("@")[0].replace("(", "_").split("_"))
    return sorted(names, key=lambda n: not tokens & set(n.split("_")))


def parse_answer_metrics(metrics: str | AnswerMetric | Iterable[str | AnswerMetric]) -> list[AnswerMetric]:
    """A list of :class:`AnswerMetric` from names or objects, duplicates (same key) dropped."""
    items = [metrics] if isinstance(metrics, (str, AnswerMetric)) else list(metrics)
    out: dict[str, AnswerMetric] = {}
    for item in items:
        m = parse_answer_metric(item)
        out.setdefault(m.key, m)
    if not out:
        raise ValueError(f"no answer metric given; choose from {', '.join(ANSWER_METRICS)}")
    return list(out.values())
