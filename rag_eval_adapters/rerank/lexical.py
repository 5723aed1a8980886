"""A deterministic lexical relevance scorer: no key, no network, no model download."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .base import validate_query_texts

__all__ = ["LexicalScorer"]

_TOKEN = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    """a an and are as at be by for from has have how in is it its of on or that the this to was were what when
    where which who why will with does do did can i you he she we they me my your our their""".split()
)


def _stem(token: str) -> str:
    """Very light plural folding: 'cities' -> 'city', 'capitals' -> 'capital' ('class' stays)."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


@lru_cache(maxsize=8_192)  # a run's candidate chunks; each entry holds a text's term sets (a few kB)
def _text_terms(text: str, keep_stopwords: bool) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """The folded terms of ``text`` and its adjacent term pairs (stopwords dropped unless kept)."""
    tokens = [_stem(t) for t in _TOKEN.findall(text.casefold())]
    terms = tokens if keep_stopwords else [t for t in tokens if t not in STOPWORDS]
    return frozenset(terms), frozenset(zip(terms, terms[1:], strict=False))


class LexicalScorer:
    """Query-term coverage of a text, in [0, 1] (``calibrated = True``), computed per (query, text) pair.

    Both sides are case-folded, split on ``\\w+`` and lightly de-pluralised. Let Q be the query's distinct
    content terms (stopwords dropped, unless the query has nothing else) and B_q its adjacent content-term
    pairs; with T and B_t the same for the text::

        unigram = |Q ∩ T| / |Q|
        bigram  = |B_q ∩ B_t| / |B_q|        (= unigram when the query has a single content term)
        score   = (1 - bigram_weight) * unigram + bigram_weight * bigram

    A text containing every query term scores at least ``1 - bigram_weight``; containing the query's phrases
    too, 1.0; sharing nothing, 0.0. The score of one text never depends on the other texts, so it can be cached.
    It is a cheap, transparent baseline for demos and offline runs, not a substitute for a neural reranker.
    """

    calibrated: bool = True

    def __init__(self, bigram_weight: float = 0.25) -> None:
        if not isinstance(bigram_weight, (int, float)) or not 0.0 <= float(bigram_weight) <= 1.0:
            raise ValueError(f"bigram_weight must be a number in [0, 1], got {bigram_weight!r}")
        self.bigram_weight = float(bigram_weight)
        self.name = f"lexical-v1(bigram_weight={self.bigram_weight:g})"

    def __repr__(self) -> str:
        return f"LexicalScorer(bigram_weight={self.bigram_weight:g})"

    def _pair_score(self, q_terms: list[str], q_bigrams: set[tuple[str, str]], text: str, stop_query: bool) -> float:
        q_set = set(q_terms)
        if not q_set:
            return 0.0
        t_terms, t_bigrams = _text_terms(text, stop_query)
        unigram = len(q_set & t_terms) / len(q_set)
        bigram = len(q_bigrams & t_bigrams) / len(q_bigrams) if q_bigrams else unigram
        score = (1.0 - self.bigram_weight) * unigram + self.bigram_weight * bigram
        return min(1.0, max(0.0, score))

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Lexical scores of ``texts`` for ``query`` (see the class docstring), in input order."""
        items = validate_query_texts(query, texts)
        q_tokens = [_stem(t) for t in _TOKEN.findall(query.casefold())]
        q_terms = [t for t in q_tokens if t not in STOPWORDS]
        stop_query = not q_terms  # an all-stopword query ("to be or not to be") matches on stopwords
        if stop_query:
            q_terms = q_tokens
        q_bigrams = set(zip(q_terms, q_terms[1:], strict=False))
        return [self._pair_score(q_terms, q_bigrams, text, stop_query) for text in items]

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        """Same as :meth:`score` (pure CPU and fast, so it runs inline)."""
        return self.score(query, texts)
