"""From a model reply to ``multi_hop`` and ``unanswerable`` test cases, verified rather than trusted.

A multi-hop question is kept only when it has exactly one verbatim quote from each of its two chunks, no chunk of
the corpus holds all its quotes, and neither chunk answers it alone (:func:`~.verify.answers_alone`, and the
judge when one is given). An unanswerable question is kept only when none of its top BM25 candidates (and the
question's own chunk) may answer it (:func:`~.verify.may_answer`), nor, when given, the embedder's nearest chunk
above its threshold or the judge. Every other outcome is a drop counted by reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..modelcalls import FATAL_STATUS, ModelCallError
from .build import (
    MAX_EVIDENCE_CHUNKS,
    MIN_EVIDENCE_WORDS,
    Corpus,
    Outcome,
    Settings,
    Task,
    query_id,
    reply_items,
    reply_text,
)
from .case import HOP_TYPES
from .chunks import Chunk
from .evidence import find_evidence
from .language import detect_language, same_language, word_count
from .lexical import NEAR_DUPLICATE_THRESHOLD, lexical_overlap, similarity
from .parsing import is_refusal, strip_preamble
from .testset import EvidenceSpan, TestCase
from .verify import CANDIDATES, CandidateIndex, answers_alone, may_answer

__all__ = ["Checks", "build_multi_hop_cases", "build_unanswerable_cases"]


@dataclass
class Checks:
    """What verifies the harder questions: the BM25 ``index`` over all chunks, an optional ``judge``
    (``judge(question, passage) -> bool``: the passage answers the question) and an optional ``nearest``
    (``nearest(question) -> [chunk ids]``: the chunks an embedder finds close enough to answer it)."""

    index: CandidateIndex
    judge: Callable[[str, str], bool] | None = None
    nearest: Callable[[str], list[str]] | None = None


def _question(item: dict[str, Any], kept: list[str], chunk_text: str, need_answer: bool) -> tuple[str | None, str]:
    """(drop reason or None, the cleaned question) for the checks every type shares."""
    raw = reply_text(item, "question")
    question = strip_preamble(raw)
    answer = reply_text(item, "answer")
    if not question:
        return ("preamble" if raw else "empty_question"), question
    if is_refusal(question) or (answer and is_refusal(answer)):
        return "refusal", question
    if need_answer and not answer:
        return "empty_answer", question
    if not same_language(question, chunk_text):
        return "wrong_language", question
    if any(similarity(question, other) >= NEAR_DUPLICATE_THRESHOLD for other in kept):
        return "near_duplicate", question
    return None, question


def _locate(quotes: list[str], pair: tuple[Chunk, Chunk], corpus: Corpus) -> tuple[str | None, list[Any]]:
    """(drop reason or None, the two matches in pair order): quote ``i`` must be found in chunk ``i`` of the pair,
    or the two in swapped order; never both in one chunk."""
    if len(quotes) != 2:
        return "evidence_count", []
    if any(word_count(q) < MIN_EVIDENCE_WORDS for q in quotes):
        return "evidence_too_short", []
    found = [[find_evidence(q, chunk.text) for chunk in pair] for q in quotes]
    for first, second in ((0, 1), (1, 0)):
        a, b = found[first][0], found[second][1]
        if a is not None and b is not None:
            return None, [a, b]
    if all(any(m is not None for m in row) for row in found):
        return "single_chunk_evidence", []  # both quotes come from the same chunk (or one quote given twice)
    missing = next(q for q, row in zip(quotes, found, strict=True) if all(m is None for m in row))
    elsewhere = corpus.occurrences(missing, pair[0])
    return ("evidence_outside_pair" if elsewhere else "evidence_not_found"), []


def _relevance(matches: list[Any], pair: tuple[Chunk, Chunk], corpus: Corpus) -> tuple[str | None, list[str],
                                                                                       list[EvidenceSpan]]:
    """(drop reason or None, relevant chunk ids, spans): every chunk holding a quote is relevant; a chunk holding
    all quotes makes the question single-chunk."""
    relevant: list[str] = []
    spans: list[EvidenceSpan] = []
    holders = []
    for match, source in zip(matches, pair, strict=True):
        occurrences = corpus.occurrences(match.text, source)
        if len(occurrences) > MAX_EVIDENCE_CHUNKS:
            return "evidence_too_common", [], []
        holders.append({chunk.chunk_id for chunk, _ in occurrences})
        for chunk, hits in occurrences:
            relevant.append(chunk.chunk_id)
            if chunk.doc_id is not None and chunk.start is not None:
                spans += [EvidenceSpan(chunk.doc_id, chunk.start + s, chunk.start + e) for s, e in hits]
    if holders[0] & holders[1]:
        return "single_chunk_evidence", [], []
    return None, list(dict.fromkeys(relevant)), list(dict.fromkeys(spans))


def judge_says_answered(judge: Callable[[str, str], bool], question: str, texts: list[str]) -> bool | None:
    """Whether the judge finds one of ``texts`` answering ``question``; None when its call failed after its
    retries (the question is dropped as ``call_failed``; a 401, 403 or 404 stops the run)."""
    try:
        return any(judge(question, text) for text in texts)
    except ModelCallError as exc:
        if exc.status_code in FATAL_STATUS:
            raise
        return None


def _needs_both(question: str, answer: str, pair: tuple[Chunk, Chunk], checks: Checks) -> str | None:
    """None when both chunks are needed, else the drop reason."""
    texts = [c.text for c in pair]
    if any(answers_alone(question, answer, text, texts) for text in texts):
        return "single_chunk_answerable"
    answered = False if checks.judge is None else judge_says_answered(checks.judge, question, texts)
    return "call_failed" if answered is None else "single_chunk_answerable" if answered else None


def build_multi_hop_cases(task: Task, reply: dict[str, Any], corpus: Corpus, settings: Settings,
                          kept_questions: list[str], checks: Checks) -> Outcome:
    """The verified ``multi_hop`` cases of one task's reply (its chunk and ``task.partner``); ``kept_questions``
    grows with the new ones."""
    assert task.partner is not None
    pair = (task.chunk, task.partner)
    out = Outcome()
    for index, item in enumerate(reply_items(reply, task.n, out) or []):
        reason, question = _question(item, kept_questions, task.chunk.text, need_answer=True)
        hop_type = reply_text(item, "hop_type").lower()
        if reason is None and hop_type not in HOP_TYPES:
            reason = "bad_hop_type"
        quotes = item.get("evidence")
        quotes = [reply_text({"q": q}, "q") for q in quotes] if isinstance(quotes, list) else [reply_text(item, "evidence")]
        matches: list[Any] = []
        if reason is None:
            reason, matches = _locate(quotes, pair, corpus)
        relevant: list[str] = []
        spans: list[EvidenceSpan] = []
        if reason is None:
            reason, relevant, spans = _relevance(matches, pair, corpus)
        answer = reply_text(item, "answer")
        if reason is None:
            reason = _needs_both(question, answer, pair, checks)
        if reason:
            out.dropped[reason] += 1
            continue
        kept_questions.append(question)
        flags = [] if all(m.exact for m in matches) else ["fuzzy_evidence"]
        out.cases.append(TestCase(
            query_id=query_id(f"{pair[0].chunk_id}+{pair[1].chunk_id}", task.qtype, index, settings), query=question,
            query_type=task.qtype, answer=answer, evidence=matches[0].text, expected_texts=[m.text for m in matches],
            relevant_chunk_ids=relevant, source_chunk_id=pair[0].chunk_id, evidence_spans=spans,
            language=detect_language(pair[0].text), lexical_overlap=round(lexical_overlap(
                question, pair[0].text + "\n" + pair[1].text), 6), model=settings.model,
            prompt_version=settings.prompt_version, temperature=settings.temperature, flags=flags,
            hop_type=hop_type, source_chunk_ids=[c.chunk_id for c in pair],
        ))
    return out


def confirm_unanswerable(question: str, chunk: Chunk, checks: Checks) -> list[str] | str | None:
    """The checks that confirm no chunk answers ``question`` (``["lexical"]``, with ``"embedding"`` and
    ``"judge"`` when given), or None when one finds a chunk that may answer it (``"call_failed"`` when the
    judge's call failed): the question's own chunk and the top :data:`~.verify.CANDIDATES` BM25 candidates are
    searched."""
    candidates = [chunk] + [c for c in checks.index.top(question, CANDIDATES) if c.chunk_id != chunk.chunk_id]
    if any(may_answer(question, c.text) for c in candidates):
        return None
    confirmed = ["lexical"]
    if checks.nearest is not None:
        if checks.nearest(question):
            return None
        confirmed.append("embedding")
    if checks.judge is not None:
        answered = judge_says_answered(checks.judge, question, [c.text for c in candidates])
        if answered is None:
            return "call_failed"
        if answered:
            return None
        confirmed.append("judge")
    return confirmed


def build_unanswerable_cases(task: Task, reply: dict[str, Any], settings: Settings, kept_questions: list[str],
                             checks: Checks) -> Outcome:
    """The confirmed ``unanswerable`` cases of one task's reply (``answerable`` false, no evidence, and
    ``confirmed_by`` the checks that confirmed each); ``kept_questions`` grows with the new ones."""
    out = Outcome()
    for index, item in enumerate(reply_items(reply, task.n, out) or []):
        reason, question = _question(item, kept_questions, task.chunk.text, need_answer=False)
        confirmed = None if reason else confirm_unanswerable(question, task.chunk, checks)
        if reason is None and not isinstance(confirmed, list):
            reason = confirmed or "answer_in_corpus"
        if reason or not isinstance(confirmed, list):
            out.dropped[reason or "answer_in_corpus"] += 1
            continue
        kept_questions.append(question)
        out.cases.append(TestCase(
            query_id=query_id(task.chunk.chunk_id, task.qtype, index, settings), query=question,
            query_type=task.qtype, answer="", source_chunk_id=task.chunk.chunk_id,
            language=detect_language(task.chunk.text), lexical_overlap=round(lexical_overlap(question, task.chunk.text), 6),
            model=settings.model, prompt_version=settings.prompt_version, temperature=settings.temperature,
            answerable=False, confirmed_by=confirmed, extra={"missing": reply_text(item, "missing")}
            if reply_text(item, "missing") else {},
        ))
    return out
