"""Text normalisation and tokenisation shared by the answer metrics.

Two presets cover the metrics:

* :data:`SQUAD` (exact match and token F1): NFKC, case folding, punctuation *deleted* (Unicode category ``P*``
  and ASCII ``string.punctuation``, so ``don't`` becomes ``dont``), the English articles ``a``, ``an``, ``the``
  removed, white space collapsed. On ASCII text this is exactly SQuAD v1.1's ``normalize_answer``.
* :data:`ROUGE` (ROUGE-L): NFKC, case folding, every character that is not a letter, a digit or a combining
  mark turned into a space (``don't`` becomes ``don t``), no article removal. On ASCII text this is exactly
  ``rouge-score``'s tokenizer.

Both split CJK ideographs and kana into one token per character (as MLQA's evaluation does for Chinese) and
everything else at white space.

>>> SQUAD.tokens("The Eiffel-Tower, in 1889!")
['eiffeltower', 'in', '1889']
>>> ROUGE.tokens("The Eiffel-Tower, in 1889!")
['the', 'eiffel', 'tower', 'in', '1889']
>>> SQUAD.tokens("北京是中国的首都。")
['北', '京', '是', '中', '国', '的', '首', '都']
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

__all__ = ["Normalization", "SQUAD", "ROUGE", "CJK_RANGES"]

CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x2FA1F),  # Extensions B-F and Compatibility Supplement
    (0x30000, 0x323AF),  # Extensions G-H
)
"""Code point ranges tokenised one character a token (Han ideographs, Hiragana, Katakana)."""

_ASCII_PUNCT = string.punctuation.encode("ascii")
_ASCII_NON_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())
_UPPER, _LOWER = string.ascii_uppercase.encode("ascii"), string.ascii_lowercase.encode("ascii")
_TO_LOWER = bytes.maketrans(_UPPER, _LOWER)
_TO_SPACE = bytes.maketrans(_ASCII_NON_ALNUM, b" " * len(_ASCII_NON_ALNUM))
_TO_LOWER_OR_SPACE = bytes.maketrans(_ASCII_NON_ALNUM + _UPPER, b" " * len(_ASCII_NON_ALNUM) + _LOWER)
_NOT_CONTROL = bytes(c for c in range(256) if not (c <= 0x08 or 0x0E <= c <= 0x1B or c == 0x7F))
"""Every byte but the ASCII controls that are neither word characters nor white space (``\\b`` differs there)."""
_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in CJK_RANGES)
_CJK_RE = re.compile(f"[{_CJK_CLASS}]")
_CJK_TOKENS_RE = re.compile(f"[{_CJK_CLASS}]|[^\\s{_CJK_CLASS}]+")


def _class_of(predicate) -> str:
    """A regex character class body holding every code point for which ``predicate(char)`` is true."""
    parts, start = [], None
    for cp in range(sys.maxunicode + 2):
        inside = cp <= sys.maxunicode and predicate(chr(cp))
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            parts.append(f"\\U{start:08x}" if cp - 1 == start else f"\\U{start:08x}-\\U{cp - 1:08x}")
            start = None
    return "".join(parts)


@cache
def _punctuation_re() -> re.Pattern:
    """Unicode punctuation (category P*) and ASCII ``string.punctuation`` (built on first use)."""
    ascii_punct = set(string.punctuation)
    return re.compile(
        "[" + _class_of(lambda c: c in ascii_punct or unicodedata.category(c).startswith("P")) + "]+"
    )


@cache
def _separator_re() -> re.Pattern:
    """Every character that is not a letter, a number or a combining mark (built on first use)."""
    return re.compile("[" + _class_of(lambda c: unicodedata.category(c)[0] not in "LNM") + "]+")


@dataclass(frozen=True)
class Normalization:
    """How answer text becomes tokens before it is compared.

    Parameters
    ----------
    unicode_form : {"NFKC", "NFC", "NFKD", "NFD"} or None
        Unicode normalisation applied first (``None``: none). NFKC folds full-width forms and ligatures.
    casefold : bool
        Apply :meth:`str.casefold` (full Unicode case folding: ``"Straße"`` matches ``"STRASSE"``).
    punctuation : {"remove", "split", "keep"}
        ``"remove"`` deletes Unicode punctuation (category ``P*``) and ASCII ``string.punctuation`` (SQuAD);
        ``"split"`` turns every character that is not a letter, digit or combining mark into a space
        (rouge-score); ``"keep"`` leaves the text as it is.
    articles : tuple of str
        Words removed as whole words after punctuation (SQuAD's ``\\b(a|an|the)\\b``); ``()`` keeps every word.
    cjk_characters : bool
        Tokenise Han ideographs and kana one character a token (see :data:`CJK_RANGES`); other text splits at
        white space.
    """

    unicode_form: Literal["NFKC", "NFC", "NFKD", "NFD"] | None = "NFKC"
    casefold: bool = True
    punctuation: Literal["remove", "split", "keep"] = "remove"
    articles: tuple[str, ...] = ("a", "an", "the")
    cjk_characters: bool = True
    _article_re: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _article_set: frozenset[str] = field(init=False, repr=False, compare=False, default=frozenset())

    def __post_init__(self) -> None:
        if self.unicode_form not in (None, "NFKC", "NFC", "NFKD", "NFD"):
            raise ValueError(f"unicode_form must be NFKC, NFC, NFKD, NFD or None, got {self.unicode_form!r}")
        if self.punctuation not in ("remove", "split", "keep"):
            raise ValueError(f"punctuation must be 'remove', 'split' or 'keep', got {self.punctuation!r}")
        if isinstance(self.articles, str) or not all(isinstance(a, str) and a for a in self.articles):
            raise TypeError(f"articles must be a tuple of non-empty words, got {self.articles!r}")
        object.__setattr__(self, "articles", tuple(self.articles))
        words = "|".join(re.escape(a) for a in sorted(self.articles, key=len, reverse=True))
        object.__setattr__(self, "_article_re", re.compile(rf"\b(?:{words})\b") if words else None)
        object.__setattr__(self, "_article_set", frozenset(self.articles))

    def tokens(self, text: str) -> list[str]:
        """The tokens of ``text``: normalised, then words (CJK: characters), articles removed."""
        if type(text) is not str:
            raise TypeError(f"expected a string, got {type(text).__name__}: {text!r:.80}")
        if text.isascii():
            return self._ascii_tokens(text)
        if self.unicode_form:
            text = unicodedata.normalize(self.unicode_form, text)
        if self.casefold:
            text = text.casefold()
        if self.punctuation == "remove":
            text = _punctuation_re().sub("", text)
        elif self.punctuation == "split":
            text = _separator_re().sub(" ", text)
        if self._article_re is not None:
            text = self._article_re.sub(" ", text)
        if self.cjk_characters and _CJK_RE.search(text):
            return _CJK_TOKENS_RE.findall(text)
        return text.split()

    def _ascii_tokens(self, text: str) -> list[str]:
        # ASCII is invariant under every Unicode normal form, and casefold() is lower() on it. After
        # "remove" or "split" only letters, digits, white space and control characters remain; without
        # control characters \b(a|an|the)\b matches exactly the whole tokens "a", "an", "the".
        data = text.encode("ascii")
        if self.punctuation == "remove":
            data = data.translate(_TO_LOWER if self.casefold else None, _ASCII_PUNCT)
        elif self.punctuation == "split":
            data = data.translate(_TO_LOWER_OR_SPACE if self.casefold else _TO_SPACE)
        elif self.casefold:
            data = data.translate(_TO_LOWER)
        text = data.decode("ascii")
        if self._article_re is not None and (self.punctuation == "keep" or data.translate(None, _NOT_CONTROL)):
            return self._article_re.sub(" ", text).split()
        tokens = text.split()
        articles = self._article_set
        if articles:
            return [t for t in tokens if t not in articles]
        return tokens

    def token_counts(self, text: str) -> tuple[Counter, int]:
        """``(Counter of the tokens, number of tokens)`` of ``text``: what token F1 compares."""
        if type(text) is str and text.isascii() and self.punctuation == "remove":
            data = text.encode("ascii").translate(_TO_LOWER if self.casefold else None, _ASCII_PUNCT)
            if not (self._article_re is not None and data.translate(None, _NOT_CONTROL)):
                tokens = data.decode("ascii").split()
                counts = Counter(tokens)
                n = len(tokens)
                for article in self.articles:
                    n -= counts.pop(article, 0)
                return counts, n
        tokens = self.tokens(text)
        return Counter(tokens), len(tokens)

    def normalize(self, text: str) -> str:
        """The normalised text: its tokens joined by single spaces (what exact match compares)."""
        return " ".join(self.tokens(text))

    def __repr__(self) -> str:
        return (
            f"Normalization(unicode_form={self.unicode_form!r}, casefold={self.casefold}, "
            f"punctuation={self.punctuation!r}, articles={self.articles!r}, cjk_characters={self.cjk_characters})"
        )


SQUAD = Normalization()
"""Exact match and token F1: SQuAD v1.1's normalisation, extended to Unicode and CJK."""

ROUGE = Normalization(punctuation="split", articles=())
"""ROUGE-L: rouge-score's tokenizer, extended to Unicode and CJK."""
