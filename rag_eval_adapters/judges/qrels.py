"""``fill_judgments``: LLM grades for the retrieved documents that have no judgment, each judgment labelled
with where it came from."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..validation import check_count
from .agreement import Agreement, agreement
from .judge import LLMJudge
from .results import JudgeResult

__all__ = ["FilledQrels", "fill_judgments", "LLM_SOURCE"]

#: the source label of a judgment made by the LLM judge
LLM_SOURCE = "llm"


@dataclass(frozen=True)
class FilledQrels:
    """Qrels completed by an LLM judge.

    Attributes
    ----------
    qrels : dict
        ``{query_id: {doc_id: grade}}``: the given judgments and the LLM grades (0-3, or binary with
        ``binary_threshold``). Pairs the judge could not grade stay unjudged.
    sources : dict
        ``{query_id: {doc_id: source}}`` for every judgment in ``qrels``: the given source label (``"given"``,
        ``"evidence_span"``...) or ``"llm"``.
    results : dict
        ``{(query_id, doc_id): JudgeResult}`` of every pair the judge was asked about (audited ones too).
    unmeasured : dict
        ``{(query_id, doc_id): reason}`` of the pairs left unjudged.
    agreement : Agreement or None
        Given labels against LLM grades where both exist (``audit`` pairs); None when there are none.
    judge : dict
        The judge model, prompt version and structured-output mode.
    """

    qrels: dict[Hashable, dict[Hashable, int]]
    sources: dict[Hashable, dict[Hashable, str]]
    results: dict[tuple[Hashable, Hashable], JudgeResult]
    unmeasured: dict[tuple[Hashable, Hashable], str]
    agreement: Agreement | None
    judge: dict[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Judgments by source, and the pairs left ``unmeasured``."""
        out: dict[str, int] = {}
        for docs in self.sources.values():
            for source in docs.values():
                out[source] = out.get(source, 0) + 1
        out["unmeasured"] = len(self.unmeasured)
        return out


def _ranked(docs: Mapping[Hashable, float], depth: int) -> list[Hashable]:
    """The top ``depth`` documents in trec_eval's order (score descending, ties by doc id descending)."""
    return [d for d, _ in sorted(docs.items(), key=lambda kv: (kv[1], str(kv[0])), reverse=True)[:depth]]


def _text_of(source: Mapping[Hashable, str] | Callable[[Hashable], str], key: Hashable, what: str) -> str:
    try:
        text = source(key) if callable(source) else source[key]
    except KeyError:
        raise ValueError(f"no text for {what} {key!r}: give every retrieved {what}'s text") from None
    if not isinstance(text, str):
        raise TypeError(f"the text of {what} {key!r} must be a string, got {type(text).__name__}")
    return text


def fill_judgments(
    qrels: Mapping[Hashable, Mapping[Hashable, int]],
    run: Mapping[Hashable, Mapping[Hashable, float]],
    judge: LLMJudge,
    depth: int = 10,
    *,
    queries: Mapping[Hashable, str] | Callable[[Hashable], str],
    documents: Mapping[Hashable, str] | Callable[[Hashable], str],
    source: str | Mapping[Hashable, Mapping[Hashable, str]] = "given",
    audit: int = 0,
    relevant_grade: int = 2,
    binary_threshold: int | None = None,
    grade_map: Mapping[int, int] | None = None,
) -> FilledQrels:
    """Grade, with ``judge``, the documents retrieved within ``depth`` that have no judgment.

    Parameters
    ----------
    qrels : mapping
        ``{query_id: {doc_id: grade}}``, the judgments there are.
    run : mapping
        ``{query_id: {doc_id: score}}``; its top ``depth`` documents per query (trec_eval's order) are looked at.
    judge : LLMJudge
        The judge; pairs are graded concurrently through its limiter and cache.
    depth : int
        How deep in each ranking to fill (>= 1).
    queries, documents : mapping or callable
        The text of each query id and document id (only those to grade are read).
    source : str or mapping
        The source label of the given judgments (``"given"``, ``"evidence_span"``), or one per judgment.
    audit : int
        Also grade up to this many already-judged pairs within ``depth`` (in rank order across queries), to
        measure agreement; their given labels are kept.
    relevant_grade : int
        The lowest LLM grade that counts as relevant in the agreement (1-3; default 2, "partly answers").
    binary_threshold : int, optional
        Store LLM grades as 1 (grade >= threshold) or 0, to match binary qrels; default the grade 0-3.
    grade_map : mapping, optional
        ``{llm grade: stored grade}`` for each of 0-3, to match the given labels' scale (e.g. the benchmark's
        percent-of-span grades: ``{0: 0, 1: 0, 2: 50, 3: 100}``); not with ``binary_threshold``.

    Returns
    -------
    FilledQrels
    """
    if not isinstance(judge, LLMJudge):
        raise TypeError(f"judge must be an LLMJudge, got {type(judge).__name__}")
    depth, audit = check_count(depth, "depth"), check_count(audit, "audit", minimum=0)
    for name, value in (("relevant_grade", relevant_grade), ("binary_threshold", binary_threshold)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3):
            raise ValueError(f"{name} must be an int from 1 to 3, got {value!r}")
    if grade_map is not None:
        if binary_threshold is not None:
            raise ValueError("give binary_threshold or grade_map, not both")
        if sorted(grade_map) != [0, 1, 2, 3] or any(isinstance(v, bool) or not isinstance(v, int)
                                                     for v in grade_map.values()):
            raise ValueError(f"grade_map must map each grade 0, 1, 2, 3 to an int, got {dict(grade_map)!r}")
    filled = {q: dict(docs) for q, docs in qrels.items()}
    sources = {q: {d: (source if isinstance(source, str) else source.get(q, {}).get(d, "given")) for d in docs}
               for q, docs in filled.items()}
    todo: list[tuple[Hashable, Hashable]] = []
    audited: list[tuple[Hashable, Hashable]] = []
    for qid, docs in run.items():
        for doc in _ranked(docs, depth):
            if doc not in filled.get(qid, {}):
                todo.append((qid, doc))
            elif len(audited) < audit:
                audited.append((qid, doc))
    pairs = todo + audited
    items = [{"query": _text_of(queries, q, "query"), "passage": _text_of(documents, d, "document")} for q, d in pairs]
    results = dict(zip(pairs, judge.judge_many("relevance", items), strict=True)) if items else {}
    unmeasured = {}
    for q, d in todo:
        result = results[(q, d)]
        if result.grade is None:
            unmeasured[(q, d)] = result.unmeasured or "invalid_output"
            continue
        grade = (grade_map[result.grade] if grade_map is not None else result.grade if binary_threshold is None
                 else int(result.grade >= binary_threshold))
        filled.setdefault(q, {})[d] = grade
        sources.setdefault(q, {})[d] = LLM_SOURCE
    both = [(qrels[q][d], given) for q, d in audited if (given := results[(q, d)].grade) is not None]
    agreed = agreement([g for g, _ in both], [r for _, r in both], relevant_grade) if both else None
    return FilledQrels(filled, sources, results, unmeasured, agreed, judge.describe())
