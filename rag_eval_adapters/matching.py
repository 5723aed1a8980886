"""Judging retrieved *texts* against expected texts, when a data set has no document ids.

The default rule (:func:`contains_match`): after lower-casing and collapsing white space, a retrieved text
is relevant to an expected text when it contains it or is contained in it. Any callable
``matcher(retrieved_text, expected_text) -> bool`` can replace it.

:func:`judge_texts` turns a text match into ids and judgments that the id metrics of
:mod:`rag_eval_adapters.metrics` score directly (see its docstring for the construction), so text-matched
scores obey the same definitions and stay in [0, 1].

>>> from rag_eval_adapters.matching import contains_match, judge_texts
>>> contains_match("Paris is the  CAPITAL of France.", "capital of france")
True
>>> j = judge_texts(["Berlin is in Germany.", "Paris is the capital of France."], ["capital of France"])
>>> j.retrieved_ids, j.qrels
(['retrieved[0]', 'retrieved[1]'], {'retrieved[1]': 1.0})

This module imports no framework.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .measures import Metric, Precision, Recall, TextRule, parse_metric
from .validation import check_grade, check_texts, where

__all__ = [
    "TextMatcher",
    "normalize_text",
    "contains_match",
    "TextJudgement",
    "judge_texts",
    "TextRule",
    "text_rule",
    "score_texts",
]

TextMatcher = Callable[[str, str], bool]
"""``matcher(retrieved_text, expected_text) -> bool``: whether the retrieved text is relevant to the expected one."""


def normalize_text(text: str) -> str:
    """``text`` lower-cased, with every run of white space collapsed to one space and the ends stripped."""
    return " ".join(text.lower().split())


def contains_match(retrieved_text: str, expected_text: str) -> bool:
    """Whether one normalized text contains the other (see :func:`normalize_text`).

    A text that is empty after normalization matches nothing (an empty string is "contained" in every
    text, which would make any empty chunk relevant).

    >>> contains_match("The Eiffel Tower is in Paris.", "eiffel tower")
    True
    >>> contains_match("tower", "The Eiffel   Tower is in Paris.")
    True
    >>> contains_match("", "anything")
    False
    """
    retrieved, expected = normalize_text(retrieved_text), normalize_text(expected_text)
    if not retrieved or not expected:
        return False
    return expected in retrieved or retrieved in expected


@dataclass(frozen=True)
class TextJudgement:
    """A text match expressed as ids and judgments for the id metrics.

    Attributes:
        retrieved_ids: one id per retrieved text, in rank order: ``"retrieved[i]"``.
        qrels: judgments for the ranking: every retrieved text that matches an expected text, with the
            highest grade among the expected texts it matches, plus every expected text that no retrieved
            text matches (``"expected[j]"``), with its grade. Precision, hit rate, MRR, AP and nDCG are the
            id metrics of ``retrieved_ids`` against ``qrels``.
        expected_qrels: ``"expected[j]" -> grade`` for every (distinct) expected text.
        covered_ids: the ``"expected[j]"`` matched by at least one retrieved text, in order of ``j``. Recall
            (expected texts matched / expected texts) is the recall of ``covered_ids`` against
            ``expected_qrels``.
        matches: for each retrieved text, the indices ``j`` of the expected texts it matches.
        expected_texts: the distinct expected texts, in the order the ``j`` indices refer to.
    """

    retrieved_ids: list[str]
    qrels: dict[str, float]
    expected_qrels: dict[str, float]
    covered_ids: list[str]
    matches: tuple[tuple[int, ...], ...]
    expected_texts: tuple[str, ...]

    def __repr__(self) -> str:
        relevant = sum(1 for m in self.matches if m)
        return (
            f"TextJudgement(retrieved={len(self.retrieved_ids)}, relevant_retrieved={relevant}, "
            f"expected={len(self.expected_texts)}, matched_expected={len(self.covered_ids)})"
        )


def _texts(values: Any, field: str, query_id: Any) -> list[str]:
    """:func:`~rag_eval_adapters.validation.check_texts`, but a mapping ``text -> grade`` gives its texts."""
    return check_texts(list(values) if isinstance(values, Mapping) else values, field, query_id)


def _grade(grades: Mapping[str, Any] | None, text: str, query_id: Any) -> float:
    if grades is None or text not in grades:
        return 1.0
    return check_grade(grades[text], text, "expected_relevance", query_id)


def judge_texts(
    retrieved_texts: Sequence[str],
    expected_texts: Sequence[str],
    *,
    matcher: TextMatcher | None = None,
    grades: Mapping[str, float] | None = None,
    query_id: Hashable | None = None,
) -> TextJudgement:
    """Match every retrieved text against every expected text, and express the result as ids and judgments.

    A retrieved text is *relevant* when ``matcher(retrieved_text, expected_text)`` holds for some expected
    text (default :func:`contains_match`); an expected text is *matched* when some retrieved text matches it.
    With ``R`` = relevant retrieved texts and ``U`` = expected texts matched by none:

    * ranking ``retrieved[0..n-1]``; judgments = ``R`` (grade: the highest grade among the expected texts the
      text matches) plus ``U`` (their own grades). So precision = |R| / n, the first relevant rank gives the
      MRR, and the ideal ranking of AP and nDCG holds |R| + |U| relevant items, which is at least the number
      of relevant retrieved texts: scores stay in [0, 1] even when several chunks match one expected text.
      When each expected text is matched by exactly one retrieved text and vice versa, this is the same as
      scoring ids.
    * recall = matched expected texts / expected texts (``covered_ids`` against ``expected_qrels``).

    Args:
        retrieved_texts: the retrieved texts in rank order.
        expected_texts: the expected (relevant) texts; repeated texts count once; must not be empty.
        matcher: ``matcher(retrieved_text, expected_text) -> bool``.
        grades: optional grade per expected text (keys are expected texts; missing texts have grade 1).
        query_id: names the query in error messages.

    Raises:
        ValueError: ``expected_texts`` missing, empty or holding a blank text; ``retrieved_texts`` missing; a grade
            for a text that is not among ``expected_texts``.
        TypeError: a text that is not a str, a grade that is not a number, a matcher that is not callable.
    """
    if expected_texts is None:
        raise ValueError(f"{where(query_id)}expected_texts is missing: pass the relevant texts to match against")
    if retrieved_texts is None:
        raise ValueError(
            f"{where(query_id)}retrieved_texts is missing: text matching needs the retrieved texts in rank order "
            "([] if none)"
        )
    given = _texts(expected_texts, "expected_texts", query_id)
    if not given:
        raise ValueError(
            f"{where(query_id)}expected_texts is empty: pass at least one relevant text (or expected ids)"
        )
    for i, text in enumerate(given):
        if not text.strip():
            raise ValueError(
                f"{where(query_id)}expected_texts[{i}] is blank; a blank text cannot be matched: remove it"
            )
    expected = list(dict.fromkeys(given))
    retrieved = _texts(retrieved_texts, "retrieved_texts", query_id)
    match = contains_match if matcher is None else matcher
    if not callable(match):
        raise TypeError(f"matcher must be a callable (retrieved_text, expected_text) -> bool, got {match!r}")
    if grades is not None and not isinstance(grades, Mapping):
        raise TypeError(
            f"{where(query_id)}expected_relevance must be a mapping expected text -> grade, got {type(grades).__name__}"
        )
    if grades:
        unknown = [text for text in grades if text not in set(expected)]
        if unknown:
            raise ValueError(
                f"{where(query_id)}expected_relevance grades {unknown[:3]!r}, which are not among expected_texts; "
                "in text matching its keys are the expected texts themselves"
            )
    expected_grades = [_grade(grades, text, query_id) for text in expected]

    matches = tuple(
        tuple(j for j, exp in enumerate(expected) if match(ret, exp)) for ret in retrieved
    )
    covered = sorted({j for found in matches for j in found})
    retrieved_ids = [f"retrieved[{i}]" for i in range(len(retrieved))]
    qrels: dict[str, float] = {
        retrieved_ids[i]: max(expected_grades[j] for j in found) for i, found in enumerate(matches) if found
    }
    covered_set = set(covered)
    for j, grade in enumerate(expected_grades):
        if j not in covered_set:
            qrels[f"expected[{j}]"] = grade
    return TextJudgement(
        retrieved_ids=retrieved_ids,
        qrels=qrels,
        expected_qrels={f"expected[{j}]": grade for j, grade in enumerate(expected_grades)},
        covered_ids=[f"expected[{j}]" for j in covered],
        matches=matches,
        expected_texts=tuple(expected),
    )


def text_rule(metric: Metric) -> TextRule:
    """How a metric is scored under text matching (see :func:`score_texts`): its class's ``text_rule``.

    ``"coverage"`` for recall and the granular hit rate (expected texts matched / expected texts), ``"f1"`` for
    F1 (the harmonic mean of the ranking precision and the coverage), ``"ranking"`` for every other metric. A
    metric class declares it (:attr:`rag_eval_adapters.measures.Metric.text_rule`, and ``granular_text_rule``
    for a granular variant that differs), so a new metric states its rule where it is declared.
    """
    granular_rule = getattr(metric, "granular_text_rule", None)  # declared by the granular metrics only
    if metric.__dict__.get("granular") and granular_rule:
        return granular_rule
    return metric.text_rule


def score_texts(
    metric: Metric | str,
    retrieved_texts: Sequence[str],
    expected_texts: Sequence[str],
    *,
    matcher: TextMatcher | None = None,
    grades: Mapping[str, float] | None = None,
    relevance_level: float = 1,
    query_id: Hashable | None = None,
) -> float:
    """One metric of one query whose retrieved items and ground truth are texts.

    The rule shared by :func:`rag_eval_adapters.evaluate` (``match="text"``), the LlamaIndex metrics and the
    LangChain evaluators:

    1. repeated retrieved texts count once, at their first rank; with a cutoff ``k`` only the first ``k``
       texts are judged;
    2. :func:`judge_texts` matches them against the expected texts;
    3. by :func:`text_rule`: a *ranking* metric (hit rate, MRR, precision, AP, R-precision, DCG, nDCG) is the id
       metric of ``judgement.retrieved_ids`` against ``judgement.qrels``; a *coverage* metric (recall, the
       granular hit rate) is expected texts matched / expected texts; F1 is ``2PR / (P + R)`` of the ranking
       precision ``P`` and the coverage ``R`` (0 when both are 0).

    Every value but DCG lies in [0, 1].

    >>> score_texts("recall", ["Paris is in France.", "Rome"], ["paris", "berlin"])
    0.5
    >>> score_texts("mrr", ["Rome", "Paris is in France."], ["paris"])
    0.5
    """
    metric = parse_metric(metric)
    if retrieved_texts is None:
        raise ValueError(
            f"{where(query_id)}retrieved_texts is missing: text matching needs the retrieved texts in rank "
            "order ([] for an empty retrieval, which scores 0.0)"
        )
    texts = list(dict.fromkeys(_texts(retrieved_texts, "retrieved_texts", query_id)))
    if metric.k is not None:
        texts = texts[: metric.k]
    judged = judge_texts(texts, expected_texts, matcher=matcher, grades=grades, query_id=query_id)
    rule = text_rule(metric)
    if rule == "ranking":
        return metric.score(judged.retrieved_ids, judged.qrels, relevance_level=relevance_level, query_id=query_id)
    coverage = Recall().score(judged.covered_ids, judged.expected_qrels, relevance_level=relevance_level,
                              query_id=query_id)
    if rule == "coverage":
        return coverage
    precision = Precision(k=metric.k).score(judged.retrieved_ids, judged.qrels, relevance_level=relevance_level,
                                            query_id=query_id)
    return 0.0 if precision + coverage == 0 else 2 * precision * coverage / (precision + coverage)
