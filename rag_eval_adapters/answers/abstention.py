"""Abstentions ("I don't know") and content words, in English, Russian, Chinese and a few more languages.

:func:`is_abstention` is the lexical fast path of abstention detection (the judge's claim split is the other:
an answer in which the judge finds no claim abstains too). :func:`content_tokens` gives a text's tokens after
the ``ROUGE`` normalisation (NFKC, case folding, punctuation to spaces, one token per CJK character) without
the stop words of :data:`STOP_WORDS`; the judges ask a quote to carry content with it.

>>> is_abstention("I don't know."), is_abstention("Не знаю"), is_abstention("我不知道。")
(True, True, True)
>>> is_abstention("I don't know why, but Paris is the capital.")
False
>>> content_tokens("The tower is in Paris")
['tower', 'paris']
"""

from __future__ import annotations

import re
import unicodedata

from .normalize import ROUGE

__all__ = ["is_abstention", "content_tokens", "STOP_WORDS", "ABSTENTION_PHRASES", "ABSTENTION_ANSWERS"]

#: the start of an answer that declines to answer, after NFKC, case folding and ``’`` -> ``'``
ABSTENTION_PHRASES: tuple[str, ...] = (
    # English
    "i don't know", "i do not know", "i dont know", "i'm not sure", "i am not sure", "i cannot answer",
    "i can't answer", "i can not answer", "i am unable to answer", "i'm unable to answer", "there is no information", "there is not enough information", "not enough information",
    "insufficient information", "the context does not", "the provided context does not", "the documents do not",
    "i could not find", "i couldn't find", "cannot be determined", "i have no information",
    # Russian
    "я не знаю", "не знаю", "не могу ответить", "нет информации", "недостаточно информации", "в контексте нет",
    "информации нет", "не удалось найти", "ответ неизвестен",
    # Chinese
    "我不知道", "不知道", "无法回答", "没有相关信息", "上下文中没有", "无法确定", "没有足够的信息", "信息不足", "我不确定",
    "不清楚",
    # French, German, Spanish
    "je ne sais pas", "ich weiß nicht", "ich weiss nicht", "no lo sé", "no sé",
)
#: whole answers that abstain (as a start they would also begin real answers: "No answer was given by ...")
ABSTENTION_ANSWERS: frozenset[str] = frozenset({"unknown", "n/a", "no answer", "none", "неизвестно", "нет ответа",
                                                "未知", "无", "no lo sé", "no sé", "keine ahnung"})
_SHORT = 160  # characters: an abstention is a short answer; a longer one is left to the judge's claim split
_DIGIT = re.compile(r"\d")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff]")  # a CJK phrase needs no word boundary after it

#: words that carry no content, by language (after case folding); CJK text is one token per character
STOP_WORDS: frozenset[str] = frozenset(
    # English
    "a an the and or but of to in on at by for with from as is are was were be been being it its this that these "
    "those there here he she they we you i his her their our your not no yes do does did has have had will would "
    "can could should may might must shall so than then too very also just which who whom what when where why how "
    "into onto over under about after before between up down out off again all any both each few more most other "
    "some such only own same s t e".split()
    # Russian
    + "и в во на не что он она оно они я ты мы вы с со как а то все всё так его ее её их к у же вы за бы по только "
    "от о об из ли если уже или ни быть был была было были есть это этот эта эти тот та те для до при над под без "
    "чем где когда там тут".split()
    # Chinese (single characters: CJK text is tokenised one character a token)
    + list("的了是在和有也就都而及与着或一个上这那之其为以于")
)


def _normalised(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.split()).strip(" \"'«»“”.!。！?？")


def is_abstention(text: str | None) -> bool:
    """Whether ``text`` declines to answer ("I don't know", "Не знаю", "我不知道", "The context does not say"):
    a short answer, without digits, that is one of :data:`ABSTENTION_ANSWERS` or starts with one of
    :data:`ABSTENTION_PHRASES` and goes on no further than a clause about the question or the context. False for an empty text (an empty answer is its own case)."""
    if not isinstance(text, str):
        return False
    norm = _normalised(text)
    if not norm or len(norm) > _SHORT or _DIGIT.search(norm):
        return False
    if norm in ABSTENTION_ANSWERS:
        return True
    for phrase in ABSTENTION_PHRASES:
        if norm.startswith(phrase):
            rest = norm[len(phrase):]
            if not rest or not rest[0].isalnum() or not phrase[-1].isalnum() or _CJK.match(phrase[-1]):
                return _no_second_statement(rest)
    return False


def _no_second_statement(rest: str) -> bool:
    """Whether what follows an abstention phrase adds no statement of its own ("..., but Paris is ...")."""
    return not re.search(r"[.!?。！？;；]\s*\S|,\s*(but|however|но|однако)\b|但", rest)


def content_tokens(text: str) -> list[str]:
    """The tokens of ``text`` (``ROUGE`` normalisation) that are not :data:`STOP_WORDS`."""
    return [t for t in ROUGE.tokens(text) if t not in STOP_WORDS]
