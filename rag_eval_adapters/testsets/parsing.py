"""Reading the model's reply: JSON (tolerating code fences and text around it), refusals and preambles."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["parse_reply", "is_refusal", "strip_preamble", "ReplyError", "json_candidates"]

_REFUSAL = re.compile(
    r"^\W*(i'?m sorry|i am sorry|sorry,|i can(no|')t|i cannot|i am unable|i'm unable|i won'?t|as an ai|"
    r"unfortunately,? i|извините|к сожалению|я не могу|не могу|抱歉|对不起|很抱歉|我无法|我不能|无法)",
    re.IGNORECASE,
)
_PREAMBLE = re.compile(
    r"^\W*(here (is|are)|here's|sure|certainly|of course|okay|ok,|below (is|are)|the following|as requested|"
    r"question( \d+)?\s*:?\s*$|вот |конечно|ниже |以下是|好的|当然|下面是)",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.IGNORECASE)


class ReplyError(ValueError):
    """The reply holds no usable JSON object."""


def is_refusal(text: str) -> bool:
    """True when ``text`` starts like a refusal ("I'm sorry", "I cannot", "Извините", "抱歉", ...)."""
    return bool(_REFUSAL.match(text.strip()))


def strip_preamble(question: str) -> str:
    """``question`` without leading lines that announce rather than ask ("Here is a question:", "Sure!",
    "Вот вопрос:", "以下是问题："); empty when nothing else is left."""
    lines = [line.strip() for line in question.strip().splitlines() if line.strip()]
    while lines and (_PREAMBLE.match(lines[0]) and (lines[0].rstrip().endswith((":", "：", "!")) or len(lines) > 1
                                                   or "?" not in lines[0] and "？" not in lines[0])):
        lines.pop(0)
    return " ".join(lines)


def parse_reply(text: str) -> list[dict[str, Any]]:
    """The list of ``{"question", "answer", "evidence"}`` objects in a reply: the JSON object (or array) in
    the text, inside a code fence or with words around it. Raises :class:`ReplyError` when there is none."""
    for data in json_candidates(text):
        if isinstance(data, dict):
            for key in ("questions", "cases", "items", "results"):
                if isinstance(data.get(key), list):
                    data = data[key]
                    break
            else:
                data = [data] if "question" in data else None
        if isinstance(data, list) and all(isinstance(x, dict) for x in data):
            return data
    raise ReplyError('no JSON object {"questions": [...]} found in the reply')


def json_candidates(text: str) -> list[Any]:
    """The JSON values a model's reply may hold, most likely first: the first JSON object or array inside each
    code fence, then the first one in the whole text (words around it are ignored). Empty when there is none
    (prose, or JSON cut off before its end)."""
    out = []
    for candidate in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        data = _first_json(candidate)
        if data is not None:
            out.append(data)
    return out


def _first_json(text: str) -> Any:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        return value
    return None
