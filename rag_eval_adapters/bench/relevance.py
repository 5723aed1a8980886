"""Relevance that survives re-chunking: judgments for the chunks of one chunking, from each case's evidence.

The rule, in order of preference for a case:

1. **Evidence spans** (``{doc_id, start, end}``): a chunk is relevant when its characters overlap a span of
   its document. Its grade is the share of the span it covers, in percent rounded up
   (``ceil(100 * overlap / span length)``, so any overlap is at least 1 and a chunk holding the whole span is
   100); with several spans the chunk takes its best share. Binary metrics count every grade >= 1 as relevant;
   nDCG uses the grades as (linear) gains, so a chunk that holds all the evidence ranks ideal before one that
   holds a fragment. A span cut by a chunk boundary makes both chunks relevant, each with its share;
   overlapping chunks that both hold the span are both relevant.
2. **Expected texts** (``expected_texts`` or ``evidence``): a chunk is relevant (grade 1) when the core text
   matcher (:func:`rag_eval_adapters.matching.contains_match`) matches it with an expected text.
3. **Chunk ids** (``relevant_chunk_ids``): grade 1 for each id, accepted only when every id is a chunk of this
   chunking; ids of another chunking are refused with a ``ValueError`` that says how to fix the test set.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from ..matching import contains_match
from ..testsets import TestCase
from .chunking import Chunk

__all__ = ["span_grades", "judge_case", "build_qrels", "relevance_source"]


def span_grades(chunks: Sequence[Chunk], spans: Sequence) -> dict[str, int]:
    """``{chunk_id: grade}`` for the chunks overlapping any span (grade = percent of the span covered, >= 1)."""
    by_doc: dict[str, list] = defaultdict(list)
    for span in spans:
        by_doc[span.doc_id].append(span)
    grades: dict[str, int] = {}
    for chunk in chunks:
        best = 0
        if chunk.doc_id is None:  # a chunk of no known document overlaps no evidence span
            continue
        for span in by_doc.get(chunk.doc_id, ()):
            overlap = min(chunk.end, span.end) - max(chunk.start, span.start)
            if overlap > 0:
                best = max(best, math.ceil(100 * overlap / (span.end - span.start)))
        if best:
            grades[chunk.chunk_id] = min(best, 100)
    return grades


def relevance_source(case: TestCase) -> str:
    """Which evidence judges ``case``: ``"spans"``, ``"texts"`` or ``"chunk_ids"``."""
    if case.evidence_spans:
        return "spans"
    return "texts" if case.texts else "chunk_ids"


def judge_case(case: TestCase, chunks: Sequence[Chunk], chunking: str, chunk_ids: set[str] | None = None) -> dict[str, int]:
    """The judgments ``{chunk_id: grade}`` of one case for the chunks of one chunking (see the module doc)."""
    source = relevance_source(case)
    if source == "spans":
        return span_grades(chunks, case.evidence_spans)
    if source == "texts":
        return {c.chunk_id: 1 for c in chunks if any(contains_match(c.text, t) for t in case.texts)}
    known = chunk_ids if chunk_ids is not None else {c.chunk_id for c in chunks}
    unknown = [c for c in case.relevant_chunk_ids if c not in known]
    if unknown:
        where = f"line {case.line}: " if case.line else ""
        raise ValueError(
            f"{where}query {case.query_id!r}: relevant_chunk_ids {unknown[:3]} are not chunks of chunking "
            f"{chunking!r}; chunk ids judge only the chunking they came from. Give evidence_spans (or the "
            "evidence text) to compare chunkings, or benchmark that chunking only"
        )
    return {c: 1 for c in case.relevant_chunk_ids}


def build_qrels(cases: Sequence[TestCase], chunks: Sequence[Chunk], chunking: str) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """``({query_id: {chunk_id: grade}}, {query_id: reason})`` under one chunking.

    A case that no chunk of the chunking is relevant to (an expected text that every chunk boundary cuts,
    say) cannot be scored: it is left out of the judgments and listed with the reason, never scored 0.
    """
    ids = {c.chunk_id for c in chunks}
    qrels: dict[str, dict[str, int]] = {}
    unjudged: dict[str, str] = {}
    for case in cases:
        grades = judge_case(case, chunks, chunking, ids)
        if grades:
            qrels[case.query_id] = grades
        else:
            unjudged[case.query_id] = (f"no chunk of {chunking!r} matches its {relevance_source(case)}: "
                                       "it is left out of this chunking's scores")
    return qrels, unjudged
