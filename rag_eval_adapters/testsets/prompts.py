"""The generation prompts (shown in docs/testsets.md). Changing a prompt changes :data:`PROMPT_VERSION`,
which is part of every query id and cache key."""

from __future__ import annotations

from .case import QUESTION_TYPES

__all__ = ["PROMPT_VERSION", "QUESTION_TYPES", "SYSTEM_PROMPT", "TYPE_INSTRUCTIONS", "build_messages",
           "repair_messages", "REPAIR_PROMPT", "MULTI_HOP_PROMPT", "UNANSWERABLE_PROMPT", "build_multi_hop_messages",
           "build_unanswerable_messages"]

PROMPT_VERSION = "testsets-v1"

SYSTEM_PROMPT = """\
You write evaluation questions for a search system. You are given one passage (a chunk of a document).
Write questions that a user could ask and that this passage answers.
Rules:
- Write every question, answer and quote in the same language as the passage.
- The answer must be fully supported by the passage.
- "evidence" is an exact, verbatim quote copied from the passage (one or two sentences) that contains the answer.
- Write the question itself only: no numbering, no introduction such as "Here is a question".
- Reply with JSON only, in this form:
{"questions": [{"question": "...", "answer": "...", "evidence": "..."}]}"""

TYPE_INSTRUCTIONS = {
    "literal": "Ask the question using the passage's own key words, as someone who knows the terms would.",
    "paraphrase": (
        "Ask for the same information in other words: use synonyms and a different sentence structure; do not "
        "reuse the passage's distinctive terms where a common word will do."
    ),
    "scenario": (
        "Describe a short, concrete situation of a user (one or two sentences) that needs this information, "
        "and end with the user's question. Do not quote the passage; the user does not know its wording."
    ),
}

MULTI_HOP_PROMPT = """\
You write evaluation questions for a search system. You are given two passages (chunks of documents).
Write questions that need BOTH passages: a reader of only one of them cannot answer.
Rules:
- Write every question, answer and quote in the same language as the passages.
- "hop_type" is "bridge" when a fact of one passage is needed to find the answer in the other, or
  "comparison" when the question compares two things, one described in each passage.
- "evidence" holds exactly two exact, verbatim quotes: the first copied from passage 1, the second from
  passage 2 (one or two sentences each), together supporting the answer.
- Write the question itself only: no numbering, no introduction such as "Here is a question".
- Reply with JSON only, in this form:
{"questions": [{"question": "...", "answer": "...", "hop_type": "bridge", "evidence": ["...", "..."]}]}"""

UNANSWERABLE_PROMPT = """\
You write evaluation questions for a search system. You are given one passage (a chunk of a document).
Write questions that a user of this collection could plausibly ask about the passage's subject, but that
the passage does NOT answer and that the collection is unlikely to answer: ask for a detail the passage does not
give (a date, a number, a cause, a comparison it does not make). Do not ask about something the passage states.
Rules:
- Write every question in the same language as the passage.
- "missing" says in a few words which information the question needs that the passage lacks.
- Write the question itself only: no numbering, no introduction such as "Here is a question".
- Reply with JSON only, in this form:
{"questions": [{"question": "...", "missing": "..."}]}"""

REPAIR_PROMPT = (
    "Your reply could not be read as JSON. Reply again with only the JSON object, exactly in this form and "
    'nothing else: {"questions": [{"question": "...", "answer": "...", "evidence": "..."}]}'
)


def build_messages(chunk_text: str, question_type: str, n: int) -> list[dict[str, str]]:
    """The chat messages asking for ``n`` questions of ``question_type`` about ``chunk_text``."""
    if question_type not in TYPE_INSTRUCTIONS:
        raise ValueError(f"question type must be one of {', '.join(QUESTION_TYPES)}; got {question_type!r}")
    user = (
        f"Question type: {question_type}\n{TYPE_INSTRUCTIONS[question_type]}\n"
        f"Write {n} question(s) about this passage.\n<chunk>\n{chunk_text}\n</chunk>"
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def build_multi_hop_messages(first: str, second: str, n: int) -> list[dict[str, str]]:
    """The chat messages asking for ``n`` multi-hop questions that need both chunk texts."""
    user = (f"Question type: multi_hop\nWrite {n} question(s) that need both passages.\n"
            f"<chunk>\n{first}\n</chunk>\n<chunk2>\n{second}\n</chunk2>")
    return [{"role": "system", "content": MULTI_HOP_PROMPT}, {"role": "user", "content": user}]


def build_unanswerable_messages(chunk_text: str, n: int) -> list[dict[str, str]]:
    """The chat messages asking for ``n`` plausible questions about ``chunk_text``'s subject that it does not
    answer."""
    user = (f"Question type: unanswerable\nWrite {n} question(s) that this passage does not answer.\n"
            f"<chunk>\n{chunk_text}\n</chunk>")
    return [{"role": "system", "content": UNANSWERABLE_PROMPT}, {"role": "user", "content": user}]


def repair_messages(messages: list[dict[str, str]], bad_reply: str) -> list[dict[str, str]]:
    """The one follow-up request sent when a reply is not valid JSON."""
    return [*messages, {"role": "assistant", "content": bad_reply}, {"role": "user", "content": REPAIR_PROMPT}]
