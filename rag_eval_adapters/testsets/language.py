"""A small, offline language guess for questions and chunks: the script first, then stop words.

Scripts decide most languages: Cyrillic (``ru``, or ``uk`` with Ukrainian letters), Han (``zh``; ``ja`` when
kana appear), Hangul (``ko``), Arabic, Hebrew, Greek, Devanagari, Thai. Latin-script texts are told apart by
stop words (en, de, fr, es, it, pt, nl); a Latin text with too few stop words is ``"latn"`` (undetermined
Latin language). :func:`same_language` is the generator's check: same script, and for Latin texts a
different guessed language only when both guesses are confident.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["CJK_CHAR_WEIGHT", "detect_language", "same_language", "script_of", "is_cjk", "text_length", "word_count"]

#: how many characters of an alphabetic script one Chinese, Japanese or Korean character counts as: a
#: two-sentence Chinese chunk of 40-60 characters says about what 150-250 English characters say
CJK_CHAR_WEIGHT = 4

_STOPWORDS = {
    "en": "the of and to in is are what which how why when who does do a an for on with this that be by from it as was were can",
    "de": "der die das und ist nicht ein eine zu den mit wie was warum wer welche im für von auf dem sich auch",
    "fr": "le la les et est des une un du en que qui pour dans pas sur au avec comment quel quelle pourquoi ce",
    "es": "el la los las y es de que en un una por con para como qué cuál cuándo del se al su lo",
    "it": "il lo la gli le e è di che un una per con come cosa quale perché del della non sono nel",
    "pt": "o a os as e é de que um uma para com como qual quando do da não em no na se",
    "nl": "de het een en is van dat wat welke hoe waarom niet op te met zijn voor in",
}
_WORDS = {lang: set(words.split()) for lang, words in _STOPWORDS.items()}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _script(ch: str) -> str | None:
    code = ord(ch)
    if 0x0400 <= code <= 0x052F:
        return "Cyrl"
    if 0x3040 <= code <= 0x30FF:
        return "Kana"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF:
        return "Hani"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "Hang"
    if 0x0600 <= code <= 0x06FF:
        return "Arab"
    if 0x0590 <= code <= 0x05FF:
        return "Hebr"
    if 0x0370 <= code <= 0x03FF:
        return "Grek"
    if 0x0900 <= code <= 0x097F:
        return "Deva"
    if 0x0E00 <= code <= 0x0E7F:
        return "Thai"
    if ch.isalpha() and "LATIN" in unicodedata.name(ch, ""):
        return "Latn"
    return None


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a Chinese, Japanese (kana) or Korean (Hangul) character."""
    return _script(ch) in ("Hani", "Kana", "Hang")


def text_length(text: str) -> int:
    """The length of ``text`` in non-blank characters, each CJK character counted :data:`CJK_CHAR_WEIGHT`
    times (so the chunk-length minimum does not penalise Chinese, Japanese or Korean text)."""
    cjk = sum(1 for ch in text if is_cjk(ch))
    return sum(1 for ch in text if not ch.isspace()) + (CJK_CHAR_WEIGHT - 1) * cjk


def word_count(text: str) -> float:
    """Words in ``text``: runs of letters or digits, each CJK character counted as half a word (a Chinese
    word is one to two characters long; those scripts do not separate words by spaces)."""
    cjk = sum(1 for ch in text if is_cjk(ch))
    other = "".join(" " if is_cjk(ch) else ch for ch in text)
    return len(re.findall(r"[^\W_]+", other)) + cjk / 2


def script_of(text: str) -> str | None:
    """The script most letters of ``text`` are written in (ISO 15924 code), kana counted with Han as
    Japanese; None for a text without letters."""
    counts: dict[str, int] = {}
    for ch in text:
        s = _script(ch)
        if s:
            counts[s] = counts.get(s, 0) + 1
    if not counts:
        return None
    if counts.get("Kana"):
        return "Jpan"
    return max(counts, key=lambda s: (counts[s], s))


_BY_SCRIPT = {"Hani": "zh", "Jpan": "ja", "Hang": "ko", "Arab": "ar", "Hebr": "he", "Grek": "el", "Deva": "hi",
              "Thai": "th"}


def _latin_guess(text: str) -> tuple[str, int, int]:
    words = [w.lower() for w in _WORD.findall(text)]
    scores = {lang: sum(1 for w in words if w in vocab) for lang, vocab in _WORDS.items()}
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    best, second = ranked[0], ranked[1]
    return best[0], best[1], best[1] - second[1]


def detect_language(text: str) -> str:
    """A language code for ``text``: ISO 639-1 when known, ``"latn"`` for an undetermined Latin-script
    language, ``"und"`` for a text without letters."""
    script = script_of(text)
    if script is None:
        return "und"
    if script == "Cyrl":
        return "uk" if re.search(r"[іїєґІЇЄҐ]", text) else "ru"
    if script in _BY_SCRIPT:
        return _BY_SCRIPT[script]
    if script != "Latn":
        return script.lower()
    lang, hits, margin = _latin_guess(text)
    return lang if hits >= 2 and margin >= 1 else "latn"


def same_language(question: str, chunk: str) -> bool:
    """Whether ``question`` is written in the language of ``chunk``: same script (Han and Japanese count as
    different), and for Latin script the stop-word guesses disagree only when both are confident (at least
    two stop words and a lead of two over the runner-up)."""
    qs, cs = script_of(question), script_of(chunk)
    if qs is None or cs is None:
        return qs == cs or qs is None
    if qs != cs:
        return False
    if qs != "Latn":
        return detect_language(question) == detect_language(chunk) if qs == "Cyrl" else True
    q_lang, q_hits, q_margin = _latin_guess(question)
    c_lang, c_hits, c_margin = _latin_guess(chunk)
    confident = q_hits >= 2 and q_margin >= 2 and c_hits >= 3 and c_margin >= 2
    return not confident or q_lang == c_lang
