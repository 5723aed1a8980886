"""``TestCase``: one test question with its answer and its relevance, and the one set of rules that reads it.

A generated case and a hand-written test-set line are the same record. Only ``query_id`` and ``query`` are
required, with the relevance in at least one of three forms:

* ``evidence_spans``: ``[{"doc_id", "start", "end"}]`` character offsets into the documents (they survive any
  re-chunking);
* ``evidence`` (one text, or a list) or ``expected_texts``: texts a relevant chunk contains;
* ``relevant_chunk_ids`` (or ``expected_ids``): ids of chunks, valid only for the chunking they came from.

``query_type`` is one of :data:`QUESTION_TYPES` (default ``literal``). Every other field the generator writes
(``answer``, ``source_chunk_id``, ``language``...) is optional; unknown fields are kept in ``extra``.

Two types are harder than the single-chunk ones (:data:`SINGLE_CHUNK_TYPES`): ``multi_hop`` needs one evidence
quote from each of two chunks (``expected_texts``, ``source_chunk_ids``) and says how in ``hop_type``
(:data:`HOP_TYPES`: ``bridge`` or ``comparison``); ``unanswerable`` has no answer in the corpus: its
``answerable`` is false (exactly for this type), it has no evidence and no relevant chunk, and ``confirmed_by``
names the checks that confirmed it (:data:`UNANSWERABLE_CHECKS`). Lines written before these fields existed
read as they did (``answerable`` defaults to false for ``unanswerable`` and true otherwise, ``hop_type`` to
none).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["QUESTION_TYPES", "SINGLE_CHUNK_TYPES", "HOP_TYPES", "UNANSWERABLE_CHECKS", "EvidenceSpan", "TestCase",
           "case_from_record", "check_case"]

SINGLE_CHUNK_TYPES = ("literal", "paraphrase", "scenario")
"""The types answered by one chunk: what ``generate_testset`` asks for by default."""
QUESTION_TYPES = (*SINGLE_CHUNK_TYPES, "multi_hop", "unanswerable")
"""The question types, in generation order: the one definition (generator, bench, CLI)."""
HOP_TYPES = ("bridge", "comparison")
"""How a ``multi_hop`` question joins its two chunks: a fact of one leads to the other, or two things compared."""
UNANSWERABLE_CHECKS = ("lexical", "embedding", "judge")
"""The checks that can confirm an ``unanswerable`` question (recorded in ``confirmed_by``)."""

_NOT_STORED = ("line", "extra")
_OMITTED_WHEN_DEFAULT: dict[str, Any] = {"hop_type": None, "answerable": True, "confirmed_by": [], "source_chunk_ids": []}


@dataclass(frozen=True)
class EvidenceSpan:
    """Where the evidence lies in a document: ``doc_id`` and character offsets ``start``..``end`` (end
    exclusive), so ``document_text[start:end] == evidence`` up to white space."""

    doc_id: str
    start: int
    end: int


@dataclass
class TestCase:
    """One test question with its answer and evidence (the fields of one test-set JSONL line).

    ``relevant_chunk_ids`` lists every chunk whose text contains the evidence (the source chunk first);
    ``expected_ids`` repeats it so the line is also a qrels / ``evaluate_dataset`` row. ``expected_texts`` are
    further texts a relevant chunk contains (hand-written sets). ``lexical_overlap`` is the share of the
    query's content words found in the source chunk; ``flags`` holds ``"high_overlap"`` for a paraphrase or
    scenario as lexical as a literal question and ``"fuzzy_evidence"`` when the quote was matched fuzzily;
    ``retriever_rank`` the 1-based rank of the source chunk for the query when a retriever was given.
    ``hop_type`` (``multi_hop`` only), ``answerable`` (false exactly for ``unanswerable``), ``confirmed_by``
    (the checks that confirmed an unanswerable question) and ``source_chunk_ids`` (the chunks a multi-hop
    question was written from) are written only when they differ from their defaults, so single-chunk lines
    are unchanged.
    ``line`` is the file line the case was read from (None otherwise) and ``extra`` the fields not listed here.
    """

    __test__ = False  # not a pytest class

    query_id: str
    query: str
    query_type: str = "literal"
    answer: str = ""
    evidence: str = ""
    relevant_chunk_ids: list[str] = field(default_factory=list)
    source_chunk_id: str = ""
    evidence_spans: list[EvidenceSpan] = field(default_factory=list)
    expected_texts: list[str] = field(default_factory=list)
    language: str = "und"
    lexical_overlap: float = 0.0
    model: str = ""
    prompt_version: str = ""
    temperature: float | None = None
    flags: list[str] = field(default_factory=list)
    retriever_rank: int | None = None
    hop_type: str | None = None
    answerable: bool = True
    confirmed_by: list[str] = field(default_factory=list)
    source_chunk_ids: list[str] = field(default_factory=list)
    line: int | None = field(default=None, compare=False, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def expected_ids(self) -> list[str]:
        """The relevant chunk ids (the name qrels readers and ``evaluate_dataset`` use)."""
        return list(self.relevant_chunk_ids)

    @property
    def texts(self) -> list[str]:
        """The evidence as texts a relevant chunk contains: ``expected_texts``, else ``[evidence]``."""
        return list(self.expected_texts) or ([self.evidence] if self.evidence else [])

    def to_dict(self) -> dict[str, Any]:
        """The JSONL record (with ``expected_ids``, and the ``extra`` fields it was read with)."""
        out: dict[str, Any] = dict(self.extra)
        for f in fields(self):
            if f.name not in _NOT_STORED:
                value = getattr(self, f.name)
                if f.name in _OMITTED_WHEN_DEFAULT and value == _OMITTED_WHEN_DEFAULT[f.name]:
                    continue
                out[f.name] = list(value) if isinstance(value, list) else value
        out["evidence_spans"] = [{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in self.evidence_spans]
        out["expected_ids"] = self.expected_ids
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> TestCase:
        """A case from its JSONL record (see the module docstring); a bad field raises ValueError naming
        ``where`` and the field."""
        return case_from_record(data, where)


def _string(row: Mapping[str, Any], name: str, where: str, default: str | None = None) -> str:
    value = row.get(name)
    if value is None and default is not None:
        return default
    if name == "query_id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or (default is None and not value.strip()):
        need = "a non-empty string" if default is None else "a string"
        raise ValueError(f"{where}: field {name!r} must be {need}, got {value!r:.80}")
    return value


def _strings(row: Mapping[str, Any], name: str, where: str, one: bool = True) -> list[str]:
    value = row.get(name)
    if value is None:
        return []
    if isinstance(value, str) and one:
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: field {name!r} must be a list of non-empty strings, got {value!r:.80}")
    return list(value)


def _spans(row: Mapping[str, Any], where: str) -> list[EvidenceSpan]:
    value = row.get("evidence_spans")
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where}: field 'evidence_spans' must be a list of {{doc_id, start, end}}, got {value!r:.80}")
    spans = []
    for i, item in enumerate(value):
        name = f"evidence_spans[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("doc_id"), str):
            raise ValueError(f"{where}: field {name!r} must be an object with a string \"doc_id\", got {item!r:.80}")
        start, end = item.get("start"), item.get("end")
        if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool) \
                or not 0 <= start < end:
            raise ValueError(f"{where}: field {name!r} needs integer offsets 0 <= start < end, got "
                             f"start={start!r}, end={end!r}")
        spans.append(EvidenceSpan(item["doc_id"], start, end))
    return list(dict.fromkeys(spans))


def _number(row: Mapping[str, Any], name: str, where: str, kind: type, default: Any,
            low: float, high: float = math.inf) -> Any:
    value = row.get(name, default)
    if value is None or value is default:
        return value
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (kind is int and value != int(value)) or not low <= value <= high:
        what = "an integer" if kind is int else "a finite number"
        bound = f" >= {low:g}" if high == math.inf else f" in [{low:g}, {high:g}]"
        raise ValueError(f"{where}: field {name!r} must be {what}{bound}, got {value!r:.80}")
    return kind(value)


def _flag(row: Mapping[str, Any], name: str, where: str, default: bool) -> bool:
    value = row.get(name, default)
    if not isinstance(value, bool):
        raise ValueError(f"{where}: field {name!r} must be true or false, got {value!r:.80}")
    return value


_FIELDS = {f.name for f in fields(TestCase)} | {"expected_ids"}


def case_from_record(row: Any, where: str = "record", line: int | None = None) -> TestCase:
    """A :class:`TestCase` from one record (a mapping shaped like a test-set line, see the module docstring).

    Raises ValueError naming ``where`` and the field for a record that is not an object, a missing query or
    id, an unknown query type, a malformed field, or no relevance at all.
    """
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: a test case is a JSON object (or a TestCase), got {type(row).__name__}")
    query_id = _string(row, "query_id", where)
    query = _string(row, "query", where)
    query_type = _string(row, "query_type", where, default="literal") or "literal"
    evidence = [] if row.get("evidence") == "" else _strings(row, "evidence", where)
    texts = _strings(row, "expected_texts", where) or (evidence if len(evidence) > 1 else [])
    chunk_ids = _strings(row, "relevant_chunk_ids", where) or _strings(row, "expected_ids", where)
    spans = _spans(row, where)
    flags = _strings(row, "flags", where, one=False)
    return check_case(TestCase(
        query_id=query_id, query=query, query_type=query_type, answer=_string(row, "answer", where, default=""),
        evidence=evidence[0] if evidence else "", relevant_chunk_ids=chunk_ids,
        source_chunk_id=_string(row, "source_chunk_id", where, default=chunk_ids[0] if chunk_ids else ""),
        evidence_spans=spans, expected_texts=texts, language=_string(row, "language", where, default="und"),
        lexical_overlap=_number(row, "lexical_overlap", where, float, 0.0, 0.0, 1.0),
        model=_string(row, "model", where, default=""), prompt_version=_string(row, "prompt_version", where, default=""),
        temperature=_number(row, "temperature", where, float, None, 0.0), flags=flags,
        retriever_rank=_number(row, "retriever_rank", where, int, None, 1),
        hop_type=_string(row, "hop_type", where, default="") or None, answerable=_flag(row, "answerable", where, query_type != "unanswerable"),
        confirmed_by=_strings(row, "confirmed_by", where, one=False),
        source_chunk_ids=_strings(row, "source_chunk_ids", where, one=False), line=line,
        extra={k: v for k, v in row.items() if k not in _FIELDS},
    ), where)


def check_case(case: TestCase, where: str) -> TestCase:
    """``case`` itself once its question type is one of :data:`QUESTION_TYPES`, its ``answerable`` is false
    exactly when the type is ``unanswerable`` (then with no evidence and no relevant chunk), ``hop_type`` is one
    of :data:`HOP_TYPES` exactly for ``multi_hop``, no evidence span is shorter than its (one) evidence text, and
    an answerable case has some relevance (spans, evidence texts or chunk ids); otherwise ValueError naming
    ``where``."""
    if case.query_type not in QUESTION_TYPES:
        raise ValueError(f"{where}: field 'query_type' must be one of {', '.join(QUESTION_TYPES)}, "
                         f"got {case.query_type!r}")
    _check_harder_fields(case, where)
    if case.evidence and not case.expected_texts:
        shortest = len(" ".join(case.evidence.split()))
        for i, span in enumerate(case.evidence_spans):
            if span.end - span.start < shortest:
                raise ValueError(f"{where}: field 'evidence_spans[{i}]' covers {span.end - span.start} characters, "
                                 f"fewer than its evidence ({shortest}): the span is truncated")
    if case.answerable and not (case.evidence_spans or case.texts or case.relevant_chunk_ids):
        raise ValueError(f"{where}: query {case.query_id!r} has no relevance: give 'evidence_spans', 'evidence' "
                         "(or 'expected_texts') or 'relevant_chunk_ids'")
    return case


def _check_harder_fields(case: TestCase, where: str) -> None:
    """The rules of ``answerable``, ``hop_type`` and ``confirmed_by`` (see :func:`check_case`)."""
    unanswerable = case.query_type == "unanswerable"
    if case.answerable == unanswerable:
        raise ValueError(f"{where}: field 'answerable' must be {str(not unanswerable).lower()} for query_type "
                         f"{case.query_type!r} (false exactly when the type is 'unanswerable')")
    if unanswerable and (case.evidence or case.expected_texts or case.relevant_chunk_ids or case.evidence_spans):
        raise ValueError(f"{where}: an 'unanswerable' question has no evidence: fields 'evidence', 'expected_texts', "
                         "'relevant_chunk_ids' and 'evidence_spans' must be empty")
    if case.query_type == "multi_hop" and case.hop_type not in HOP_TYPES:
        raise ValueError(f"{where}: field 'hop_type' must be one of {', '.join(HOP_TYPES)} for a multi_hop "
                         f"question, got {case.hop_type!r}")
    if case.query_type != "multi_hop" and case.hop_type is not None:
        raise ValueError(f"{where}: field 'hop_type' is for multi_hop questions only (query_type "
                         f"{case.query_type!r})")
    unknown = [c for c in case.confirmed_by if c not in UNANSWERABLE_CHECKS]
    if unknown:
        raise ValueError(f"{where}: field 'confirmed_by' holds {unknown[0]!r}; the checks are "
                         f"{', '.join(UNANSWERABLE_CHECKS)}")
