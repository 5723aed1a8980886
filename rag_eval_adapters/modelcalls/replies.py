"""Reading a model's reply: the JSON values it holds (in code fences or with prose around them), refusals, and
the bounded excerpt of a bad reply that a repair request sends back."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["is_refusal", "json_candidates", "reply_excerpt", "REPAIR_EXCERPT_CHARS"]

#: the most characters of a bad reply a repair request sends back (head and tail, the middle elided)
REPAIR_EXCERPT_CHARS = 2000

_REFUSAL = re.compile(
    r"^\W*(i'?m sorry|i am sorry|sorry,|i can(no|')t|i cannot|i am unable|i'm unable|i won'?t|as an ai|"
    r"unfortunately,? i|извините|к сожалению|я не могу|не могу|抱歉|对不起|很抱歉|我无法|我不能|无法)",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.IGNORECASE)


def is_refusal(text: str) -> bool:
    """True when ``text`` starts like a refusal ("I'm sorry", "I cannot", "Извините", "抱歉", ...)."""
    return bool(_REFUSAL.match(text.strip()))


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


def reply_excerpt(text: str, limit: int = REPAIR_EXCERPT_CHARS) -> str:
    """``text`` when it has at most ``limit`` characters, else its head and tail with the number of characters
    left out between them: what a repair request sends back of a bad reply, so a huge garbage reply never
    becomes a huge request."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - head - tail} characters left out ...]\n{text[-tail:]}"
