"""The benchmark's inputs: documents (not yet chunked) and test cases, read and checked.

Documents come from a JSONL file (one ``{"doc_id" | "id", "text"}`` object a line) or a folder of
``.txt`` / ``.md`` files (the file's path relative to the folder is its id). Test cases come from a
test-set JSONL (as ``rag-eval generate`` writes it, or written by hand): each line has ``query_id``,
``query``, optionally ``query_type`` (``literal``, ``paraphrase``, ``scenario``; default ``literal``) and
``answer``, and its relevance in at least one of three forms:

* ``evidence_spans``: ``[{"doc_id", "start", "end"}]`` character offsets into the documents (the best:
  they survive any re-chunking);
* ``expected_texts`` (or ``evidence``): texts a relevant chunk contains, judged by the core text matcher;
* ``relevant_chunk_ids``: ids of chunks, valid only for the chunking they came from.

Every malformed line is a ``ValueError`` naming the file, the line number and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Document", "Span", "Case", "load_documents", "load_cases", "cases_from_records", "sha256_text"]

QUERY_TYPES = ("literal", "paraphrase", "scenario")
PathLike = str | Path


def sha256_text(text: str) -> str:
    """The SHA-256 hex digest of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Document:
    """One source document: its id and its full text."""

    doc_id: str
    text: str

    def __repr__(self) -> str:
        return f"Document(doc_id={self.doc_id!r}, chars={len(self.text)})"


@dataclass(frozen=True)
class Span:
    """Characters ``[start, end)`` of document ``doc_id``: a piece of evidence."""

    doc_id: str
    start: int
    end: int


@dataclass(frozen=True)
class Case:
    """One test question with its reference answer and its relevance (spans, texts or chunk ids)."""

    query_id: str
    query: str
    query_type: str = "literal"
    answer: str | None = None
    spans: tuple[Span, ...] = ()
    expected_texts: tuple[str, ...] = ()
    chunk_ids: tuple[str, ...] = ()
    line: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def evidence(self) -> list[str]:
        """The evidence as texts, for reading (span texts are filled in by the benchmark)."""
        return list(self.expected_texts)


# ------------------------------------------------------------------------------------------ documents


def load_documents(source: PathLike | Iterable[Any]) -> list[Document]:
    """Documents from a JSONL file, a folder of ``.txt``/``.md`` files, or an iterable of records.

    Records are :class:`Document` objects or mappings with ``doc_id`` (or ``id``) and ``text``.
    Raises ``ValueError`` on a missing or duplicate id, an empty text, or a malformed line.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            docs = _folder_documents(path)
        elif path.is_file():
            docs = [_document(row, f"{path}:{n}") for n, row in _jsonl_rows(path)]
        else:
            raise ValueError(f"documents not found: {path} is neither a JSONL file nor a folder")
    else:
        docs = [d if isinstance(d, Document) else _document(d, f"documents[{i}]") for i, d in enumerate(source)]
    seen: set[str] = set()
    for doc in docs:
        if doc.doc_id in seen:
            raise ValueError(f"document id {doc.doc_id!r} appears twice; every document needs its own id")
        seen.add(doc.doc_id)
    if not docs:
        raise ValueError(f"no documents found in {source}")
    return docs


def _folder_documents(path: Path) -> list[Document]:
    docs = []
    for file in sorted(p for p in path.rglob("*") if p.suffix.lower() in (".txt", ".md") and p.is_file()):
        text = file.read_text(encoding="utf-8")
        if text.strip():
            docs.append(Document(file.relative_to(path).as_posix(), text))
    return docs


def _document(row: Any, where: str) -> Document:
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: a document is an object with \"doc_id\" and \"text\", got {type(row).__name__}")
    doc_id = row.get("doc_id", row.get("id"))
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise ValueError(f"{where}: field \"doc_id\" (or \"id\") must be a non-empty string, got {doc_id!r}")
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: field \"text\" of document {doc_id!r} must be a non-empty string")
    return Document(doc_id, text)


def _jsonl_rows(path: Path):
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({getattr(exc, 'msg', exc)})") from None
            yield number, row


# ------------------------------------------------------------------------------------------ test cases


def load_cases(path: PathLike) -> list[Case]:
    """The test cases of a test-set JSONL file (see the module docstring); errors name the line."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"test set not found: {p}")
    cases = [_case(row, f"{p}:{number}", number) for number, row in _jsonl_rows(p)]
    return _checked(cases, str(p))


def cases_from_records(records: Iterable[Any]) -> list[Case]:
    """Test cases from mappings shaped like test-set lines (or :class:`Case` objects)."""
    cases = [r if isinstance(r, Case) else _case(r, f"testset[{i}]", None) for i, r in enumerate(records)]
    return _checked(cases, "the test set")


def _checked(cases: list[Case], where: str) -> list[Case]:
    if not cases:
        raise ValueError(f"{where} holds no test case")
    seen: dict[str, int | None] = {}
    for case in cases:
        if case.query_id in seen:
            raise ValueError(f"{where}: query_id {case.query_id!r} appears twice (line {seen[case.query_id]} "
                             f"and line {case.line})")
        seen[case.query_id] = case.line
    return cases


def _string(row: Mapping[str, Any], name: str, where: str, required: bool = True) -> str | None:
    value = row.get(name)
    if value is None and not required:
        return None
    if isinstance(value, (int,)) and not isinstance(value, bool) and name == "query_id":
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: field {name!r} must be a non-empty string, got {value!r}")
    return value


def _strings(row: Mapping[str, Any], name: str, where: str) -> tuple[str, ...]:
    value = row.get(name)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: field {name!r} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _spans(row: Mapping[str, Any], where: str) -> tuple[Span, ...]:
    value = row.get("evidence_spans")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"{where}: field 'evidence_spans' must be a list of {{doc_id, start, end}}, got {value!r}")
    spans = []
    for i, item in enumerate(value):
        name = f"evidence_spans[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("doc_id"), str):
            raise ValueError(f"{where}: field {name!r} must be an object with a string \"doc_id\", got {item!r}")
        start, end = item.get("start"), item.get("end")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not 0 <= start < end:
            raise ValueError(f"{where}: field {name!r} needs integer offsets 0 <= start < end, got "
                             f"start={start!r}, end={end!r}")
        spans.append(Span(item["doc_id"], start, end))
    return tuple(spans)


def _case(row: Any, where: str, line: int | None) -> Case:
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: a test case is a JSON object, got {type(row).__name__}")
    query_id = _string(row, "query_id", where)
    query = _string(row, "query", where)
    query_type = _string(row, "query_type", where, required=False) or "literal"
    if query_type not in QUERY_TYPES:
        raise ValueError(f"{where}: field 'query_type' must be one of {', '.join(QUERY_TYPES)}, got {query_type!r}")
    answer = _string(row, "answer", where, required=False)
    spans = _spans(row, where)
    texts = _strings(row, "expected_texts", where) or _strings(row, "evidence", where)
    chunk_ids = _strings(row, "relevant_chunk_ids", where)
    if not (spans or texts or chunk_ids):
        raise ValueError(f"{where}: query {query_id!r} has no relevance: give 'evidence_spans', "
                         "'expected_texts' (or 'evidence') or 'relevant_chunk_ids'")
    known = {"query_id", "query", "query_type", "answer", "evidence_spans", "expected_texts", "evidence",
             "relevant_chunk_ids"}
    extra = {k: v for k, v in row.items() if k not in known}
    return Case(query_id, query, query_type, answer, spans, texts, chunk_ids, line, extra)


def check_spans(cases: Sequence[Case], documents: Sequence[Document]) -> None:
    """Raise ``ValueError`` when a span names an unknown document or runs past its end."""
    lengths = {d.doc_id: len(d.text) for d in documents}
    for case in cases:
        where = f"line {case.line}: " if case.line else ""
        for i, span in enumerate(case.spans):
            if span.doc_id not in lengths:
                raise ValueError(f"{where}query {case.query_id!r}: evidence_spans[{i}] names document "
                                 f"{span.doc_id!r}, which is not among the documents")
            if span.end > lengths[span.doc_id]:
                raise ValueError(f"{where}query {case.query_id!r}: evidence_spans[{i}] ends at {span.end}, past "
                                 f"the end of document {span.doc_id!r} ({lengths[span.doc_id]} characters)")
