"""Agreement between given relevance labels and LLM grades: Cohen's kappa and the confusion matrix."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Agreement", "cohen_kappa", "agreement"]


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels of the same items: (observed - chance agreement) / (1 - chance).

    Labels may be any hashable values; the formula is :func:`rag_eval_adapters.agreement.cohen_kappa`'s, on the
    labels numbered in order of first appearance. None when it is undefined: fewer than two items, or both raters
    gave every item one and the same label (chance agreement 1). Never NaN.
    """
    from ..agreement.stats import cohen_kappa as kappa

    if len(first) != len(second):
        raise ValueError(f"both raters must label the same items: {len(first)} and {len(second)} labels")
    if len(first) < 2:  # no items, or one: chance agreement is 1
        return None
    number: dict[Hashable, int] = {}
    for label in (*first, *second):
        number.setdefault(label, len(number))
    return kappa([number[a] for a in first], [number[b] for b in second])


@dataclass(frozen=True)
class Agreement:
    """Given labels against LLM grades on the pairs that have both.

    Attributes
    ----------
    pairs : int
        (query, document) pairs with a given label and an LLM grade.
    relevant_grade : int
        The lowest LLM grade counted as relevant when both are made binary (given label >= 1: relevant).
    observed : float or None
        Share of pairs on which the binary labels agree.
    kappa : float or None
        Cohen's kappa of the binary labels (None when undefined; see :func:`cohen_kappa`).
    confusion : dict
        ``{given label: {llm grade: pairs}}``.
    """

    pairs: int
    relevant_grade: int
    observed: float | None
    kappa: float | None
    confusion: dict[int, dict[int, int]]

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (labels as strings)."""
        return {"pairs": self.pairs, "relevant_grade": self.relevant_grade, "observed": self.observed,
                "kappa": self.kappa,
                "confusion": {str(g): {str(k): v for k, v in row.items()} for g, row in self.confusion.items()}}


def agreement(given: Sequence[int], graded: Sequence[int], relevant_grade: int = 2) -> Agreement:
    """:class:`Agreement` of ``given`` labels and LLM ``graded`` grades of the same pairs."""
    confusion: dict[int, dict[int, int]] = {}
    for g, r in zip(given, graded, strict=True):
        row = confusion.setdefault(int(g), {})
        row[int(r)] = row.get(int(r), 0) + 1
    first = [int(g >= 1) for g in given]
    second = [int(r >= relevant_grade) for r in graded]
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / len(first) if first else None
    return Agreement(len(first), relevant_grade, observed, cohen_kappa(first, second),
                     {g: dict(sorted(row.items())) for g, row in sorted(confusion.items())})
