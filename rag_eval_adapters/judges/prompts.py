"""The judges' prompts (shown in docs/judges.md). Changing any prompt changes :data:`PROMPT_VERSION`, which is
part of every cache key and named in every report.

Three prompts: :data:`RELEVANCE_PROMPT` grades a passage 0-3 for a query (the scale of UMBRELA, the TREC RAG
track's automatic assessor); :data:`CLAIMS_PROMPT` splits a text into claims (the model does it, in any
language: nothing is split on punctuation); :data:`VERIFY_PROMPT` checks numbered claims against numbered
context chunks, asking for the chunk id and a verbatim quote for each supported claim. Every prompt states the
JSON form of its reply, so models without structured output still know it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

__all__ = [
    "PROMPT_VERSION", "RELEVANCE_PROMPT", "CLAIMS_PROMPT", "VERIFY_PROMPT", "REPAIR_PROMPT",
    "relevance_messages", "claims_messages", "verify_messages", "repair_messages",
]

PROMPT_VERSION = "judges-v1"

RELEVANCE_PROMPT = """\
You are a search quality assessor. Given a query and a passage, grade how well the passage answers the query,
on this scale:
3 = the passage is dedicated to the query and contains the answer.
2 = the passage partly answers the query: the answer is incomplete, unclear, or hidden among other information.
1 = the passage is related to the query but does not answer it.
0 = the passage has nothing to do with the query.
Judge only what the passage says, whatever its language; do not use your own knowledge, and do not reward
length. Reply with JSON only, in this form:
{"reasoning": "<one short sentence>", "grade": <0, 1, 2 or 3>}"""

CLAIMS_PROMPT = """\
Split the text into the factual claims it makes. Each claim is one short, self-contained statement that can be
checked on its own: replace pronouns by what they refer to, and keep numbers, names and dates exact. Write
each claim in the language of the text. Leave out greetings, questions, hedges and statements with no factual
content. When the text makes no factual claim (for example "I don't know" or a refusal), return an empty list.
Reply with JSON only, in this form:
{"claims": ["<claim>", "<claim>"]}"""

VERIFY_PROMPT = """\
Check each numbered claim against the context chunks, using only what the chunks say (not your own knowledge):
- "supported": a chunk states the claim or it follows directly from a chunk;
- "contradicted": a chunk states something that makes the claim false;
- "not_found": the chunks neither support nor contradict it.
For "supported" (and for "contradicted" when you can) give "chunk_id", the id of the chunk, and "quote", a
short passage copied exactly, character for character, from that chunk, that shows it. Give one verdict per
claim, in order. Reply with JSON only, in this form:
{"verdicts": [{"claim": 1, "verdict": "supported", "chunk_id": "<id>", "quote": "<exact words>"}]}"""

REPAIR_PROMPT = """\
Your reply could not be used: {error}. Reply again with only the JSON object, exactly in the form the
instructions give, and nothing else."""


def _tag(name: str, text: str) -> str:
    return f"<{name}>\n{text}\n</{name}>"


def relevance_messages(query: str, passage: str) -> list[dict[str, str]]:
    """The request grading ``passage`` for ``query``."""
    return [{"role": "system", "content": RELEVANCE_PROMPT},
            {"role": "user", "content": _tag("query", query) + "\n" + _tag("passage", passage)}]


def claims_messages(text: str, question: str | None = None) -> list[dict[str, str]]:
    """The request splitting ``text`` into claims; ``question`` (what the text answers) resolves references."""
    user = (_tag("question", question) + "\n" if question else "") + _tag("text", text)
    return [{"role": "system", "content": CLAIMS_PROMPT}, {"role": "user", "content": user}]


def verify_messages(claims: Sequence[str], chunks: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The request checking numbered ``claims`` against ``chunks`` (``(chunk_id, text)`` pairs)."""
    context = "\n".join(f"<chunk id={json.dumps(cid, ensure_ascii=False)}>\n{text}\n</chunk>" for cid, text in chunks)
    numbered = "\n".join(f"{i}. {claim}" for i, claim in enumerate(claims, 1))
    return [{"role": "system", "content": VERIFY_PROMPT},
            {"role": "user", "content": _tag("context", context) + "\n" + _tag("claims", numbered)}]


def repair_messages(messages: list[dict[str, str]], bad_reply: str, error: str) -> list[dict[str, str]]:
    """The one follow-up request sent when a reply could not be parsed into the expected form."""
    return [*messages, {"role": "assistant", "content": bad_reply},
            {"role": "user", "content": REPAIR_PROMPT.format(error=error[:300])}]
