"""Lexical overlap of a question with its chunk, and near-duplicate questions.

*Content words* are the lower-cased word tokens (``\\w+``) of a text minus stop words (English, Russian,
German, French, Spanish and question words), and for Han/kana/Hangul text every character not in a short list
of function characters. ``lexical_overlap(query, chunk)`` is the share of the query's distinct content words
that occur in the chunk (0.0 when the query has none): 1.0 means every content word was copied from the chunk.

Two questions are near-duplicates when the Jaccard similarity of their character 3-gram sets (lower-cased,
punctuation dropped, white space collapsed) is at least :data:`NEAR_DUPLICATE_THRESHOLD` (0.8).
"""

from __future__ import annotations

import re

__all__ = ["content_words", "content_tokens", "lexical_overlap", "NEAR_DUPLICATE_THRESHOLD", "similarity", "HIGH_OVERLAP"]

NEAR_DUPLICATE_THRESHOLD = 0.8
#: a paraphrase or scenario question with at least this lexical overlap reads like a literal one (flagged)
HIGH_OVERLAP = 0.8

_STOP = set(
    """a an the of and or to in on at for with by from as is are was were be been being do does did what which who
    whom whose when where why how this that these those it its there their they them can could should would will
    may might must not no yes if than then so about into over under between according text passage chunk say says
    и в во не на с со что как а то по из за у от для о об ли же бы к ко до при это этот эта эти который которая
    какой какая какие каков чем где когда почему зачем кто ли или но да нет был была были быть есть ещё уже
    der die das und oder ist sind war ein eine einer zu den dem des mit von im auf für wie was warum wer welche
    le la les et ou est sont un une des du de en au aux que qui quoi quel quelle pour dans sur par avec comment
    el la los las y o es son un una de del que en por con para como qué cuál cuándo dónde""".split()
)
_CJK_FUNCTION = set("的了是在和有与及或也都就而吗呢吧啊么什怎哪谁个这那些其之于为把被从对向以并且中上下一")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)


def content_tokens(text: str) -> list[str]:
    """The content words of ``text`` in order, repeated as often as they occur (see the module docstring)."""
    out = []
    for token in _TOKEN.findall(text.lower()):
        if _CJK.fullmatch(token):
            if token not in _CJK_FUNCTION:
                out.append(token)
        elif token not in _STOP and not token.isdigit() or token.isdigit() and len(token) > 1:
            out.append(token)
    return out


def content_words(text: str) -> set[str]:
    """The distinct content words of ``text`` (see the module docstring)."""
    return set(content_tokens(text))


def lexical_overlap(query: str, chunk: str) -> float:
    """Share of the query's content words that occur in ``chunk``, in [0, 1]."""
    words = content_words(query)
    if not words:
        return 0.0
    return len(words & content_words(chunk)) / len(words)


def _grams(text: str) -> set[str]:
    clean = " ".join(_PUNCT.sub(" ", text.lower()).split())
    if len(clean) < 3:
        return {clean} if clean else set()
    return {clean[i : i + 3] for i in range(len(clean) - 2)}


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the character 3-gram sets of two questions."""
    ga, gb = _grams(a), _grams(b)
    if not ga or not gb:
        return 1.0 if ga == gb else 0.0
    return len(ga & gb) / len(ga | gb)
