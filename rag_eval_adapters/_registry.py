"""The metric registry: the base classes, the table of every metric by family, and the name lookup.

A metric is a class declared once, with its ``name``, ``aliases``, further named ``variants`` (a name with
options, e.g. ``token_recall``), its options (pydantic fields, checked by :mod:`rag_eval_adapters.validation`)
and its formula (in its docstring). Declaring a ``name`` registers the class in :data:`REGISTRY` under its
``family``: ``"retrieval"`` (:class:`Metric`, declared in :mod:`rag_eval_adapters.measures`) or ``"answer"``
(:class:`rag_eval_adapters.answers.AnswerMetric`). A name means one metric in the whole registry: a class
whose own name, alias or variant is already another metric's is refused when it is declared (``TypeError``).
A name of another family, or one that several metrics of the family share a part of (``stem``), is an error
listing the choices (:func:`unknown_name`).

This module imports neither :mod:`rag_eval_adapters.measures` nor :mod:`rag_eval_adapters._names`, which both
read it, so the registry has no import circle.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, field_validator

from ._kernel import Judged
from ._validation import as_judgments, as_ranking, finite
from .validation import Cutoff, check_level, plain_error

__all__ = ["Registered", "Metric", "REGISTRY", "METRICS", "TextRule", "names_of", "unknown_name", "close_name"]

TextRule = Literal["ranking", "coverage", "f1"]
"""How a metric is scored when the retrieved items and the ground truth are texts
(:func:`rag_eval_adapters.matching.score_texts`)."""

REGISTRY: dict[str, dict[str, type[Registered]]] = {}
"""family -> canonical name -> metric class, in documentation order (a class registers itself by declaring a
``name``)."""

METRICS: dict[str, type[Metric]] = REGISTRY.setdefault("retrieval", {})  # type: ignore[assignment]
"""The retrieval metrics: canonical name -> metric class, in documentation order."""


class Registered(BaseModel):
    """What every registry metric declares: its family, names and options; its options are checked once.

    A subclass that declares ``name`` is registered in :data:`REGISTRY` under its ``family``; invalid options
    raise the ``ValueError``/``TypeError`` of :mod:`rag_eval_adapters.validation`, naming the class.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: ClassVar[str]
    """The family the name is looked up in: ``"retrieval"`` or ``"answer"``."""
    name: ClassVar[str]
    """The canonical name."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names of the metric with its default options (case-insensitive)."""
    bounded: ClassVar[bool] = True
    """Whether every value lies in [0, 1] (every answer metric; every retrieval metric but DCG)."""
    variants: ClassVar[dict[str, dict[str, Any]]] = {}
    """Further names, each with the options it stands for (``{"token_recall": {"part": "recall"}}``)."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if "name" in cls.__dict__:  # a metric, not a base class or a mixin of options
            _check_names_are_free(cls)
            REGISTRY.setdefault(cls.family, {})[cls.name] = cls

    def __init__(self, **options: Any) -> None:
        try:
            super().__init__(**options)
        except ValidationError as exc:
            raise plain_error(exc, type(self).__name__) from None

    @classmethod
    def names(cls) -> dict[str, dict[str, Any]]:
        """Every name of the class (lower case) with the options it stands for."""
        out: dict[str, dict[str, Any]] = {alias.lower(): {} for alias in (cls.name, *cls.aliases)}
        out.update({variant.lower(): dict(options) for variant, options in cls.variants.items()})
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items()
                         if value != type(self).model_fields[name].default)
        return f"{type(self).__name__}({args})"


def _check_names_are_free(cls: type[Registered]) -> None:
    """Refuse a class whose own names (name, aliases, variants it declares) another registered metric has; a class
    declared again under its family and name replaces the old one."""
    own = {n.lower() for n in (cls.name, *cls.__dict__.get("aliases", ()), *cls.__dict__.get("variants", {}))}
    for family in REGISTRY:
        for name, (other, _) in names_of(family).items():
            if name in own and (other.family, other.name) != (cls.family, cls.name):
                raise TypeError(f"{cls.__name__}: the name {name!r} is already the {family} metric "
                                f"{other.__module__}.{other.__name__}'s; a name means one metric in the whole "
                                "registry, choose another")


def names_of(family: str) -> dict[str, tuple[type[Registered], dict[str, Any]]]:
    """Every name of the family (lower case) -> its class and the options it stands for."""
    return _names_of(tuple(REGISTRY.get(family, {}).values()))  # rebuilt when a class registers


@lru_cache(maxsize=8)
def _names_of(classes: tuple[type[Registered], ...]) -> dict[str, tuple[type[Registered], dict[str, Any]]]:
    return {name: (cls, options) for cls in classes for name, options in cls.names().items()}


def unknown_name(family: str, name: str) -> str | None:
    """Why ``name`` (lower case, no cutoff) names no metric of ``family`` when another family or several of
    its metrics claim it: a message listing the choices; None when nobody claims it."""
    elsewhere = [(other, names[name][0]) for other in REGISTRY if other != family
                 for names in (names_of(other),) if name in names]
    tokens = set(name.split("_"))
    sharing = [candidate for candidate in names_of(family) if tokens < set(candidate.split("_"))]
    reasons = [f"{name!r} is {_article(other)} {other} metric ({cls.__module__}.{cls.__name__}), not "
               f"{_article(family)} {family} metric" for other, cls in elsewhere]
    if len(sharing) > 1:
        reasons.append(f"{name!r} is ambiguous among the {family} metrics: it could be {', '.join(sharing)}; "
                       "name one")
    return "; ".join(reasons) or None


def close_name(family: str, name: str) -> str | None:
    """The name of ``family`` closest to ``name`` (for 'did you mean'), or None."""
    close = difflib.get_close_matches(name, list(names_of(family)), n=1, cutoff=0.5)
    return close[0] if close else None


def _article(family: str) -> str:
    return "an" if family[:1] in "aeiou" else "a"


class Metric(Registered):
    """A retrieval metric with its options; ``m.score(retrieved_ids, expected)`` scores one query.

    Subclasses declare the class variables below and implement :meth:`_compute` (one call of a
    :class:`~rag_eval_adapters._kernel.Judged` method). Invalid options raise the ``ValueError``/``TypeError``
    of :mod:`rag_eval_adapters.validation`.
    """

    family: ClassVar[str] = "retrieval"
    name: ClassVar[str]
    """The canonical name, the start of every key (``"ndcg"``)."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names accepted by :func:`parse_metric` (case-insensitive), trec_eval's and ir_measures' among them."""
    trec_eval: ClassVar[str] = ""
    """trec_eval's name for the measure (``k`` standing for the cutoff), ``""`` when it has none."""
    ir_measures: ClassVar[str] = ""
    """ir_measures' name for the measure, ``""`` when it has none."""
    function: ClassVar[str]
    """The name of the per-query function in :mod:`rag_eval_adapters.metrics`."""
    cutoff: ClassVar[bool] = True
    """Whether the metric takes a cutoff ``k``."""
    default: ClassVar[bool] = True
    """Whether ``rag-eval`` computes it (at every ``--k``) when no metric is named."""
    text_rule: ClassVar[TextRule] = "ranking"
    """Its rule under text matching: ``"ranking"`` (the id metric of the judged texts), ``"coverage"``
    (expected texts matched / expected texts) or ``"f1"`` (ranking precision and coverage combined); see
    :func:`rag_eval_adapters.matching.score_texts`. A new metric declares it here, beside its name."""

    k: Cutoff = None
    _label: str | None = PrivateAttr(default=None)

    @classmethod
    def option_parameters(cls, exclude: tuple[str, ...] = ()) -> list[inspect.Parameter]:
        """The metric's options as parameters, in declaration order: the cutoff ``k`` first (when the metric
        takes one), then the others keyword-or-positional, each with its default and annotation. The per-query
        functions and the adapter classes are all made from it."""
        return [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=info.default,
                              annotation=info.annotation)
            for name, info in cls.model_fields.items()
            if name not in exclude and (name != "k" or cls.cutoff)
        ]

    @field_validator("k", mode="after")
    @classmethod
    def _takes_cutoff(cls, value: int | None) -> int | None:
        if value is not None and not cls.cutoff:
            raise ValueError(f"{cls.name} takes no cutoff; name it without '@k'")
        return value

    @classmethod
    def of(cls, **options: Any) -> Metric:
        """``cls(**options)``, validated once per distinct set of options (metrics are immutable)."""
        try:
            return _cached(cls, *((name, type(value), value) for name, value in options.items()))
        except TypeError as exc:
            if "unhashable" not in str(exc):
                raise
            return cls(**options)

    # ------------------------------------------------------------------ names
    @property
    def options(self) -> str:
        """The option suffix of the key (``""`` for defaults): ``_granular``, ``_exp``, ``_rel2``."""
        fields = self.__dict__
        out = "".join(suffix for field, value, suffix in _SUFFIXES if fields.get(field) == value)
        rel = fields.get("rel")
        return out if rel is None else f"{out}_rel{rel:g}"

    @property
    def key(self) -> str:
        """Name, options and cutoff, e.g. ``hit_rate@3``, ``mrr_granular``, ``ndcg_exp@10``."""
        return f"{self.name}{self.options}" + ("" if self.k is None else f"@{self.k}")

    @property
    def label(self) -> str:
        """The name this metric was asked for (``"map@100"``), else its :attr:`key`: the name of its column."""
        return (self.__pydantic_private__ or {}).get("_label") or self.key

    def labelled(self, label: str) -> Metric:
        """This metric, reported under ``label``."""
        copy = self.model_copy()
        copy._label = label
        return copy

    # ------------------------------------------------------------------ scoring
    def score(
        self,
        retrieved_ids: Any,
        expected: Any,
        *,
        relevance_level: float = 1,
        query_id: Hashable | None = None,
    ) -> float:
        """The metric for one query.

        Parameters
        ----------
        retrieved_ids : sequence or mapping
            The ranking, best first; a mapping ``{id: score}`` is ranked as trec_eval ranks (score descending,
            ties by id descending). A repeated id counts once, at its first rank.
        expected : collection or mapping
            The relevant ids (grade 1 each) or ``{id: grade}``.
        relevance_level : float
            The lowest grade that counts as relevant (a metric's own ``rel`` takes precedence).
        query_id : hashable, optional
            Names the query in error messages.
        """
        judged = as_judgments(expected, query_id)
        ranking = as_ranking(retrieved_ids, query_id)
        value = float(self.compute(Judged.from_rankings([ranking], [judged], check_level(relevance_level)))[0])
        return finite(value, self.label, query_id)

    def __call__(self, retrieved_ids: Any, expected: Any, **kwargs: Any) -> float:
        """Same as :meth:`score`."""
        return self.score(retrieved_ids, expected, **kwargs)

    def compute(self, judged: Judged) -> np.ndarray:
        """The metric for every query of a batch of statistics."""
        rel = self.__dict__.get("rel")
        return self._compute(judged if rel is None else judged.at_level(rel))

    def _compute(self, judged: Judged) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ plumbing
    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.__dict__.values())))

    def __str__(self) -> str:
        return self.label


@lru_cache(maxsize=512)
def _cached(cls: type[Metric], *options: tuple[str, type, Any]) -> Metric:
    # each value comes with its type: True == 1 and hash alike, but k=True is refused and k=1 is not
    return cls(**{name: value for name, _, value in options})


# option field, value, key suffix: the options that show in a key
_SUFFIXES = (("granular", True, "_granular"), ("gain", "exponential", "_exp"))
