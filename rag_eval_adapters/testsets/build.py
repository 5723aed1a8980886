"""From a task's model reply to test cases: parsing, the quality filters (each drop counted by reason),
evidence location, relevant chunks and document spans."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..modelcalls import canonical_json
from .chunks import Chunk
from .evidence import contains_evidence, find_evidence, normalize_ws
from .language import detect_language, same_language, word_count
from .lexical import HIGH_OVERLAP, NEAR_DUPLICATE_THRESHOLD, lexical_overlap, similarity
from .parsing import ReplyError, is_refusal, parse_reply, strip_preamble
from .testset import EvidenceSpan, TestCase

__all__ = ["DROP_REASONS", "MIN_EVIDENCE_WORDS", "MAX_EVIDENCE_CHUNKS", "Task", "Corpus", "Settings", "query_id",
           "build_cases", "Outcome", "reply_items", "reply_text"]

#: the shortest evidence kept, in words (a CJK character counts as half a word: see ``language.word_count``)
MIN_EVIDENCE_WORDS = 3
#: evidence found in more chunks than this is dropped: it marks no passage as the relevant one
MAX_EVIDENCE_CHUNKS = 5

#: every reason a requested case can be dropped, as counted in ``TestSet.summary["dropped"]``
DROP_REASONS = (
    "call_failed",  # the model call failed after its retries (not journaled: a re-run tries again)
    "refusal",  # the model refused (API refusal, or a refusal as reply, question or answer)
    "unparseable",  # no JSON after one repair request
    "missing",  # the reply held fewer questions than asked
    "preamble",  # the question was only a preamble ("Here is a question:")
    "empty_question",
    "empty_answer",
    "evidence_too_short",  # the quote is shorter than MIN_EVIDENCE_WORDS words ("the", ".", "e")
    "evidence_not_found",  # the quote is not in the chunk (exact or fuzzy)
    "evidence_too_common",  # the quote is in more than MAX_EVIDENCE_CHUNKS chunks: it picks out no passage
    "wrong_language",  # the question is not in the chunk's language
    "near_duplicate",  # too similar to a question already kept
    "no_pair",  # multi_hop: no other chunk shares a rare term with the sampled one
    "bad_hop_type",  # multi_hop: hop_type is neither bridge nor comparison
    "evidence_count",  # multi_hop: not exactly two quotes
    "evidence_outside_pair",  # multi_hop: a quote is from a third chunk of the corpus
    "single_chunk_evidence",  # multi_hop: both quotes from one chunk (or one quote twice), or one chunk holds both
    "single_chunk_answerable",  # multi_hop: one of the two chunks answers the question alone
    "answer_in_corpus",  # unanswerable: a candidate chunk (BM25, embedding or judge) may answer it
    "not_enough_chunks",  # fewer eligible (chunk, type) pairs than requested cases
)


@dataclass(frozen=True)
class Settings:
    """The generator settings recorded with every case and hashed into query ids."""

    model: str
    prompt_version: str
    temperature: float | None


@dataclass(frozen=True)
class Task:
    """One request: ``n`` questions of ``qtype`` about ``chunk`` (and ``partner``, the second chunk of a
    ``multi_hop`` request)."""

    chunk: Chunk
    qtype: str
    n: int
    partner: Chunk | None = None

    def key(self, settings: Settings) -> str:
        """A stable id of this task under ``settings`` (journal key)."""
        ids: list[Any] = [self.chunk.chunk_id] if self.partner is None else [self.chunk.chunk_id,
                                                                              self.partner.chunk_id]
        text = canonical_json([*ids, self.qtype, self.n, settings.model, settings.prompt_version,
                               settings.temperature])
        return hashlib.sha256(text.encode("ascii")).hexdigest()[:24]


def query_id(chunk_id: str, qtype: str, index: int, settings: Settings) -> str:
    """Deterministic query id from the chunk id, question type, index and generator settings."""
    text = canonical_json([chunk_id, qtype, index, settings.model, settings.prompt_version, settings.temperature])
    return f"{qtype[:3]}-{hashlib.sha256(text.encode('ascii')).hexdigest()[:16]}"


class Corpus:
    """All chunks (not only the sampled ones), white-space normalised once, for finding every chunk that
    contains an evidence quote."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self._norm = [normalize_ws(c.text) for c in chunks]

    def occurrences(self, evidence: str, source: Chunk) -> list[tuple[Chunk, list[tuple[int, int]]]]:
        """``(chunk, [(start, end), ...])`` for each chunk containing ``evidence``, ``source`` first."""
        found = []
        for chunk, norm in zip(self.chunks, self._norm, strict=False):
            hits = contains_evidence(chunk.text, evidence, norm)
            if hits:
                found.append((chunk, hits))
        found.sort(key=lambda item: item[0].chunk_id != source.chunk_id)
        return found


@dataclass
class Outcome:
    """The cases built from one task and the drops, by reason."""

    cases: list[TestCase] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)


def reply_items(reply: dict[str, Any], n: int, out: Outcome) -> list[dict[str, Any]] | None:
    """The question objects of a reply (at most ``n``); drops counted in ``out`` (refusal, unparseable,
    missing)."""
    texts = reply.get("texts") or []
    if reply.get("refusal") or (texts and is_refusal(texts[0]) and "{" not in texts[0]):
        out.dropped["refusal"] += n
        return None
    for text in reversed(texts):  # the repaired reply, if any, else the first
        try:
            items = parse_reply(text)
        except ReplyError:
            continue
        if len(items) < n:
            out.dropped["missing"] += n - len(items)
        return items[:n]
    out.dropped["unparseable"] += n
    return None


def reply_text(item: dict[str, Any], key: str) -> str:
    """``item[key]`` as trimmed text (a number as its digits; anything else empty)."""
    value = item.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):  # an answer such as 1889
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _check(item: dict[str, Any], chunk: Chunk, kept: list[str]) -> tuple[str | None, str, Any]:
    """(drop reason or None, the cleaned question, the evidence match)."""
    raw = reply_text(item, "question")
    question = strip_preamble(raw)
    answer = reply_text(item, "answer")
    if not question:
        return ("preamble" if raw else "empty_question"), question, None
    if is_refusal(question) or is_refusal(answer):
        return "refusal", question, None
    if not answer:
        return "empty_answer", question, None
    evidence = reply_text(item, "evidence")
    if word_count(evidence) < MIN_EVIDENCE_WORDS:
        return "evidence_too_short", question, None
    match = find_evidence(evidence, chunk.text)
    if match is None or word_count(match.text) < MIN_EVIDENCE_WORDS:
        return "evidence_not_found", question, None
    if not same_language(question, chunk.text):
        return "wrong_language", question, None
    if any(similarity(question, other) >= NEAR_DUPLICATE_THRESHOLD for other in kept):
        return "near_duplicate", question, None
    return None, question, match


def build_cases(task: Task, reply: dict[str, Any], corpus: Corpus, settings: Settings,
                kept_questions: list[str]) -> Outcome:
    """The cases of one task's reply; ``kept_questions`` (questions kept so far) grows with the new ones."""
    out = Outcome()
    items = reply_items(reply, task.n, out)
    for index, item in enumerate(items or []):
        reason, question, match = _check(item, task.chunk, kept_questions)
        if reason:
            out.dropped[reason] += 1
            continue
        occurrences = corpus.occurrences(match.text, task.chunk)
        if len(occurrences) > MAX_EVIDENCE_CHUNKS:
            out.dropped["evidence_too_common"] += 1
            continue
        spans: list[EvidenceSpan] = []
        relevant = []
        for chunk, hits in occurrences:
            relevant.append(chunk.chunk_id)
            if chunk.doc_id is not None and chunk.start is not None:
                spans += [EvidenceSpan(chunk.doc_id, chunk.start + s, chunk.start + e) for s, e in hits]
        overlap = lexical_overlap(question, task.chunk.text)
        flags = ["high_overlap"] if task.qtype != "literal" and overlap >= HIGH_OVERLAP else []
        if not match.exact:
            flags.append("fuzzy_evidence")
        kept_questions.append(question)
        out.cases.append(TestCase(
            query_id=query_id(task.chunk.chunk_id, task.qtype, index, settings), query=question,
            query_type=task.qtype, answer=reply_text(item, "answer"), evidence=match.text, relevant_chunk_ids=relevant,
            source_chunk_id=task.chunk.chunk_id, evidence_spans=list(dict.fromkeys(spans)),
            language=detect_language(task.chunk.text), lexical_overlap=round(overlap, 6), model=settings.model,
            prompt_version=settings.prompt_version, temperature=settings.temperature, flags=flags,
        ))
    return out
