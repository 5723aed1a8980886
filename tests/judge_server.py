"""The local OpenAI-compatible server playing a judge, for the judges' tests.

:func:`judge_content` answers the three judge prompts of :mod:`rag_eval_adapters.judges` deterministically,
the way a careful model would, so tests can predict every score:

* relevance: the share of the query's words (CJK: characters) found in the passage gives the grade: 3 from
  0.75, 2 from 0.5, 1 above 0, else 0;
* claims: the text's sentences (the *server* splits on punctuation, as a stand-in for the model; the package
  never does); a text starting "I don't know" has none;
* verdicts: a claim found in a chunk (white space collapsed, end punctuation dropped) is supported, quoted
  verbatim; a claim that is a chunk's sentence with a negation added ("not", "не", "不") is contradicted;
  anything else is not found.

Every scripted fault of :mod:`openai_server` still works (``queue``/``on_prompt``: replies, refusals, 429,
500, slow answers). The ``judge_server`` fixture (``tests/conftest.py``) starts a server answering with it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rag_eval_adapters.judges import CLAIMS_PROMPT, RELEVANCE_PROMPT, VERIFY_PROMPT

__all__ = ["judge_content", "sentences", "tag"]

_SENT = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NEGATION = re.compile(r"\s+not\b|\s+не\b|不")


def tag(name: str, text: str) -> str:
    """The content of ``<name>...</name>`` in ``text`` ('' when absent)."""
    found = re.search(rf"<{name}>\n(.*?)\n</{name}>", text, re.S)
    return found.group(1) if found else ""


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (end punctuation kept)."""
    return [s.strip() for s in _SENT.findall(text) if len(s.strip()) > 1]


def _words(text: str) -> set[str]:
    return set(_CJK.findall(text)) | {w for w in re.findall(r"\w+", text.casefold()) if not _CJK.search(w)}


def _bare(text: str) -> str:
    return " ".join(text.split()).rstrip(".!?。！？").casefold()


def _grade(query: str, passage: str) -> dict[str, Any]:
    wanted = _words(query)
    share = len(wanted & _words(passage)) / len(wanted) if wanted else 0.0
    grade = 3 if share >= 0.75 else 2 if share >= 0.5 else 1 if share > 0 else 0
    return {"reasoning": f"{share:.2f} of the query's words are in the passage", "grade": grade}


def _verdict(number: int, claim: str, chunks: list[tuple[str, str]]) -> dict[str, Any]:
    wanted = _bare(claim)
    for cid, text in chunks:
        collapsed = " ".join(text.split())
        at = collapsed.casefold().find(wanted)
        if wanted and at >= 0:
            return {"claim": number, "verdict": "supported", "chunk_id": cid, "quote": collapsed[at:at + len(wanted)]}
    positive = _bare(_NEGATION.sub("", claim, count=1))
    for cid, text in chunks:
        if positive != wanted and positive in _bare(text):
            return {"claim": number, "verdict": "contradicted", "chunk_id": cid, "quote": None}
    return {"claim": number, "verdict": "not_found", "chunk_id": None, "quote": None}


def judge_content(body: dict[str, Any]) -> str:
    """The judge's answer to a judges' prompt (see the module docstring); "OK" to anything else."""
    messages = body.get("messages") or []
    system = messages[0].get("content", "") if messages else ""
    user = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
    if system == RELEVANCE_PROMPT:
        return json.dumps(_grade(tag("query", user), tag("passage", user)), ensure_ascii=False)
    if system == CLAIMS_PROMPT:
        text = tag("text", user)
        claims = [] if text.lower().startswith("i don't know") else sentences(text)
        return json.dumps({"claims": claims}, ensure_ascii=False)
    if system == VERIFY_PROMPT:
        chunks = re.findall(r'<chunk id=("(?:[^"\\]|\\.)*")>\n(.*?)\n</chunk>', tag("context", user), re.S)
        pairs = [(json.loads(cid), text) for cid, text in chunks]
        claims = re.findall(r"^(\d+)\. (.*)$", tag("claims", user), re.M)
        return json.dumps({"verdicts": [_verdict(int(n), c, pairs) for n, c in claims]}, ensure_ascii=False)
    return "OK"

