"""Porter stemming for ROUGE-L, as ``rouge-score`` applies it (NLTK's ``PorterStemmer``).

The stemmer comes from ``nltk`` (``pip install 'rag-eval-adapters[answers]'``), imported on first use.
Only ASCII tokens longer than three characters are stemmed, as in rouge-score; other scripts are left as they
are (the Porter algorithm is for English).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

from ..extras import require

__all__ = ["porter_stem", "stem_tokens"]


@cache
def _stemmer() -> Callable[[str], str]:
    porter = require("nltk.stem.porter", needed_by="ROUGE-L with stem=True (the Porter stemmer)", extra="answers",
                     package="nltk")
    return porter.PorterStemmer().stem


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """The Porter stem of one lower-case English word (NLTK's algorithm, as rouge-score uses it)."""
    return _stemmer()(word)


def stem_tokens(tokens: list[str]) -> list[str]:
    """Stem every ASCII token longer than three characters; other tokens are kept as they are."""
    return [porter_stem(t) if len(t) > 3 and t.isascii() else t for t in tokens]
