"""Reading the generator's reply: its questions (JSON, tolerating code fences and text around it) and
preambles; refusal detection and JSON extraction live in :mod:`rag_eval_adapters.modelcalls.replies`
(re-exported here)."""

from __future__ import annotations

import re
from typing import Any

from ..modelcalls.replies import is_refusal, json_candidates

__all__ = ["parse_reply", "is_refusal", "strip_preamble", "ReplyError", "json_candidates"]

_PREAMBLE = re.compile(
    r"^\W*(here (is|are)|here's|sure|certainly|of course|okay|ok,|below (is|are)|the following|as requested|"
    r"question( \d+)?\s*:?\s*$|вот |конечно|ниже |以下是|好的|当然|下面是)",
    re.IGNORECASE,
)


class ReplyError(ValueError):
    """The reply holds no usable JSON object."""


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
